"""Universal Combos: checked against the Attacker's played cards, every combo met fires.

Pair combos fire once for every pair of matching cards (three of a kind makes three pairs);
exact combos fire once when the played cards are exactly that composition. A card may be
part of several combos.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any, NamedTuple

from .cards import BUTTON, JOYSTICK, Card
from .content import CARDS, COMBOS


@dataclass(frozen=True)
class ComboHit:
    id: str
    name: str
    effects: tuple[tuple[str, int], ...]

    def effect(self, name: str) -> int:
        return dict(self.effects).get(name, 0)


def _pair_count(combo: dict[str, Any], cards: Sequence[Card | Face]) -> int:
    if combo["pair"] == "same_button_colour":
        groups = Counter(c.colour for c in cards if c.kind == BUTTON)
    else:
        groups = Counter(c.direction for c in cards if c.kind == JOYSTICK)
    return sum(comb(n, 2) for n in groups.values())


def _exact_match(combo: dict[str, Any], cards: Sequence[Card | Face]) -> bool:
    buttons = [c for c in cards if c.kind == BUTTON]
    joysticks = [c for c in cards if c.kind == JOYSTICK]
    if (len(joysticks), len(buttons)) != (combo["joysticks"], combo["buttons"]):
        return False
    colours = combo.get("button_colours")
    distinct = len({b.colour for b in buttons})
    if colours == "same":
        return distinct == 1
    if colours == "different":
        return distinct == len(buttons)
    return True


class Face(NamedTuple):
    """What a Universal Combo reads of a card: its kind, Button colour, Joystick direction."""

    kind: str
    colour: str
    direction: str


def universal_combos(cards: Iterable[Card | Face]) -> tuple[ComboHit, ...]:
    """Every Universal Combo instance the played ``cards`` meet, in helper-card order."""
    return _universal_combos(tuple(sorted([Face(c.kind, c.colour, c.direction) for c in cards])))


@lru_cache(maxsize=4096)
def _universal_combos(played: tuple[Face, ...]) -> tuple[ComboHit, ...]:
    """Remembered by the cards' faces (sorted: which combos fire and how often does not
    depend on the order of the cards): the reference pack has 11 different faces, and the
    rule bot and the resolution ask about the same few sets again and again."""
    hits: list[ComboHit] = []
    for combo in COMBOS:
        times = _pair_count(combo, played) if combo["match"] == "pairs" else int(
            _exact_match(combo, played))
        effects = tuple(sorted(combo["effects"].items()))
        hits.extend(ComboHit(combo["id"], combo["name"], effects) for _ in range(times))
    return tuple(hits)


def _primes(count: int) -> list[int]:
    found: list[int] = []
    n = 2
    while len(found) < count:
        if all(n % p for p in found):
            found.append(n)
        n += 1
    return found


def _face(c: Card) -> Face:
    return Face(c.kind, c.colour, c.direction)


_FACES = sorted({_face(c) for c in CARDS.values()})
_PRIME_OF: dict[Face, int] = dict(zip(_FACES, _primes(len(_FACES))))
FACE_PRIME: dict[str, int] = {card_id: _PRIME_OF[_face(c)] for card_id, c in CARDS.items()}
"""Each card's face as a prime of its own, by card id. The product of some cards' primes
names the multiset of their faces (an integer factorises one way), which is all that
their Universal Combos depend on: a key made by multiplying, without sorting."""


def combos_of(card_ids: Iterable[str]) -> tuple[ComboHit, ...]:
    """:func:`universal_combos` of the cards with these ids, remembered by their faces."""
    ids = list(card_ids)
    faces = 1
    for i in ids:
        faces *= FACE_PRIME[i]
    hits = _BY_FACES.get(faces)
    if hits is None:
        if len(_BY_FACES) > 4096:  # a bound: the reference pack's Attacks make a few hundred
            _BY_FACES.clear()
        hits = _BY_FACES[faces] = universal_combos(CARDS[i] for i in ids)
    return hits


_BY_FACES: dict[int, tuple[ComboHit, ...]] = {}


def combo_total(hits: Iterable[ComboHit], name: str) -> int:
    return sum(hit.effect(name) for hit in hits)
