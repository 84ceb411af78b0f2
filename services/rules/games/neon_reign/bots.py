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
from typing import Any, NamedTuple

from services.platform.draws import SeededRandomness
from services.rules.games.contract import Action, Decision

from .cards import BUTTON, COMBO_BREAKER, JOYSTICK, Card
from .combos import universal_combos
from .content import CARDS, card

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
    return _attack_worth(_faces(cards), ability.get("type"), ability.get("colour"),
                         ability.get("amount", 0))


class _Face(NamedTuple):
    """What the worth of an Attack reads of a card (not its id)."""

    kind: str
    colour: str
    direction: str
    damage: int
    effects: tuple[tuple[str, int], ...]


def _face(c: Card) -> _Face:
    return _Face(c.kind, c.colour, c.direction, c.damage, c.effects)


_FACES: tuple[_Face, ...] = tuple(sorted({_face(c) for c in CARDS.values()}))
"""Every different face of the printed cards, in order."""
_FACE_OF: dict[str, int] = {card_id: _FACES.index(_face(c)) for card_id, c in CARDS.items()}
"""Each card's face, as its place in ``_FACES``."""


def _faces(cards: Iterable[str]) -> tuple[int, ...]:
    """The cards' faces (as places in ``_FACES``), sorted: what an Attack's worth reads."""
    face_of = _FACE_OF
    return tuple(sorted([face_of[i] for i in cards]))


@lru_cache(maxsize=16384)
def _attack_worth(faces: tuple[int, ...], kind: Any, colour: Any, amount: Any) -> int:
    """Remembered by the cards' faces (the sum does not depend on their order) and the
    three fields of the ability it reads."""
    played = tuple(_FACES[f] for f in faces)
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
        kind, colour, amount = ability.get("type"), ability.get("colour"), ability.get("amount", 0)
        known = _known(_WORTH_BY_IDS, (kind, colour, amount))
        scores = []
        for a in attacks:
            played = tuple(a["cards"])
            worth = known.get(played)
            if worth is None:
                worth = known[played] = _attack_worth(_faces(played), kind, colour, amount)
            scores.append(worth)
        return self._best(attacks, scores)

    def _defend(self, view: Mapping[str, Any], me: Mapping[str, Any],
                legal: Sequence[Action]) -> Action:
        attack = tuple([str(i) for i in view.get("in_play", [])])
        theirs, mine = _ability(_side_of(view, int(view["attacker"]))), _ability(me)
        against = (attack, theirs.get("type"), theirs.get("colour"), theirs.get("amount", 0))
        known = _known(_LEFT, against)
        unanswered = _left(known, against, (), False)
        bonus_colour = (mine.get("colour") if mine.get("type") == "button_colour_bonus"
                        else _NO_COLOUR)
        bonus = mine.get("amount", 0)
        scores = []
        for action in legal:
            if action["type"] == "pass":
                scores.append(0)
                continue
            played = action["cards"]
            breakers = False
            gained = 0
            for i in played:
                kind, colour, damage, worth = _PRINTED[i]
                if kind == BUTTON:
                    gained += 2 * (damage + (bonus if colour == bonus_colour else 0))
                else:
                    gained += worth
                    breakers = breakers or kind == COMBO_BREAKER
            left = _left(known, against, tuple(action.get("targets", ())), breakers)
            scores.append(unanswered - left + gained - 2 * len(played))
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


_WORTH_BY_IDS: dict[tuple[Any, ...], dict[tuple[str, ...], int]] = {}
"""Attack worths by the ability, then the played ids (no sorting into faces for an Attack
met before: the same hands offer the same Attacks turn after turn)."""
_KNOWN_MAX = 1 << 14


def _known(memo: dict[Any, dict[Any, int]], key: Any) -> dict[Any, int]:
    """``memo``'s answers for ``key`` (forgotten when they grow large: a memo is bounded)."""
    known = memo.get(key)
    if known is None or len(known) > _KNOWN_MAX:
        if len(memo) > _KNOWN_MAX:
            memo.clear()
        known = memo[key] = {}
    return known

_NO_COLOUR = object()
"""No Button colour gets a bonus (matches no colour read from a view)."""
_PRINTED: dict[str, tuple[str, str, int, int]] = {
    card_id: (c.kind, c.colour, c.damage, _effects_worth(c.effects)) for card_id, c in CARDS.items()}
"""What a defence's worth reads of each card: kind, colour, damage, worth of its effects."""


_LEFT: dict[tuple[Any, ...], dict[tuple[tuple[str, ...], bool], int]] = {}
"""What an Attack is still worth after a defence, by the Attack and its player's ability,
then the cards the defence removes and whether it stops the Universal Combos."""


def _left(known: dict[Any, int], against: tuple[Any, ...], targets: tuple[str, ...],
          breakers: bool) -> int:
    """What the Attack (``against``: its cards and its player's ability; ``known``: the
    answers for it) is still worth once ``targets`` are removed (and, with a Combo
    Breaker, without its Universal Combos)."""
    key = (targets, breakers)
    left = known.get(key)
    if left is None:
        attack, kind, colour, amount = against
        removed = set(targets)
        standing = [i for i in attack if i not in removed]
        left = _attack_worth(_faces(standing), kind, colour, amount)
        if breakers:  # every Universal Combo stopped
            hits = universal_combos(card(i) for i in standing)
            left -= sum(_effects_worth(h.effects) for h in hits)
        known[key] = left
    return left


def _my_side(view: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    return _side_of(view, seat)


def _side_of(view: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    sides = view.get("sides") or []
    return sides[index] if 0 <= index < len(sides) else {}


def _ability(side: Mapping[str, Any]) -> Mapping[str, Any]:
    hero = side.get("hero") or {}
    return hero.get("ability") or {}
