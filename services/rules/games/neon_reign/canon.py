"""A Neon Reign state's canonical bytes (what its state hash is taken over), faster.

:func:`canonical_state` gives ``canonical_json(encode_state(state))`` byte for byte. For a
state of a current ruleset, ``encode_state`` is the state's instance dict with each side's
instance dict in it, tuples made lists, and the results, the ruleset and a paused
resolution through ``to_json``: so orjson writes it from those dicts in one call (tuples
as arrays, keys sorted), the results, the ruleset and a paused resolution spliced in as
canonical bytes remembered by identity. With the options used, orjson refuses every value
the reference path would write differently except a float (and non-ASCII text, checked on
the bytes), so every scalar put in is checked to be exactly a str, int, bool or None and
every pile a tuple of those, in C a group at a time. A side is looked through only where
it is not the side of the same seat in the last state encoded (a replay encodes the
states of a match in a row, and an action replaces only the piles it changes): the record
of that side is one tuple rebound whole, so threads encoding at once never pair one side
with another's. Anything off the fast path takes :func:`_general` (the encoding written
out, as before, for every ruleset), which itself takes
``canonical_json(encode_state(state))`` for a float or non-ASCII text.
tests/unit/test_canonical_state.py and tests/unit/neon_reign/test_canon.py compare both
on the states of real games and on states the engine never makes.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import chain
from operator import itemgetter
from typing import Any

import orjson

from services.platform.canonical import (
    CanonicalMemo,
    Fragment,
    IdentityMemo,
    NotFast,
    canonical_checked,
    canonical_json,
    plain_scalars,
)

from .rulesets import Ruleset
from .state import (
    Defense,
    Resolving,
    ShieldAsk,
    Side,
    State,
    encode_side,
    encode_state,
    to_json,
)

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
    ruleset and a paused resolution through ``to_json``. So orjson writes the state's
    instance dict, the two sides' instance dicts in it as they are, and the results, the
    ruleset and a paused resolution as canonical bytes remembered by identity (fragments).
    orjson refuses, with these options, everything the reference path would encode
    differently except a float (and non-ASCII text, checked on the bytes): so every scalar
    put in is checked to be exactly a str, int, bool or None, and every field that
    ``encode_state`` makes a list to be a tuple of such scalars. A side is checked only
    where it is not the side of the last state encoded (:func:`_checked_side`). Anything
    else takes :func:`_general`.
    """
    global _RECENT
    attrs = state.__dict__
    if type(state) is not State or len(attrs) != _N_STATE:
        return _general(state)
    try:
        (mode, difficulty, decks, sides, phase, active, in_play, turn, game, starter, mirror,
         picks, tokens, results, winner, reason, rules, resolving) = _state_values(attrs)
    except KeyError:  # a field missing from the instance (never made so)
        return _general(state)
    if (type(sides) is not tuple or len(sides) != 2 or type(decks) is not tuple
            or type(in_play) is not tuple or type(picks) is not tuple
            or type(tokens) is not tuple or type(results) is not tuple
            or not _PLAIN.issuperset(map(type, chain(
                (mode, difficulty, phase, active, turn, game, starter, mirror, winner, reason),
                decks, in_play, picks, tokens)))):
        return _general(state)
    recent = _RECENT  # one tuple, rebound whole: never one state's part with another's bytes
    if rules is recent[4]:
        rules_part = recent[5]
    else:
        hit = _RULES.get(id(rules))
        if hit is not None and hit[0] is rules:
            rules_part = hit[1]
        else:  # None: a legacy ruleset (its states encode without it), or not a ruleset
            try:
                rules_part = _RULES.remember(rules, None if type(rules) is not Ruleset
                                             or rules.legacy else _PARTS(rules))
            except NotFast:
                rules_part = None
        if rules_part is None:
            return _general(state)
    first, second = sides
    try:
        first_values = (recent[1] if first is recent[0]
                        else _checked_side(first, recent[1]))
        second_values = (recent[3] if second is recent[2]
                         else _checked_side(second, recent[3]))
        encoded = attrs.copy()
        encoded["sides"] = (first.__dict__, second.__dict__)
        if not results:
            results_part = results  # an empty tuple: written as it is
        elif results is recent[6]:
            results_part = encoded["results"] = recent[7]
        else:
            results_part = encoded["results"] = _PARTS(results)
        _RECENT = (first, first_values, second, second_values, rules, rules_part, results,
                   results_part)
        encoded["rules"] = rules_part
        if resolving is not None:
            encoded["resolving"] = _resolving(resolving, first_values, second_values)
        data = _dumps(encoded, option=_OPTIONS)
    except (NotFast, TypeError):  # orjson's JSONEncodeError is a TypeError
        return _general(state)
    return data if data.isascii() else _general(state)


