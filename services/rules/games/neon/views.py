"""What a seat (or a spectator) may see: never another seat's hand, hidden choice, deck order
or the cards of its supplies (their symbols only).

A view is built for every decision, and most of it is the same as the last one: one action
changes one or two fighters, and the ring rarely. States are immutable and share what an
action leaves alone (the same ``Fighter`` object, the same ``ring`` tuple), so each part of
a view is kept in a slot (per fighter seat, per stack depth, ...) with the object it was
made from, and reused while that object is the one asked about. A slot holds one part: the
cache stays small, and what it replaces is freed at once (a cache that keeps thousands of
parts alive costs more in garbage collection than it saves). Views are read, never
changed, by whoever asks for them (the host already hands one view object to several
readers); the parts they share are as read-only as the rest.

A view holds JSON values only (dicts with string keys, lists, strings, integers, booleans,
``None``: no tuple), so it equals what a client reads back from its JSON, type for type
(``NeonEngine.json_views``; tests/unit/neon/test_views_json.py): self-play hands it to the
bots as it is, without the JSON round trip.
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter, is_not
from typing import Any

from services.rules.games.contract import Decision
from services.rules.games.neon.attack import VIEW_KEYS, Attack
from services.rules.games.neon.content import LOOT, SECTORS
from services.rules.games.neon.state import Fighter, StackFrame, State

PRIVATE_FRAMES = ("keep", "upgrade", "place")
ALL_SECTORS = frozenset(SECTORS)
_FIGHTERS: dict[tuple[int, bool, str], tuple[Fighter, dict[str, Any]]] = {}
_PUBLIC: dict[tuple[int, str], tuple[Fighter, dict[str, Any]]] = {}
_LISTS: dict[tuple[int | None, str], tuple[tuple[Fighter, ...], list[dict[str, Any]]]] = {}
_FRAMES: dict[tuple[int, bool], tuple[StackFrame, dict[str, Any]]] = {}
_RING: list[Any] = [None, None, None, [], []]


def fighter_view(s: State, f: Fighter, viewer: int | None) -> dict[str, Any]:
    mine = viewer == f.idx
    key = (f.idx, mine, s.mode)
    hit = _FIGHTERS.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    out = _fighter_view(s.mode, f, mine)
    _FIGHTERS[key] = (f, out)
    return out


def fighters_view(s: State, viewer: int | None) -> list[dict[str, Any]]:
    """Every fighter's part; the same list while the state's ``fighters`` tuple is."""
    fighters = s.fighters
    key = (viewer, s.mode)
    hit = _LISTS.get(key)
    if hit is not None:
        last, parts = hit
        if last is fighters:
            return parts
        if len(last) == len(fighters):
            # an action changes one or two fighters: the others keep their part
            out = [part if f is g else fighter_view(s, f, viewer)
                   for f, g, part in zip(fighters, last, parts, strict=True)]
            _LISTS[key] = (fighters, out)
            return out
    out = [fighter_view(s, f, viewer) for f in fighters]
    _LISTS[key] = (fighters, out)
    return out


def _fighter_view(mode: str, f: Fighter, mine: bool) -> dict[str, Any]:
    """The fighter as everyone sees it, plus its hand, the cards of its supplies (and its
    hidden choice) for its seat."""
    key = (f.idx, mode)
    hit = _PUBLIC.get(key)
    if hit is not None and hit[0] is f:
        public = hit[1]
    else:
        public = _public_view(mode, f) if hit is None else _public_view(mode, f, *hit)
        _PUBLIC[key] = (f, public)
    revealed = bool(f.row)
    if not mine and (f.choice is None or not revealed):
        return public
    out = dict(public)
    if mine:
        out["hand"] = list(f.hand)
        # the cards tucked as supplies, which the others see as their symbols only
        out["equipment"] = [{**part, "supplies": list(e.supplies)}
                            for part, e in zip(public["equipment"], f.equipment, strict=True)]
    if f.choice is not None and (mine or revealed):
        c = f.choice
        out["choice"] = {"top": c.top, "bottom": c.bottom, "cover": c.cover,
                         "top_rotated": c.top_rotated, "bottom_rotated": c.bottom_rotated}
    return out


def _public_view(mode: str, f: Fighter, last: Fighter | None = None,
                 before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The fighter as everyone sees it: a card tucked as a supply by its supply symbols only
    ("tuck it under one of your equipment cards so that only the supply symbol at the bottom
    of the card is visible"). ``last`` and ``before``: the fighter's previous
    version and its part; an action changes a few fields, and the lists made from those it
    left alone (the same tuples) are taken from ``before`` (read, never changed, like every
    part of a view)."""
    if last is not None and before is not None and type(f) is Fighter and \
            type(last) is Fighter:
        # the keys of the fields that are not the same objects, on a copy of ``before``
        # (an action changes one to three: energy, the step, a hand and a deck)
        changed = list(compress(_PUBLIC_KEYS_OF, map(is_not, _PUBLIC_FIELDS(f),
                                                     _PUBLIC_FIELDS(last))))
        if len(changed) <= _FEW_CHANGES:
            out = before.copy()
            for keys in changed:
                for key in keys:
                    out[key] = _PUBLIC_VALUE[key](mode, f)
            return out
    revealed = bool(f.row)
    was = last if last is not None else _NOBODY
    old = before if before is not None else {}
    return {
        "fighter": f.idx, "name": f.fighter, "team": f.team, "side": f.side,
        "sector": f.sector, "on_ship": f.sector is None and not f.eliminated,
        "eliminated": f.eliminated, "automa": f.automa, "energy": f.energy,
        "health": old["health"] if f.health is was.health else
        [list(r) for r in f.health] if mode != "battle-royale" else [len(r) for r in f.health],
        "trophies": old["trophies"] if f.trophies is was.trophies else list(f.trophies),
        "bots": old["bots"] if f.bots is was.bots else
        [{"token": t, "flipped": flipped} for t, flipped in f.bots],
        "equipment": old["equipment"] if f.equipment is was.equipment else
        [{"card": e.card, "supply_symbols": [list(LOOT[s].supplies) for s in e.supplies]}
         for e in f.equipment],
        "upgrades": old["upgrades"] if f.upgrades is was.upgrades else list(f.upgrades),
        "used_upgrades": old["used_upgrades"] if f.used_upgrades is was.used_upgrades
        else list(f.used_upgrades),
        "hand_size": len(f.hand), "deck_size": len(f.deck),
        "discard": old["discard"] if f.discard is was.discard else list(f.discard),
        "chosen": f.choice is not None or revealed, "shields": f.shields,
        "row": old["row"] if f.row is was.row else [list(h) for h in f.row],
        "initiative": f.initiative if revealed else None,
        "step": f.step, "acted": f.acted,
    }


