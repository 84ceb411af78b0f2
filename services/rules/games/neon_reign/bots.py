"""A rule-based Neon Reign bot: plays from its seat's view, the decision, and the printed cards.

It sees only what a client sees (its view JSON, the decision's legal actions, and the
content pack the API serves) and prefers progress: it Attacks whenever it can with the
hardest-hitting combination, Defends when a defence saves more than the cards it costs,
and spends Shields unless taking the hit is worth a Star. Ties are broken by its own
seeded draw stream, so a bot with a given seed always plays the same game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import Action, Decision

from .cards import BUTTON, COMBO_BREAKER, JOYSTICK, Card
from .combos import FACE_PRIME, universal_combos
from .content import CARDS

JSON = Any
# Worth of each effect, in halves of a damage point (integers: bots stay exactly repeatable).
_WORTH = {"damage": 2, "stars": 1, "shields": 1, "heal": 1, "strike": 1, "draw": 1,
          "recycle_throw": 1}


def _effects_worth(effects: Mapping[str, int] | Sequence[tuple[str, int]]) -> int:
    items = effects.items() if isinstance(effects, Mapping) else effects
    return sum(_WORTH.get(name, 0) * amount for name, amount in items)


def _button_damage(ability: Mapping[str, Any], c: Card) -> int:
    bonus = ability.get("amount", 0) if (ability.get("type") == "button_colour_bonus"
                                          and ability.get("colour") == c.colour) else 0
    return c.damage + bonus


def attack_worth(cards: Sequence[str], ability: Mapping[str, Any]) -> int:
    """What an Attack is worth to its player if nothing answers it, in half damage points."""
    return _attack_worths([cards], *_worths(ability))[0]


# An Attack's worth is the sum of its cards' own worths (a Button's damage, with the
# player's colour bonus, counts double; a Joystick's effects) and the worth of the
# Universal Combos its cards make, which depend only on the multiset of the cards' faces
# (``FACE_PRIME``). So an Attack costs a few table reads, whether or not these cards were
# met before.

@lru_cache(maxsize=64)
def _own_worths(kind: Any, colour: Any, amount: Any) -> dict[str, tuple[int, int]]:
    """Each card's own worth in an Attack by a player with this ability, and its face's
    prime, by card id (one table per ability: the reference pack has 11)."""
    ability = {"type": kind, "colour": colour, "amount": amount}
    return {card_id: (2 * _button_damage(ability, c) if c.kind == BUTTON
                      else _effects_worth(c.effects) if c.kind == JOYSTICK else 0,
                      FACE_PRIME[card_id])
            for card_id, c in CARDS.items()}


def _worths(ability: Mapping[str, Any]) -> tuple[dict[str, tuple[int, int]], Any]:
    """The card worths of a player with this ability, and its worth per Universal Combo
    met (a Combo Damage bonus counts double)."""
    kind, amount = ability.get("type"), ability.get("amount", 0)
    return (_own_worths(kind, ability.get("colour"), amount),
            2 * amount if kind == "combo_damage_bonus" else 0)


def _attack_worths(attacks: Iterable[Sequence[str]], own: Mapping[str, tuple[int, int]],
                   per_combo: Any, broken: bool = False) -> list[Any]:
    """What each Attack (its cards) is worth to a player of card worths ``own`` and worth
    ``per_combo`` for each Universal Combo; ``broken``: without the combos' effects (a Combo
    Breaker stopped them), as the bot has always counted it, the per-combo worth kept."""
    known = _COMBOS_BY_FACES
    out = []
    for cards in attacks:  # a plain loop: map() objects cost more than 1-3 cards
        worth, faces = 0, 1
        for i in cards:
            card_worth, prime = own[i]
            worth += card_worth
            faces *= prime
        combos = known.get(faces)
        if combos is None:
            if len(known) > 4096:  # a bound: the reference pack's Attacks make a few hundred
                known.clear()
            hits = universal_combos(CARDS[i] for i in cards)
            combos = known[faces] = sum(_effects_worth(hit.effects) for hit in hits), len(hits)
        out.append(worth + (0 if broken else combos[0]) + per_combo * combos[1])
    return out


_COMBOS_BY_FACES: dict[int, tuple[int, int]] = {}
"""The worth of the Universal Combos of an Attack and how many they are, by the product of
its cards' face primes."""


