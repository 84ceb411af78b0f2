"""The immutable state of a NEON match: the table, the fighters and the open decisions.

Participants are numbered like seats; when the Automa plays it is the extra participant whose
index equals the number of seats. Open decisions live on a stack of frames (an attack, a loot
choice, a trophy pick, a sector evacuation...), the top frame being the one answered next. An
attack is a typed :class:`~services.rules.games.neon.attack.Attack`; the other frames are
:class:`Frame`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness
from services.rules.games.frozen import but, replace
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.ruleset import RULESETS, Ruleset


@dataclass(frozen=True)
class Equip:
    """An equipment card laid out, with the supply cards tucked under it."""

    card: str
    supplies: tuple[str, ...] = ()


@dataclass(frozen=True)
class CardChoice:
    """Two action cards overlapped: ``cover`` is the half of the bottom card the top one hides."""

    top: str
    bottom: str
    cover: str
    top_rotated: bool
    bottom_rotated: bool


@dataclass(frozen=True)
class Fighter:
    idx: int
    fighter: str
    team: int
    side: str = "A"
    sector: int | None = None
    eliminated: bool = False
    energy: int = 3
    health: tuple[tuple[int, ...], ...] = ()
    trophies: tuple[int, ...] = ()
    bots: tuple[tuple[str, bool], ...] = ()
    equipment: tuple[Equip, ...] = ()
    hand: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    choice: CardChoice | None = None
    row: tuple[tuple[str, ...], ...] = ()
    initiative: int = 0
    step: int = 0
    acted: bool = False
    shields: int = 0
    upgrades: tuple[str, ...] = ()
    used_upgrades: tuple[str, ...] = ()
    resigned: bool = False

    @property
    def automa(self) -> bool:
        return self.fighter == "automa"

    @property
    def tokens(self) -> int:
        return sum(len(row) for row in self.health)

    @property
    def on_arena(self) -> bool:
        return self.sector is not None and not self.eliminated

    def but(self, **changes: Any) -> Fighter:
        return but(self, changes)


@dataclass(frozen=True)
class Frame:
    """An open decision (or an automatic step) on the stack.

    ``kind`` names it; ``owner`` is the participant who answers; ``data`` holds the rest as a
    sorted tuple of pairs so that frames stay hashable and canonical.
    """

    kind: str
    owner: int
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        return default

    def but(self, **changes: Any) -> Frame:
        merged = dict(self.data)
        merged.update(changes)
        return replace(self, data=tuple(sorted(merged.items())))


def frame(kind: str, owner: int, **data: Any) -> Frame:
    return Frame(kind, owner, tuple(sorted(data.items())))


StackFrame = Frame | Attack


@dataclass(frozen=True)
class State:
    mode: str
    seats: int
    automa: bool
    teams: tuple[tuple[int, ...], ...]
    cells: tuple[int, ...]
    fighters: tuple[Fighter, ...]
    ring: tuple[int, ...]
    scoreboard: tuple[int, ...]
    round_board: tuple[tuple[int, ...], ...] = ()
    bots: tuple[tuple[int, str], ...] = ()
    search: tuple[tuple[int, int], ...] = ()
    search_supply: int = 20
    tokens: tuple[tuple[str, int, int], ...] = ()
    loot_decks: tuple[tuple[str, ...], ...] = ((), (), ())
    loot_discards: tuple[tuple[str, ...], ...] = ((), (), ())
    upgrade_deck: tuple[str, ...] = ()
    health_supply: tuple[int, int, int] = (0, 0, 0)
    leader: int | None = None
    round: int = 1
    phase: str = "choose"
    current: int | None = None
    acted_order: tuple[int, ...] = ()
    stack: tuple[StackFrame, ...] = ()
    closes_left: int = 0
    closing_sector: int | None = None
    eliminations: tuple[tuple[int, int], ...] = ()
    ended: str = ""
    serial: int = 0
    ruleset: str = "3"
    """The engine version whose rulings this match follows (see ``ruleset.py``)."""

    @property
    def rules(self) -> Ruleset:
        return RULESETS[self.ruleset]

    def fighter(self, idx: int) -> Fighter:
        return self.fighters[idx]

    @property
    def participants(self) -> range:
        return range(len(self.fighters))

    @property
    def top(self) -> StackFrame | None:
        return self.stack[-1] if self.stack else None


@dataclass
class Draft:
    """A state being worked on during one ``apply``: each change makes a new frozen state."""

    s: State
    rng: Randomness
    events: list[EngineEvent] = field(default_factory=list)

    def set(self, **changes: Any) -> None:
        self.s = but(self.s, changes)

    def f(self, idx: int) -> Fighter:
        return self.s.fighters[idx]

    def put(self, fighter: Fighter) -> None:
        fighters = list(self.s.fighters)
        fighters[fighter.idx] = fighter
        self.s = but(self.s, {"fighters": tuple(fighters)})

    def update(self, idx: int, **changes: Any) -> Fighter:
        fighter = but(self.s.fighters[idx], changes)
        self.put(fighter)
        return fighter

    def emit(self, kind: str, data: dict[str, Any], to: frozenset[int] | None = None) -> None:
        self.events.append(EngineEvent(kind, data, to))

    def push(self, fr: StackFrame) -> None:
        self.s = but(self.s, {"stack": self.s.stack + (fr,)})

    def pop(self) -> StackFrame:
        fr = self.s.stack[-1]
        self.s = but(self.s, {"stack": self.s.stack[:-1]})
        return fr

    def replace_top(self, fr: StackFrame) -> None:
        self.s = but(self.s, {"stack": self.s.stack[:-1] + (fr,)})
