"""JSON Schemas served to third-party clients: match options and actions."""

from __future__ import annotations

from typing import Any

from .content import COMPUTER_HEROES, DECKS, HEROES
from .modes import DIFFICULTIES

_CARDS = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
_HERO = {"enum": sorted(HEROES)}


def config_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Neon Reign match options",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "decks": {
                "description": "One Action deck per seat, all different. Default: neon-pulse, "
                               "chrome-fury (Solo: neon-pulse).",
                "type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": True,
                "items": {"enum": sorted(DECKS)},
            },
            "heroes": {
                "description": "Per seat one hero id (a Hero Match: a list of 2). "
                               "Default: drawn at random.",
                "type": "array", "minItems": 1, "maxItems": 2,
                "items": {"oneOf": [_HERO, {"type": "array", "items": _HERO,
                                            "minItems": 2, "maxItems": 2}]},
            },
            "first_player": {
                "description": "Seat that takes the first turn, or random. Default 0. "
                               "Not in Solo (the human always goes first).",
                "enum": [0, 1, "random"],
            },
            "difficulty": {"description": "Solo only. Default normal.",
                           "enum": list(DIFFICULTIES)},
            "computer_hero": {"description": "Solo only. Default: drawn at random.",
                              "enum": sorted(COMPUTER_HEROES)},
        },
    }


def action_schema() -> dict[str, Any]:
    def kind(name: str, **props: Any) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "required": ["type", *[k for k in props if k != "targets"]],
                "properties": {"type": {"const": name}, **props}}

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Neon Reign action",
        "oneOf": [
            kind("attack", cards={**_CARDS, "minItems": 1, "maxItems": 3,
                                  "description": "1-3 Joystick and/or Button cards from hand"}),
            kind("recover"),
            kind("defend", cards={**_CARDS, "minItems": 1, "maxItems": 4,
                                  "description": "up to 2 cards (+1 Button per Combo Breaker)"},
                 targets={**_CARDS, "maxItems": 3,
                          "description": "the Attacker's cards removed: one Joystick per "
                                         "Throw, one Button per Block"}),
            kind("pass"),
            kind("pick_hero", hero={"type": "string"}),
            kind("shields", spend={"type": "integer", "minimum": 0, "maximum": 4,
                                   "description": "Shields spent against the damage about to "
                                                  "hit you, 1 damage prevented each"}),
            kind("resign"),
        ],
    }
