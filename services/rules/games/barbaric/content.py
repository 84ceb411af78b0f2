"""The packaged content (map, monster boards and cards, Characters, events, Survivors).

Every file is validated against ``content/schema.json`` when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.rules.games.content_pack import ContentPack

CONTENT_DIR = Path(__file__).parent / "content"
FILES = ("map", "monster", "characters", "events", "survivors")

Hex = tuple[int, int]


PACK = ContentPack(CONTENT_DIR)
load_raw, schema_for, validate_content = PACK.load_raw, PACK.schema_for, PACK.validate


RAW: dict[str, Any] = {name: load_raw(name) for name in FILES}
for _name, _data in RAW.items():
    validate_content(_name, _data)

CONTENT_VERSION: str = RAW["map"]["content_version"]


@dataclass(frozen=True)
class Space:
    hex: Hex
    icons: tuple[str, ...]
    resource: str | None


@dataclass(frozen=True)
class Skill:
    id: str
    name: str
    board: str
    kind: str
    """"learning", "counter" or "ultimate"."""
    side: str
    """"rider" or "gear": which dial and which token (Stamina or Energy) it uses."""
    shape: str
    range: int
    max_targets: int
    effect: dict[str, Any]
    level2: dict[str, Any]
    cost: dict[str, Any] | None
    condition: str | None
    copies: int
    text: str


@dataclass(frozen=True)
class Board:
    id: str
    name: str
    kind: str
    dial: tuple[dict[str, Any], ...]
    skills: tuple[str, ...]
    mastery: tuple[dict[str, Any], ...]


SPACES: dict[Hex, Space] = {
    (s["q"], s["r"]): Space((s["q"], s["r"]), tuple(s["icons"]), s.get("resource"))
    for s in RAW["map"]["spaces"]}
HEXES: tuple[Hex, ...] = tuple(sorted(SPACES))


def with_icon(name: str) -> tuple[Hex, ...]:
    return tuple(h for h in HEXES if name in SPACES[h].icons)


CORE_SPACE: Hex = with_icon("core")[0]
NESTS = with_icon("nest")
SPAWNS = with_icon("spawn")
EXITS = with_icon("exit")
TUNNELS = with_icon("tunnel")
SURVIVOR_SPACES = with_icon("survivors")
WHIRLPOOL_CYCLE: tuple[Hex, ...] = tuple((q, r) for q, r in RAW["map"]["whirlpool_cycle"])

MONSTER = RAW["monster"]
BOARDS: dict[str, dict[str, Any]] = MONSTER["boards"]
MONSTER_CARDS: dict[str, dict[str, Any]] = {c["id"]: c for c in MONSTER["cards"]}
MONSTER_DIE: tuple[int, ...] = tuple(MONSTER["dice"]["monster"])
RESOURCE_DIE: tuple[str, ...] = tuple(MONSTER["dice"]["resource"])
MAX_MINIONS: int = MONSTER["minions"]
RAGE_TOKENS: int = MONSTER["rage_tokens"]

SKILLS: dict[str, Skill] = {}
RIDERS: dict[str, Board] = {}
GEARS: dict[str, Board] = {}
for _kind, _into in (("riders", RIDERS), ("gears", GEARS)):
    for _b in RAW["characters"][_kind]:
        for _s in _b["skills"]:
            SKILLS[_s["id"]] = Skill(
                _s["id"], _s["name"], _b["id"], _s["kind"], _b["kind"], _s["target"]["shape"],
                _s["target"]["range"], _s["target"]["max_targets"], _s["effect"], _s["level2"],
                _s.get("cost"), _s.get("condition"), _s["copies"], _s["text"])
        _into[_b["id"]] = Board(_b["id"], _b["name"], _b["kind"], tuple(_b["dial"]),
                                tuple(s["id"] for s in _b["skills"]), tuple(_b["mastery"]))
MASTERY: dict[str, dict[str, Any]] = {
    m["id"]: {**m, "side": b.kind} for b in (*RIDERS.values(), *GEARS.values()) for m in b.mastery}
EVENTS: dict[str, dict[str, Any]] = {c["id"]: c for c in RAW["events"]["cards"]}
SURVIVORS: dict[str, dict[str, Any]] = {c["id"]: c for c in RAW["survivors"]["cards"]}


def card_ids(board: Board) -> tuple[str, ...]:
    """The physical cards of a board's skill set: ``<skill id>/<copy>``."""
    return tuple(f"{s}/{n}" for s in board.skills for n in range(1, SKILLS[s].copies + 1))


def skill_of(card: str) -> Skill:
    return SKILLS[card.split("/")[0]]