_PUBLIC_VALUE: dict[str, Any] = {
    "fighter": lambda mode, f: f.idx,
    "name": lambda mode, f: f.fighter,
    "team": lambda mode, f: f.team,
    "side": lambda mode, f: f.side,
    "sector": lambda mode, f: f.sector,
    "on_ship": lambda mode, f: f.sector is None and not f.eliminated,
    "eliminated": lambda mode, f: f.eliminated,
    "automa": lambda mode, f: f.automa,
    "energy": lambda mode, f: f.energy,
    "health": lambda mode, f: [list(r) for r in f.health] if mode != "battle-royale"
    else [len(r) for r in f.health],
    "trophies": lambda mode, f: list(f.trophies),
    "bots": lambda mode, f: [{"token": t, "flipped": flipped} for t, flipped in f.bots],
    "equipment": lambda mode, f: [
        {"card": e.card, "supply_symbols": [list(LOOT[s].supplies) for s in e.supplies]}
        for e in f.equipment],
    "upgrades": lambda mode, f: list(f.upgrades),
    "used_upgrades": lambda mode, f: list(f.used_upgrades),
    "hand_size": lambda mode, f: len(f.hand),
    "deck_size": lambda mode, f: len(f.deck),
    "discard": lambda mode, f: list(f.discard),
    "chosen": lambda mode, f: f.choice is not None or bool(f.row),
    "shields": lambda mode, f: f.shields,
    "row": lambda mode, f: [list(h) for h in f.row],
    "initiative": lambda mode, f: f.initiative if f.row else None,
    "step": lambda mode, f: f.step,
    "acted": lambda mode, f: f.acted,
}
"""Each key of a fighter's public part, made from the fighter as ``_public_view`` makes it."""
_PUBLIC_KEYS: dict[str, tuple[str, ...]] = {
    "idx": ("fighter",), "fighter": ("name", "automa"), "team": ("team",), "side": ("side",),
    "sector": ("sector", "on_ship"), "eliminated": ("eliminated", "on_ship"),
    "energy": ("energy",), "health": ("health",), "trophies": ("trophies",), "bots": ("bots",),
    "equipment": ("equipment",), "upgrades": ("upgrades",),
    "used_upgrades": ("used_upgrades",), "hand": ("hand_size",), "deck": ("deck_size",),
    "discard": ("discard",), "choice": ("chosen",), "row": ("row", "chosen", "initiative"),
    "initiative": ("initiative",), "step": ("step",), "acted": ("acted",),
    "shields": ("shields",),
}
"""The keys of the public part made from each of the fighter's fields (``resigned`` shows
in none)."""
_PUBLIC_FIELDS = attrgetter(*_PUBLIC_KEYS)
_PUBLIC_KEYS_OF = tuple(_PUBLIC_KEYS.values())
_FEW_CHANGES = 6
"""More fields changed than this: the part is made afresh (reusing the lists of the others)."""


