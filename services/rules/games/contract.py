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
standing option (contract v2)
    An action a seat may take *at any time*, outside the decisions it owes (Neon
    Knights' part abilities, Barbaric's resource exchange, resigning). Listed by
    :meth:`GameEngine.standing` as :class:`Decision` objects with ``standing=True``.
    They never block the match and no clock runs on them. When one action appears in
    several of a seat's decisions (owed or standing), the one with the highest
    ``priority`` answers it (ties: owed before standing, then listing order).
default action (contract v2)
    Every *owed* decision names ``default``: one of its ``legal`` actions, the one a
    turn clock applies when the seat runs out of time (a pass, the cheapest legal
    answer). Engines must make sure a sound default exists; when nothing else is
    sound the default is ``RESIGN``.
resign (contract v2)
    ``{"type": "resign"}`` is accepted from any seat still in the game at any time
    (every v2 engine lists it among its standing options). The engine decides what a
    resignation means in its game (the opponent wins; the seat is eliminated and
    placed last; its team concedes) and must keep the match finishable. An engine kept
    for an older ruleset that had no resignation says so with ``offers_resign = False``
    (NEON's ruleset 2); :func:`offers_resign` is what the host asks before it takes a
    clock whose timeouts forfeit (a forfeit is the seat's resignation).
modes (contract v2)
    :class:`ModeInfo` declares seat counts, team layouts and the participants the
    engine itself plays (NEON's Automa, Neon Reign's Computer, Barbaric's monster).
    :meth:`GameEngine.match_options` turns a seat count and team split into the
    options such a match needs, so matchmaking and the CLI never name a game's modes.
decision labels (optional)
    The ``(seat, kind, hidden)`` of each decision offered in a state, without its legal
    actions: what a check of "was this a decision the engine offered" compares (verify's
    check of each record's ``decision`` and ``hidden``). An engine may offer
    ``decision_labels(state)``, an iterable giving exactly, in this order, the labels of
    :meth:`GameEngine.pending` then of :meth:`GameEngineV2.standing` (``hidden`` as a
    ``bool``), made without building the legal lists; :func:`decision_labels` takes it, or
    derives the labels from ``pending`` and ``standing`` for an engine without one.
campaigns (contract v2)
    A match may start from the carried state of an earlier one: ``MatchConfig.carried``
    holds what the earlier match's ``Outcome.carry`` returned; the host records the
    earlier match id and final hash so verify can check the link.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from services.platform.canonical import canonical_json

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


RESIGN: Mapping[str, Any] = {"type": "resign"}
"""The action every v2 engine accepts from a seat still in the game, at any time."""


@dataclass(frozen=True)
class TeamLayout:
    """``seats`` seats split into teams of ``team_size`` (e.g. 6 seats as 3 teams of 2)."""

    seats: int
    team_size: int


@dataclass(frozen=True)
class ModeInfo:
    """A mode of play: the seat counts it allows, its teams and its engine-played sides."""

    name: str
    min_seats: int
    max_seats: int
    description: str = ""
    team_layouts: tuple[TeamLayout, ...] = ()
    """Empty when every seat plays alone. Several layouts may share a seat count."""
    ai_participants: tuple[str, ...] = ()
    """Sides the engine plays itself in this mode ("automa", "computer", "monster");
    they are not seats and no client answers for them."""
    campaign: bool = False
    """Matches of this mode may continue from an earlier match (``MatchConfig.carried``)."""

    @property
    def teams(self) -> bool:
        return bool(self.team_layouts)

    def seat_counts(self) -> tuple[int, ...]:
        """The seat counts a match of this mode may have."""
        if self.team_layouts:
            return tuple(sorted({t.seats for t in self.team_layouts
                                 if self.min_seats <= t.seats <= self.max_seats}))
        return tuple(range(self.min_seats, self.max_seats + 1))

    def team_sizes_for(self, seats: int) -> tuple[int, ...]:
        return tuple(t.team_size for t in self.team_layouts if t.seats == seats)


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
    carried: JSON = None
    """Campaigns: what the previous match's ``Outcome.carry`` returned, else ``None``."""


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
    default: Action | None = None
    """v2: the action a clock applies on timeout; one of ``legal``. Required on owed
    decisions of v2 engines (``None`` only on standing options)."""
    standing: bool = False
    """v2: an any-time option (see "standing option"); never owed, never clocked."""
    priority: int = 0
    """v2: which decision answers an action listed in several (highest wins)."""


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
    carry: JSON = None
    """Campaigns: what the next match of the campaign starts from (JSON), else ``None``."""


class RemembersPending:
    """An engine's ``pending`` that keeps its last answer (engines write ``_pending``).

    One state is asked about several times (who acts, then ``validate``, the view): the last
    (state, answer) pair answers again. States are immutable, so it stays right; the pair is
    swapped in whole, so threads sharing the engine never see half of one."""

    _pending_memo: tuple[Any, tuple[Decision, ...]] = (None, ())

    def pending(self, state: Any) -> tuple[Decision, ...]:
        last = self._pending_memo
        if last[0] is state:
            return last[1]
        answer = self._pending(state)
        self._pending_memo = (state, answer)
        return answer

    def _pending(self, state: Any) -> tuple[Decision, ...]:
        raise NotImplementedError


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

    # Optional: ``canonical_state(state) -> bytes``, exactly ``canonical_json(encode(state))``
    # made faster (e.g. remembering the bytes of unchanged parts); see :func:`canonical_state`.
    # Optional: ``decision_labels(state) -> Iterable[tuple[int, str, bool]]``, the labels
    # (seat, kind, hidden) of ``pending(state)`` then ``standing(state)``, in that order,
    # made without the legal lists (see "decision labels"; :func:`decision_labels`).
    # Optional: ``start(config, rng) -> Transition``, the state of :meth:`setup` (the same
    # state from the same draws) with the events of set-up (cards dealt, a stage drawn):
    # the host records them in MatchStarted, where seats and spectators see what each may
    # (:func:`setup_transition`).


class GameEngineV2(GameEngine, Protocol):
    """Contract v2: what the four games, clocks and tournaments need from an engine.

    Besides :class:`GameEngine`: owed decisions carry ``default``; :meth:`standing`
    lists any-time options; ``{"type": "resign"}`` is always accepted from a seat in the
    game; modes declare teams and engine-played sides; :meth:`match_options` builds the
    options a match needs; :meth:`for_version` keeps older rulesets replayable.
    """

    contract_version: int
    """2 for engines meeting this protocol."""

    def standing(self, state: State) -> tuple[Decision, ...]:
        """Options seats may take at any time (``standing=True``), resign included."""
        ...

    def match_options(self, mode: str, seats: int,
                      teams: Sequence[Sequence[int]] | None = None) -> Mapping[str, JSON]:
        """The options a match of ``mode`` with ``seats`` (and this team split of seat
        indices, for team modes) needs, e.g. NEON's Automa in a game of two."""
        ...

    def for_version(self, engine_version: str) -> GameEngine:
        """The engine that replays matches created with ``engine_version`` (itself for
        the current version). Raises ``KeyError`` for a version it cannot replay."""
        ...


class Presentation(Protocol):
    """What a game's package offers people and client authors (``<game>/present.py``).

    Pure functions over served JSON (views, projected events, actions), never over
    engine state, so a client that only sees what the API serves could do the same.
    """

    def content(self) -> JSON:
        """The content pack: every card, hero, fighter, sector... with names and values."""
        ...

    def view_schema(self) -> JSON:
        """JSON Schema of ``GameEngine.view`` output."""
        ...

    def event_schema(self) -> JSON:
        """JSON Schema of an engine event (``{"kind", "data"}``)."""
        ...

    def describe_event(self, event: Mapping[str, JSON], viewer: int | None) -> str:
        """One short line in words for a projected engine event ("Ruin's Star Power hits
        seat 1 for 4"); must not reveal anything the event itself does not hold."""
        ...

    def describe_action(self, action: Mapping[str, JSON], view: JSON) -> str:
        """A legal action in words, as a menu entry ("Attack with Neon Punch (2 red)")."""
        ...

    def render(self, view: JSON, viewer: int | None) -> Any:
        """A ``rich`` renderable of the table as ``viewer`` sees it."""
        ...


def canonical_state(engine: GameEngine, state: State) -> bytes:
    """The bytes a state hash is taken over: RFC 8785 of ``engine.encode(state)``.

    An engine may offer ``canonical_state(state)`` giving the same bytes faster (NEON and
    Neon Reign remember the bytes of the parts of a state that did not change since the
    last step); ``canonical_json(engine.encode(state))`` stays the definition, and
    tests/unit/test_canonical_state.py compares both on the states of real games.
    """
    fast = getattr(engine, "canonical_state", None)
    if fast is not None:
        return fast(state)  # type: ignore[no-any-return]
    return canonical_json(engine.encode(state))


def setup_transition(engine: GameEngine, config: MatchConfig, rng: Randomness) -> Transition:
    """The starting state with the events of set-up: the engine's ``start`` when it has
    one, else :meth:`GameEngine.setup` with no events. Replays need only the state
    (``setup``); the rules host records the events."""
    start = getattr(engine, "start", None)
    if start is not None:
        return start(config, rng)  # type: ignore[no-any-return]
    return Transition(engine.setup(config, rng))


def is_v2(engine: GameEngine) -> bool:
    return getattr(engine, "contract_version", 1) >= 2


def offers_resign(engine: GameEngine) -> bool:
    """Whether a seat of this engine's matches may resign (``RESIGN``): what the engine
    declares (``offers_resign``), else what its contract says (every v2 engine does, a v1
    engine has no standing options at all)."""
    declared = getattr(engine, "offers_resign", None)
    return bool(declared) if declared is not None else is_v2(engine)


def standing_options(engine: GameEngine, state: State) -> tuple[Decision, ...]:
    return tuple(engine.standing(state)) if is_v2(engine) else ()  # type: ignore[attr-defined]


DecisionLabel = tuple[int, str, bool]
"""A decision's ``(seat, kind, hidden)``."""


def decision_labels(engine: GameEngine, state: State) -> Iterable[DecisionLabel]:
    """The labels ``(seat, kind, hidden)`` of the decisions offered in ``state``: those of
    ``engine.pending(state)`` then of its standing options, in that order (see "decision
    labels" above). The engine's own ``decision_labels`` when it has one (made without the
    legal lists); else derived from its decisions, lazily: the standing options are asked
    only when the caller reads past the owed decisions."""
    own = getattr(engine, "decision_labels", None)
    if own is not None:
        return own(state)  # type: ignore[no-any-return]
    return _derived_labels(engine, state)


def _derived_labels(engine: GameEngine, state: State) -> Iterator[DecisionLabel]:
    for decision in engine.pending(state):
        yield decision.seat, decision.kind, bool(decision.hidden)
    for decision in standing_options(engine, state):
        yield decision.seat, decision.kind, bool(decision.hidden)


def answering(decisions: Sequence[Decision], action: Action) -> Decision | None:
    """The decision that ``action`` answers among one seat's decisions (owed and
    standing): highest priority first, owed before standing, then listing order."""
    key = json_key(action)
    order = sorted(range(len(decisions)),
                   key=lambda i: (-decisions[i].priority, decisions[i].standing, i))
    for i in order:
        if any(json_key(a) == key for a in decisions[i].legal):
            return decisions[i]
    return None


def json_key(value: Any) -> str:
    """A stable key of a JSON value (sorted keys; true and 1 stay different)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def legal_actions(engine: GameEngine, state: State, seat: int) -> tuple[Action, ...]:
    """The legal actions of one seat now, across its pending decisions."""
    out: list[Action] = []
    for decision in engine.pending(state):
        if decision.seat == seat:
            out.extend(decision.legal)
    return tuple(out)