def _checked_side(side: Side, last: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """The field values of ``side`` (its instance dict holding exactly its fields): each a
    str, int, bool or None, each pile (``deck`` ... ``fallen``) a tuple of those; else
    :class:`NotFast`. ``last``: the values of a side checked so (the same seat's in the
    last state encoded): a pile that is the very tuple at its place there is not looked
    through again (a tuple of scalars never changes), so a side an action made from the
    last one has only the piles it changed looked through."""
    attrs = side.__dict__
    if type(side) is not Side or len(attrs) != _N_SIDE:
        raise NotFast
    try:
        values = _side_values(attrs)
    except KeyError:
        raise NotFast from None
    hero, health, stars, shields, deck, hand, discard, bench, fallen, computer = values
    _, _, _, _, was_deck, was_hand, was_discard, was_bench, was_fallen, _ = last or _UNSEEN
    plain = _PLAIN
    if (type(hero) not in plain or type(health) not in plain or type(stars) not in plain
            or type(shields) not in plain or type(computer) not in plain
            or (deck is not was_deck and (type(deck) is not tuple
                                          or not plain.issuperset(map(type, deck))))
            or (hand is not was_hand and (type(hand) is not tuple
                                          or not plain.issuperset(map(type, hand))))
            or (discard is not was_discard and (type(discard) is not tuple
                                                or not plain.issuperset(map(type, discard))))
            or (bench is not was_bench and (type(bench) is not tuple
                                            or not plain.issuperset(map(type, bench))))
            or (fallen is not was_fallen and (type(fallen) is not tuple
                                              or not plain.issuperset(map(type, fallen))))):
        raise NotFast
    return values


_PLAIN = frozenset({str, int, bool, type(None)})
"""Exactly these scalars (no float, no subclass) are written alike by orjson and RFC 8785
(non-ASCII text aside, which the bytes show)."""
_STATE_NAMES = tuple(f.name for f in fields(State))
_N_STATE = len(_STATE_NAMES)
_state_values = itemgetter(*_STATE_NAMES)
"""A state's field values read from its instance dict, in the order
:func:`canonical_state` unpacks them (checked below)."""
_SIDE_NAMES = tuple(f.name for f in fields(Side))
_N_SIDE = len(_SIDE_NAMES)
_side_values = itemgetter(*_SIDE_NAMES)
_UNSEEN = tuple(object() for _ in _SIDE_NAMES)
"""The values of no side: every pile is looked through."""
_NONE: Any = object()
"""No ruleset and no results (the record before any state)."""
_RECENT: tuple[Any, ...] = (None, None, None, None, _NONE, None, _NONE, None)
"""What :func:`canonical_state` wrote the last state from: ``(first side, its checked
values, second side, its checked values, ruleset, its bytes, results, their bytes)``, one
tuple rebound whole (a replay encodes the states of one match in a row: a side an action
leaves alone is the same object, one it changes shares the piles it did not change; the
ruleset and the results rarely change). It holds the objects, so no identity in it is
reused while it is there."""
_dumps = orjson.dumps
_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS)
"""``canonical_checked``'s options: sorted keys; a dataclass, a date or a subclass of str,
int, dict or list is refused (a TypeError), as is an int beyond 64 bits."""
if _STATE_NAMES != ("mode", "difficulty", "decks", "sides", "phase", "active", "in_play",
                    "turn", "game", "starter", "mirror", "picks", "tokens", "results",
                    "winner", "reason", "rules", "resolving"):
    raise AssertionError("canonical_state unpacks the fields of State in their order")
if _SIDE_NAMES != ("hero", "health", "stars", "shields", "deck", "hand", "discard", "bench",
                   "fallen", "computer"):
    raise AssertionError("_checked_side unpacks the fields of Side in their order")