_SENTINEL = object()


class _Nobody:
    """A fighter none of whose fields is any fighter's (``_public_view`` with no last)."""

    health: Any = _SENTINEL
    trophies: Any = _SENTINEL
    bots: Any = _SENTINEL
    equipment: Any = _SENTINEL
    upgrades: Any = _SENTINEL
    used_upgrades: Any = _SENTINEL
    discard: Any = _SENTINEL
    row: Any = _SENTINEL


_NOBODY: Any = _Nobody()


def ring_view(s: State) -> tuple[list[dict[str, Any]], list[int]]:
    """The open sectors (with their bot and search tokens) and the closed ones."""
    global _RING
    ring, bots, search = s.ring, s.bots, s.search
    last = _RING
    if last[0] is ring and last[1] is bots and last[2] is search:
        return last[3], last[4]
    on = dict(bots)
    tokens = dict(search)
    shown = [{"sector": n, "name": SECTORS[n].name, "class": SECTORS[n].cls,
              "bot": on.get(n), "search_tokens": tokens.get(n, 0)} for n in ring]
    closed = sorted(ALL_SECTORS - set(ring))
    _RING = [ring, bots, search, shown, closed]
    return shown, closed


def frame_view(depth: int, fr: StackFrame, viewer: int | None) -> dict[str, Any]:
    key = (depth, viewer == fr.owner)
    hit = _FRAMES.get(key)
    if hit is not None:
        last = hit[0]
        if last is fr:
            return hit[1]
        if type(fr) is Attack and type(last) is Attack:
            out = attack_view_since(fr, last, hit[1])
            _FRAMES[key] = (fr, out)
            return out
    out = _frame_view(fr, viewer)
    _FRAMES[key] = (fr, out)
    return out


def attack_view_since(fr: Attack, last: Attack, before: dict[str, Any]) -> dict[str, Any]:
    """``_frame_view`` of the attack ``fr``, from ``before``, the view of the attack
    ``last``: an answer changes a few of an attack's fields, and only the keys of the
    fields that are not the same objects are made again (``attack.VIEW_KEYS``); a change
    of the fields that decide which keys there are makes the view afresh."""
    if fr.allies is not last.allies or fr.blocks_assigned is not last.blocks_assigned or \
            fr.full_blocks_on_crits != last.full_blocks_on_crits:
        return _frame_view(fr, None)
    out = before.copy()
    now = _ATTACK_FIELDS(fr)
    for key, value in compress(zip(_ATTACK_KEYS, now),
                               map(is_not, now, _ATTACK_FIELDS(last))):
        out[key] = _json(value) if isinstance(value, tuple) else value
    return out


_ATTACK_FIELDS = attrgetter(*VIEW_KEYS)
_ATTACK_KEYS = tuple(VIEW_KEYS.values())


