"""The packaged content (decks, heroes, Computer deck, Universal Combos), read once at import.

Every file is validated against ``content/schema.json`` before use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from .cards import Card, ComputerCard, Hero, card_from_json, computer_card_from_json, hero_from_json

CONTENT_DIR = Path(__file__).parent / "content"
FILES = ("decks", "heroes", "computer", "combos")


def load_raw(name: str) -> Any:
    return json.loads((CONTENT_DIR / f"{name}.json").read_text(encoding="utf-8"))


def schema_for(name: str) -> dict[str, Any]:
    root = json.loads((CONTENT_DIR / "schema.json").read_text(encoding="utf-8"))
    return {"$ref": f"#/$defs/{name}", "$defs": root["$defs"]}


def validate_content(name: str, data: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``data`` is not a valid ``name`` file."""
    jsonschema.Draft202012Validator(schema_for(name)).validate(data)


def _load() -> dict[str, Any]:
    raw = {name: load_raw(name) for name in FILES}
    for name, data in raw.items():
        validate_content(name, data)
    return raw


_RAW = _load()

CONTENT_VERSION: str = _RAW["decks"]["content_version"]
DECKS: dict[str, tuple[str, ...]] = {
    deck["id"]: tuple(card["id"] for card in deck["cards"]) for deck in _RAW["decks"]["decks"]
}
DECK_NAMES: dict[str, str] = {deck["id"]: deck["name"] for deck in _RAW["decks"]["decks"]}
HEROES: dict[str, Hero] = {h["id"]: hero_from_json(h) for h in _RAW["heroes"]["heroes"]}
COMPUTER_HEROES: dict[str, Hero] = {
    h["id"]: hero_from_json(h) for h in _RAW["computer"]["heroes"]
}
COMPUTER_DECK: tuple[str, ...] = tuple(c["id"] for c in _RAW["computer"]["deck"]["cards"])
COMPUTER_CARDS: dict[str, ComputerCard] = {
    c["id"]: computer_card_from_json(c) for c in _RAW["computer"]["deck"]["cards"]
}
COMBOS: tuple[dict[str, Any], ...] = tuple(_RAW["combos"]["combos"])

CARDS: dict[str, Card] = {
    card["id"]: card_from_json(card) for deck in _RAW["decks"]["decks"] for card in deck["cards"]
}
for _computer_card in COMPUTER_CARDS.values():
    CARDS.update({virtual.id: virtual for virtual in _computer_card.attack})

ALL_HEROES: dict[str, Hero] = {**HEROES, **COMPUTER_HEROES}


def card(card_id: str) -> Card:
    return CARDS[card_id]


def hero(hero_id: str) -> Hero:
    return ALL_HEROES[hero_id]
