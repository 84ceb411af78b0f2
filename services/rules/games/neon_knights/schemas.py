"""JSON Schemas of the match options and of every action."""

from __future__ import annotations

from typing import Any

_ID = {"type": "string", "maxLength": 40}
_PART_TO = {"enum": ["discard", "hand"]}
_SMALL = {"type": "integer", "minimum": -10, "maximum": 60}

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "hidden_speeds": {"type": "boolean", "description": "choose starting speeds simultaneously"},
        "races": {"type": "integer", "minimum": 1, "maximum": 16},
        "random_order": {"type": "boolean", "description": "random player order at set-up"},
        "weapons_during_movement": {"type": "boolean", "description":
                                    "house rule: weapons and specials may also be used during "
                                    "the movement, between two movement points"},
        "target_vp": {"type": "integer", "minimum": 2, "maximum": 1000,
                      "description": "campaign modes: the campaign ends after the race in which a "
                                     "driver reaches this many VP"},
    },
}

_FIELDS: dict[str, Any] = {
    "type": {"enum": ["resign", "ability_repair", "wealthy", "draft", "tile", "pass", "sponsor", "shop",
                      "upgrade", "draw_bet", "repair", "implants", "done", "keep_bets", "discard_bet",
                      "sell", "buy_part", "install", "install_implant", "start_speed", "speed",
                      "free_repair", "go", "fire", "step", "accept", "reroll", "remove_die",
                      "pit_repair", "shield", "acquire", "acquire_pass"]},
    "part": _ID, "part_to": _PART_TO, "points": _SMALL, "choice": {"enum": ["stay", "reputation"]},
    "companies": {"type": "array", "maxItems": 2, "items": {"enum": ["shield", "gun", "lightning"]}},
    "implant": _ID, "tile": _ID, "bet": _ID, "upgrade": _ID, "replace": _ID,
    "slot": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": 10}, {"const": "deck"}]},
    "speed": _SMALL, "to": _SMALL, "dir": _SMALL, "shift": _SMALL, "die": _SMALL, "use": {"type": "boolean"},
    "targets": {"type": "array", "maxItems": 6, "items": {"type": "integer", "minimum": 0, "maximum": 5}},
    "dice": {"type": "array", "maxItems": 3, "items": {"type": "integer", "minimum": 0, "maximum": 2}},
}

ACTION_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["type"], "additionalProperties": False, "properties": _FIELDS,
}
