"""A NEON state as the JSON its state hash is taken over, without reflection.

:func:`encode` builds exactly what :func:`to_json` (the generic, reflective encoder over
the dataclasses) builds, field by field; a state is encoded at every action (its hash is
recorded and checked by ``neon verify``), and reflection over every field of every fighter
was most of an action's cost. tests/unit/neon/test_encoding.py compares both encoders on
states of real games, so a field added later and left out here fails there.

:func:`canonical_state` gives ``canonical_json(encode(s))`` by writing the state's fields'
bytes itself in sorted-key order, encoding again only the fields, fighters and stack frames
that are not the same objects as in the last state of the same match (states share what
they do not replace); anything off orjson's fast path takes the reference path.
tests/unit/neon/test_canonical_fast.py and tests/unit/test_canonical_state.py compare the
bytes.
"""

from __future__ import annotations

import gc
from bisect import bisect
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from itertools import chain, compress
from operator import is_not, itemgetter
from typing import Any

import orjson

from services.platform.canonical import NotFast, canonical_fast, canonical_json
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.state import CardChoice, Equip, Fighter, Frame, State


def to_json(value: Any) -> Any:
    """The generic encoder: dataclasses as objects of their fields, tuples as lists."""
    if isinstance(value, Attack):
        return {
            "kind": value.kind,
            "owner": value.attacker,
            "data": {k: to_json(v) for k, v in value.encoded().items()},
        }
    if is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
        if "data" in out and hasattr(value, "kind"):
            out["data"] = {k: to_json(v) for k, v in value.data}  # type: ignore[attr-defined]
        if isinstance(value, State) and not value.defaults:
            del out["defaults"]  # written only when it holds one (engine 6: see State)
        return out
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, float):
        raise TypeError("no floats in NEON states")
    return value


