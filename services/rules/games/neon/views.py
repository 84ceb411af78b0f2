"""What a seat (or a spectator) may see: never another seat's hand, hidden choice or deck order."""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import Decision
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.content import SECTORS
from services.rules.games.neon.loot import search_tokens
from services.rules.games.neon.state import Fighter, StackFrame, State

PRIVATE_FRAMES = ("keep", "upgrade", "place")


def fighter_view(s: State, f: Fighter, viewer: int | None) -> dict[str, Any]:
    mine = viewer == f.idx
    revealed = bool(f.row)
    out: dict[str, Any] = {
        "fighter": f.idx, "name": f.fighter, "team": f.team, "side": f.side,
        "sector": f.sector, "on_ship": f.sector is None and not f.eliminated,
        "eliminated": f.eliminated, "automa": f.automa, "energy": f.energy,
        "health": [list(r) for r in f.health] if s.mode != "battle-royale"
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
        if f.choice is not None:
            c = f.choice
            out["choice"] = {"top": c.top, "bottom": c.bottom, "cover": c.cover,
                             "top_rotated": c.top_rotated, "bottom_rotated": c.bottom_rotated}
    elif f.choice is not None and revealed:
        c = f.choice
        out["choice"] = {"top": c.top, "bottom": c.bottom, "cover": c.cover,
                         "top_rotated": c.top_rotated, "bottom_rotated": c.bottom_rotated}
    return out


def frame_view(fr: StackFrame, viewer: int | None) -> dict[str, Any]:
    if isinstance(fr, Attack):
        pairs = list(fr.encoded().items())
    elif fr.kind in PRIVATE_FRAMES and viewer != fr.owner:
        return {"kind": fr.kind, "owner": fr.owner, "cards": len(fr.get("cards"))}
    else:
        pairs = list(fr.data)
    data = {k: list(v) if isinstance(v, tuple) else v for k, v in pairs}
    return {"kind": fr.kind, "owner": fr.owner, **data}


def view(s: State, viewer: int | None, pending: tuple[Decision, ...]) -> dict[str, Any]:
    return {
        "mode": s.mode, "round": s.round, "rounds": len(s.cells), "phase": s.phase,
        "ended": s.ended or None, "seats": s.seats, "automa": s.automa,
        "teams": [list(t) for t in s.teams], "you": viewer,
        "ring": [{"sector": n, "name": SECTORS[n].name, "class": SECTORS[n].cls,
                  "bot": dict(s.bots).get(n), "search_tokens": search_tokens(s, n)}
                 for n in s.ring],
        "closed": sorted(set(SECTORS) - set(s.ring)),
        "next_to_close": s.scoreboard[0] if s.scoreboard else None,
        "scoreboard_left": len(s.scoreboard),
        "round_board": [list(c) for c in s.round_board], "cells": list(s.cells),
        "tokens": [{"token": t, "owner": o, "sector": n} for t, o, n in s.tokens],
        "leader": s.leader, "current": s.current,
        "loot_decks": [len(d) for d in s.loot_decks],
        "loot_discards": [list(d) for d in s.loot_discards],
        "upgrade_deck": len(s.upgrade_deck), "search_supply": s.search_supply,
        "health_supply": list(s.health_supply),
        "fighters": [fighter_view(s, f, viewer) for f in s.fighters],
        "stack": [frame_view(fr, viewer) for fr in s.stack],
        "pending": [{"seat": d.seat, "kind": d.kind} for d in pending],
    }
