"""The packaged content (decks, heroes, Computer deck, Universal Combos), read once at import.

Every file is validated against ``content/schema.json`` before use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.rules.games.content_pack import ContentPack

from .cards import Card, ComputerCard, Hero, card_from_json, computer_card_from_json, hero_from_json

CONTENT_DIR = Path(__file__).parent / "content"
FILES = ("decks", "heroes", "computer", "combos")
DECK_PACKS = ("decks", "decks-reference-2")
"""Action deck files, oldest first: ``decks.json`` is reference-1 (engine 1.1.0), kept so
that old matches replay; a card id means the same card in every pack that holds it."""


PACK = ContentPack(CONTENT_DIR)
load_raw, schema_for, validate_content = PACK.load_raw, PACK.schema_for, PACK.validate


def _load() -> dict[str, Any]:
    raw = {name: load_raw(name) for name in (*FILES, *DECK_PACKS[1:])}
    for name, data in raw.items():
        validate_content("decks" if name in DECK_PACKS else name, data)
    return raw


_RAW = _load()
_PACKS = {_RAW[name]["content_version"]: _RAW[name] for name in DECK_PACKS}

CONTENT_VERSION: str = _RAW[DECK_PACKS[-1]]["content_version"]
"""The current content pack."""
DECKS_BY_PACK: dict[str, dict[str, tuple[str, ...]]] = {
    version: {deck["id"]: tuple(card["id"] for card in deck["cards"]) for deck in pack["decks"]}
    for version, pack in _PACKS.items()
}
DECKS: dict[str, tuple[str, ...]] = DECKS_BY_PACK[CONTENT_VERSION]
DECK_NAMES: dict[str, str] = {
    deck["id"]: deck["name"] for pack in _PACKS.values() for deck in pack["decks"]
}
HEROES: dict[str, Hero] = {h["id"]: hero_from_json(h) for h in _RAW["heroes"]["heroes"]}
COMPUTER_HEROES: dict[str, Hero] = {
    h["id"]: hero_from_json(h) for h in _RAW["computer"]["heroes"]
}
COMPUTER_DECK: tuple[str, ...] = tuple(c["id"] for c in _RAW["computer"]["deck"]["cards"])
COMPUTER_CARDS: dict[str, ComputerCard] = {
    c["id"]: computer_card_from_json(c) for c in _RAW["computer"]["deck"]["cards"]
}
COMBOS: tuple[dict[str, Any], ...] = tuple(_RAW["combos"]["combos"])

CARD_DATA: dict[str, dict[str, Any]] = {}
"""Each card's JSON (all packs); a card id means the same card in every pack."""
for _pack in _PACKS.values():
    for _deck in _pack["decks"]:
        for _data in _deck["cards"]:
            if CARD_DATA.setdefault(_data["id"], _data) != _data:
                raise ValueError(f"card {_data['id']} differs between content packs")
CARDS: dict[str, Card] = {card_id: card_from_json(data) for card_id, data in CARD_DATA.items()}
for _computer_card in COMPUTER_CARDS.values():
    CARDS.update({virtual.id: virtual for virtual in _computer_card.attack})

ALL_HEROES: dict[str, Hero] = {**HEROES, **COMPUTER_HEROES}


def pack_decks(content_version: str) -> dict[str, tuple[str, ...]]:
    """The Action decks of a content pack, by deck id."""
    return DECKS_BY_PACK[content_version]


def card(card_id: str) -> Card:
    return CARDS[card_id]


def hero(hero_id: str) -> Hero:
    return ALL_HEROES[hero_id]