def _frame_view(fr: StackFrame, viewer: int | None) -> dict[str, Any]:
    if isinstance(fr, Attack):
        pairs = list(fr.encoded().items())
    elif fr.kind in PRIVATE_FRAMES and viewer != fr.owner:
        return {"kind": fr.kind, "owner": fr.owner, "cards": len(fr.get("cards"))}
    else:  # a keep's drawn default (engine 6) to nobody: its owner has it as its decision's
        pairs = [(k, v) for k, v in fr.data if k != "default"]
    data = {k: _json(v) if isinstance(v, tuple) else v for k, v in pairs}
    return {"kind": fr.kind, "owner": fr.owner, **data}


def _json(value: tuple[Any, ...]) -> list[Any]:
    """A tuple as JSON reads it back: lists all the way down (an attack's simultaneous
    defense rolls are pairs holding tuples)."""
    return [_json(v) if isinstance(v, tuple) else v for v in value]


def table_view(s: State) -> tuple[Any, ...]:
    """The teams, round board, cells, special tokens and loot piles as the view shows them
    (they change a few times a round)."""
    global _TABLE
    last = _TABLE
    src = last[0]
    if src is not None and src[0] is s.teams and src[1] is s.round_board and \
            src[2] is s.cells and src[3] is s.tokens and src[4] is s.loot_decks and \
            src[5] is s.loot_discards and src[6] is s.health_supply:
        return last[1]
    parts = ([list(t) for t in s.teams], [list(c) for c in s.round_board], list(s.cells),
             [{"token": t, "owner": o, "sector": n} for t, o, n in s.tokens],
             [len(d) for d in s.loot_decks], [list(d) for d in s.loot_discards],
             list(s.health_supply))
    _TABLE = ((s.teams, s.round_board, s.cells, s.tokens, s.loot_decks, s.loot_discards,
               s.health_supply), parts)
    return parts


_TABLE: tuple[Any, tuple[Any, ...]] = (None, ())


def view(s: State, viewer: int | None, pending: tuple[Decision, ...]) -> dict[str, Any]:
    """The view: a copy of the board's part (``board_view``), with the round, the turn,
    the fighters, the stack and the pending decisions set."""
    out = board_view(s).copy()
    out["round"] = s.round
    out["phase"] = s.phase
    out["ended"] = s.ended or None
    out["you"] = viewer
    out["leader"] = s.leader
    out["current"] = s.current
    out["fighters"] = fighters_view(s, viewer)
    out["stack"] = [frame_view(n, fr, viewer) for n, fr in enumerate(s.stack)]
    out["pending"] = [{"seat": d.seat, "kind": d.kind} for d in pending]
    return out


BOARD_FIELDS = attrgetter("mode", "seats", "automa", "teams", "cells", "ring", "bots", "search",
                          "scoreboard", "round_board", "tokens", "loot_decks", "loot_discards",
                          "upgrade_deck", "search_supply", "health_supply")
"""The state's fields the board's part of a view is made from."""


def board_view(s: State) -> dict[str, Any]:
    """Every key of a view, in its order, with the values made from ``BOARD_FIELDS`` (the
    others are ``None``, set by ``view`` on a copy). The same dict while those fields are
    equal (a few actions a round change one); read, never changed, like every part."""
    global _BOARD
    fields = BOARD_FIELDS(s)
    last = _BOARD
    if last[0] == fields:
        return last[1]
    ring, closed = ring_view(s)
    teams, round_board, cells, tokens, loot_decks, loot_discards, health = table_view(s)
    part = {
        "mode": s.mode, "round": None, "rounds": len(s.cells), "phase": None,
        "ended": None, "seats": s.seats, "automa": s.automa,
        "teams": teams, "you": None,
        "ring": ring,
        "closed": closed,
        "next_to_close": s.scoreboard[0] if s.scoreboard else None,
        "scoreboard_left": len(s.scoreboard),
        "round_board": round_board, "cells": cells,
        "tokens": tokens,
        "leader": None, "current": None,
        "loot_decks": loot_decks,
        "loot_discards": loot_discards,
        "upgrade_deck": len(s.upgrade_deck), "search_supply": s.search_supply,
        "health_supply": health,
        "fighters": None,
        "stack": None,
        "pending": None,
    }
    _BOARD = (fields, part)
    return part


_BOARD: tuple[Any, dict[str, Any]] = ((), {})
