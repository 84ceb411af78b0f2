"""JSON Schemas of NEON's match options and actions."""

from __future__ import annotations

from typing import Any


def _action(kind: str, props: dict[str, Any] | None = None,
            required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "required": ["type", *required],
            "properties": {"type": {"const": kind}, **(props or {})},
            "additionalProperties": False}


SECTOR = {"type": "integer", "minimum": 1, "maximum": 10}
CARD = {"type": "string", "minLength": 1}
PAY = {"type": "string", "pattern": "^(card|supply:.+|bot:.+)$",
       "description": "which supply pays an equipment effect: a tucked card, a bot token or "
                      "the equipment card itself"}
TARGET = {"type": "string", "pattern": "^(f:[0-9]+|bot:[0-9]+|sector:[0-9]+)$"}

ACTION_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "NEON action",
    "oneOf": [
        _action("choose_cards", {"top": CARD, "bottom": CARD,
                                 "cover": {"enum": ["left", "right"]},
                                 "top_rotated": {"type": "boolean"},
                                 "bottom_rotated": {"type": "boolean"}},
                ("top", "bottom", "cover", "top_rotated", "bottom_rotated")),
        _action("land", {"sector": SECTOR}, ("sector",)),
        _action("move", {"sector": SECTOR}, ("sector",)),
        _action("search"),
        _action("defense"),
        _action("gain_energy", {"amount": {"enum": [1, 2]}}, ("amount",)),
        _action("leadership"),
        _action("attack", {"weapon": CARD, "target": TARGET, "pull": {"type": "boolean"}},
                ("weapon", "target")),
        _action("ability", {"ability": CARD, "sector": SECTOR}, ("ability",)),
        _action("pass"),
        _action("boost", {"effect": CARD, "pay": PAY}, ("effect",)),
        _action("roll"),
        _action("reroll", {"by": {"enum": ["manoeuvre_a", "highway", "ally_manoeuvre_a"]},
                           "dice": {"type": "array", "items": {"type": "integer", "minimum": 0},
                                    "minItems": 1, "maxItems": 5}}, ("by", "dice")),
        _action("effect", {"effect": CARD, "pay": PAY}, ("effect",)),
        _action("assign_blocks", {"on_crits": {"type": "integer", "minimum": 0, "maximum": 3}},
                ("on_crits",)),
        _action("resign"),
        _action("done"),
        _action("dodge", {"sector": SECTOR}, ("sector",)),
        _action("keep", {"cards": {"type": "array", "items": CARD, "minItems": 2,
                                   "maxItems": 2}}, ("cards",)),
        _action("place", {"card": CARD, "as": {"enum": ["equipment", "supply", "discard"]},
                          "under": CARD, "on": CARD}, ("card", "as")),
        _action("take_equipment", {"cards": {"type": "array", "items": CARD, "maxItems": 2}},
                ("cards",)),
        _action("choose_upgrade", {"card": CARD}, ("card",)),
        _action("evacuate", {"sector": SECTOR, "manoeuvre_c": {"type": "boolean"}},
                ("sector", "manoeuvre_c")),
    ],
}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "NEON match options",
    "type": "object",
    "properties": {
        "fighters": {"type": "array", "uniqueItems": True,
                     "items": {"enum": ["akari", "glyba", "snake", "illusion", "ronin", "volt"]},
                     "description": "one fighter per seat, in seat order; random if absent"},
        "teams": {"description": "Coalition only: a number of teams (2 or 3, seats dealt "
                                 "round-robin) or the teams as lists of seats",
                  "oneOf": [{"enum": [2, 3]},
                            {"type": "array", "minItems": 2, "maxItems": 3,
                             "items": {"type": "array", "minItems": 2, "maxItems": 3,
                                       "items": {"type": "integer", "minimum": 0}}}]},
        "automa": {"type": "boolean",
                   "description": "bring the Automa in a game of 3 or more; always on with 2"},
        "round_board": {"enum": ["2-3", "4-6"],
                        "description": "the side of the round board; by default the side "
                                       "recommended for the number of participants"},
    },
    "additionalProperties": False,
}
