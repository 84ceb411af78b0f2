"""How to Play: a turn is an Attack (answered by a Defend) or a Recover; then the turn ends."""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import EngineEvent, Randomness
from services.rules.games.frozen import but, replace

from . import computer
from .cards import HAND_SIZE
from .content import hero
from .legality import build_defense, can_attack
from .modes import after_ko, finish
from .resolution import Resolution, resolve, resume
from .state import (
    DEFEND,
    OVER,
    PICK,
    SHIELDS,
    TURN,
    Defense,
    Resolving,
    Side,
    State,
    event,
    resolving,
)

Events = tuple[EngineEvent, ...]


def recover_draws(side: Side) -> bool:
    """A Recover now would draw at least one card."""
    return bool(side.deck) and len(side.hand) < HAND_SIZE


def may_recover(state: State, side: Side) -> bool:
    """Recover is always legal ("you must take one of the following actions"). Engine 1.1.0
    refused a Recover that drew nothing while an Attack was possible."""
    if state.rules.recover_always:
        return True
    return recover_draws(side) or not can_attack(side.hand)


def out_of_cards(side: Side) -> bool:
    """Engine 1.1.0's "run out of cards": the player can neither Attack (no card usable when
    Attacking) nor draw (deck empty, or a full hand that only a Defend could empty). The
    Computer has run out when its deck is empty."""
    if side.computer:
        return not side.deck
    return not can_attack(side.hand) and not recover_draws(side)


def ran_out(side: Side) -> bool:
    """The FAQ: "If either player runs out of cards, they have no resources to continue and
    can no longer Attack": the deck is empty ("You do not shuffle your deck") and no card in
    hand can Attack. The Computer has run out when its deck is empty."""
    if side.computer:
        return not side.deck
    return not side.deck and not can_attack(side.hand)


def stuck(side: Side) -> bool:
    """A player who cannot Attack and whose Recover draws nothing (a full hand of cards that
    only Defend), though cards are left in the deck. Alone it changes nothing: being Attacked
    lets them Defend and so draw again."""
    return not side.computer and not can_attack(side.hand) and not recover_draws(side)


def game_over_without_ko(state: State) -> str | None:
    """Why the game ends in a double KO at the start of a turn, or ``None``."""
    if state.rules.legacy:
        if all(out_of_cards(side) for side in state.sides):
            return "both players ran out of cards (neither can Attack or draw): double KO"
        return None
    sides = state.sides
    if not (_spent(sides[0]) and _spent(sides[1])):  # the usual case, asked first
        return None
    if ran_out(sides[0]) and ran_out(sides[1]):
        return "both players ran out of cards before either was KO'd: double KO"
    return ("neither player can Attack or draw ever again (no resources to continue, "
            "as when both run out of cards): double KO")


def _spent(side: Side) -> bool:
    """``ran_out(side) or stuck(side)``, asking ``can_attack`` once."""
    if side.computer:
        return not side.deck
    return not can_attack(side.hand) and (not side.deck or not recover_draws(side))


def pick_hero(state: State, seat: int, chosen: str) -> tuple[State, Events]:
    picks = list(state.picks)
    picks[seat] = chosen
    state = replace(state, picks=(picks[0], picks[1]))
    events: list[EngineEvent] = [
        event("hero_picked", {"side": seat, "hero": chosen}, frozenset({seat})),
        event("hero_pick_made", {"side": seat}),
    ]
    if "" in picks:
        return state, tuple(events)
    sides = tuple(replace(side, hero=pick, bench=tuple(h for h in side.bench if h != pick))
                  for side, pick in zip(state.sides, picks))
    events.append(event("heroes_revealed", {"heroes": picks}))
    return replace(state, sides=(sides[0], sides[1]), phase=TURN), tuple(events)


