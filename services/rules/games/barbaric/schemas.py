"""JSON Schemas of the match options and of every action."""

from __future__ import annotations

from typing import Any

ACTION_TYPES = (
    "resign", "exchange", "ultimate", "mastery", "survivor", "pick_rider", "pick_gear",
    "choose_card", "place", "spawn", "pass", "learn", "consume", "end_actions", "search",
    "first_aid", "repair", "move", "skill", "done", "discard", "allocate", "counter",
    "choose_resource", "discover", "decline", "rescue", "plunder", "ignore", "route",
    "minion_target", "nest", "control_move", "control_attack", "chain", "mastery_marker")

_HEX = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
_RES = {"enum": ["fuel", "food", "scrap"]}


def config_schema() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": {}}


def action_schema() -> dict[str, Any]:
    return {
        "type": "object", "required": ["type"], "additionalProperties": False,
        "properties": {
            "type": {"enum": list(ACTION_TYPES)},
            "rider": {"type": "string"}, "gear": {"type": "string"},
            "card": {"type": "string"}, "skill": {"type": "string"},
            "mastery": {"type": "string"},
            "at": _HEX, "to": _HEX, "from": _HEX, "dir": {"type": "integer", "minimum": 0, "maximum": 5},
            "exit": {"const": True},
            "resource": _RES, "give": _RES, "get": _RES,
            "benefit": {"enum": ["move", "draw", "heal", "shields"]},
            "health": {"type": "integer", "minimum": 0, "maximum": 6},
            "shields": {"type": "integer", "minimum": 0, "maximum": 6},
            "seat": {"type": "integer", "minimum": 0},
            "spend": {"type": "integer", "minimum": 1, "maximum": 3},
            "boost": {"type": "integer", "minimum": 1, "maximum": 3},
        },
    }
