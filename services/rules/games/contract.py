"""The contract every pure game engine meets, and that the rules host relies on.

A game engine is a module-level object implementing :class:`GameEngine`. It is pure:
no I/O (except reading its own packaged content data once, at import), no clock,
no global randomness, no threads. All chance comes through the injected
:class:`Randomness`; live, the rules host backs it with the dice service, in replay
with the draws recorded in the event log. Given the same config, the same actions
and the same draws, an engine must produce byte-identical encoded states on every
machine (so: no floats in states, no iteration over unordered sets, no ``id()``).

Vocabulary
----------
seat
    An ``int`` from ``0`` to ``seats - 1``. Seat order is the order given at match
    creation. A *viewer* is a seat, or ``None`` for a spectator (public knowledge).
action
    A JSON object (``dict`` of JSON values) with at least a ``"type"`` string, e.g.
    ``{"type": "attack", "cards": ["c12", "c40"]}``. Actions are data so that any
    client in any language can build them; :meth:`GameEngine.action_schema` is the
    JSON Schema they follow.
pending decision
    "Who acts now" is a tuple of :class:`Decision`, not a single player: several
    seats may owe an answer at once (simultaneous hidden choices such as NEON's card
    rows), a seat may owe an answer inside another seat's turn (a Neon Reign
    defence), and a decision may be *optional* (passing is legal; the pass is then
    one of the listed legal actions). Every decision lists all its legal answers, so
    bots, clocks and clients treat every game alike.
hidden decision
    ``Decision.hidden`` is true when the answer must stay secret until the engine
    reveals it (the engine emits the reveal as a public event later). The host then
    keeps the action itself out of every public path (spectator stream, NATS, logs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = Any
"""A JSON value: dict (str keys), list, str, int, bool or None. No floats."""

Action = Mapping[str, JSON]
State = Any
"""An engine's own immutable state type (frozen dataclasses / tuples)."""

T = TypeVar("T")


@runtime_checkable
class Randomness(Protocol):
    """The only source of chance an engine may use.

    Each call is one recorded draw. Engines must call these in a deterministic order.
    """

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n >= 1``."""
        ...

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """A uniformly random permutation of ``items`` (Fisher-Yates)."""
        ...

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        """Roll ``count`` dice, each with the given face list (custom dice)."""
        ...


@dataclass(frozen=True)
class ModeInfo:
    """A mode of play and the seat counts it allows."""

    name: str
    min_seats: int
    max_seats: int
    description: str = ""


@dataclass(frozen=True)
class MatchConfig:
    """What a match is created with.

    ``options`` holds game-specific choices (heroes, decks, difficulty...); each
    engine documents the keys it reads in :meth:`GameEngine.config_schema` and must
    reject unknown or invalid ones with :class:`ConfigError`.
    """

    mode: str
    seats: int
    options: Mapping[str, JSON] = field(default_factory=dict)


class ConfigError(ValueError):
    """The match config is invalid; the message is the reason, shown to the caller."""


@dataclass(frozen=True)
class Decision:
    """One answer owed by one seat."""

    seat: int
    kind: str
    """A short machine name: "turn", "defend", "choose_cards", "pick_hero"..."""
    legal: tuple[Action, ...]
    """Every legal answer. Never empty while the decision is pending."""
    prompt: str = ""
    """Human text for terminal and bot logs. Must not leak hidden information."""
    optional: bool = False
    """Passing is legal (the pass action is then listed in ``legal``)."""
    hidden: bool = False
    """The answer stays secret from other seats until the engine reveals it."""


@dataclass(frozen=True)
class EngineEvent:
    """Something that happened, for clients to animate and logs to show.

    ``visible_to`` is ``None`` for a public event, else the seats that may see it.
    A seat's private information (cards drawn, deck order, a hidden choice) must
    only ever appear in events visible to that seat.
    """

    kind: str
    data: Mapping[str, JSON]
    visible_to: frozenset[int] | None = None


@dataclass(frozen=True)
class Transition:
    state: State
    events: tuple[EngineEvent, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """The result of a finished match.

    ``placements[seat]`` is the seat's rank, 1 being best; equal ranks are ties
    (a draw or double KO gives every seat rank 1 and ``draw=True``).
    ``scores[seat]`` is the game's own score (VP, Arcade tokens, health...).
    """

    placements: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    draw: bool = False
    breakdown: Mapping[str, JSON] = field(default_factory=dict)
    teams: tuple[tuple[int, ...], ...] = ()
    """Seats grouped by team for team modes; empty when every seat plays alone."""


class GameEngine(Protocol):
    """A pure game engine. See the module docstring for the vocabulary."""

    game_id: str
    """Stable id used in the API and the CLI, e.g. "neon-reign"."""
    title: str
    engine_version: str
    content_version: str

    def modes(self) -> Mapping[str, ModeInfo]:
        """The modes this engine plays, by name."""
        ...

    def config_schema(self) -> JSON:
        """JSON Schema of ``MatchConfig.options``."""
        ...

    def action_schema(self) -> JSON:
        """JSON Schema that every action of this game validates against."""
        ...

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        """The starting state. Raises :class:`ConfigError` on a bad config."""
        ...

    def pending(self, state: State) -> tuple[Decision, ...]:
        """Who acts now. Empty exactly when :meth:`outcome` is not ``None``."""
        ...

    def validate(self, state: State, seat: int, action: Action) -> str | None:
        """``None`` if ``seat`` may take ``action`` now, else the reason in words.

        The reason must not reveal hidden information (e.g. never "seat 1 holds X").
        """
        ...

    def apply(self, state: State, seat: int, action: Action, rng: Randomness) -> Transition:
        """Apply a validated action. Must not be called with an illegal action."""
        ...

    def view(self, state: State, viewer: int | None) -> JSON:
        """What ``viewer`` (a seat, or ``None`` for spectators) may know, as JSON."""
        ...

    def outcome(self, state: State) -> Outcome | None:
        """``None`` while the match runs."""
        ...

    def encode(self, state: State) -> JSON:
        """The whole state as JSON (hidden parts included), for hashing and audit.

        Must be canonical: equal states encode equal; no floats.
        """
        ...


def legal_actions(engine: GameEngine, state: State, seat: int) -> tuple[Action, ...]:
    """The legal actions of one seat now, across its pending decisions."""
    out: list[Action] = []
    for decision in engine.pending(state):
        if decision.seat == seat:
            out.extend(decision.legal)
    return tuple(out)
