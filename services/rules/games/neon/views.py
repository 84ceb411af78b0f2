"""What a seat (or a spectator) may see: never another seat's hand, hidden choice or deck order.

A view is built for every decision, and most of it is the same as the last one: one action
changes one or two fighters, and the ring rarely. States are immutable and share what an
action leaves alone (the same ``Fighter`` object, the same ``ring`` tuple), so the parts of
a view are kept by the identity of what they were made from and reused while that object
is the one asked about. Views are read, never changed, by whoever asks for them (the host
already hands one view object to several readers); the parts they share are as read-only
as the rest.
"""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import Decision
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.content import SECTORS
from services.rules.games.neon.state import Fighter, StackFrame, State

PRIVATE_FRAMES = ("keep", "upgrade", "place")
ALL_SECTORS = frozenset(SECTORS)
CACHE_SIZE = 4096
"""Parts kept per cache; when full it starts again (a game's live parts are a few dozen)."""

_FIGHTERS: dict[tuple[int, str, bool], tuple[Fighter, dict[str, Any]]] = {}
_LISTS: dict[tuple[int, str, int | None], tuple[tuple[Fighter, ...], list[dict[str, Any]]]] = {}
_FRAMES: dict[tuple[int, bool], tuple[StackFrame, dict[str, Any]]] = {}
_RINGS: dict[tuple[int, int, int], tuple[Any, Any, Any, list[Any], list[int]]] = {}


def fighter_view(s: State, f: Fighter, viewer: int | None) -> dict[str, Any]:
    mine = viewer == f.idx
    key = (id(f), s.mode, mine)
    hit = _FIGHTERS.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    out = _fighter_view(s.mode, f, mine)
    if len(_FIGHTERS) >= CACHE_SIZE:
        _FIGHTERS.clear()
    _FIGHTERS[key] = (f, out)
    return out


def fighters_view(s: State, viewer: int | None) -> list[dict[str, Any]]:
    """Every fighter's part; the same list while the state's ``fighters`` tuple is."""
    fighters = s.fighters
    key = (id(fighters), s.mode, viewer)
    hit = _LISTS.get(key)
    if hit is not None and hit[0] is fighters:
        return hit[1]
    out = [fighter_view(s, f, viewer) for f in fighters]
    if len(_LISTS) >= CACHE_SIZE:
        _LISTS.clear()
    _LISTS[key] = (fighters, out)
    return out


def _fighter_view(mode: str, f: Fighter, mine: bool) -> dict[str, Any]:
    revealed = bool(f.row)
    out: dict[str, Any] = {
        "fighter": f.idx, "name": f.fighter, "team": f.team, "side": f.side,
        "sector": f.sector, "on_ship": f.sector is None and not f.eliminated,
        "eliminated": f.eliminated, "automa": f.automa, "energy": f.energy,
        "health": [list(r) for r in f.health] if mode != "battle-royale"
        else [len(r) for r in f.health],
        "trophies": list(f.trophies),
        "bots": [{"token": t, "flipped": flipped} for t, flipped in f.bots],
        "equipment": [{"card": e.card, "supplies": list(e.supplies)} for e in f.equipment],
        "upgrades": list(f.upgrades), "used_upgrades": list(f.used_upgrades),
        "hand_size": len(f.hand), "deck_size": len(f.deck), "discard": list(f.discard),
        "chosen": f.choice is not None or revealed, "shields": f.shields,
        "row": [list(h) for h in f.row], "initiative": f.initiative if revealed else None,
        "step": f.step, "acted": f.acted,
    }
    if mine:
        out["hand"] = list(f.hand)
    if f.choice is not None and (mine or revealed):
        c = f.choice
        out["choice"] = {"top": c.top, "bottom": c.bottom, "cover": c.cover,
                         "top_rotated": c.top_rotated, "bottom_rotated": c.bottom_rotated}
    return out


def ring_view(s: State) -> tuple[list[dict[str, Any]], list[int]]:
    """The open sectors (with their bot and search tokens) and the closed ones."""
    ring, bots, search = s.ring, s.bots, s.search
    key = (id(ring), id(bots), id(search))
    hit = _RINGS.get(key)
    if hit is not None and hit[0] is ring and hit[1] is bots and hit[2] is search:
        return hit[3], hit[4]
    on = dict(bots)
    tokens = dict(search)
    shown = [{"sector": n, "name": SECTORS[n].name, "class": SECTORS[n].cls,
              "bot": on.get(n), "search_tokens": tokens.get(n, 0)} for n in ring]
    closed = sorted(ALL_SECTORS - set(ring))
    if len(_RINGS) >= CACHE_SIZE:
        _RINGS.clear()
    _RINGS[key] = (ring, bots, search, shown, closed)
    return shown, closed


def frame_view(fr: StackFrame, viewer: int | None) -> dict[str, Any]:
    owner = viewer == fr.owner
    key = (id(fr), owner)
    hit = _FRAMES.get(key)
    if hit is not None and hit[0] is fr:
        return hit[1]
    out = _frame_view(fr, viewer)
    if len(_FRAMES) >= CACHE_SIZE:
        _FRAMES.clear()
    _FRAMES[key] = (fr, out)
    return out


def _frame_view(fr: StackFrame, viewer: int | None) -> dict[str, Any]:
    if isinstance(fr, Attack):
        pairs = list(fr.encoded().items())
    elif fr.kind in PRIVATE_FRAMES and viewer != fr.owner:
        return {"kind": fr.kind, "owner": fr.owner, "cards": len(fr.get("cards"))}
    else:
        pairs = list(fr.data)
    data = {k: list(v) if isinstance(v, tuple) else v for k, v in pairs}
    return {"kind": fr.kind, "owner": fr.owner, **data}


def view(s: State, viewer: int | None, pending: tuple[Decision, ...]) -> dict[str, Any]:
    ring, closed = ring_view(s)
    return {
        "mode": s.mode, "round": s.round, "rounds": len(s.cells), "phase": s.phase,
        "ended": s.ended or None, "seats": s.seats, "automa": s.automa,
        "teams": [list(t) for t in s.teams], "you": viewer,
        "ring": ring,
        "closed": closed,
        "next_to_close": s.scoreboard[0] if s.scoreboard else None,
        "scoreboard_left": len(s.scoreboard),
        "round_board": [list(c) for c in s.round_board], "cells": list(s.cells),
        "tokens": [{"token": t, "owner": o, "sector": n} for t, o, n in s.tokens],
        "leader": s.leader, "current": s.current,
        "loot_decks": [len(d) for d in s.loot_decks],
        "loot_discards": [list(d) for d in s.loot_discards],
        "upgrade_deck": len(s.upgrade_deck), "search_supply": s.search_supply,
        "health_supply": list(s.health_supply),
        "fighters": fighters_view(s, viewer),
        "stack": [frame_view(fr, viewer) for fr in s.stack],
        "pending": [{"seat": d.seat, "kind": d.kind} for d in pending],
    }