def attack(state: State, cards: tuple[str, ...], rng: Randomness) -> tuple[State, Events]:
    att = state.active
    side = state.sides[att]
    hand = tuple([i for i in side.hand if i not in cards])
    sides = _sides_with(state.sides, att, replace(side, hand=hand))
    events = (event("attacked", {"side": att, "cards": list(cards)}),)
    if not sides[1 - att].computer:
        return replace(state, sides=sides, in_play=cards, mirror=False, phase=DEFEND), events
    flips = computer.DEFEND_FLIPS[state.difficulty]
    cpu, answer, flipped = computer.defense(sides[1], cards, flips)
    state = replace(state, sides=_sides_with(sides, 1, cpu), in_play=cards, mirror=False,
                    phase=DEFEND)
    flip_event = event("computer_defends", {"flipped": list(flipped)})
    state, more = settle(state, answer, rng)
    return state, events + (flip_event,) + more


def defend(state: State, seat: int, action: dict[str, Any],
           rng: Randomness) -> tuple[State, Events]:
    sides = state.sides
    if action["type"] == "pass":
        answer = _PASSED
        events: Events = (event("passed", {"side": seat}),)
    else:
        cards = tuple(action["cards"])
        targets = tuple(action.get("targets") or ())
        side = sides[seat]
        answer = build_defense(hero(side.hero), cards, targets)
        sides = _sides_with(sides, seat, replace(
            side, hand=tuple([i for i in side.hand if i not in cards])))
        events = (event("defended", {"side": seat, "cards": list(cards),
                                           "targets": list(targets)}),)
    # The resolution starts from the sides as the defence leaves them (no state of its own).
    state, more = _resolve(state, resolving(sides, answer), rng)
    return state, events + more


_PASSED = Defense()
"""The answer of a defender who passes (an immutable value, the same every time)."""


def recover(state: State, rng: Randomness) -> tuple[State, Events]:
    seat = state.active
    side = state.sides[seat]
    drawn = side.deck[:max(0, HAND_SIZE - len(side.hand))]
    changes: dict[str, Any] = {"deck": side.deck[len(drawn):], "hand": side.hand + drawn}
    events: list[EngineEvent] = [
        event("recovered", {"side": seat, "drew": len(drawn)}),
        event("drew", {"side": seat, "cards": list(drawn), "source": "recover"},
                    frozenset({seat})),
    ]
    ability = hero(side.hero).ability
    if ability.type == "heal_on_recover":
        healed = min(25, side.health + ability.amount)
        events.append(event("healed", {"side": seat, "healed": healed - side.health,
                                             "health": healed, "source": "hero ability"}))
        changes["health"] = healed
    training = state.solo and state.difficulty == "training" and mirrored(state, side, drawn)
    state, more = next_turn(state, rng, sides=_sides_with(state.sides, seat, replace(side, **changes)),
                            mirror=training)
    return state, tuple(events) + more


def mirrored(state: State, side: Side, drawn: tuple[str, ...]) -> bool:
    """Training: does the Computer recover after this Recover ("If you (the player) decide to
    recover, the Computer Hero will also recover")? After every Recover the player chose
    (1.3.0): one that drew a card, or one made while a card in hand could Attack. Not after a
    Recover forced on a player who could not Attack and drew nothing: that is no decision,
    and mirroring it would stall the game for ever. Engines 1.1.0 and 1.2.0 mirrored only a
    Recover that drew a card."""
    if drawn:
        return True
    return state.rules.mirror_chosen_recover and can_attack(side.hand)


def settle(state: State, answer: Defense, rng: Randomness) -> tuple[State, Events]:
    """Resolve the Attack in play, put every played card on its discard pile, end the turn."""
    return _resolve(state, resolving(state.sides, answer), rng)


def spend_shields(state: State, spend: int, rng: Randomness) -> tuple[State, Events]:
    """The damaged player's answer to a Shield decision; the resolution goes on from where it
    paused (``resolution.resume``; from the start if it cannot)."""
    before = state.resolving
    assert before is not None and before.ask is not None
    resolving = replace(before, shields=before.shields + (spend,), ask=None)
    result = resume(state.sides, state.active, state.in_play, before.defense, state.rules,
                    resolving.shields, before.ask, settle=True)
    if result is None:
        return _resolve(state, resolving, rng)
    return _resolved(state, resolving, result, result.events,
                     before.emitted + len(result.events), rng)


