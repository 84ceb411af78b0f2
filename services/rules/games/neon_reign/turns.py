"""How to Play: a turn is an Attack (answered by a Defend) or a Recover; then the turn ends."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness

from . import computer
from .cards import HAND_SIZE
from .content import hero
from .legality import build_defense, can_attack
from .modes import after_ko
from .resolution import Defense, resolve
from .state import DEFEND, PICK, TURN, Side, State

Events = tuple[EngineEvent, ...]


def recover_draws(side: Side) -> bool:
    """A Recover now would draw at least one card."""
    return bool(side.deck) and len(side.hand) < HAND_SIZE


def may_recover(side: Side) -> bool:
    """Recover is offered when it draws a card, or when the player cannot Attack (then it is
    the only way to end the turn). A Recover that draws nothing while an Attack is possible
    would be a pass that uses no resource; refusing it is what makes every game end."""
    return recover_draws(side) or not can_attack(side.hand)


def out_of_cards(side: Side) -> bool:
    """The FAQ's "run out of cards", as this engine rules it: the player can neither Attack
    (no card usable when Attacking) nor draw (deck empty, or a full hand that only a Defend
    could empty). The Computer has run out when its deck is empty."""
    if side.computer:
        return not side.deck
    return not can_attack(side.hand) and not recover_draws(side)


def pick_hero(state: State, seat: int, chosen: str) -> tuple[State, Events]:
    picks = list(state.picks)
    picks[seat] = chosen
    state = replace(state, picks=(picks[0], picks[1]))
    events: list[EngineEvent] = [
        EngineEvent("hero_picked", {"side": seat, "hero": chosen}, frozenset({seat})),
        EngineEvent("hero_pick_made", {"side": seat}),
    ]
    if "" in picks:
        return state, tuple(events)
    sides = tuple(replace(side, hero=pick, bench=tuple(h for h in side.bench if h != pick))
                  for side, pick in zip(state.sides, picks))
    events.append(EngineEvent("heroes_revealed", {"heroes": picks}))
    return replace(state, sides=(sides[0], sides[1]), phase=TURN), tuple(events)


def attack(state: State, cards: tuple[str, ...], rng: Randomness) -> tuple[State, Events]:
    att = state.active
    side = state.sides[att]
    hand = tuple(i for i in side.hand if i not in cards)
    state = _with_side(state, att, replace(side, hand=hand))
    state = replace(state, in_play=cards, mirror=False, phase=DEFEND)
    events = (EngineEvent("attacked", {"side": att, "cards": list(cards)}),)
    if not state.sides[1 - att].computer:
        return state, events
    flips = computer.DEFEND_FLIPS[state.difficulty]
    cpu, answer, flipped = computer.defense(state.sides[1], cards, flips)
    state = _with_side(state, 1, cpu)
    flip_event = EngineEvent("computer_defends", {"flipped": list(flipped)})
    state, more = settle(state, answer, rng)
    return state, events + (flip_event,) + more


def defend(state: State, seat: int, action: dict[str, Any],
           rng: Randomness) -> tuple[State, Events]:
    if action["type"] == "pass":
        answer = Defense()
        events: Events = (EngineEvent("passed", {"side": seat}),)
    else:
        cards = tuple(action["cards"])
        targets = tuple(action.get("targets") or ())
        answer = build_defense(hero(state.sides[seat].hero), cards, targets)
        side = state.sides[seat]
        state = _with_side(state, seat, replace(
            side, hand=tuple(i for i in side.hand if i not in cards)))
        events = (EngineEvent("defended", {"side": seat, "cards": list(cards),
                                           "targets": list(targets)}),)
    state, more = settle(state, answer, rng)
    return state, events + more


def recover(state: State, rng: Randomness) -> tuple[State, Events]:
    seat = state.active
    side = state.sides[seat]
    drawn = side.deck[:max(0, HAND_SIZE - len(side.hand))]
    side = replace(side, deck=side.deck[len(drawn):], hand=side.hand + drawn)
    events: list[EngineEvent] = [
        EngineEvent("recovered", {"side": seat, "drew": len(drawn)}),
        EngineEvent("drew", {"side": seat, "cards": list(drawn), "source": "recover"},
                    frozenset({seat})),
    ]
    ability = hero(side.hero).ability
    if ability.type == "heal_on_recover":
        healed = min(25, side.health + ability.amount)
        events.append(EngineEvent("healed", {"side": seat, "healed": healed - side.health,
                                             "health": healed, "source": "hero ability"}))
        side = replace(side, health=healed)
    state = _with_side(state, seat, side)
    # Training: the Computer recovers too, but not after a Recover that drew nothing (a player
    # who cannot Attack or draw only ends the turn; mirroring that would stall the game).
    training = state.solo and state.difficulty == "training" and bool(drawn)
    state = replace(state, mirror=training)
    state, more = next_turn(state, rng)
    return state, tuple(events) + more


def settle(state: State, answer: Defense, rng: Randomness) -> tuple[State, Events]:
    """Resolve the Attack in play, put every played card on its discard pile, end the turn."""
    att = state.active
    result = resolve(state.sides, att, state.in_play, answer)
    sides = list(result.sides)
    if not sides[att].computer:
        sides[att] = replace(sides[att], discard=sides[att].discard + state.in_play)
    sides[1 - att] = replace(sides[1 - att], discard=sides[1 - att].discard + answer.cards)
    state = replace(state, sides=(sides[0], sides[1]), in_play=(), phase=TURN)
    if result.knocked_out:
        return _knockout(state, result.knocked_out, "health reduced to 0", rng, result.events)
    state, more = next_turn(state, rng)
    return state, result.events + more


def _knockout(state: State, knocked_out: tuple[int, ...], reason: str, rng: Randomness,
              events: Events = ()) -> tuple[State, Events]:
    after = after_ko(state, knocked_out, reason, rng)
    if not after.continues:
        return after.state, events + after.events
    state, more = next_turn(after.state, rng)
    return state, events + after.events + more


def next_turn(state: State, rng: Randomness) -> tuple[State, Events]:
    """End the turn: the other side becomes the Attacker, unless the game cannot go on."""
    state = replace(state, active=1 - state.active, turn=state.turn + 1, phase=TURN)
    if all(out_of_cards(side) for side in state.sides):
        return _knockout(state, (0, 1), "both players ran out of cards (neither can Attack or "
                         "draw): double KO", rng)
    if state.sides[state.active].computer:
        return computer_turn(state, rng)
    return state, ()


def computer_turn(state: State, rng: Randomness) -> tuple[State, Events]:
    cpu = state.sides[1]
    if state.mirror or not cpu.deck:
        why = ("training: the Computer recovers too" if state.mirror
               else "the Computer deck is empty")
        state = replace(state, mirror=False)
        event = EngineEvent("computer_passes", {"reason": why})
        state, more = next_turn(state, rng)
        return state, (event,) + more
    cpu, cards, flipped = computer.offense(cpu)
    state = _with_side(state, 1, cpu)
    state = replace(state, in_play=cards, phase=DEFEND)
    return state, (EngineEvent("computer_attacks", {"flipped": flipped, "cards": list(cards)}),)


def _with_side(state: State, index: int, side: Side) -> State:
    sides = list(state.sides)
    sides[index] = side
    return replace(state, sides=(sides[0], sides[1]))


__all__ = ["PICK", "attack", "defend", "may_recover", "next_turn", "pick_hero", "recover"]
