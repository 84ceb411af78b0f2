"""A NEON state as the JSON its state hash is taken over, without reflection.

:func:`encode` builds exactly what :func:`to_json` (the generic, reflective encoder over
the dataclasses) builds, field by field; a state is encoded at every action (its hash is
recorded and checked by ``neon verify``), and reflection over every field of every fighter
was most of an action's cost. tests/unit/neon/test_encoding.py compares both encoders on
states of real games, so a field added later and left out here fails there.

:func:`canonical_state` gives ``canonical_json(encode(s))`` without encoding again the
fighters, stack frames and tuples that did not change since the last step (the same
objects: states share what they do not replace); tests/unit/test_canonical_state.py
compares the bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from operator import attrgetter, is_
from typing import Any

from services.platform.canonical import (
    CanonicalMemo,
    NotFast,
    canonical_checked,
    canonical_json,
    plain_scalars,
)
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.state import CardChoice, Fighter, Frame, State


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
            out["data"] = {k: to_json(v) for k, v in value.data}
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
    }


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


_FIGHTERS = CanonicalMemo(_fighter_json)
_FRAMES = CanonicalMemo(_frame_json)
_ROWS = CanonicalMemo(_rows)
_LIST = CanonicalMemo(list)
_ROW_FIELDS = ("teams", "round_board", "bots", "search", "tokens", "loot_decks",
               "loot_discards", "eliminations")
_LIST_FIELDS = ("cells", "ring", "scoreboard", "upgrade_deck", "health_supply", "acted_order")
_table_fields = attrgetter(*_ROW_FIELDS, *_LIST_FIELDS)
_last_table: tuple[tuple[Any, ...], dict[str, Any]] = ((), {})


def _table(s: State) -> dict[str, Any]:
    """The table's tuples as fragments (``_rows`` or ``list`` of each, as :func:`encode`
    writes them); those of the last state asked about are kept whole, since most steps
    change none of them."""
    global _last_table
    parts = _table_fields(s)
    last, fragments = _last_table
    if len(last) == len(parts) and all(map(is_, parts, last)):
        return fragments
    rows = len(_ROW_FIELDS)
    fragments = {name: _ROWS(value) for name, value in zip(_ROW_FIELDS, parts[:rows], strict=True)}
    fragments.update((name, _LIST(value))
                     for name, value in zip(_LIST_FIELDS, parts[rows:], strict=True))
    _last_table = (parts, fragments)
    return fragments


def _fighters(fighters: tuple[Fighter, ...]) -> list[Any]:
    """The fighters' fragments; those of the fighters the last state asked about shared
    (the same objects) are taken from its list without asking the memo again."""
    global _last_fighters
    last, parts = _last_fighters
    if last is fighters:
        return parts
    if len(last) == len(fighters):
        parts = [part if f is g else _FIGHTERS(f)
                 for f, g, part in zip(fighters, last, parts, strict=True)]
    else:
        parts = [_FIGHTERS(f) for f in fighters]
    _last_fighters = (fighters, parts)
    return parts


_last_fighters: tuple[tuple[Fighter, ...], list[Any]] = ((), [])


def canonical_state(s: State) -> bytes:
    """``canonical_json(encode(s))``; each fighter, stack frame and tuple of the table
    encoded once while it stays the same object (``CanonicalMemo``)."""
    try:
        scalars = (s.mode, s.seats, s.automa, s.search_supply, s.leader, s.round, s.phase,
                   s.current, s.closes_left, s.closing_sector, s.ended, s.serial, s.ruleset)
        if not plain_scalars(scalars):
            raise NotFast
        out = dict(_table(s))
        out.update(zip(_SCALAR_FIELDS, scalars, strict=True))
        out["fighters"] = _fighters(s.fighters)
        out["stack"] = [_FRAMES(fr) for fr in s.stack]
        data = canonical_checked(out)  # scalars checked, the rest fragments
    except NotFast:
        data = None
    return data if data is not None else canonical_json(encode(s))


_SCALAR_FIELDS = ("mode", "seats", "automa", "search_supply", "leader", "round", "phase",
                  "current", "closes_left", "closing_sector", "ended", "serial", "ruleset")
