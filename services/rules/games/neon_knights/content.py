"""The packaged content of Neon Knights: 2086, read once at import and validated against
``content/schema.json`` (a broken pack fails at import, never mid-game)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.rules.games.content_pack import ContentPack

CONTENT_DIR = Path(__file__).parent / "content"
FILES = ("parts", "sponsors", "upgrades", "implants", "fan_bets", "dice", "tiles", "stages")
COLOURS = ("red", "orange", "yellow", "green")
"""Speed zones and part colours, slowest first."""
COMPANIES = ("shield", "gun", "lightning")


PACK = ContentPack(CONTENT_DIR)
load_raw, schema_for, validate_content = PACK.load_raw, PACK.schema_for, PACK.validate


def _load() -> dict[str, Any]:
    raw = {name: load_raw(name) for name in FILES}
    for name, data in raw.items():
        validate_content(name, data)
    versions = {data["content_version"] for data in raw.values()}
    if len(versions) != 1:
        raise ValueError(f"content files disagree on their version: {sorted(versions)}")
    return raw


RAW = _load()
CONTENT_VERSION: str = RAW["parts"]["content_version"]
PARTS: dict[str, dict[str, Any]] = {p["id"]: p for p in RAW["parts"]["parts"] + RAW["parts"]["starters"]}
DECK_PARTS: tuple[str, ...] = tuple(p["id"] for p in RAW["parts"]["parts"])
STARTERS: dict[str, str] = {p["colour"]: p["id"] for p in RAW["parts"]["starters"]}
SHOP_PRICES: tuple[int, ...] = tuple(RAW["parts"]["shop_prices"])
SELL_PRICE: int = RAW["parts"]["sell_price"]
SPONSORS: dict[str, dict[str, Any]] = {s["id"]: s for s in RAW["sponsors"]["sponsors"]}
SPONSOR_ROW: int = RAW["sponsors"]["row"]
SPONSOR_SLOTS: int = RAW["sponsors"]["slots"]
UPGRADES: dict[str, dict[str, Any]] = {u["id"]: u for u in RAW["upgrades"]["upgrades"]}
UPGRADE_ROW: int = RAW["upgrades"]["row"]
UPGRADE_SLOTS: dict[str, int] = dict(RAW["upgrades"]["slots"])
IMPLANTS: dict[str, dict[str, Any]] = {i["id"]: i for i in RAW["implants"]["implants"]}
IMPLANT_SLOTS: int = RAW["implants"]["slots"]
FAN_BETS: dict[str, dict[str, Any]] = {b["id"]: b for b in RAW["fan_bets"]["fan_bets"]}
DIE_FACES: tuple[dict[str, Any], ...] = tuple(RAW["dice"]["faces"])
TILES: dict[str, dict[str, Any]] = {t["id"]: t for t in RAW["tiles"]["tiles"]}
FINISH_TILE: dict[str, Any] = RAW["tiles"]["finish"]
TILES_PER_TRACK: int = RAW["tiles"]["tiles_per_track"]
LANES: int = RAW["tiles"]["lanes"]
STAGES: dict[str, dict[str, Any]] = {s["id"]: s for s in RAW["stages"]["stages"]}

for _stage in STAGES.values():
    for _tile in _stage["tiles"]:
        if _tile not in TILES:
            raise ValueError(f"stage {_stage['id']} names unknown tile {_tile}")


def speed_colour(speed: int) -> str:
    """The colour zone of a speed on the player board (RULES.md: 2-3 red, 4-5 orange,
    6-7 yellow, 8-10 green)."""
    if speed <= 3:
        return "red"
    if speed <= 5:
        return "orange"
    if speed <= 7:
        return "yellow"
    return "green"


def danger_dice(speed: int, line_colour: str) -> int:
    """Dice to roll when touching a line of ``line_colour`` at ``speed``; 0 is free passage."""
    return max(0, COLOURS.index(speed_colour(speed)) - COLOURS.index(line_colour))
