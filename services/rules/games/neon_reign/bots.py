"""A rule-based Neon Reign bot: plays from its seat's view, the decision, and the printed cards.

It sees only what a client sees (its view JSON, the decision's legal actions, and the
content pack the API serves) and prefers progress: it Attacks whenever it can with the
hardest-hitting combination, Defends when a defence saves more than the cards it costs,
and spends Shields unless taking the hit is worth a Star. Ties are broken by its own
seeded draw stream, so a bot with a given seed always plays the same game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from services.platform.draws import SeededRandomness
from services.rules.games.contract import Action, Decision

from .cards import BUTTON, COMBO_BREAKER, JOYSTICK, Card
from .combos import universal_combos
from .content import card

JSON = Any
# Worth of each effect, in halves of a damage point (integers: bots stay exactly repeatable).
_WORTH = {"damage": 2, "stars": 1, "shields": 1, "heal": 1, "strike": 1, "draw": 1,
          "recycle_throw": 1}


def _effects_worth(effects: Mapping[str, int] | Sequence[tuple[str, int]]) -> int:
    items = effects.items() if isinstance(effects, Mapping) else effects
    return sum(_WORTH.get(name, 0) * amount for name, amount in items)


def _button_damage(ability: Mapping[str, Any], c: Card | _Face) -> int:
    bonus = ability.get("amount", 0) if (ability.get("type") == "button_colour_bonus"
                                          and ability.get("colour") == c.colour) else 0
    return c.damage + bonus


def attack_worth(cards: Sequence[str], ability: Mapping[str, Any]) -> int:
    """What an Attack is worth to its player if nothing answers it, in half damage points."""
    faces = tuple(sorted([_face(card(i)) for i in cards]))
    return _attack_worth(faces, ability.get("type"), ability.get("colour"), ability.get("amount", 0))


class _Face(NamedTuple):
    """What the worth of an Attack reads of a card (not its id)."""

    kind: str
    colour: str
    direction: str
    damage: int
    effects: tuple[tuple[str, int], ...]


def _face(c: Card) -> _Face:
    return _Face(c.kind, c.colour, c.direction, c.damage, c.effects)


@lru_cache(maxsize=16384)
def _attack_worth(played: tuple[_Face, ...], kind: Any, colour: Any, amount: Any) -> int:
    """Remembered by the cards' faces (the sum does not depend on their order) and the
    three fields of the ability it reads."""
    ability = {"type": kind, "colour": colour, "amount": amount}
    worth = 0
    for c in played:
        if c.kind == BUTTON:
            worth += 2 * _button_damage(ability, c)
        elif c.kind == JOYSTICK:
            worth += _effects_worth(c.effects)
    hits = universal_combos(played)
    worth += sum(_effects_worth(hit.effects) for hit in hits)
    if ability.get("type") == "combo_damage_bonus":
        worth += 2 * ability.get("amount", 0) * len(hits)
    return worth


class RuleBot:
    """Attacks when it can, defends when it pays, spends Shields sensibly."""

    name = "rule"

    def __init__(self, seed: int | str = 0) -> None:
        self._rng = SeededRandomness(f"neon-reign-rule-bot:{seed}")

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
        return tied[self._rng.randbelow(len(tied))] if len(tied) > 1 else tied[0]

    def _turn(self, me: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        attacks = [a for a in legal if a["type"] == "attack"]
        if not attacks:
            return legal[0]
        ability = _ability(me)
        return self._best(attacks, [attack_worth(a["cards"], ability) for a in attacks])

    def _defend(self, view: Mapping[str, Any], me: Mapping[str, Any],
                legal: Sequence[Action]) -> Action:
        attack = [str(i) for i in view.get("in_play", [])]
        attacker = _side_of(view, int(view["attacker"]))
        theirs, mine = _ability(attacker), _ability(me)
        unanswered = attack_worth(attack, theirs)
        scores = []
        for action in legal:
            if action["type"] == "pass":
                scores.append(0)
                continue
            cards = [card(i) for i in action["cards"]]
            removed = set(action.get("targets", []))
            standing = [i for i in attack if i not in removed]
            breakers = sum(c.kind == COMBO_BREAKER for c in cards)
            left = attack_worth(standing, theirs)
            if breakers:  # every Universal Combo stopped
                hits = universal_combos(card(i) for i in standing)
                left -= sum(_effects_worth(h.effects) for h in hits)
            saved = unanswered - left
            gained = sum(2 * _button_damage(mine, c) if c.kind == BUTTON
                         else _effects_worth(c.effects) for c in cards)
            scores.append(saved + gained - 2 * len(cards))  # a card is worth about 1 damage
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


def _my_side(view: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    return _side_of(view, seat)


def _side_of(view: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    sides = view.get("sides") or []
    return sides[index] if 0 <= index < len(sides) else {}


def _ability(side: Mapping[str, Any]) -> Mapping[str, Any]:
    hero = side.get("hero") or {}
    return hero.get("ability") or {}
