"""Action, Computer and Hero cards, as the rulebook's "Anatomy" sections describe them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BUTTON = "button"
JOYSTICK = "joystick"
THROW = "throw"
BLOCK = "block"
COMBO_BREAKER = "combo_breaker"
COUNTERS = (THROW, BLOCK, COMBO_BREAKER)

STARTING_HEALTH = 25
HAND_SIZE = 7
SHIELD_LIMIT = 4


@dataclass(frozen=True)
class Card:
    """One Action card (or one virtual card of a Computer card's Attack section).

    ``play`` is the designation in the upper left corner: "attack", "defend" or "either".
    """

    id: str
    kind: str
    play: str
    colour: str = ""
    damage: int = 0
    direction: str = ""
    effects: tuple[tuple[str, int], ...] = ()

    def effect(self, name: str) -> int:
        return dict(self.effects).get(name, 0)

    @property
    def usable_when_attacking(self) -> bool:
        return self.kind in (BUTTON, JOYSTICK) and self.play in ("attack", "either")

    @property
    def defend_icon(self) -> bool:
        return self.play in ("defend", "either")


@dataclass(frozen=True)
class Ability:
    """A Hero Ability: a persistent effect from the content vocabulary (see RULES.md)."""

    type: str = "none"
    colour: str = ""
    direction: str = ""
    amount: int = 0


@dataclass(frozen=True)
class Hero:
    id: str
    name: str
    star_limit: int
    star_power: tuple[tuple[str, int], ...]
    ability: Ability = field(default_factory=Ability)

    def power(self, name: str) -> int:
        return dict(self.star_power).get(name, 0)


@dataclass(frozen=True)
class ComputerCard:
    """A Computer/Solo deck card: an Attack section of virtual cards and a Defend section."""

    id: str
    attack: tuple[Card, ...]
    defend: tuple[tuple[str, int], ...]

    def defend_effect(self, name: str) -> int:
        return dict(self.defend).get(name, 0)


def card_from_json(data: dict[str, Any], card_id: str | None = None) -> Card:
    return Card(
        id=card_id or data["id"],
        kind=data["kind"],
        play=data.get("play", "attack"),
        colour=data.get("colour", ""),
        damage=data.get("damage", 0),
        direction=data.get("direction", ""),
        effects=tuple(sorted(data.get("effects", {}).items())),
    )


def hero_from_json(data: dict[str, Any]) -> Hero:
    raw = data["ability"]
    amount = next((raw[k] for k in ("damage", "stars", "shields", "strike", "heal") if k in raw), 0)
    ability = Ability(raw["type"], raw.get("colour", ""), raw.get("direction", ""), amount)
    return Hero(data["id"], data["name"], data["star_limit"],
                tuple(sorted(data["star_power"].items())), ability)


def computer_card_from_json(data: dict[str, Any]) -> ComputerCard:
    attack = tuple(card_from_json(part, f"{data['id']}:{i}")
                   for i, part in enumerate(data["attack"]))
    return ComputerCard(data["id"], attack, tuple(sorted(data["defend"].items())))
