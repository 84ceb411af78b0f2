"""The match state.

``State`` is immutable: the whole table as canonical JSON text (what ``encode`` hashes).
Rules work on a :class:`Table`, a typed working copy made from it and frozen back after
each action (the Draft pattern of NEON's engine), so no rule can change a state in place.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from .content import Hex

RESOURCES = ("fuel", "food", "scrap")
SIDES = ("rider", "gear")


@dataclass
class Player:
    seat: int
    rider: str | None = None
    gear: str | None = None
    pos: Hex | None = None
    recovering: bool = False
    eliminated: bool = False
    resigned: bool = False
    health_damage: int = 0
    shield_damage: int = 0
    dial: dict[str, int] = field(default_factory=lambda: {"rider": 0, "gear": 0})
    dial_seen: dict[str, int] = field(default_factory=lambda: {"rider": 0, "gear": 0})
    ready: dict[str, bool] = field(default_factory=lambda: {"rider": True, "gear": True})
    """The Stamina (rider) and Energy (gear) token: ``False`` while on its Cooldown side."""
    subs: dict[str, int] = field(default_factory=lambda: {"rider": 0, "gear": 0})
    """Sub Stamina (rider) and Sub Energy (gear) gained."""
    subs_ready: dict[str, int] = field(default_factory=lambda: {"rider": 0, "gear": 0})
    mastery: dict[str, int] = field(default_factory=dict)
    """Unlocked Mastery Skill id -> the turn number it was gained on."""
    mastery_cooldown: list[str] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    deck: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    learned: dict[str, list[str]] = field(default_factory=dict)
    """Skill id -> the copies in the play area (its Level is their number)."""
    resources: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RESOURCES, 0))
    victory: int = 0
    death: int = 0
    tokens: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)
    survivors_used: list[str] = field(default_factory=list)
    core: bool = False
    stance: str | None = None

    @property
    def in_game(self) -> bool:
        return not (self.eliminated or self.resigned)

    @property
    def on_map(self) -> bool:
        return self.in_game and self.pos is not None and not self.recovering

    @property
    def damage(self) -> int:
        return self.health_damage + self.shield_damage


@dataclass
class Monster:
    pos: Hex
    armor_damage: int = 0
    skip_actions: bool = False
    tokens: list[str] = field(default_factory=list)


@dataclass
class Turn:
    seat: int | None = None
    number: int = 0
    rider_used: bool = False
    gear_used: bool = False
    aided: bool = False
    whirled: bool = False


@dataclass
class Table:
    mode: str
    seats: int
    board: str
    players: list[Player]
    monster: Monster
    first_player: int = 0
    minions: list[Hex] = field(default_factory=list)
    rage: int = 8
    tracker: int = 0
    last_slayer: int | None = None
    core_at: Hex | None = None
    survivor_tokens: list[Hex] = field(default_factory=list)
    gadgets: list[dict[str, Any]] = field(default_factory=list)
    event_deck: list[str] = field(default_factory=list)
    event_discard: list[str] = field(default_factory=list)
    event_face: str | None = None
    monster_deck: list[str] = field(default_factory=list)
    monster_discard: list[str] = field(default_factory=list)
    monster_face: str | None = None
    monster_target: int | None = None
    survivor_deck: list[str] = field(default_factory=list)
    time: str = "day"
    round: int = 0
    tracks: dict[str, list[int]] = field(default_factory=lambda: {"day": [], "night": []})
    turn: Turn = field(default_factory=Turn)
    agenda: list[dict[str, Any]] = field(default_factory=list)
    stage: int = -1
    """Index of the current phase in the round's sequence (``flow.SEQUENCE``)."""
    winner: int | None = None
    reason: str | None = None
    over: bool = False

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def in_game(self) -> list[int]:
        return [p.seat for p in self.players if p.in_game]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def freeze(self) -> State:
        """The canonical JSON of the table; the same text as ``json.dumps(to_json())`` with
        sorted keys, without ``asdict``'s deep copy (the dataclasses are encoded by their
        fields as the encoder meets them)."""
        return State(json.dumps(self, default=_fields, sort_keys=True, separators=(",", ":")))


def _fields(obj: Any) -> dict[str, Any]:
    if isinstance(obj, Table | Player | Monster | Turn):
        return vars(obj)
    raise TypeError(f"{type(obj).__name__} is not part of a table")


def _hex(value: Any) -> Hex | None:
    return None if value is None else (int(value[0]), int(value[1]))


def table_from_json(data: dict[str, Any]) -> Table:
    d = dict(data)
    d["players"] = [Player(**{**p, "pos": _hex(p["pos"])}) for p in d["players"]]
    m = d["monster"]
    d["monster"] = Monster(**{**m, "pos": _hex(m["pos"])})
    d["minions"] = [_hex(h) for h in d["minions"]]
    d["core_at"] = _hex(d["core_at"])
    d["survivor_tokens"] = [_hex(h) for h in d["survivor_tokens"]]
    d["gadgets"] = [{**g, "hex": _hex(g["hex"])} for g in d["gadgets"]]
    d["turn"] = Turn(**d["turn"])
    return Table(**d)


@dataclass(frozen=True)
class State:
    """The immutable state: canonical JSON of a :class:`Table`."""

    doc: str

    @cached_property
    def data(self) -> dict[str, Any]:
        return json.loads(self.doc)

    def table(self) -> Table:
        """A fresh working copy; changing it never changes this state."""
        return table_from_json(json.loads(self.doc))