class RuleBot:
    """Attacks when it can, defends when it pays, spends Shields sensibly."""

    name = "rule"

    def __init__(self, seed: int | str = 0) -> None:
        self._seed = seed
        self._rng: SeededRandomness | None = None
        """Made at the first tie (many games need none): the same draws, later."""

    def choose(self, view: JSON, decision: Decision) -> Action:
        if not decision.legal:
            raise ValueError("a pending decision must list at least one legal action")
        me = _my_side(view, decision.seat)
        if decision.kind == "turn":
            return self._turn(me, decision.legal)
        if decision.kind == "defend":
            return self._defend(view, me, decision.legal)
        if decision.kind == "shields":
            return self._shields(view, me, decision.legal)
        return self._best(decision.legal, [0] * len(decision.legal))

    def _best(self, legal: Sequence[Action], scores: Sequence[int]) -> Action:
        top = max(scores)
        tied = [a for a, s in zip(legal, scores) if s == top]
        if len(tied) == 1:
            return tied[0]
        if self._rng is None:
            self._rng = SeededRandomness(f"neon-reign-rule-bot:{self._seed}")
        return tied[self._rng.randbelow(len(tied))]

    def _turn(self, me: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        attacks = [a for a in legal if a["type"] == "attack"]
        if not attacks:
            return legal[0]
        return self._best(attacks, _attack_worths([a["cards"] for a in attacks],
                                                  *_worths(_ability(me))))

    def _defend(self, view: Mapping[str, Any], me: Mapping[str, Any],
                legal: Sequence[Action]) -> Action:
        attack = [str(i) for i in view.get("in_play", [])]
        theirs, mine = _ability(_side_of(view, int(view["attacker"]))), _ability(me)
        own, per_combo = _worths(theirs)
        # What the Attack is still worth after a defence: by the cards it removes and
        # whether it stops the Universal Combos (many defences share them).
        left: dict[tuple[tuple[str, ...], bool], int] = {}
        unanswered = _attack_worths([attack], own, per_combo)[0]
        gains = _defence_worths(mine.get("type"), mine.get("colour"), mine.get("amount", 0))
        scores = []
        for action in legal:
            if action["type"] == "pass":
                scores.append(0)
                continue
            played = action["cards"]
            gained, breakers = 0, False
            for i in played:
                gained += gains[i]
                breakers = breakers or i in _BREAKERS
            key = (tuple(action.get("targets", ())), breakers)
            still = left.get(key)
            if still is None:
                removed = set(key[0])
                still = left[key] = _attack_worths([[i for i in attack if i not in removed]],
                                                   own, per_combo, key[1])[0]
            scores.append(unanswered - still + gained - 2 * len(played))
        return self._best(legal, scores)

    def _shields(self, view: Mapping[str, Any], me: Mapping[str, Any],
                 legal: Sequence[Action]) -> Action:
        pending = view.get("pending_damage") or {}
        most = max(int(a["spend"]) for a in legal)
        amount = int(pending.get("amount", most))
        ability = _ability(me)
        health = int(me.get("health", 0))
        # A hero that gains Stars from damage taken lets one point through when it is safe.
        if (ability.get("type") == "star_on_damage_taken" and most == amount and most > 0
                and health > amount + 8):
            return {"type": "shields", "spend": most - 1}
        return {"type": "shields", "spend": most}


@lru_cache(maxsize=64)
def _defence_worths(kind: Any, colour: Any, amount: Any) -> dict[str, int]:
    """What each card gains its player in a defence, by card id, for a player with this
    ability: a Button's damage (with the ability's colour bonus) counts double, any other
    card the worth of its effects."""
    bonus_colour = colour if kind == "button_colour_bonus" else _NO_COLOUR
    return {card_id: 2 * (c.damage + (amount if c.colour == bonus_colour else 0))
            if c.kind == BUTTON else _effects_worth(c.effects)
            for card_id, c in CARDS.items()}


_NO_COLOUR = object()
"""No Button colour gets a bonus (matches no colour read from a view)."""
_BREAKERS = frozenset(card_id for card_id, c in CARDS.items() if c.kind == COMBO_BREAKER)


def _my_side(view: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    return _side_of(view, seat)


def _side_of(view: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    sides = view.get("sides") or []
    return sides[index] if 0 <= index < len(sides) else {}


def _ability(side: Mapping[str, Any]) -> Mapping[str, Any]:
    hero = side.get("hero") or {}
    return hero.get("ability") or {}