_LIMIT = 64
"""Entries each identity memo keeps (:class:`IdentityMemo`): the parts of the last few
states, which are the ones the next state shares."""
_RESOLVING_MEMO = IdentityMemo(_LIMIT)
_RULES = IdentityMemo(_LIMIT)
"""Each ruleset's bytes (``None``: a legacy one, or not a ruleset)."""


def _resolving(resolving: Resolving, first: tuple[Any, ...] | None,
               second: tuple[Any, ...] | None) -> Any:
    """A paused resolution's canonical bytes as a fragment, remembered by identity:
    ``to_json``'s JSON, which is the instance dict with the sides it started from
    (``before``), the defence and the Shield question as their instance dicts, tuples as
    arrays, written by orjson in one call. Each scalar in it is checked as
    :func:`canonical_state` checks them (the sides as :func:`_checked_side` does, against
    ``first`` and ``second``, the checked values of the state's own sides, which they
    mostly share); :class:`NotFast` for anything else."""
    hit = _RESOLVING_MEMO.get(id(resolving))
    if hit is not None and hit[0] is resolving:
        return hit[1]
    attrs = resolving.__dict__
    if type(resolving) is not Resolving or len(attrs) != _N_RESOLVING:
        raise NotFast
    try:
        before, answer, shields, emitted, ask = _resolving_values(attrs)
        defended = answer.__dict__
        (cards, targets, throws, blocks, combo_breakers, early, sticks, late, early_damage,
         gains) = _defense_values(defended)
        asked = None if ask is None else ask.__dict__
        question = () if asked is None else _ask_values(asked)
    except (KeyError, AttributeError):
        raise NotFast from None
    if (type(before) is not tuple or len(before) != 2 or type(answer) is not Defense
            or len(defended) != _N_DEFENSE or type(shields) is not tuple
            or type(cards) is not tuple or type(targets) is not tuple or type(early) is not tuple
            or type(sticks) is not tuple or type(late) is not tuple or type(gains) is not tuple
            or not (ask is None or (type(ask) is ShieldAsk and len(asked) == _N_ASK))  # type: ignore[arg-type]
            or not _PLAIN.issuperset(map(type, chain(
                (emitted, throws, blocks, combo_breakers, early_damage), question, shields,
                cards, targets, early, sticks, late)))
            or not (gains == () or (_PAIR.issuperset(map(type, gains))
                                    and _PLAIN.issuperset(map(type, chain(*gains)))))):
        raise NotFast
    _checked_side(before[0], first)
    _checked_side(before[1], second)
    encoded = attrs.copy()
    encoded["before"] = (before[0].__dict__, before[1].__dict__)
    encoded["defense"] = defended
    encoded["ask"] = asked
    try:
        data = _dumps(encoded, option=_OPTIONS)
    except TypeError:
        raise NotFast from None
    if not data.isascii():
        raise NotFast
    return _RESOLVING_MEMO.remember(resolving, Fragment(data))


_N_RESOLVING = len(fields(Resolving))
_resolving_values = itemgetter(*(f.name for f in fields(Resolving)))
_N_DEFENSE = len(fields(Defense))
_defense_values = itemgetter(*(f.name for f in fields(Defense)))
_N_ASK = len(fields(ShieldAsk))
_ask_values = itemgetter(*(f.name for f in fields(ShieldAsk)))
_PAIR = frozenset({tuple})
"""The Computer's Defend-section gains: a tuple of (name, amount) tuples."""
if (tuple(f.name for f in fields(Resolving)) != ("before", "defense", "shields", "emitted",
                                                  "ask")
        or tuple(f.name for f in fields(Defense)) != (
            "cards", "targets", "throws", "blocks", "combo_breakers", "early_buttons",
            "joysticks", "late_buttons", "early_damage", "gains")):
    raise AssertionError("_resolving unpacks the fields of Resolving and Defense in their order")


def _general(state: State) -> bytes:
    """``canonical_json(encode_state(state))``, the encoding written out (any ruleset)."""
    try:
        sides = []
        leaves: list[Any] = [(state.mode, state.difficulty, state.phase, state.active, state.turn,
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
