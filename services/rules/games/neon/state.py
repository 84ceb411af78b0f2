"""The immutable state of a NEON match: the table, the fighters and the open decisions.

Participants are numbered like seats; when the Automa plays it is the extra participant whose
index equals the number of seats. Open decisions live on a stack of frames (an attack, a loot
choice, a trophy pick, a sector evacuation...), the top frame being the one answered next. An
attack is a typed :class:`~services.rules.games.neon.attack.Attack`; the other frames are
:class:`Frame`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness
from services.rules.games.frozen import _plain_fields, but, event, replace
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
    defaults: tuple[tuple[int, CardChoice], ...] = ()
    """Engine 6: for each fighter still choosing its cards, the choice drawn at random when
    the choice was asked, which a clock applies if its time runs out (``flow.advance``); by
    fighter. Hidden from everyone (no view shows it); encoded only when not empty, so the
    states of earlier versions, which never hold one, encode as they did."""

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


_NEW = object.__new__
_SET = object.__setattr__
_STATE_FIELDS: frozenset[str] = _plain_fields(State) or frozenset()
_FIGHTER_FIELDS: frozenset[str] = _plain_fields(Fighter) or frozenset()
"""Fighter's fields when ``frozen.but`` copies its instances in one step (else empty, and
every update takes ``frozen.but``)."""
LEGAL_MEMO: tuple[Any, Any, Any] = (None, None, None)
"""``combat.attack_legal``'s last (state, frame, answers). A draft changes its state in
place, so every change of a draft forgets it (a state handed out never changes: its entry
stays right)."""
_FORGOTTEN = LEGAL_MEMO
_EVENT_BY_DICT = event is not EngineEvent
"""``frozen.event`` sets an event's instance dict at once (EngineEvent holds exactly its
three fields): ``Draft.emit`` does the same itself."""


class Draft:
    """A state being worked on during one ``apply``.

    The draft owns a copy of the state it starts from (made once, with ``changes``) and
    changes that copy in place: ``w.s`` is always the same object, whose fields are
    replaced (tuples and fighters stay immutable: a new tuple, a new ``Fighter``), so a
    step costs no copy of the whole state. Nothing outside the draft has seen that copy;
    ``finish`` hands it out, frozen from then on (the draft refuses any further change),
    which keeps every state handed out immutable. Reading ``w.s`` and keeping a field
    (a fighter, the stack) is safe; keeping ``w.s`` itself across a change sees the change.

    The copies of states and fighters (and ``Attack.but``'s of attacks) take ``dict(...)``
    of the instance dict, not ``.copy()``: an instance made by its ``__init__`` keeps its
    fields inline, and its ``__dict__`` is then a split dict, whose copies are split dicts
    too; CPython 3.11 cannot specialise attribute reads on an instance holding a split
    dict (``LOAD_ATTR_WITH_HINT`` gives up on it), so every ``s.phase`` or ``f.energy`` of
    such copies took the generic lookup. ``dict(d)`` makes a combined dict (a plain clone
    when ``d`` is one already), and so does every copy of it after.
    """

    __slots__ = ("s", "rng", "events", "_d")

    def __init__(self, s: State, rng: Randomness, events: list[EngineEvent] | None = None,
                 **changes: Any) -> None:
        if s.__class__ is State and _STATE_FIELDS and _STATE_FIELDS.issuperset(changes):
            # frozen.but(s, changes), the copy a combined dict (below)
            attrs = dict(s.__dict__)
            attrs.update(changes)
            copy = _NEW(State)
            _SET(copy, "__dict__", attrs)
            self.s = copy
        else:
            self.s = but(s, changes)
        self._d: dict[str, Any] | None = self.s.__dict__
        self.rng = rng
        self.events = [] if events is None else events

    @classmethod
    def after(cls, s: State, rng: Randomness) -> Draft:
        """``Draft(s, rng, serial=s.serial + 1)``, the draft of an answer, without the keyword
        packing and checks of the general case when ``s`` is a plain ``State``."""
        if s.__class__ is not State or not _STATE_FIELDS:
            return cls(s, rng, serial=s.serial + 1)
        attrs = dict(s.__dict__)  # a combined dict: see the class
        attrs["serial"] = s.serial + 1
        copy = _NEW(State)
        _SET(copy, "__dict__", attrs)
        w = _NEW(cls)
        w.s = copy
        w._d = copy.__dict__
        w.rng = rng
        w.events = []
        return w  # type: ignore[no-any-return]

    def finish(self) -> State:
        """The state, handed out: the draft changes it no more."""
        self._d = None
        return self.s

    def set(self, **changes: Any) -> None:
        global LEGAL_MEMO
        self._d.update(changes)  # type: ignore[union-attr]
        LEGAL_MEMO = _FORGOTTEN

    def f(self, idx: int) -> Fighter:
        return self.s.fighters[idx]

    def put(self, fighter: Fighter) -> None:
        global LEGAL_MEMO
        d = self._d
        fighters = list(d["fighters"])  # type: ignore[index]
        fighters[fighter.idx] = fighter
        d["fighters"] = tuple(fighters)  # type: ignore[index]
        LEGAL_MEMO = _FORGOTTEN

    def update(self, idx: int, **changes: Any) -> Fighter:
        old = self.s.fighters[idx]
        if old.__class__ is Fighter and _FIGHTER_FIELDS and _FIGHTER_FIELDS.issuperset(changes):
            # frozen.but(old, changes), its steps written out (the draft's most frequent
            # call), the copy a combined dict (see the class)
            attrs = dict(old.__dict__)
            attrs.update(changes)
            fighter = _NEW(Fighter)
            _SET(fighter, "__dict__", attrs)
        else:
            fighter = but(old, changes)
        # self.put(fighter), written out
        global LEGAL_MEMO
        d = self._d
        fighters = list(d["fighters"])  # type: ignore[index]
        fighters[fighter.idx] = fighter
        d["fighters"] = tuple(fighters)  # type: ignore[index]
        LEGAL_MEMO = _FORGOTTEN
        return fighter

    def emit(self, kind: str, data: dict[str, Any], to: frozenset[int] | None = None) -> None:
        if _EVENT_BY_DICT:  # frozen.event(kind, data, to), written out (one call less)
            new = _NEW(EngineEvent)
            _SET(new, "__dict__", {"kind": kind, "data": data, "visible_to": to})
            self.events.append(new)
        else:
            self.events.append(event(kind, data, to))  # EngineEvent(kind, data, to)

    def push(self, fr: StackFrame) -> None:
        global LEGAL_MEMO
        d = self._d
        d["stack"] = d["stack"] + (fr,)  # type: ignore[index]
        LEGAL_MEMO = _FORGOTTEN

    def pop(self) -> StackFrame:
        global LEGAL_MEMO
        d = self._d
        stack = d["stack"]  # type: ignore[index]
        d["stack"] = stack[:-1]  # type: ignore[index]
        LEGAL_MEMO = _FORGOTTEN
        return stack[-1]  # type: ignore[no-any-return]

    def replace_top(self, fr: StackFrame) -> None:
        global LEGAL_MEMO
        d = self._d
        d["stack"] = d["stack"][:-1] + (fr,)  # type: ignore[index]
        LEGAL_MEMO = _FORGOTTEN
