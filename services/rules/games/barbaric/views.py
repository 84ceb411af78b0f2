"""What a seat may see: everything on the table, its own hand; never a deck's order."""

from __future__ import annotations

from typing import Any

from .content import BOARDS
from .state import State


def _player(p: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    out = {k: v for k, v in p.items() if k not in ("hand", "deck")}
    out["hand_size"] = len(p["hand"])
    out["deck_size"] = len(p["deck"])
    if viewer == p["seat"]:
        out["hand"] = list(p["hand"])
    return out


def view(state: State, viewer: int | None) -> dict[str, Any]:
    d = state.data
    frenzy = BOARDS[d["board"]]["frenzy_levels"]
    head = d["agenda"][0] if d["agenda"] else None
    return {
        "mode": d["mode"], "seats": d["seats"], "board": d["board"], "round": d["round"],
        "time": d["time"], "tracks": d["tracks"], "first_player": d["first_player"],
        "turn": d["turn"], "monster": d["monster"], "minions": d["minions"],
        "rage": d["rage"], "frenzy_revealed": frenzy[: len(frenzy) - d["rage"]],
        "minion_tracker": d["tracker"], "core_at": d["core_at"],
        "survivor_tokens": d["survivor_tokens"], "gadgets": d["gadgets"],
        "event": d["event_face"], "event_deck": len(d["event_deck"]),
        "event_discard": d["event_discard"], "monster_card": d["monster_face"],
        "monster_deck": len(d["monster_deck"]), "monster_target": d["monster_target"],
        "survivor_deck": len(d["survivor_deck"]),
        "players": [_player(p, viewer) for p in d["players"]],
        "waiting_for": None if head is None else {"step": head["step"],
                                                   "seat": head.get("seat")},
        "over": d["over"], "winner": d["winner"], "reason": d["reason"],
    }
