"""What a seat (or a spectator) may know: the table with every hidden zone redacted.

Hidden: deck orders (the Epic Campaign's stage deck too), the Fan Bet discard pile, another player's hand of parts, Fan Bets,
implant deck and draft packet, and (with hidden starting speeds) speeds not yet revealed.
A Fan Bet completed during the race (engine 0.4.0 on) has left ``bets`` for the public ``bets_up``.
The defaults drawn for hidden decisions (engine 0.6.0 on) are shown to nobody.
"""

from __future__ import annotations

import json
from typing import Any

from .state import Doc, State, max_ap
from .track import rows_json

PRIVATE_PLAYER = ("hand", "bets", "implant_hand")


def view_of(state: State, viewer: int | None) -> dict[str, Any]:
    doc = state.doc
    out: Doc = json.loads(state.text)
    out["viewer"] = viewer
    # the drawn defaults of hidden decisions (engine 0.6.0): nobody's to see, the seat's own
    # comes as its decision's default
    out.pop("defaults", None)
    out["decks"] = {k: len(v) for k, v in doc["decks"].items()}
    # shuffled within each stage (again at each continuing match's set-up, engine 0.5.0 on, so
    # an earlier match's revealed seed does not tell it): order hidden
    out["stage_deck"] = len(doc["stage_deck"])
    out["discards"] = {**doc["discards"], "bets": len(doc["discards"]["bets"])}
    for p in out["players"]:
        p["max_ap"] = max_ap(p)
        if p["seat"] != viewer:
            for key in PRIVATE_PLAYER:
                p[key] = len(p[key])
    if doc["draft"] is not None:
        mine = viewer is not None and viewer < doc["seats"]
        out["draft"] = {"packet": doc["draft"]["packets"][viewer] if mine else None,
                        "picked": [p is not None for p in doc["draft"]["picks"]],
                        "my_pick": doc["draft"]["picks"][viewer] if mine else None}
    if doc["speeds"] is not None and doc["hidden_speeds"]:
        out["speeds"] = [s if i == viewer else (None if s is None else "chosen")
                         for i, s in enumerate(doc["speeds"])]
    out["track_rows"] = json.loads(rows_json(doc["track"])) if doc["track"] and len(doc["track"]) == 8 else None
    return out