def _value(value: Any) -> Any:
    """:func:`to_json` of a value in a frame's data: scalars as they are, the rest generic."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is tuple and all(type(v) is str or type(v) is int for v in value):
        return list(value)
    return to_json(value)


def _rows(rows: tuple[tuple[Any, ...], ...]) -> list[list[Any]]:
    return [list(row) for row in rows]


def _frame(fr: Any) -> dict[str, Any]:
    if type(fr) is Frame:
        return {"kind": fr.kind, "owner": fr.owner, "data": {k: _value(v) for k, v in fr.data}}
    return to_json(fr)


def _choice(choice: CardChoice | None) -> dict[str, Any] | None:
    if choice is None:
        return None
    return {
        "top": choice.top,
        "bottom": choice.bottom,
        "cover": choice.cover,
        "top_rotated": choice.top_rotated,
        "bottom_rotated": choice.bottom_rotated,
    }


def _fighter(f: Fighter, seq: Callable[[Any], Any] = list,
             rows: Callable[[Any], Any] = _rows) -> dict[str, Any]:
    """The fighter as :func:`to_json` writes it; ``seq=rows=tuple`` leaves its tuples as
    they are (the same objects, no copy), which orjson writes as the same arrays."""
    return {
        "idx": f.idx,
        "fighter": f.fighter,
        "team": f.team,
        "side": f.side,
        "sector": f.sector,
        "eliminated": f.eliminated,
        "energy": f.energy,
        "health": rows(f.health),
        "trophies": seq(f.trophies),
        "bots": rows(f.bots),
        "equipment": [{"card": e.card, "supplies": seq(e.supplies)} for e in f.equipment],
        "hand": seq(f.hand),
        "deck": seq(f.deck),
        "discard": seq(f.discard),
        "choice": _choice(f.choice),
        "row": rows(f.row),
        "initiative": f.initiative,
        "step": f.step,
        "acted": f.acted,
        "shields": f.shields,
        "upgrades": seq(f.upgrades),
        "used_upgrades": seq(f.used_upgrades),
        "resigned": f.resigned,
    }


def encode(s: State) -> dict[str, Any]:
    """``to_json(s)``, written out."""
    return {
        "mode": s.mode,
        "seats": s.seats,
        "automa": s.automa,
        "teams": _rows(s.teams),
        "cells": list(s.cells),
        "fighters": [_fighter(f) for f in s.fighters],
        "ring": list(s.ring),
        "scoreboard": list(s.scoreboard),
        "round_board": _rows(s.round_board),
        "bots": _rows(s.bots),
        "search": _rows(s.search),
        "search_supply": s.search_supply,
        "tokens": _rows(s.tokens),
        "loot_decks": _rows(s.loot_decks),
        "loot_discards": _rows(s.loot_discards),
        "upgrade_deck": list(s.upgrade_deck),
        "health_supply": list(s.health_supply),
        "leader": s.leader,
        "round": s.round,
        "phase": s.phase,
        "current": s.current,
        "acted_order": list(s.acted_order),
        "stack": [_frame(fr) for fr in s.stack],
        "closes_left": s.closes_left,
        "closing_sector": s.closing_sector,
        "eliminations": _rows(s.eliminations),
        "ended": s.ended,
        "serial": s.serial,
        "ruleset": s.ruleset,
        **({"defaults": _defaults(s.defaults)} if s.defaults else {}),
    }


def _defaults(defaults: tuple[tuple[int, CardChoice], ...]) -> list[list[Any]]:
    """``State.defaults`` as :func:`to_json` writes it: ``[fighter, choice]`` pairs."""
    return [[idx, _choice(choice)] for idx, choice in defaults]


def _frame_json(fr: Any) -> dict[str, Any]:
    """:func:`_frame` as the canonical encoder takes it: an attack's data with its tuples
    as they are (orjson writes them as the same arrays, so the bytes are those of
    ``to_json``); nearly every step of an attack makes a new one."""
    if type(fr) is Attack:
        return {"kind": fr.kind, "owner": fr.attacker, "data": fr.encoded()}
    return _frame(fr)


def _fighter_json(f: Fighter) -> dict[str, Any]:
    """:func:`_fighter` as the canonical encoder takes it, tuples left as they are."""
    return _fighter(f, tuple, tuple)


def _scalar(value: Any) -> bytes:
    """Canonical bytes of a plain scalar (exactly a str, int, bool or None; ASCII; an int
    orjson writes), else :class:`NotFast` (``_ascii_json`` written out: a state's most
    encoded part, its serial, takes this at every step)."""
    if type(value) not in _SCALAR_TYPES:
        raise NotFast
    try:
        data = _dumps(value)
    except TypeError:  # an int beyond 64 bits
        raise NotFast from None
    if not data.isascii():
        raise NotFast
    return data


def _fast(encoder: Callable[[Any], Any]) -> Callable[[Any], bytes]:
    """``canonical_fast(encoder(value))``, or :class:`NotFast` when it is off that path."""
    def encode_part(value: Any) -> bytes:
        data = canonical_fast(encoder(value))
        if data is None:
            raise NotFast
        return data
    return encode_part


def _flat_part(value: Any) -> bytes:
    """``canonical_fast(list(value))`` of a tuple of plain scalars (a hand, a deck), checked
    by type in one pass in C; anything else :class:`NotFast`."""
    if type(value) is not tuple or not _all_scalars(map(type, value)):
        raise NotFast
    try:  # _ascii_json(value), written out
        data = _dumps(value)
    except TypeError:  # an int beyond 64 bits
        raise NotFast from None
    if not data.isascii():
        raise NotFast
    return data


def _rows_checked(value: Any) -> bytes:
    """``canonical_fast(_rows(value))`` of a tuple of tuples of plain scalars (health, a
    row), checked by type in C; anything else :class:`NotFast`."""
    if type(value) is not tuple or not _all_tuples(map(type, value)) \
            or not _all_scalars(map(type, _flat(value))):
        raise NotFast
    try:  # _ascii_json(value), written out
        data = _dumps(value)
    except TypeError:  # an int beyond 64 bits
        raise NotFast from None
    if not data.isascii():
        raise NotFast
    return data


def _ascii_json(value: Any) -> bytes:
    """orjson's bytes of a value already checked to hold plain scalars only, when they are
    ASCII; :class:`NotFast` for non-ASCII text or an int beyond 64 bits."""
    try:
        data = _dumps(value)
    except TypeError:  # an int beyond 64 bits
        raise NotFast from None
    if not data.isascii():
        raise NotFast
    return data


def _equipment(equipment: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [{"card": e.card, "supplies": list(e.supplies)} for e in equipment]


def _equipment_part(value: Any) -> bytes:
    """``canonical_fast(_equipment(value))`` of a tuple of ``Equip`` (exactly) whose card
    and supplies (a tuple) are plain scalars, checked by type; anything else
    :class:`NotFast`."""
    if type(value) is not tuple:
        raise NotFast
    out = []
    scalars = []
    for e in value:
        if type(e) is not Equip or type(e.supplies) is not tuple:
            raise NotFast
        out.append({"card": e.card, "supplies": e.supplies})
        scalars.append(e.card)
        scalars += e.supplies
    if not _all_scalars(map(type, scalars)):
        raise NotFast
    return _ascii_json(out)


def _choice_part(value: Any) -> bytes:
    """``canonical_fast(_choice(value))`` of ``None`` or a ``CardChoice`` (exactly) of
    plain scalars, checked by type (its keys written in sorted order); anything else
    :class:`NotFast`."""
    if value is None:
        return b"null"
    if type(value) is not CardChoice:
        raise NotFast
    data = {"bottom": value.bottom, "bottom_rotated": value.bottom_rotated,
            "cover": value.cover, "top": value.top, "top_rotated": value.top_rotated}
    if not _all_scalars(map(type, data.values())):
        raise NotFast
    return _ascii_json(data)


def _fighter_entry(f: Fighter, last: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """``(field values, "key":value bytes of each field, the fighter's bytes)``, the bytes
    being ``canonical_fast(_fighter_json(f))``; fields that are the objects of ``last`` (the
    entry of the fighter at the same place in the match's last state) are not encoded again.
    A subclass of ``Fighter`` (or a part off the fast path) raises :class:`NotFast`. The
    object's braces are in the parts (the first key opens it, the last field's bytes close
    it), so the fighter's bytes are one join."""
    if type(f) is not Fighter:
        raise NotFast
    try:
        values = _fighter_values(f.__dict__)
    except KeyError:  # a field missing from the instance (never made so): the reference
        raise NotFast from None
    if last is None:
        parts = [key + encode_part(value)
                 for key, encode_part, value in zip(_F_KEYS, _F_ENCODERS, values, strict=True)]
    else:
        parts = last[1].copy()
        for j in compress(_F_INDEXES, map(is_not, values, last[0])):
            parts[j] = _F_KEYS[j] + _F_ENCODERS[j](values[j])
    return values, parts, b",".join(parts)


def _fighter_entries(fighters: tuple[Any, ...], last: tuple[Any, ...],
                     last_entries: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The entry of each fighter: that of the same object at the same place of ``last``,
    else :func:`_fighter_entry` from it."""
    n = len(last)
    out = []
    for i, f in enumerate(fighters):
        if i < n:
            out.append(last_entries[i] if f is last[i] else _fighter_entry(f, last_entries[i]))
        else:
            out.append(_fighter_entry(f, None))
    return out


_SCALAR_TYPES = frozenset({str, int, bool, type(None)})
_TUPLE = frozenset({tuple})
_all_scalars = _SCALAR_TYPES.issuperset
_all_tuples = _TUPLE.issuperset
"""``_all_scalars(map(type, items))``: every item is exactly a str, int, bool or None (no
float, no subclass). ``frozenset.issuperset`` of an iterator looks each type up as it comes
and stops at the first other one, where ``set(map(type, items)) <= ...`` built the set of
all of them first (every part a state encodes is checked so)."""
_flat = chain.from_iterable
_dumps = orjson.dumps
_ROWS_PART = _rows_checked
"""A table's tuple of rows (``canonical_fast(_rows(value))``), checked by type in C."""
_LIST_PART = _flat_part
"""A table's tuple of scalars (``canonical_fast(list(value))``), checked by type in C."""
_F_NAMES = tuple(sorted(f.name for f in fields(Fighter)))
"""A fighter's fields in sorted-key order: :func:`_fighter` writes each once under its name."""
_F_KEYS = tuple((b"{" if n == 0 else b"") + _dumps(name) + b":"
                for n, name in enumerate(_F_NAMES))
"""``"name":`` of each field, the first opening the object (see :func:`_fighter_entry`)."""
_F_FLAT = frozenset({"trophies", "hand", "deck", "discard", "upgrades", "used_upgrades"})
_F_ROWS = frozenset({"health", "bots", "row"})
def _closing(encode_part: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """``encode_part``, its bytes followed by the ``}`` closing the object (the encoder of
    the last field in key order: see :func:`_fighter_entry`)."""
    def encode_last(value: Any) -> bytes:
        return encode_part(value) + b"}"
    return encode_last


_F_ENCODERS: tuple[Callable[[Any], bytes], ...] = tuple(
    (_closing if n == len(_F_NAMES) - 1 else lambda e: e)(
        _flat_part if name in _F_FLAT else _rows_checked if name in _F_ROWS
        else _equipment_part if name == "equipment" else _choice_part if name == "choice"
        else _scalar)
    for n, name in enumerate(_F_NAMES))
_F_INDEXES = range(len(_F_NAMES))
_fighter_values = itemgetter(*_F_NAMES)
"""A fighter's field values, read from its instance dict (a ``Fighter``, exactly, holds
each of its fields there): a dict lookup each, where ``attrgetter`` took the generic
attribute lookup (the type's MRO, then the dict) for each."""
_FRAME_JSON_PART = _fast(_frame_json)


def _frame_part(fr: Any) -> bytes:
    """``canonical_fast(_frame_json(fr))``: an attack (exactly) whose encoded data holds
    only plain scalars and tuples of them, checked by type a level at a time in C, is
    written by orjson in the keys' order (``Attack.encoded`` writes them sorted); any other
    frame through :func:`canonical_fast`; anything off the fast path :class:`NotFast`."""
    if type(fr) is not Attack:
        return _FRAME_JSON_PART(fr)
    data = fr.encoded()
    level = [fr.attacker, *data.values()]
    for _ in range(8):
        if _all_scalars(map(type, level)):
            return _ascii_json({"data": data, "kind": "attack", "owner": fr.attacker})
        if not _all_scalars_or_tuples(map(type, level)):
            raise NotFast
        level = _referents(*level)  # the items of the tuples (scalars have none)
    raise NotFast


_SCALARS_OR_TUPLE = _SCALAR_TYPES | _TUPLE
_all_scalars_or_tuples = _SCALARS_OR_TUPLE.issuperset
_referents = gc.get_referents
_FRAME_PART = _frame_part
_ROW_FIELDS = frozenset({"teams", "round_board", "bots", "search", "tokens", "loot_decks",
                         "loot_discards", "eliminations"})
_LIST_FIELDS = frozenset({"cells", "ring", "scoreboard", "upgrade_deck", "health_supply",
                          "acted_order"})
_OPTIONAL = ("defaults",)
"""Fields :func:`encode` writes only when they hold something (added in engine 6, so that
earlier states encode as they did): written apart, in their sorted place."""
_NAMES = tuple(sorted(f.name for f in fields(State) if f.name not in _OPTIONAL))
"""The state's other fields in the order canonical JSON writes its keys (ASCII names: code
points and UTF-16 units sort alike); :func:`encode` writes each field once under its name
(tests/unit/neon/test_canonical_fast.py checks both)."""
_DEFAULTS_AT = bisect(_NAMES, "defaults")
_DEFAULTS_KEY = _dumps("defaults") + b":"
_KEYS = tuple((b"{" if n == 0 else b"") + _dumps(name) + b":" for n, name in enumerate(_NAMES))
"""``"name":`` of each field, the first opening the object (see :func:`canonical_state`)."""
_FIGHTERS_AT = _NAMES.index("fighters")
_STACK_AT = _NAMES.index("stack")
_DEFAULTS_PART = _fast(_defaults)
_ENCODERS: tuple[Callable[[Any], bytes] | None, ...] = tuple(
    (_closing if n == len(_NAMES) - 1 else lambda e: e)(
        _ROWS_PART if name in _ROW_FIELDS else _LIST_PART if name in _LIST_FIELDS
        else _scalar)
    if name not in ("fighters", "stack") else None
    for n, name in enumerate(_NAMES))
_FIGHTERS_OPEN = _KEYS[_FIGHTERS_AT] + b"["
_STACK_OPEN = _KEYS[_STACK_AT] + b"["
_state_values = itemgetter(*_NAMES)
"""A state's field values, read from its instance dict (see ``_fighter_values``)."""
_MATCH_LIMIT = 64
_INDEXES = range(len(_NAMES))


class _Last:
    """What :func:`canonical_state` wrote for the last state of one match, as one tuple
    (``snap``): the field values (the objects themselves, held so that no identity is
    reused while remembered), each field's ``"key":value`` bytes, the fighters with their
    entries (:func:`_fighter_entry`) and the stack frames with their bytes.

    One tuple, read once and replaced whole (never changed in place), so that a thread that
    reads it while another writes it (the host rebuilds matches in worker threads while the
    event loop hashes others) sees one state's values with that same state's bytes, never
    one's values with another's bytes."""

    __slots__ = ("snap",)

    def __init__(self) -> None:
        self.snap: tuple[Any, ...] = ((), [], (), [], (), [])


_MATCHES: dict[int, tuple[Any, _Last]] = {}
"""The last state's encoding per match, by the identity of its ``cells`` tuple (made once
at set-up, shared by every state of the match; held in the entry), most recent last, at
most ``_MATCH_LIMIT``. Which entry a state finds only decides how much is reused: a part is
reused only for the very object it was written from."""


def _items(objs: tuple[Any, ...], last: tuple[Any, ...], last_parts: list[bytes],
           encode_part: Callable[[Any], bytes]) -> list[bytes]:
    """The bytes of each of ``objs``: those of the object at the same place of ``last``
    when it is the same object, else encoded."""
    n = len(last)
    return [last_parts[i] if i < n and obj is last[i] else encode_part(obj)
            for i, obj in enumerate(objs)]


def _written(s: State) -> bytes:
    """``canonical_json(encode(s))`` written field by field, re-encoding only the fields,
    fighters and frames that are not the objects of the match's last state; raises
    :class:`NotFast` when a part is off the fast path (nothing is remembered then).

    The match encoded last is found without the dict (:data:`_RECENT`), and stays where it
    is in :data:`_MATCHES`: it is its newest entry already. The object's braces are in the
    parts (the first key opens it, the last field's bytes close it): the bytes are one
    join."""
    global _RECENT
    anchor = s.cells
    recent = _RECENT  # one tuple, rebound whole: never a match's anchor with another's record
    if recent[0] is anchor:
        last = recent[1]
        fresh = False
    else:
        entry = _MATCHES.pop(id(anchor), None)
        last = entry[1] if entry is not None and entry[0] is anchor else _Last()
        fresh = True
    try:
        values = _state_values(s.__dict__)
    except KeyError:  # a field missing from the instance (never made so): the reference
        raise NotFast from None
    old, old_parts, fighters, fighter_parts, stack, frame_parts = last.snap
    if old:
        parts = old_parts.copy()
        changed: Any = compress(_INDEXES, map(is_not, values, old))  # in C
    else:
        parts = [b""] * len(values)
        changed = _INDEXES
    for i in changed:
        value = values[i]
        if i == _FIGHTERS_AT:
            fighter_parts = _fighter_entries(value, fighters, fighter_parts)
            fighters = value
            parts[i] = _FIGHTERS_OPEN + b",".join([entry[2] for entry in fighter_parts]) + b"]"
        elif i == _STACK_AT:
            frame_parts = _items(value, stack, frame_parts, _FRAME_PART)
            stack = value
            parts[i] = _STACK_OPEN + b",".join(frame_parts) + b"]"
        else:
            parts[i] = _KEYS[i] + _ENCODERS[i](value)  # type: ignore[misc]
    if type(fighters) is not tuple or type(stack) is not tuple:
        raise NotFast
    defaults = s.__dict__.get("defaults")
    if defaults:  # engine 6, while cards are chosen: in its sorted place (never cached)
        if type(defaults) is not tuple:
            raise NotFast
        extra = _DEFAULTS_KEY + _DEFAULTS_PART(defaults)
    last.snap = (values, parts, fighters, fighter_parts, stack, frame_parts)
    if fresh:
        if len(_MATCHES) >= _MATCH_LIMIT:
            try:
                del _MATCHES[next(iter(_MATCHES))]
            except (KeyError, RuntimeError, StopIteration):  # another thread changed it
                pass
        _MATCHES[id(anchor)] = (anchor, last)
        _RECENT = (anchor, last)
    if defaults:
        return b",".join([*parts[:_DEFAULTS_AT], extra, *parts[_DEFAULTS_AT:]])
    return b",".join(parts)


_RECENT: tuple[Any, Any] = (None, None)
"""The anchor (``cells``) and :class:`_Last` of the match :func:`_written` last added to
:data:`_MATCHES` (a replay encodes the states of one match in a row); one tuple, rebound
whole, so a thread never reads one match's anchor with another's record."""


def canonical_state(s: State) -> bytes:
    """``canonical_json(encode(s))``: written field by field from the bytes of the match's
    last state, each field, fighter and stack frame encoded again only when it is not the
    same object (states share what they do not replace); anything off the fast path (a
    float, non-ASCII text, a subclass, an int beyond 64 bits) takes the reference path."""
    if type(s) is State:
        try:
            return _written(s)
        except NotFast:
            pass
    return canonical_json(encode(s))
