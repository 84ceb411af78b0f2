"""A Neon Reign state's canonical bytes (what its state hash is taken over), faster.

:func:`canonical_state` gives ``canonical_json(encode_state(state))`` byte for byte. For a
state of a current ruleset, ``encode_state`` is the state's instance dict with each side's
instance dict in it, tuples made lists, and the results, the ruleset and a paused
resolution through ``to_json``: so orjson writes it from those dicts in one call (tuples
as arrays, keys sorted), with each side's bytes remembered by identity (a side an action
leaves alone is the same object in the next state) and the results, the ruleset and a
paused resolution remembered likewise (``CanonicalMemo``). With the options used,
orjson refuses every value the reference path would write differently except a float
(and non-ASCII text, checked on the bytes), so each container put in is checked to be a
tuple and each scalar not to be a float; strings by membership in a set of the exact
strs met before (card and hero ids, phases, reasons), one C call per group. Anything off
the fast path takes :func:`_general` (the encoding written out, as before, for every
ruleset), which itself takes ``canonical_json(encode_state(state))`` for a float or
non-ASCII text. tests/unit/test_canonical_state.py and tests/unit/neon_reign/test_canon.py
compare both on the states of real games and on states the engine never makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from itertools import chain
from typing import Any

from services.platform.canonical import (
    CanonicalMemo,
    Fragment,
    IdentityMemo,
    NotFast,
    canonical_checked,
    canonical_json,
    plain_scalars,
)

from .state import Defense, Resolving, Side, State, encode_side, encode_state, to_json

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
    """``canonical_json(encode_state(state))``.

    A state of a current ruleset holds exactly its fields and each side exactly its own:
    ``encode_state`` is then the instance dicts, tuples made lists, the results, the
    ruleset and a paused resolution through ``to_json``. Those three and each side are
    remembered by identity as canonical bytes (fragments); the rest goes to orjson as it
    is (tuples as arrays, keys sorted). orjson refuses, with these options, everything the
    reference path would encode differently except a float (and non-ASCII text, checked on
    the bytes): so every container put in is checked to be a tuple and every scalar not
    to be a float (strings by membership in a set of strings met before, which holds
    only exact strs). Anything else takes :func:`_general`.
    """
    attrs = vars(state)
    sides = state.sides
    if (type(state) is not State or attrs.keys() != _STATE_KEYS or type(sides) is not tuple
            or len(sides) != 2 or state.rules.legacy):
        return _general(state)
    decks, in_play, picks, tokens = state.decks, state.in_play, state.picks, state.tokens
    if (type(decks) is not tuple or type(in_play) is not tuple or type(picks) is not tuple
            or type(tokens) is not tuple
            or float in (type(state.active), type(state.turn), type(state.game),
                         type(state.starter), type(state.mirror), type(state.winner))
            or float in map(type, tokens)
            or not _known(decks, in_play, picks,
                          (state.mode, state.difficulty, state.phase, state.reason))):
        return _general(state)
    try:
        encoded = attrs.copy()
        encoded["sides"] = (_side(sides[0]), _side(sides[1]))
        results = state.results
        if results:
            encoded["results"] = _PARTS(results)
        elif type(results) is not tuple:
            raise NotFast
        rules = state.rules
        hit = _RULES.get(id(rules))
        encoded["rules"] = (hit[1] if hit is not None and hit[0] is rules
                            else _RULES.remember(rules, _PARTS(rules)))
        resolving = state.resolving
        if resolving is not None:
            encoded["resolving"] = _resolving(resolving)
        data = canonical_checked(encoded)
    except NotFast:
        data = None
    return data if data is not None else _general(state)


_STATE_KEYS = frozenset(f.name for f in fields(State))
_SIDE_KEYS = frozenset(f.name for f in fields(Side))
_RESOLVING_KEYS = frozenset(f.name for f in fields(Resolving))
_DEFENSE_KEYS = frozenset(f.name for f in fields(Defense))
_LIMIT = 64
"""Entries each identity memo keeps (:class:`IdentityMemo`): the parts of the last few
states, which are the ones the next state shares."""
_SIDE_MEMO = IdentityMemo(_LIMIT)
_RESOLVING_MEMO = IdentityMemo(_LIMIT)
_DEFENSE_MEMO = IdentityMemo(_LIMIT)
_RULES = IdentityMemo(_LIMIT)
_STRS: set[str] = set()
"""Exact strs met in states before (card and hero ids, phases, reasons...): one of these
is no float, and no subclass of str either (a subclass is never added, and orjson
refuses one that compares equal to a member)."""


def _known(*groups: Iterable[Any]) -> bool:
    """Every value of ``groups`` is exactly a str (a member of :data:`_STRS`, or a new
    one, then remembered)."""
    return _STRS.issuperset(chain(*groups)) or _learn(chain(*groups))


def _learn(values: Iterable[Any]) -> bool:
    """Add ``values`` to :data:`_STRS` when each is exactly a str; say whether they were."""
    values = tuple(values)
    if not all(type(v) is str for v in values):
        return False
    if len(_STRS) > 65536:
        _STRS.clear()
    _STRS.update(values)
    return True


def _resolving(resolving: Resolving) -> Any:
    """A paused resolution's canonical bytes as a fragment (``to_json``'s JSON: the instance
    dict; the sides it started from as :func:`_side` writes them, its defence as
    :func:`_defense` does), remembered by identity."""
    hit = _RESOLVING_MEMO.get(id(resolving))
    if hit is not None and hit[0] is resolving:
        return hit[1]
    attrs = vars(resolving)
    before, shields, ask = resolving.before, resolving.shields, resolving.ask
    if (type(resolving) is not Resolving or attrs.keys() != _RESOLVING_KEYS
            or type(before) is not tuple or type(shields) is not tuple
            or float in map(type, shields) or type(resolving.emitted) is float):
        raise NotFast
    encoded = attrs.copy()
    encoded["before"] = tuple([_side(side) for side in before])
    encoded["defense"] = _defense(resolving.defense)
    if ask is not None:
        encoded["ask"] = _PARTS(ask)
    data = canonical_checked(encoded)
    if data is None:
        raise NotFast
    return _RESOLVING_MEMO.remember(resolving, Fragment(data))


def _defense(defense: Defense) -> Any:
    """A defence's canonical bytes as a fragment (its instance dict), remembered by
    identity; one with the Computer's Defend-section gains takes ``CanonicalMemo``."""
    hit = _DEFENSE_MEMO.get(id(defense))
    if hit is not None and hit[0] is defense:
        return hit[1]
    attrs = vars(defense)
    cards, targets, early, sticks, late = (defense.cards, defense.targets, defense.early_buttons,
                                           defense.joysticks, defense.late_buttons)
    if (type(defense) is not Defense or attrs.keys() != _DEFENSE_KEYS or defense.gains != ()
            or type(cards) is not tuple or type(targets) is not tuple or type(early) is not tuple
            or type(sticks) is not tuple or type(late) is not tuple
            or float in (type(defense.throws), type(defense.blocks),
                         type(defense.combo_breakers), type(defense.early_damage))
            or not _known(cards, targets, early, sticks, late)):
        return _PARTS(defense)
    data = canonical_checked(attrs)
    if data is None:
        raise NotFast
    return _DEFENSE_MEMO.remember(defense, Fragment(data))


def _side(side: Side) -> Any:
    """A side's canonical bytes as a fragment (``encode_side``'s JSON: its instance dict,
    tuples as arrays), remembered by identity: a side an action leaves alone is the same
    object in the next state."""
    hit = _SIDE_MEMO.get(id(side))
    if hit is not None and hit[0] is side:
        return hit[1]
    attrs = vars(side)
    if type(side) is not Side or attrs.keys() != _SIDE_KEYS:
        raise NotFast
    deck, hand, discard, bench, fallen = side.deck, side.hand, side.discard, side.bench, side.fallen
    if (type(deck) is not tuple or type(hand) is not tuple or type(discard) is not tuple
            or type(bench) is not tuple or type(fallen) is not tuple
            or float in (type(side.health), type(side.stars), type(side.shields),
                         type(side.computer))):
        raise NotFast
    if not _known(deck, hand, discard, bench, fallen, (side.hero,)):
        raise NotFast
    data = canonical_checked(attrs)
    if data is None:
        raise NotFast
    return _SIDE_MEMO.remember(side, Fragment(data))


def _general(state: State) -> bytes:
    """``canonical_json(encode_state(state))``, the encoding written out (any ruleset)."""
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
