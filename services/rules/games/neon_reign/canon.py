"""A Neon Reign state's canonical bytes (what its state hash is taken over), faster.

:func:`canonical_state` gives ``canonical_json(encode_state(state))`` byte for byte. The
results, the ruleset and a paused resolution (with the sides it started from) are the same
objects from one state to the next while they do not change (states are frozen dataclasses
that share what they do not replace), so their bytes are remembered by identity
(``CanonicalMemo``) instead of being encoded again by the reflective ``to_json`` at every
step; so are a side's deck and discard pile (the longest lists, which a step seldom
changes: a side copied with a new hand or health keeps the same tuples). The rest of the
sides changes at nearly every step and is written out as ``encode_side`` does;
every scalar put into the encoding is checked to be a plain str, int, bool or None in one
pass (``plain_scalars``) instead of walking the encoded value for floats. Anything off the
fast path (a float, a subclass, non-ASCII text) takes ``canonical_json(encode_state(state))``. tests/unit/test_canonical_state.py compares both
on the states of real games.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import chain
from typing import Any

from services.platform.canonical import (
    CanonicalMemo,
    NotFast,
    canonical_checked,
    canonical_json,
    plain_scalars,
)

from .state import Side, State, encode_side, encode_state, to_json

_PARTS = CanonicalMemo(to_json)
"""``to_json`` of the results, the ruleset and the parts of a paused resolution."""
_PILES = CanonicalMemo(list)
"""A side's deck or discard pile, as ``encode_side`` writes it."""
_SCALARS = (str, int, bool, type(None))
_NAMES: dict[type, tuple[str, ...]] = {}


def _part(value: Any) -> Any:
    """``to_json(value)``: a scalar as it is, anything else from a memo."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is tuple and value and type(value[0]) is Side:
        return _SIDES(value)
    return _PARTS(value)


def _sides_json(sides: tuple[Side, ...]) -> list[dict[str, Any]]:
    """``to_json`` of sides: each as ``encode_side`` writes it (the same keys and values,
    without reflecting on the fields of every side)."""
    return [encode_side(side) for side in sides]


_SIDES = CanonicalMemo(_sides_json)
"""The sides a paused resolution started from (``before``): a new tuple at each Attack
that pauses for a Shield decision."""


def _fields_json(value: Any) -> dict[str, Any]:
    """``to_json`` of a dataclass instance, each field's value through :func:`_part`."""
    kind = type(value)
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(f.name for f in fields(value))
    return {name: _part(getattr(value, name)) for name in names}


_RESOLVING = CanonicalMemo(_fields_json)
"""A paused resolution: it changes with each Shield answer, the sides it started from
(``before``) and the defence do not."""


def canonical_state(state: State) -> bytes:
    """``canonical_json(encode_state(state))``."""
    try:
        sides = []
        leaves = [(state.mode, state.difficulty, state.phase, state.active, state.turn,
                   state.game, state.starter, state.mirror, state.winner, state.reason)]
        for side in state.sides:
            hand, bench, fallen = list(side.hand), list(side.bench), list(side.fallen)
            scalars = (side.hero, side.health, side.stars, side.shields, side.computer)
            leaves += (scalars, hand, bench, fallen)
            sides.append({"hero": scalars[0], "health": scalars[1], "stars": scalars[2],
                          "shields": scalars[3], "deck": _PILES(side.deck), "hand": hand,
                          "discard": _PILES(side.discard), "bench": bench, "fallen": fallen,
                          "computer": scalars[4]})
        decks, in_play = list(state.decks), list(state.in_play)
        picks, tokens = list(state.picks), list(state.tokens)
        leaves += (decks, in_play, picks, tokens)
        if not plain_scalars(chain.from_iterable(leaves)):
            raise NotFast
        encoded = {
            "mode": state.mode, "difficulty": state.difficulty, "decks": decks,
            "sides": sides, "phase": state.phase,
            "active": state.active, "in_play": in_play, "turn": state.turn,
            "game": state.game, "starter": state.starter,
            "mirror": state.mirror, "picks": picks, "tokens": tokens,
            "results": _PARTS(state.results), "winner": state.winner, "reason": state.reason,
        }
        if not state.rules.legacy:
            encoded["rules"] = _PARTS(state.rules)
            encoded["resolving"] = None if state.resolving is None else _RESOLVING(state.resolving)
        data = canonical_checked(encoded)  # every leaf checked above, the rest fragments
    except NotFast:
        data = None
    return data if data is not None else canonical_json(encode_state(state))
