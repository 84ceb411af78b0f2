"""The reference content pack: fighters, action cards, loot, upgrades, sectors, bots, dice.

Read once at import from the packaged JSON files under ``content/``; everything here is data,
validated by ``content/schema.json`` in the tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONTENT_DIR = Path(__file__).parent / "content"
CONTENT_VERSION = "reference-1"


def _load(name: str) -> Any:
    with open(CONTENT_DIR / name, encoding="utf-8") as handle:
        return json.load(handle)


@dataclass(frozen=True)
class Effect:
    kind: str
    supply: str
    when: str
    hit: str = ""


@dataclass(frozen=True)
class LootCard:
    id: str
    name: str
    cls: int
    type: str
    supplies: tuple[str, ...]
    max_supplies: int
    effects: tuple[Effect, ...]
    range: tuple[int | None, ...] = ()
    area: bool = False
    team_effect: Effect | None = None

    @property
    def is_weapon(self) -> bool:
        return bool(self.range)


@dataclass(frozen=True)
class ActionCard:
    id: str
    fighter: str
    joker: bool
    halves: tuple[tuple[str, ...], tuple[str, ...]]
    initiative: tuple[int, int]


@dataclass(frozen=True)
class Ability:
    id: str
    name: str
    cost: int
    moment: str
    text: str
    dice: int = 0
    token: str = ""
    min_range: int = 0
    weapon: str = ""


@dataclass(frozen=True)
class FighterDef:
    id: str
    name: str
    base_armour: int
    base_weapon: int
    special_token: str
    manoeuvres: tuple[tuple[str, int], ...]
    abilities: tuple[Ability, ...]

    def ability(self, ability_id: str) -> Ability | None:
        for a in self.abilities:
            if a.id == ability_id:
                return a
        return None


@dataclass(frozen=True)
class Upgrade:
    id: str
    name: str
    timing: str
    kind: str
    text: str
    amount: int = 0


@dataclass(frozen=True)
class Sector:
    number: int
    name: str
    cls: int
    effect: str
    cost: int


@dataclass(frozen=True)
class BotType:
    colour: str
    picture: str
    supplies: tuple[str, ...]


def _effect(raw: dict[str, Any]) -> Effect:
    return Effect(raw["kind"], raw["supply"], raw["when"], raw.get("hit", ""))


def _loot(raw: dict[str, Any]) -> LootCard:
    team = raw.get("team_effect")
    return LootCard(raw["id"], raw["name"], raw["class"], raw["type"], tuple(raw["supplies"]),
                    raw["max_supplies"], tuple(_effect(e) for e in raw["effects"]),
                    tuple(raw.get("range", ())), bool(raw.get("area", False)),
                    _effect(team) if team else None)


def _fighter(raw: dict[str, Any]) -> FighterDef:
    abilities = tuple(
        Ability(a["id"], a["name"], a["cost"], a["moment"], a["text"], a.get("dice", 0),
                a.get("token", ""), a.get("min_range", 0), a.get("weapon", ""))
        for a in raw["abilities"])
    return FighterDef(raw["id"], raw["name"], raw["base_armour"], raw["base_weapon"],
                      raw.get("special_token") or "", tuple(sorted(raw["manoeuvres"].items())),
                      abilities)


RAW = {name: _load(f"{name}.json") for name in
       ("components", "sectors", "fighters", "action_cards", "loot", "upgrades")}
COMPONENTS: dict[str, Any] = RAW["components"]
ATTACK_DIE: tuple[str, ...] = tuple(COMPONENTS["attack_die"])
DEFENSE_DIE: tuple[str, ...] = tuple(COMPONENTS["defense_die"])
MAX_ATTACK_DICE: int = COMPONENTS["max_attack_dice"]
MAX_DEFENSE_DICE: int = COMPONENTS["max_defense_dice"]
ENERGY_MAX: int = COMPONENTS["energy_max"]
ENERGY_START: int = COMPONENTS["energy_start"]
HAND_SIZE: int = COMPONENTS["hand_size"]
SEARCH_TOKENS: int = COMPONENTS["search_tokens"]
SHIELDS_PER_FIGHTER: int = COMPONENTS["shield_tokens_per_fighter"]
HEALTH_TOKENS: dict[int, int] = {int(k): v for k, v in COMPONENTS["health_tokens"].items()}
FIGHTER_HEALTH_ROWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(row) for row in COMPONENTS["fighter_health_rows"])
AUTOMA: dict[str, Any] = COMPONENTS["automa"]
AUTOMA_HEALTH_ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(r) for r in AUTOMA["health_rows"])
ROUND_BOARDS: tuple[dict[str, Any], ...] = tuple(COMPONENTS["round_boards"])
BOT_TYPES: tuple[BotType, ...] = tuple(
    BotType(b["colour"], b["picture"], tuple(b["supplies"])) for b in COMPONENTS["bots"])
BOT_TOKENS: tuple[str, ...] = tuple(f"{b.colour}-{i}" for b in BOT_TYPES for i in (1, 2))

SECTORS: dict[int, Sector] = {
    s["number"]: Sector(s["number"], s["name"], s["class"], s["effect"], s["cost"])
    for s in RAW["sectors"]["sectors"]}
SECTOR_BY_EFFECT: dict[str, int] = {s.effect: n for n, s in SECTORS.items()}
FIGHTERS: dict[str, FighterDef] = {f["id"]: _fighter(f) for f in RAW["fighters"]["fighters"]}
ACTION_CARDS: dict[str, ActionCard] = {
    c["id"]: ActionCard(c["id"], c["fighter"], c["joker"],
                        (tuple(c["halves"][0]), tuple(c["halves"][1])),
                        (c["initiative"][0], c["initiative"][1]))
    for c in RAW["action_cards"]["cards"]}
LOOT: dict[str, LootCard] = {c["id"]: _loot(c) for c in RAW["loot"]["cards"]}
UPGRADES: dict[str, Upgrade] = {
    u["id"]: Upgrade(u["id"], u["name"], u["timing"], u["kind"], u["text"], u.get("amount", 0))
    for u in RAW["upgrades"]["cards"]}


def bot_type(token: str) -> BotType:
    colour = token.rsplit("-", 1)[0]
    return next(b for b in BOT_TYPES if b.colour == colour)


def fighter_cards(fighter_id: str) -> tuple[str, ...]:
    return tuple(c.id for c in ACTION_CARDS.values() if c.fighter == fighter_id)


def loot_deck(cls: int) -> tuple[str, ...]:
    return tuple(c.id for c in LOOT.values() if c.cls == cls)


def round_board(players: int, side: str | None = None) -> dict[str, Any]:
    """The side recommended for the number of participants, or the side the players chose
    ("you may choose the side of the round board that suits the pace of game you prefer")."""
    if side is not None:
        return next(b for b in ROUND_BOARDS if b["side"] == side)
    return next(b for b in ROUND_BOARDS if b["min_players"] <= players <= b["max_players"])