def _resolve(state: State, resolving: Resolving, rng: Randomness) -> tuple[State, Events]:
    att = state.active
    result = resolve(resolving.before, att, state.in_play, resolving.defense, state.rules,
                     resolving.shields, settle=True)
    return _resolved(state, resolving, result, result.events[resolving.emitted:],
                     len(result.events), rng)


def _resolved(state: State, resolving: Resolving, result: Resolution, events: Events,
              emitted: int, rng: Randomness) -> tuple[State, Events]:
    """The state after a resolution: paused for a Shield decision (``emitted``: its events
    handed out so far), or over (a KO, or the end of the turn)."""
    if result.paused is not None:
        paused = replace(resolving, emitted=emitted, ask=result.paused)
        ask = result.paused
        events += (event("shield_decision", {"side": ask.side, "amount": ask.amount,
                                             "most": ask.most, "source": ask.source}),)
        return replace(state, sides=result.sides, phase=SHIELDS, resolving=paused), events
    if result.knocked_out:
        state = replace(state, sides=result.sides, in_play=(), phase=TURN, resolving=None)
        return _knockout(state, result.knocked_out, "health reduced to 0", rng, events)
    state, more = next_turn(state, rng, sides=result.sides, in_play=(), resolving=None)
    return state, events + more


def resign(state: State, seat: int) -> tuple[State, Events]:
    """The seat concedes the match: the opponent (in Solo, the Computer) wins."""
    why = (f"seat {seat} resigned: the Computer wins" if state.solo
           else f"seat {seat} resigned: seat {1 - seat} wins")
    att = state.active
    sides = list(state.sides)
    if not sides[att].computer:  # cards on the table go to their discard piles
        sides[att] = replace(sides[att], discard=sides[att].discard + state.in_play)
    if state.resolving is not None:
        played = state.resolving.defense.cards
        sides[1 - att] = replace(sides[1 - att], discard=sides[1 - att].discard + played)
    state = replace(state, sides=(sides[0], sides[1]), in_play=(), resolving=None)
    return finish(state, (1 - seat,), why), (event("resigned", {"side": seat}),)


def _knockout(state: State, knocked_out: tuple[int, ...], reason: str, rng: Randomness,
              events: Events = (), out_of_cards: bool = False) -> tuple[State, Events]:
    after = after_ko(state, knocked_out, reason, rng, out_of_cards)
    if not after.continues:
        return after.state, events + after.events
    state, more = next_turn(after.state, rng)
    return state, events + after.events + more


def next_turn(state: State, rng: Randomness, **changes: Any) -> tuple[State, Events]:
    """End the turn: the other side becomes the Attacker, unless the game cannot go on.
    ``changes``: further fields of the state that the turn's end sets (one new state)."""
    state = but(state, {"active": 1 - state.active, "turn": state.turn + 1, "phase": TURN,
                        **changes})
    why = game_over_without_ko(state)
    if why:
        return _knockout(state, (0, 1), why, rng, out_of_cards=True)
    if state.sides[state.active].computer:
        return computer_turn(state, rng)
    return state, ()


def computer_turn(state: State, rng: Randomness) -> tuple[State, Events]:
    cpu = state.sides[1]
    if state.mirror or not cpu.deck:
        why = ("training: the Computer recovers too" if state.mirror
               else "the Computer deck is empty")
        state = replace(state, mirror=False)
        passes = event("computer_passes", {"reason": why})
        state, more = next_turn(state, rng)
        return state, (passes,) + more
    cpu, cards, flipped = computer.offense(cpu)
    state = replace(state, sides=_sides_with(state.sides, 1, cpu), in_play=cards, phase=DEFEND)
    return state, (event("computer_attacks", {"flipped": flipped, "cards": list(cards)}),)


def _sides_with(sides: tuple[Side, Side], index: int, side: Side) -> tuple[Side, Side]:
    return (side, sides[1]) if index == 0 else (sides[0], side)


__all__ = ["OVER", "PICK", "attack", "defend", "may_recover", "next_turn", "pick_hero", "recover",
           "resign", "spend_shields"]
