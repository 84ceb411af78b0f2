"""Rebuild a match's engine state from its records, checking every state hash.

Used by the rules host after a restart, by the step-throughs (gateway, ``neon replay``) and
by ``neon verify`` offline. Every comparison that decides something is exact, on JSON types
(the stored outcome is the replay's in canonical JSON: ``==`` takes true for 1 and 1.0 for 1),
and MatchCreated's seats, mode and options must have the types the host writes.

``Replayed(descriptions=...)`` also checks what the records describe of each step (verify):
see :func:`_describe`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.platform.canonical import canonical_json, sha256_hex
from services.platform.draws import DrawRecord, ReplayMismatch, ReplayRandomness, keyed_state_hash
from services.rules import records as rec
from services.rules.games.contract import (
    RESIGN,
    EngineEvent,
    GameEngine,
    MatchConfig,
    Outcome,
    canonical_state,
    decision_labels,
    json_key,
    setup_transition,
)


class ReplayError(Exception):
    """The log does not replay: the message names the first bad event."""

    @property
    def event(self) -> str:
        """The message's opening "event N" alone: what a caller who may not see the log's
        hidden parts is told (the rest may quote an engine's reason about an action, or a
        state's contents)."""
        head = str(self).split(":", 1)[0]
        return head if re.fullmatch(r"event \S{1,24}", head) else "an event"


@dataclass
class Replayed:
    state: Any = None
    version: int = 0
    state_hashes: list[tuple[int, str]] = field(default_factory=list)
    outcome: Outcome | None = None
    config: MatchConfig | None = None
    key: bytes | None = None
    """The state-hash key of a match whose hashes are keyed (from the revealed seed)."""
    ended: bool = False
    """A MatchEnded was replayed: only the seal may follow."""
    abandoned: dict[str, Any] | None = None
    """The abandon's outcome (reason, by) when the match was abandoned."""
    descriptions: str = ""
    """Whether :func:`step` also checks what each record describes of its step (the engine
    events, the decision answered; :func:`_describe`): ``"check"`` fails on a difference,
    ``"note"`` notes the first one in ``described`` and checks no more, ``""`` (the host, the
    step-throughs) does not look."""
    described: str = ""
    """Under ``"note"``: the first difference met, in words (empty: none)."""


def config_of(created: dict[str, Any]) -> MatchConfig:
    """The match's configuration from MatchCreated, whose seats must be an integer (not
    "2", 2.0 or true, which ``int()`` read as a seat count), its mode a text and its options
    an object (or none); ``ValueError`` otherwise."""
    mode, seats, options = created["mode"], created["seats"], created.get("options")
    if type(seats) is not int or type(mode) is not str \
            or not (options is None or type(options) is dict):
        raise ValueError("MatchCreated's seats must be an integer, its mode a text and its "
                         "options an object")
    return MatchConfig(mode=mode, seats=seats, options=dict(options or {}))


def draws_of(record: dict[str, Any]) -> list[DrawRecord]:
    return [DrawRecord.from_json(d) for d in record.get("draws", [])]


def _rng(record: dict[str, Any], draws: list[DrawRecord] | None = None) -> ReplayRandomness:
    if draws is not None:
        return ReplayRandomness(draws)
    try:
        return ReplayRandomness(draws_of(record))
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(f"event {record.get('n')}: malformed draws ({err})") from None


def step(engine: GameEngine, replayed: Replayed, record: dict[str, Any],
         draws: list[DrawRecord] | None = None) -> None:
    """Fold one record into ``replayed``; raises :class:`ReplayError` on any mismatch.

    ``draws``: the record's draws already parsed (verify parses them once, to check them
    against the seed, and hands the same objects to the replay)."""
    n = record.get("n")
    kind = record.get("type")
    if replayed.ended and kind != "MatchSealed":
        raise ReplayError(f"event {n}: {kind} after the match ended")
    try:
        if kind == "MatchCreated":
            replayed.config = config_of(record)
            campaign = record.get("campaign")
            if campaign:
                replayed.config = MatchConfig(replayed.config.mode, replayed.config.seats,
                                              replayed.config.options, campaign.get("carried"))
        elif kind == "MatchStarted":
            if replayed.config is None:
                raise ReplayError(f"event {n}: MatchStarted before MatchCreated")
            rng = _rng(record, draws)
            if replayed.descriptions:
                started = setup_transition(engine, replayed.config, rng)
                replayed.state = started.state
                _describe(replayed, record, started.events)
            else:
                replayed.state = engine.setup(replayed.config, rng)
            _finish_step(engine, replayed, record, rng)
        elif kind == "ActionAccepted":
            state = replayed.state
            if state is None:
                raise ReplayError(f"event {n}: action before the match started")
            seat, action = record["seat"], record["action"]
            if type(seat) is not int:  # as the host writes it: "1", 1.0 or true is no seat
                raise ReplayError(f"event {n}: seat {seat!r} is not an integer")
            describe = replayed.descriptions and not replayed.described
            # the decision first: an engine without labels of its own then has its pending
            # remembered for validate
            decided = _decided(engine, state, seat, record) if describe else None
            reason = engine.validate(state, seat, action)
            if reason is not None:
                raise ReplayError(f"event {n}: action of seat {seat} is illegal: {reason}")
            if record.get("timeout"):
                _check_timeout(engine, state, seat, action, record)
            if decided is not None:
                _describe(replayed, record, None, decided)
            rng = ReplayRandomness(draws) if draws is not None else _rng(record)
            transition = engine.apply(state, seat, action, rng)
            replayed.state = transition.state
            if describe and not replayed.described:
                problem = _events_differ(record.get("events"), transition.events)
                if problem is not None:
                    _describe(replayed, record, None, problem)
            _finish_step(engine, replayed, record, rng)
        elif kind == "MatchEnded" and rec.is_abandoned(record.get("outcome")):
            _check_abandon(engine, replayed, record)
        elif kind == "MatchEnded":
            outcome = engine.outcome(replayed.state) if replayed.state is not None else None
            if outcome is None:
                raise ReplayError(f"event {n}: MatchEnded but the replayed match is not over")
            if canonical_json(outcome_json(outcome)) != canonical_json(record.get("outcome")):
                # in canonical JSON: to ==, true is 1 and a result so spelled was taken
                raise ReplayError(f"event {n}: stored outcome differs from the replayed outcome")
            replayed.outcome = outcome
            replayed.ended = True
        elif kind == "MatchSealed":
            pass
        else:
            raise ReplayError(f"event {n}: unknown event type {kind!r}")
    except ReplayMismatch as err:
        raise ReplayError(f"event {n}: {err}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise ReplayError(f"event {n}: does not replay ({type(err).__name__}: {err})") from None
    replayed.version = int(n) if isinstance(n, int) else replayed.version


def _check_abandon(engine: GameEngine, replayed: Replayed, record: dict[str, Any]) -> None:
    """An organiser's abandon: the match was not over (an engine outcome is the match's own
    end, written with its last action), and the record has exactly an abandon's shape (a
    reason, who, and no result), so nothing can pass as a result under its name."""
    n = record.get("n")
    outcome = record["outcome"]
    if replayed.state is not None and engine.outcome(replayed.state) is not None:
        raise ReplayError(f"event {n}: abandons a match that was over")
    reason, by = outcome.get("reason"), outcome.get("by")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > rec.MAX_REASON \
            or not isinstance(by, str) \
            or canonical_json(outcome) != canonical_json(rec.abandoned_outcome(reason, by)):
        raise ReplayError(f"event {n}: an abandoned MatchEnded must hold exactly a reason "
                          "(1-500 characters), who abandoned, and no result")
    replayed.abandoned = {"reason": reason, "by": by}
    replayed.ended = True


def _check_timeout(engine: GameEngine, state: Any, seat: int, action: Any,
                   record: dict[str, Any]) -> None:
    """A clock's expiry applies the default action of the seat's owed decision (or, under
    the forfeit policy, the seat's resignation)."""
    if record.get("timeout") == "forfeit" and json_key(action) == json_key(RESIGN):
        return
    defaults = [d.default for d in engine.pending(state) if d.seat == seat and d.default is not None]
    if not any(json_key(d) == json_key(action) for d in defaults):
        raise ReplayError(f"event {record.get('n')}: a timeout of seat {seat} applied an action "
                          f"that is not its decision's default")


def _decided(engine: GameEngine, state: Any, seat: int, record: dict[str, Any]) -> str | None:
    """Why the record's ``decision`` and ``hidden`` are not a decision the engine offered
    ``seat`` in ``state`` (owed, or standing), or None. The host writes the kind and the
    hidden flag of the decision the action answers (``RulesHost._decision``; a clock's or a
    bot's: the seat's first owed one; a forfeit: the one listing resign), self-play the
    kind of the decision its bot answered: either is one of these. Compared on the labels
    alone (the contract's ``decision_labels``: the engine's own, made without the legal
    lists, or those of its ``pending``, which engines remember for ``validate`` to read),
    owed decisions first."""
    kind, hidden = record.get("decision"), record.get("hidden")
    if type(kind) is str and type(hidden) is bool:
        wanted = (seat, kind, hidden)
        for label in decision_labels(engine, state):
            if label == wanted:
                return None
    return (f"decision {quoted(kind)} (hidden: {quoted(hidden)}) is not one the engine "
            f"offered seat {seat} there")


def _describe(replayed: Replayed, record: dict[str, Any], events: Any,
              problem: str | None = None) -> None:
    """Check what ``record`` describes of its step (``Replayed.descriptions``): ``events``
    (the engine's, from ``start`` or ``apply``) against the record's ``events`` as the host
    writes them (``records.engine_events_json``), or ``problem`` (the decision's, from
    :func:`_decided`). A difference raises :class:`ReplayError` under ``"check"``; under
    ``"note"`` the first is kept in ``described`` and nothing more is looked at."""
    if replayed.described:
        return
    if events is not None:
        problem = _events_differ(record.get("events"), events)
    if problem is None:
        return
    if replayed.descriptions == "check":
        raise ReplayError(f"event {record.get('n')}: {problem}")
    replayed.described = f"event {record.get('n')}: {problem}"


def _events_differ(stored: Any, events: Any) -> str | None:
    """Why the stored ``events`` are not the engine's ``events`` as the host writes them,
    or None. Compared as orjson's bytes with sorted keys (exact on JSON types: true is not
    1); when they differ (or orjson cannot encode them), in canonical JSON, which the export
    was written in (an engine's 1.0 is stored as 1) and decides."""
    # a public event of the contract's own class is written as its fields (``__dict__``:
    # kind, data and visible_to None, sorted by orjson), without a dict made for it
    written = [e.__dict__ if type(e) is EngineEvent and e.visible_to is None else
               {"kind": e.kind, "data": e.data,
                "visible_to": None if e.visible_to is None else sorted(e.visible_to)}
               for e in events]
    try:
        if orjson.dumps(written, option=_SORTED, default=_plain) \
                == orjson.dumps(stored, option=_SORTED):
            return None
    except TypeError:  # a key that is not text, an integer beyond 64 bits: decided below
        pass
    try:
        if canonical_json(rec.engine_events_json(events)) == canonical_json(stored):
            return None
    except (ValueError, TypeError, RecursionError):
        pass
    if type(stored) is not list:
        return f"engine events are not a list but {quoted(stored)}"
    written = rec.engine_events_json(events)
    for i, (mine, theirs) in enumerate(zip(written, stored, strict=False)):
        if not isinstance(theirs, dict) or _key(mine) != _key(theirs):
            kind = theirs.get("kind") if isinstance(theirs, dict) else theirs
            return (f"engine event {i + 1} differs from the replay's (stored {quoted(kind)}, "
                    f"replayed {quoted(mine['kind'])})")
    return (f"holds {len(stored)} engine events, the replay {len(written)}")


_SORTED = orjson.OPT_SORT_KEYS


def _plain(value: Any) -> Any:
    """What orjson encodes for an engine event's value it does not know: a mapping (an
    event's ``data`` may be any) as an object; anything else is decided in canonical JSON."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _key(event: Any) -> bytes | None:
    try:
        return canonical_json(event)
    except (ValueError, TypeError, RecursionError):
        return None


def quoted(value: Any) -> str:
    """A value named in a reason (replay's, verify's): as JSON, cut to 40 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _finish_step(engine: GameEngine, replayed: Replayed, record: dict[str, Any],
                 rng: ReplayRandomness) -> None:
    n = record.get("n")
    if not rng.exhausted:
        raise ReplayError(f"event {n}: the log holds draws the engine did not ask for")
    data = canonical_state(engine, replayed.state)  # canonical_json(engine.encode(state))
    key = replayed.key
    digest = keyed_state_hash(key, data) if key else sha256_hex(data)
    if digest != record.get("state_hash"):
        raise ReplayError(f"event {n}: replayed state hash differs from the stored one")
    replayed.state_hashes.append((n if type(n) is int else int(n), digest))  # type: ignore[arg-type]


def replay(engine: GameEngine, records: Iterable[dict[str, Any]], key: bytes | None = None,
           draws: Sequence[list[DrawRecord]] | None = None, descriptions: str = "") -> Replayed:
    """Replay ``records``; ``draws[i]``, when given, are the parsed draws of record ``i``;
    ``descriptions``: see ``Replayed.descriptions``."""
    replayed = Replayed(key=key, descriptions=descriptions)
    if draws is None:
        for record in records:
            step(engine, replayed, record)
    else:
        for record, parsed in zip(records, draws, strict=True):
            step(engine, replayed, record, parsed)
    return replayed


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """The outcome as stored JSON (tuples become lists, as after a round trip)."""
    return json.loads(json.dumps({
        "placements": list(outcome.placements),
        "scores": list(outcome.scores),
        "reason": outcome.reason,
        "draw": outcome.draw,
        "breakdown": dict(outcome.breakdown),
        "teams": [list(t) for t in outcome.teams],
        **({"carry": outcome.carry} if getattr(outcome, "carry", None) is not None else {}),
    }))
