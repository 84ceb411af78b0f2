"""The rules host: commands and queries over the live matches of one game.

Each running match lives in memory (live.py), owned by this process: engine state,
version, head hash, command ids, reserved draw blocks. A command takes the match's
lock, asks the pure engine, seals the record into the chain and hands it to the group
committer (matchlog.py); the caller is answered once its own event is durable, with the
seat's next decisions and view. Queries are answered from memory. A match not in
memory (a restart, an eviction) is rebuilt from the store, from its latest snapshot on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import math
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import jsonschema
from eventsourcing.persistence import IntegrityError

from services.platform.canonical import KEYED_SCHEME, canonical_json, sha256_hex
from services.platform.draws import (
    DrawRecord,
    ReplayRandomness,
    SeededRandomness,
    keyed_state_hash,
    state_key,
)
from services.platform.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ServiceError,
    Unavailable,
)
from services.platform.grpc_kit import clip
from services.platform.logs import error_words, get_logger, hide_in_logs, withhold_words_of
from services.platform.settings import CLOCK_GRACE_MS
from services.platform.storable import unstorable_at, unstorable_reason
from services.platform.storehealth import is_store_outage
from services.platform.tokens import Claims, TokenIssuer
from services.platform.waiting import within
from services.rules import access, noshow
from services.rules import records as rec
from services.rules.app import RulesApplication, match_uuid
from services.rules.chance import reserve_ahead, run_with_blocks
from services.rules.clocks import ClockConfig, Clocks, ClockStep
from services.rules.clockwork import ClockScheduler, Heartbeat, wall_now_ms
from services.rules.dice_client import DiceClient, OpenedSession
from services.rules.export import build_export
from services.rules.games.contract import (
    RESIGN,
    ConfigError,
    Decision,
    GameEngine,
    MatchConfig,
    answering,
    canonical_state,
    is_v2,
    json_key,
    offers_resign,
    setup_transition,
    standing_options,
)
from services.rules.live import (
    STATUS_AFTER,
    FinalView,
    FinalViews,
    LiveMatch,
    LiveMatches,
    dice_key_of,
)
from services.rules.matchlog import (
    SNAPSHOT_EVERY,
    GroupCommitter,
    MatchLog,
    record_event,
    snapshot_classes,
    snapshot_key,
)
from services.rules.replay import ReplayError, config_of, outcome_json, replay

MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
SEAL_RETRY_MS = 5000
"""How soon a match whose seal failed (dice or store down at its end) is tried again."""
EXPIRY_RETRY_MS = 1000
"""How soon a match whose clock expiry failed (its timeout's commit, its rebuild) has its
clock armed again from what is stored."""
RESERVED_COMMANDS = tuple(rec.SERVICE_COMMANDS)
"""Command id prefixes of the service's own actions (a clock's timeout, a forfeit, a bot's
move: ``timeout:N`` makes version N); a client's id of that form could name one of them."""
RESIGN_ONLY = 'resign takes no options: send {"type": "resign"} alone'
"""Why a resignation with other fields is refused (NEON's engine says as much itself)."""
MAX_ACTION_BYTES = 64 * 1024
MAX_SAFE_INT = (1 << 53) - 1
CACHE_BYTES = 512 * 1024 * 1024
CHECKED_CONFIGS = 1024
"""Match configurations remembered as setting up without a ConfigError."""
LOCK_TRIES = 8
"""How often a call takes a match again when the copy it waited for left memory meanwhile."""

log = get_logger("rules")


class OutOfRange(ServiceError):
    """A stream asked from a version the match has not reached (``from_version``)."""

    code = grpc.StatusCode.OUT_OF_RANGE


def check_from(live: LiveMatch, from_version: int) -> None:
    """Refuse a stream of ``live`` from beyond its version: it would say nothing until the
    match got there (a client's bug, or a version of another match), never why."""
    if from_version > live.version:
        raise OutOfRange(f"from_version {from_version} is beyond the match, which is at "
                         f"version {live.version}; resume from the last version received")


@dataclass
class Answer:
    version: int
    state_hash: str
    events: list[dict[str, Any]]
    status: str
    outcome: dict[str, Any] | None
    live: LiveMatch
    """The match the answer was taken from, as it is while the answer is encoded: the seat's
    decisions and view come from it, memoised per version (``live.derived``)."""
    replayed: bool = False
    view: Any = None
    clocks: list[dict[str, Any]] = field(default_factory=list)


T = TypeVar("T")


async def once(loading: dict[str, asyncio.Future[Any]], key: str,
               make: Callable[[str], Awaitable[T]]) -> T:
    """``make(key)``, with its task in ``loading[key]`` while it runs, so that callers who
    find it there wait for the same result (``asyncio.shield`` of it) instead of making it
    again; the task is removed at the end, failed or not. It runs as a task of its own, not
    in this caller's call: a caller who is cancelled (its client gave up, its deadline
    passed) stops waiting, and the others still get the result (before, they got the first
    caller's cancellation, and a gRPC handler ending so never answered its client)."""
    task: asyncio.Task[T] = asyncio.ensure_future(make(key))
    loading[key] = task

    def done(finished: asyncio.Task[T]) -> None:
        if loading.get(key) is finished:
            del loading[key]
        if not finished.cancelled():
            finished.exception()  # retrieved: the waiters re-raise it themselves

    task.add_done_callback(done)
    return await asyncio.shield(task)


def dumps(value: Any) -> str:
    """JSON as the service answers it (views, outcomes, actions): compact, keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def add_derived_options(engine: GameEngine, mode: str, seats: int, options: dict[str, Any],
                        teams: list[list[int]] | None) -> None:
    """Add to ``options`` what a contract-v2 engine derives from the mode, seat count and
    teams (``match_options``) where they do not say it: the options a match is set up and
    stored with (the tournament checks its options so too). Raises ConfigError."""
    if is_v2(engine):
        derived = engine.match_options(mode, seats, teams or None)  # type: ignore[attr-defined]
        options.update({k: v for k, v in dict(derived).items() if k not in options})


def _strings(value: Any) -> list[str]:
    """The strings ``value`` holds (its keys' values, deep)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _hide_action_in_logs(action: dict[str, Any], also: bool = False) -> None:
    """No log line of this call or task holds the strings of ``action`` (a card, a hidden
    choice: an engine's error may quote them), but its ``type`` (the action's kind is
    public): :func:`services.platform.logs.hide_in_logs`."""
    hide_in_logs(_strings({k: v for k, v in action.items() if k != "type"}), also=also)


def parse_json_object(text: str, what: str, limit: int = MAX_ACTION_BYTES) -> dict[str, Any]:
    """A JSON object that canonicalises (RFC 8785): no NaN, no infinities, no integer
    beyond 2**53, so every later step (hashing, repeats, export) can take it."""
    if len(text) > limit:
        raise InvalidArgument(f"{what} is larger than {limit} bytes")
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_number) if text else {}
    except (ValueError, RecursionError) as err:
        raise InvalidArgument(f"{what} is not valid JSON: {err}") from None
    if not isinstance(value, dict):
        raise InvalidArgument(f"{what} must be a JSON object")
    problem = _not_canonical(value)
    if problem:
        raise InvalidArgument(f"{what}: {problem}")
    # stored as it is (an action, a match's options): an object the match store would read
    # back as another type would make the match unreadable from then on
    unstorable = unstorable_reason(value, what)
    if unstorable:
        raise InvalidArgument(unstorable)
    return value


def _number(text: str) -> float | int:
    """A JSON number with a fraction or exponent: an integer when it is one (``3.0``,
    ``3e0``). JSON and RFC 8785 know one number there, as the state hashes do; reading it
    as an integer lets ``{"sector": 3.0}`` answer like the listed ``{"sector": 3}``, and
    keeps floats out of engine states and views, whose rules count in integers."""
    value = float(text)
    if value.is_integer() and -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        return int(value)
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _not_canonical(value: Any, depth: int = 0) -> str | None:
    if depth > 64:
        return "nested too deeply"
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return None if _is_unicode(value) else "strings must be valid Unicode (no lone surrogates)"
    if isinstance(value, int):
        return None if -MAX_SAFE_INT <= value <= MAX_SAFE_INT else f"integer {value} is out of range (|n| < 2**53)"
    if isinstance(value, float):
        return None if math.isfinite(value) else "numbers must be finite"
    if isinstance(value, list):
        return next((p for p in (_not_canonical(v, depth + 1) for v in value) if p), None)
    if isinstance(value, dict):
        if not all(_is_unicode(k) for k in value):
            return "keys must be valid Unicode (no lone surrogates)"
        return next((p for p in (_not_canonical(v, depth + 1) for v in value.values()) if p), None)
    return "not a JSON value"


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class MatchHost:
    def __init__(
        self,
        engine: GameEngine,
        app: RulesApplication,
        dice: DiceClient,
        issuer: TokenIssuer,
        signing_key: Any,
        *,
        allow_dev_seeds: bool = True,
        seat_token_ttl: int = 7 * 24 * 3600,
        call_timeout: float = 5.0,
        on_saved: Callable[[], None] = lambda: None,
        cache_bytes: int = CACHE_BYTES,
        now_ms: Callable[[], int] = wall_now_ms,
        clock_grace_ms: int = CLOCK_GRACE_MS,
    ) -> None:
        self.engine, self.app, self.dice, self.issuer = engine, app, dice, issuer
        withhold_words_of(type(engine).__module__)  # a plug-in engine's errors, as the built-ins'
        self.signing_key = signing_key
        self.allow_dev_seeds = allow_dev_seeds
        self.seat_token_ttl = seat_token_ttl
        self.call_timeout = call_timeout
        # snapshots tagged under a key of the signing key, loaded with engine classes only
        self.store = MatchLog(app, snapshot_key(signing_key), snapshot_classes(engine))
        self.committer = GroupCommitter(self.store, on_saved)
        self.live = LiveMatches(cache_bytes)
        self.finals = FinalViews()
        """The public views of sealed matches, kept after they leave ``live`` (GetView)."""
        self._finals_loading: dict[str, asyncio.Future[FinalView | None]] = {}
        self.meter: Any = None
        """Counts the stored records: a metrics.RulesMeter (rules/main.py sets it)."""
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        self._creating: dict[str, asyncio.Lock] = {}
        self._changed: dict[str, asyncio.Condition] = {}
        self._action_validator = jsonschema.Draft202012Validator(engine.action_schema())
        self._config_validator = jsonschema.Draft202012Validator(engine.config_schema())
        self._checked_configs: set[tuple[str, int, str]] = set()
        self.now_ms = now_ms
        self.clockwork = ClockScheduler(self._expire, now_ms=now_ms)
        self.seal_retry_ms = SEAL_RETRY_MS
        self.expiry_retry_ms = EXPIRY_RETRY_MS
        self.clock_grace_ms = clock_grace_ms
        self.started_ms = now_ms()
        self.heartbeat: Heartbeat | None = None
        """This process's heartbeat (rules/main.py starts it before the service serves):
        when the previous process of its place last served, for :meth:`_resume_clocks`.
        None: not known, the grace alone."""
        self._resumed: dict[str, tuple[int, Clocks]] = {}
        """The clocks each match was taken up with (see :meth:`_resume_clocks`), by match
        id, with the version they belong to: a match dropped from memory and rebuilt at that
        version gets them again, and none gets the pause or the grace twice."""

    # -- plumbing -----------------------------------------------------------------

    async def close(self) -> None:
        await self.clockwork.close()
        await self.committer.close()

    def require_organiser(self, claims: Claims | None) -> None:
        access.require_organiser(claims)

    def _forget(self, match_id: str) -> None:
        """Drop what the host kept per match while it could still change, once it is sealed:
        the watchers' wake-up (those waiting hold it, and are woken by the seal) and the
        clocks it was taken up with. Kept, they were one more entry per match for the
        process's life."""
        self._changed.pop(match_id, None)
        self._resumed.pop(match_id, None)

    def _cond(self, match_id: str) -> asyncio.Condition:
        return self._changed.setdefault(match_id, asyncio.Condition())

    async def _notify(self, match_id: str) -> None:
        cond = self._changed.get(match_id)
        if cond is not None:
            async with cond:
                cond.notify_all()

    def _engine_for(self, created: dict[str, Any]) -> GameEngine:
        version = str(created.get("engine_version", ""))
        if version == self.engine.engine_version or not is_v2(self.engine):
            return self.engine
        try:
            return self.engine.for_version(version)  # type: ignore[attr-defined,no-any-return]
        except KeyError:
            raise FailedPrecondition(
                f"this match was created with engine {version}, which this service no longer runs"
            ) from None

    async def live_match(self, match_id: str) -> LiveMatch:
        """The live match, rebuilt from the store when it is not in memory."""
        return await self._get(match_id)

    async def _get(self, match_id: str) -> LiveMatch:
        if not MATCH_ID.match(match_id or ""):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        live = self.live.get(match_id)
        if live is not None:
            if live.status == "ended":
                await self._seal_end(live)
            return live
        if match_id in self._loading:
            return await asyncio.shield(self._loading[match_id])
        live = await once(self._loading, match_id, self._rebuild_into_live)
        if live.status == "ended":
            await self._seal_end(live)
        return live

    @contextlib.asynccontextmanager
    async def _locked(self, match_id: str) -> AsyncIterator[LiveMatch]:
        """The live match under its lock, and the copy held in memory. A copy dropped while
        this call waited for its lock (the call before failed its commit, or the match was
        evicted) is left alone and the held one taken (rebuilt from the store when need be):
        a command never goes on from a copy nobody else sees while the next call rebuilds a
        second one, which would then stay behind the log."""
        for _ in range(LOCK_TRIES):
            live = await self._get(match_id)
            async with live.lock:
                if self.live.get(match_id) is live:
                    yield live
                    return
            log.info("match left memory while a call waited for it", match_id=match_id)
        raise Unavailable("the match is being reloaded; try again shortly")

    async def _rebuild_into_live(self, match_id: str) -> LiveMatch:
        live = await self._rebuild(match_id)
        self.live.put(live)
        return live

    async def _rebuild(self, match_id: str) -> LiveMatch:
        """The live match from the store: the latest snapshot, then the records after it."""
        records = await self._store(self.store.records, match_id)
        if not records:
            raise NotFound(f"no match {match_id!r}")
        status = "created"
        for record in records:
            status = STATUS_AFTER.get(record["type"], status)
        rebuilt = asyncio.to_thread(self._rebuild_from, match_id, records)
        if status in ("created", "running") and records[0].get("state_hash_scheme") == KEYED_SCHEME:
            # the state key from the dice service while the state is rebuilt (one round trip
            # less on the way to the match's first answer after a restart)
            (live, unchecked), session = await asyncio.gather(
                rebuilt, self.dice.open(dice_key_of(records[0], match_id), ""))
            _check_session(records[0], session)
            live.key = bytes.fromhex(session.state_key)
            if unchecked:  # from a snapshot: its state checked with the key, now known
                await asyncio.to_thread(self._check_snapshot_state, live, records, live.key)
        else:
            live, _ = await rebuilt
        await self._restamp(live, records)
        self._resume_clocks(live)
        log.info("match rebuilt", match_id=match_id, version=live.version)
        return live

    async def _restamp(self, live: LiveMatch, records: list[dict[str, Any]]) -> None:
        """When a rebuilt match last moved and, ended, when it ended (ListMatches orders by
        them), from the stored events' own times: a match rebuilt long after its end is not
        taken for one that just finished. One more read of its last events; when it fails the
        times stay unknown (listed last), and the match is served all the same."""
        ended = next((r["n"] for r in records if r["type"] == "MatchEnded"), None)
        after = ended - 1 if ended is not None else max(0, live.version - 1)
        try:
            events = await self._store(_events_after, self.app, live.match_id, after)
        except Exception as err:
            log.warning("match times not read", match_id=live.match_id,
                        error=error_words(err))
            return
        for event in events:
            _stamp(live, getattr(event, "record", {}), event)

    def _resume_clocks(self, live: LiveMatch) -> None:
        """A running match rebuilt with a clock that ran before this process started (it
        ran while nobody served the match: a restart, an upgrade, a crash) is paused for the
        downtime and gets the restart grace on top (``Clocks.resume``): a seat is charged
        neither the time nobody served its match nor, the moment it comes back, a timeout.

        The downtime runs from the latest time the previous process of this place (the one
        that served the match before) may have served it, as its heartbeat tells
        (``Heartbeat.served_until_ms``, services/rules/clockwork.py), to now. Where that is not
        known for sure (no heartbeat of the previous process in this place, heartbeats off,
        a rollout of the replica list, a clock started after that beat) there is no pause,
        only the grace, and the downtime beyond the grace counts: never more credit than
        the match's real downtime.

        Once per match and process: the clocks given are remembered with their version, and
        a later rebuild at that version takes them again; a rebuild at a later version has
        them in its records already. They are kept in memory until the match's next record
        stores them: a process that stops before that record loses them, and its successor
        pauses the clocks only for its own downtime (from this process's last beat), so a
        crash loop never credits one outage twice; it may credit less than the downtime."""
        if live.clocks is None or live.status != "running":
            return
        given = self._resumed.get(live.match_id)
        if given is not None:
            if given[0] == live.version:
                live.clocks = given[1]
            return
        if not any(c.started_ms is not None and c.started_ms < self.started_ms
                   for c in live.clocks.seats):
            return
        served_until = self.heartbeat.served_until_ms if self.heartbeat is not None else None
        if served_until is None and self.clock_grace_ms <= 0:
            return
        taken = live.clocks.resume(self.now_ms(), self.clock_grace_ms, served_until)
        self._resumed[live.match_id] = (live.version, taken.clocks)
        if taken.clocks is not live.clocks:
            live.clocks = taken.clocks
            if served_until is None:  # why the downtime is not known
                basis = self.heartbeat.basis if self.heartbeat is not None else "no heartbeat"
            else:
                basis = taken.basis
            log.info("clocks resumed after a restart", match_id=live.match_id,
                     paused_ms=taken.paused_ms, added_ms=dict(taken.added), basis=basis)

    def _rebuild_from(self, match_id: str,
                      records: list[dict[str, Any]]) -> tuple[LiveMatch, bool]:
        """The match from its ``records`` (and its latest snapshot), and whether its state
        came from a snapshot that still needs its keyed state hash checked (the key of a
        running match comes from the dice service: :meth:`_check_snapshot_state`)."""
        created = records[0]
        engine = self._engine_for(created)
        live = LiveMatch(match_id, engine, created, self._config_of(created))
        started = False
        for record in records:
            live.add(record)
            started = started or record["type"] == "MatchStarted"
            for draw in record.get("draws", []):
                live.blocks.counter = max(live.blocks.counter, int(draw["next"]))
            if "clocks" in record:
                live.clocks = Clocks.from_json(record["clocks"])
        if not started:  # waiting for client seeds, or abandoned before it started: no state
            return live, False
        snapshot = self.store.latest_snapshot(match_id, engine.engine_version, len(records))
        start, state = self._fold_from(engine, live.config, match_id, records, snapshot)
        data = canonical_state(engine, state)
        expected = _last_state_hash(records)
        unchecked = False
        if not created.get("state_hash_scheme"):
            if sha256_hex(data) != expected:
                state = replay_checked(engine, records, match_id)
                data = canonical_state(engine, state)
        elif start:  # keyed, from a snapshot: checked with the key (a sealed match's seed)
            key = _sealed_key(records)
            if key is None:
                unchecked = True
            elif keyed_state_hash(key, data) != expected:
                _snapshot_refused(match_id, start, "its state does not hash as recorded")
                state = self._fold_from(engine, live.config, match_id, records, None)[1]
                data = canonical_state(engine, state)
        live.state = state
        live.state_bytes = len(data)
        return live, unchecked

    def _fold_from(self, engine: GameEngine, config: MatchConfig, match_id: str,
                   records: list[dict[str, Any]],
                   snapshot: tuple[int, Any] | None) -> tuple[int, Any]:
        """The state after the last of ``records`` (the whole log, from record 1): from
        ``snapshot`` (its version and state) and the records after it, else from the start.
        A snapshot whose state the records after it do not fold on (the engine refuses,
        asks for draws the records do not hold) is left for the start. Returns the
        snapshot's version (0: from the start) and the state."""
        if snapshot is not None:
            start, state = snapshot
            try:
                for record in records[start:]:
                    state = _fold(engine, config, state, record)
                return start, state
            except Exception as err:
                _snapshot_refused(match_id, start, f"the log does not fold on it: {error_words(err)}")
        state = None
        for record in records:
            state = _fold(engine, config, state, record)
        return 0, state

    def _check_snapshot_state(self, live: LiveMatch, records: list[dict[str, Any]],
                              key: bytes) -> None:
        """Replay ``live`` from its log when the state its snapshot gave does not hash,
        under ``key``, as its last record says (blocking)."""
        if keyed_state_hash(key, canonical_state(live.engine, live.state)) == _last_state_hash(records):
            return
        _snapshot_refused(live.match_id, -1, "its state does not hash as recorded")
        state = self._fold_from(live.engine, live.config, live.match_id, records, None)[1]
        live.state = state
        live.state_bytes = len(canonical_state(live.engine, state))

    def _config_of(self, created: dict[str, Any]) -> MatchConfig:
        config = config_of(created)
        campaign = created.get("campaign")
        if campaign:
            config = MatchConfig(config.mode, config.seats, config.options, campaign.get("carried"))
        return config

    async def _store(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            async with asyncio.timeout(self.call_timeout * 2):  # no task per call, unlike wait_for
                return await asyncio.to_thread(fn, *args)
        except TimeoutError:
            raise Unavailable("the match store did not answer in time") from None

    def _reserver(self, live: LiveMatch) -> Callable[[int, int], Any]:
        """``live``'s dice blocks [first, first + count), reserved (chance.Reserve)."""
        return lambda first, count: self.dice.reserve_blocks(live.dice_key, first, count)

    async def _run(self, live: LiveMatch, call: Callable[[Any], Any]) -> tuple[Any, Any]:
        return await run_with_blocks(live.blocks, self._reserver(live), call)

    def _hash(self, live: LiveMatch, state: Any) -> str:
        data = canonical_state(live.engine, state)  # canonical_json(engine.encode(state))
        live.state_bytes = len(data)
        if live.key is not None:
            return keyed_state_hash(live.key, data)
        return sha256_hex(data)

    def _seal(self, live: LiveMatch, body: dict[str, Any], n: int, prev: str) -> dict[str, Any]:
        return rec.seal_record(live.match_id, n, prev, rec.blinded(body))

    async def _commit(self, live: LiveMatch, records: list[dict[str, Any]], state: Any) -> None:
        """Make ``records`` durable (with a snapshot when one is due), then advance. When they
        end the match, the seal follows in its own commit (:meth:`_seal_end`) and is appended
        to ``records``."""
        self._check_storable(live, records)
        events = [record_event(live.match_id, r) for r in records]
        last = records[-1]["n"]
        if state is not None and any(r["n"] % SNAPSHOT_EVERY == 0 for r in records):
            events.append(self.store.snapshot(live.match_id, last, live.engine.engine_version, state))
        try:
            async with asyncio.timeout(self.call_timeout * 2):
                await self.committer.commit(events)
        except IntegrityError:
            self.live.drop(live.match_id)
            raise Aborted("the match changed concurrently; fetch the view and retry") from None
        except TimeoutError:
            self.live.drop(live.match_id)
            raise Unavailable("the match store did not answer in time; retry with the same command id") from None
        except (OSError, ConnectionError) as err:
            self.live.drop(live.match_id)
            # the store's own words (a host and port, a path) go to the log, not the caller
            log.warning("the match store failed a commit", match_id=live.match_id,
                        error=repr(err))
            raise Unavailable("the match store is unavailable; retry with the same command "
                              "id") from None
        except BaseException:
            # The store failed, or the call was cancelled (deadline, store outage) while its
            # events were on their way: whether they are stored is unknown, so the match is
            # rebuilt from the store on its next call rather than trusted in memory.
            self.live.drop(live.match_id)
            raise
        if self.meter is not None:
            self.meter.stored(records)
        for record, event in zip(records, events, strict=False):  # a snapshot comes last
            live.add(record)
            _stamp(live, record, event)
            if "clocks" in record:
                live.clocks = Clocks.from_json(record["clocks"])
        if state is not None:
            live.state = state
        self.live.resize(live)
        self._arm(live)
        await self._notify(live.match_id)
        if live.status == "sealed":
            self._forget(live.match_id)
        if records[-1]["type"] == "MatchEnded":  # durable now: reveal the seed and seal
            sealed = await self._seal_end(live, locked=True)
            if sealed is not None:
                records.append(sealed)  # so the caller's answer shows the seal too

    def _check_storable(self, live: LiveMatch, records: list[dict[str, Any]]) -> None:
        """Refuse (FAILED_PRECONDITION, logged) records the match store could not read back:
        an object of exactly the keys ``_type_`` and ``_data_`` (services/platform/storable.py)
        would make the whole match unreadable once stored, at its next rebuild, export and
        restart. Callers' JSON is refused at the edge (:func:`parse_json_object`); what is
        left is an engine's own output (its events, outcome, carry, a bot's or default
        action), which a plug-in engine (NEON_ENGINES) is not held to a schema for. Nothing
        of the step is stored, and the match is rebuilt from the store on its next call (its
        dice blocks as the store has them). The words name the record and its field alone:
        a path into the engine's events could name what some seat may not see."""
        for record in records:
            path = unstorable_at(record)
            if path is None:
                continue
            field_ = re.match(r"\.?([^.\[]*)", path).group(1)  # type: ignore[union-attr]
            self.live.drop(live.match_id)
            log.error("an engine's result the match store cannot keep was refused; nothing "
                      "was stored", match_id=live.match_id, game=self.engine.game_id,
                      engine_version=self.engine.engine_version, record=record.get("type"),
                      field=field_)
            raise FailedPrecondition(
                f"the {self.engine.game_id} engine's result cannot be stored: its "
                f"{record.get('type')} record's {field_} holds an object of exactly the keys "
                "'_type_' and '_data_', which the match store would read back as another "
                "type; nothing was stored and the match is as it was")

    async def _seal_end(self, live: LiveMatch, locked: bool = False) -> dict[str, Any] | None:
        """The seal of a match whose MatchEnded is stored: the dice session is closed (the
        seed revealed) only now, never before the end is durable, or a failed commit would
        leave a running match with a public seed (every later draw and its state-hash key
        known). Returns the stored MatchSealed, or None when it must wait (the dice service
        or the store did not answer: logged; a timer, the next call on the match or a restart
        tries again, and an ended match takes no action meanwhile)."""
        if not locked:
            async with live.lock:
                if self.live.get(live.match_id) is not live:
                    # dropped while this waited (see _locked): the held copy, rebuilt from
                    # the store by the timer's call, seals the match, never this one
                    self.clockwork.arm(live.match_id, self.now_ms(), ("seal", 0))
                    return None
                return await self._seal_end(live, locked=True)
        if live.status != "ended":
            return None
        try:
            session, seed = await self.dice.close_session(live.dice_key)
            sealed = self._seal(live, {
                "type": "MatchSealed", "seed": seed, "commitment": session.commitment,
            }, live.version + 1, live.head)
            await self._commit(live, [sealed], None)
        except (ServiceError, OSError, TimeoutError) as err:
            log.warning("match ended, its seal waits", match_id=live.match_id,
                        error=error_words(err), retry_ms=self.seal_retry_ms)
        except Exception:  # the end is stored and answered whatever the seal met
            log.exception("match ended, its seal failed", match_id=live.match_id,
                          retry_ms=self.seal_retry_ms)
        else:
            return sealed
        # tried again on a timer (and at any call on the match, and at a restart)
        self.clockwork.arm(live.match_id, self.now_ms() + self.seal_retry_ms, ("seal", 0))
        return None

    # -- creating and starting ------------------------------------------------------

    def _check_create(self, mode: str, seats: int, options: dict[str, Any], players: list[str],
                      dev_seed: str, teams: list[list[int]]) -> MatchConfig:
        modes = self.engine.modes()
        if mode not in modes:
            raise InvalidArgument(f"unknown mode {mode!r}; modes: {', '.join(modes)}")
        info = modes[mode]
        if not info.min_seats <= seats <= info.max_seats:
            raise InvalidArgument(
                f"mode {mode} takes {info.min_seats}-{info.max_seats} seats, not {seats}"
            )
        if players and len(players) != seats:
            raise InvalidArgument(f"players lists {len(players)} ids for {seats} seats")
        if dev_seed and not self.allow_dev_seeds:
            raise FailedPrecondition("dev seeds are refused in tournament mode")
        if teams:
            flat = sorted(s for team in teams for s in team)
            if flat != list(range(seats)):
                raise InvalidArgument("teams must list every seat exactly once")
        try:
            add_derived_options(self.engine, mode, seats, options, teams)
        except ConfigError as err:
            raise InvalidArgument(f"teams: {err}") from None
        errors = sorted(self._config_validator.iter_errors(options), key=lambda e: e.path)
        if errors:
            raise InvalidArgument(f"options: {errors[0].message}")
        config = MatchConfig(mode=mode, seats=seats, options=options)
        checked = (mode, seats, json_key(options))
        if checked in self._checked_configs:  # set-up is pure: a config that set up once does again
            return config
        try:
            self.engine.setup(config, SeededRandomness(0))
        except ConfigError as err:
            raise InvalidArgument(f"options: {err}") from None
        if len(self._checked_configs) >= CHECKED_CONFIGS:
            self._checked_configs.clear()
        self._checked_configs.add(checked)
        return config

    def check_config(self, mode: str, seats: int, options_json: str,
                     teams: list[list[int]]) -> None:
        """CheckMatchConfig: refuse (InvalidArgument) the mode, seats, teams and options that
        CreateMatch would refuse, with its reasons, the engine's own set-up included; make
        nothing. Neither players, clock, campaign nor dev seed are asked (the match's, not
        the config's)."""
        options = parse_json_object(options_json, "options_json")
        self._check_create(mode, seats, options, [], "", teams)

    async def create_match(
        self, match_id: str, mode: str, seats: int, options_json: str, players: list[str],
        await_client_seeds: bool, dev_seed: str, *, teams: list[list[int]] | None = None,
        clock: dict[str, Any] | None = None, previous: tuple[str, str] | None = None,
        created_by: dict[str, str] | None = None,
    ) -> tuple[LiveMatch, dict[int, str]]:
        """``created_by`` (``access.creator_of`` the caller's token) is recorded in MatchCreated
        and again in MatchEnded, whose signed result carries it to scoring (which rates an
        organiser's match only when told to). A repeat with the same match id is answered,
        with the seat tokens, only to that creator or a service; ``None`` (the host's own
        callers and tests) records no creator and checks none."""
        match_id = match_id or uuid.uuid4().hex
        if not MATCH_ID.match(match_id):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        options = parse_json_object(options_json, "options_json")
        requested = dict(options)
        players = [str(p) for p in players]
        config = self._check_create(mode, seats, options, players, dev_seed, teams or [])
        campaign = await self._campaign(mode, previous) if previous and previous[0] else None
        if campaign is not None:
            config = MatchConfig(config.mode, config.seats, config.options, campaign["carried"])
        lock = self._creating.setdefault(match_id, asyncio.Lock())
        try:
            return await self._create_locked(lock, match_id, mode, seats, requested, players,
                                             await_client_seeds, dev_seed, clock, config, campaign,
                                             created_by)
        finally:
            if not lock.locked():
                self._creating.pop(match_id, None)

    async def _create_locked(self, lock: asyncio.Lock, match_id: str, mode: str, seats: int,
                             requested: dict[str, Any], players: list[str],
                             await_client_seeds: bool, dev_seed: str,
                             clock: dict[str, Any] | None, config: MatchConfig,
                             campaign: dict[str, Any] | None, created_by: dict[str, str] | None,
                             ) -> tuple[LiveMatch, dict[int, str]]:
        async with lock:
            try:
                existing = await self._get(match_id)
            except NotFound:
                existing = None
            clock_json = None
            if clock:
                try:
                    config_clock = ClockConfig.from_json(clock)
                except ValueError as err:
                    raise InvalidArgument(str(err)) from None
                clock_json = config_clock.to_json() if config_clock.enabled else None
            if existing is not None:
                c = existing.created
                if created_by is not None and not access.may_repeat(created_by, c.get("created_by")):
                    raise AlreadyExists(
                        f"match {match_id!r} already exists, created by "
                        f"{access.describe_creator(c.get('created_by'))}: a repeated CreateMatch is "
                        "answered (with the seat tokens) only to the match's creator or a service")
                asked = (mode, seats, requested, players, dict(config.options), clock_json,
                         bool(await_client_seeds), _link(campaign))
                if asked != (c["mode"], c["seats"], c.get("requested_options", c["options"]),
                             c["players"], c["options"], c.get("clock"),
                             bool(c.get("await_client_seeds")), _link(c.get("campaign"))):
                    raise AlreadyExists(f"match {match_id!r} exists with another configuration")
                return existing, self._tokens(existing)
            if clock_json and clock_json.get("policy") == "forfeit" \
                    and not offers_resign(self.engine):
                # a forfeit is the seat's resignation: with none, no seat would ever be
                # forfeited, while the organiser believes absent players will be
                raise InvalidArgument(
                    f"clock policy forfeit: the {self.engine.game_id} engine's ruleset "
                    f"{self.engine.engine_version} offers no resignation (contract version "
                    f"{2 if is_v2(self.engine) else 1}), so a seat that runs out of timeouts "
                    "could never be forfeited; choose policy bot or default")
            dice_key = f"{self.engine.game_id}/{match_id}"
            session = await self.dice.open(dice_key, dev_seed)
            if session.dev != bool(dev_seed):
                # The session was opened before the match, by another caller (an organiser
                # may open any): a dev seed's server seed is shared by every dev match on it
                # and public since the first one's seal, so a match asked without a dev seed
                # must never draw from one (its hands and rolls would be known ahead).
                log.warning("match refused: its dice session was opened ahead",
                            match_id=match_id, session_dev=session.dev, dev_seed=bool(dev_seed))
                raise FailedPrecondition(
                    f"the dice session of match {match_id!r} was opened "
                    f"{'with' if session.dev else 'without'} a dev seed before the match was "
                    f"created {'without' if session.dev else 'with'} one; its draws would not "
                    "be the ones asked for: create the match under another id")
            body: dict[str, Any] = {
                "type": "MatchCreated", "match_id": match_id, "game": self.engine.game_id,
                "mode": mode, "seats": seats, "options": dict(config.options), "players": players,
                "engine_version": self.engine.engine_version,
                "content_version": self.engine.content_version,
                "dice": {"stream_id": session.stream_id, "commitment": session.commitment,
                         "dev": session.dev, "session": dice_key},
                "await_client_seeds": bool(await_client_seeds),
            }
            if requested != dict(config.options):
                body["requested_options"] = requested
            if session.state_key:
                body["state_hash_scheme"] = KEYED_SCHEME
            if clock_json:
                body["clock"] = clock_json
            if campaign is not None:
                body["campaign"] = campaign
            if created_by is not None:
                body["created_by"] = dict(created_by)
            record = rec.seal_record(match_id, 1, rec.head([]), rec.blinded(body))
            live = LiveMatch(match_id, self.engine, record, config)
            live.key = bytes.fromhex(session.state_key) if session.state_key else None
            records = [record]
            state = None
            if not await_client_seeds:
                started, state = await self._start_record(live, [], 2, record["hash"])
                records.append(started)
            await self._commit(live, records, state)
            self.live.put(live)
            log.info("match created", match_id=match_id, mode=mode, seats=seats,
                     dev_seed=bool(dev_seed))
            return live, self._tokens(live)

    async def _campaign(self, mode: str, previous: tuple[str, str]) -> dict[str, Any]:
        """The link to the finished match a campaign match continues, with what it carries."""
        previous_id, final_hash = previous
        if not self.engine.modes()[mode].campaign:
            raise InvalidArgument(f"mode {mode} does not continue earlier matches")
        before = await self._get(previous_id)
        if before.status != "sealed":
            raise FailedPrecondition(f"match {previous_id!r} has not ended")
        if before.head != final_hash:
            raise FailedPrecondition(f"match {previous_id!r} ends with another final hash")
        outcome = before.outcome or (await self._store(self.store.records, previous_id))[-2]["outcome"]
        if rec.is_abandoned(outcome):
            raise FailedPrecondition(f"match {previous_id!r} was abandoned: it carries nothing on")
        return {"previous_match_id": previous_id, "previous_final_hash": final_hash,
                "carried": outcome.get("carry")}

    def _tokens(self, live: LiveMatch) -> dict[int, str]:
        c = live.created
        players = c["players"] or [""] * c["seats"]
        return {
            seat: self.issuer.issue("seat", live.match_id, seat, players[seat], self.seat_token_ttl,
                                    game=self.engine.game_id)
            for seat in range(c["seats"])
        }

    async def _start_record(self, live: LiveMatch, client_seeds: list[list[Any]], n: int,
                            prev: str) -> tuple[dict[str, Any], Any]:
        started, rng = await self._run(
            live, lambda r: setup_transition(live.engine, live.config, r))
        state = started.state
        live.blocks.spent(rng)
        body = {
            "type": "MatchStarted", "client_seeds": client_seeds,
            "draws": [d.to_json() for d in rng.records],
            "events": rec.engine_events_json(started.events),
            "state_hash": self._hash(live, state),
        }
        if live.created.get("clock"):
            clocks = Clocks.create(ClockConfig.from_json(live.created["clock"]), live.config.seats)
            body.update(_clock_fields(clocks.start(self._owed(live.engine, state), self.now_ms())))
        return self._seal(live, body, n, prev), state

    async def add_client_seed(self, claims: Claims, match_id: str, seed: str) -> int:
        seat = access.seat_of(claims, match_id, self.engine.game_id)
        async with self._locked(match_id) as live:
            if live.over:
                raise FailedPrecondition(self._ended_reason(live))
            if live.status != "created":
                raise FailedPrecondition("client seeds are only taken before the match starts")
            session = await self.dice.add_client_seed(live.dice_key, seat, seed)
            return len(session.client_seeds)

    async def start_match(self, claims: Claims, match_id: str) -> tuple[int, str, bool]:
        """Start a match waiting for client seeds: the version and state hash of its
        MatchStarted, and whether it had started before. Idempotent: a repeat (a retry after
        a lost answer, or a start by another organiser or service, who may start it as well)
        is answered the same MatchStarted and writes nothing, also once the match has ended
        (the answer holds nothing its public events do not). Only a match that ended
        without starting (abandoned while it waited) is FAILED_PRECONDITION."""
        access.require_organiser(claims)
        async with self._locked(match_id) as live:
            if live.started is not None:
                log.info("start repeated", match_id=match_id, version=live.started[0])
                return live.started[0], live.started[1], True
            if live.over:
                raise FailedPrecondition(self._ended_reason(live))
            # The first reservation fixes the session's client seeds (dice takes none after
            # it): read them after it, so MatchStarted records exactly the seeds its blocks
            # were made with, even if one reached dice by another way meanwhile (another
            # replica's AddClientSeed while the match changes owners). The set-up would
            # reserve these blocks first anyway: no call more.
            await reserve_ahead(live.blocks, self._reserver(live))
            seeds = await self.dice.client_seeds(live.dice_key)
            record, state = await self._start_record(live, seeds, live.version + 1, live.head)
            await self._commit(live, [record], state)
            return record["n"], record["state_hash"], False

    # -- actions --------------------------------------------------------------------

    async def submit(
        self, claims: Claims | None, match_id: str, command_id: str, action_json: str,
        expected_version: int | None,
    ) -> Answer:
        # judged (deadline, clock charge) when it reached the service, not when the match's
        # lock was free: another call's commit under way must not make an action late
        arrived = self.now_ms()
        seat = access.seat_of(claims, match_id, self.engine.game_id)
        if not command_id or len(command_id) > rec.MAX_COMMAND_ID:
            raise InvalidArgument(f"command_id must be 1-{rec.MAX_COMMAND_ID} characters")
        if command_id.startswith(RESERVED_COMMANDS):
            raise InvalidArgument(f"command ids starting {', '.join(map(repr, RESERVED_COMMANDS))} "
                                  "are reserved for the service's own actions")
        action = parse_json_object(action_json, "action_json")
        # its words (a card, a hidden choice) go into no log line of the call: an engine's
        # error may quote them (its type may: the action's kind is public)
        _hide_action_in_logs(action)
        found = await self._get(match_id)
        # the match as the action found it, before it waits for the lock: a timeout of this
        # seat committed meanwhile (its timer held the lock) answered the decision it was for
        seen = found.version
        deadline = found.clocks.seat(seat).deadline_ms if found.clocks is not None else None
        async with self._locked(match_id) as live:
            if (seat, command_id) in live.commands:
                return await self._repeat(live, seat, command_id, action)
            if live.status == "created":
                raise FailedPrecondition("the match has not started yet")
            if live.over:
                raise FailedPrecondition(self._ended_reason(live))
            now = arrived
            overdue = await self._overdue(live, now)
            if seat not in overdue and deadline is not None and live.version > seen:
                version = await self._timed_out_since(live, seat, seen)
                if version is not None:
                    overdue[seat] = (deadline, version)
            if seat in overdue:
                deadline, version = overdue[seat]
                raise FailedPrecondition(
                    f"too late: seat {seat}'s time ran out {max(0, now - deadline)} ms before "
                    f"this action; the clock applied its decision's default as a timeout "
                    f"(version {version}) and this action was not taken")
            if live.over:  # a timeout just applied ended it (a forfeit)
                raise FailedPrecondition(self._ended_reason(live))
            if expected_version is not None and expected_version != live.version:
                raise Aborted(
                    f"expected version {expected_version}, but the match is at {live.version}"
                )
            decision = self._decision(live, seat, action)
            records, state = await self._act(live, seat, command_id, action, decision, now_ms=now)
            await self._commit(live, records, state)
            log.info("action accepted", match_id=match_id, seat=seat, version=records[0]["n"],
                     decision=decision.kind)
            return self._answer(live, records[0], seat, records)

    @staticmethod
    def _ended_reason(live: LiveMatch) -> str:
        """Why a finished match takes no more commands, in words."""
        outcome = live.outcome
        if rec.is_abandoned(outcome):
            return (f"the match was abandoned by {outcome['by']} ({outcome['reason']}); "  # type: ignore[index]
                    "it takes no more actions")
        return "the match has ended"

    async def abandon(self, claims: Claims | None, match_id: str,
                      reason: str) -> tuple[LiveMatch, bool]:
        """End a match that has not ended, with no result (an organiser's AbandonMatch):
        MatchEnded with an abandoned outcome, then MatchSealed with the revealed seed, in one
        commit under the match's lock (as an action's end is), so an action racing it is
        either before it in the log or refused after it. Clocks stop (recorded in the end
        record) and nothing is armed again. Returns the match and whether it had been
        abandoned already (then nothing is written); a match that ended with a result is
        FAILED_PRECONDITION."""
        access.require_organiser(claims)
        assert claims is not None
        reason = (reason or "").strip()[:rec.MAX_REASON]
        if not reason:
            raise InvalidArgument("abandoning a match needs a reason")
        async with self._locked(match_id) as live:
            if live.over:
                if rec.is_abandoned(await self.outcome_of(live)):
                    return live, True
                raise FailedPrecondition("the match has already ended with a result; "
                                         "there is nothing to abandon")
            by = claims.player or claims.role
            body = self._ended(live, rec.abandoned_outcome(reason, by))
            if live.clocks is not None:  # every running clock stops; nobody owes anything
                body.update(_clock_fields(live.clocks.after_step(self.now_ms(), (), None, False)))
            was = live.status
            await self._commit(live, [self._seal(live, body, live.version + 1, live.head)], None)
            log.info("match abandoned", match_id=match_id, by=by, reason=reason, was=was,
                     version=live.version)
            return live, False

    async def _act(self, live: LiveMatch, seat: int, command_id: str, action: dict[str, Any],
                   decision: Decision, extra: dict[str, Any] | None = None,
                   now_ms: int | None = None) -> tuple[list[dict[str, Any]], Any]:
        """The records an accepted action adds (and, at the end, MatchEnded and MatchSealed).
        ``now_ms``: when the action was judged in time (its clock is charged to then); now
        when not given."""
        engine, before = live.engine, live.state
        transition, rng = await self._run(live, lambda r: engine.apply(before, seat, action, r))
        n = live.version + 1
        body = {
            "type": "ActionAccepted", "seat": seat, "command_id": command_id,
            "action": action, "decision": decision.kind, "hidden": decision.hidden,
            "draws": [d.to_json() for d in rng.records],
            "events": rec.engine_events_json(transition.events),
            "state_hash": self._hash(live, transition.state),
            **(extra or {}),
        }
        if live.clocks is not None:
            # A forfeit after repeated timeouts is the seat's resignation, not another timeout.
            step = live.clocks.after_step(
                self.now_ms() if now_ms is None else now_ms, self._owed(engine, transition.state),
                None if decision.standing else seat, bool(extra) and extra.get("timeout") is True)
            body.update(_clock_fields(step))
        records = [self._seal(live, body, n, live.head)]
        outcome = engine.outcome(transition.state)
        if outcome is not None:
            records += await self._finish(live, outcome, records[-1])
        live.blocks.spent(rng)
        return records, transition.state

    async def _finish(self, live: LiveMatch, outcome: Any, last: dict[str, Any]) -> list[dict[str, Any]]:
        """MatchEnded after the last action; :meth:`_commit` seals it once both are stored."""
        return [self._seal(live, self._ended(live, outcome_json(outcome), last), last["n"] + 1,
                           last["hash"])]

    def _ended(self, live: LiveMatch, outcome: dict[str, Any],
               last: dict[str, Any] | None = None) -> dict[str, Any]:
        """The MatchEnded record's body: ``outcome`` (a played end's or an abandon's), and what
        its signed result needs of the match (players, game, mode, the creator). A played
        end also names the seats that never made a move of their own (``no_move_seats``,
        services/rules/noshow.py: scoring rates no such result), from the match's tally and
        ``last``, the action that ended it, not stored yet (only an action ends a match with
        a result: :meth:`_finish` passes it); an abandon (:meth:`abandon`, no ``last``) names
        none. A match that drew from a dev seed (MatchCreated's dice ``dev``) says so:
        ``"dev_seed": true`` (the signed result is made from this record alone, and scoring
        rates no such match); any other match's end holds no such field, as before."""
        body = {
            "type": "MatchEnded", "outcome": outcome,
            "players": live.created["players"], "game": self.engine.game_id,
            "mode": live.created["mode"], **rec.creator_field(live.created),
            **rec.dev_seed_field(live.created),
        }
        if not rec.is_abandoned(outcome):
            assert last is not None, "a played end comes with the action that ended it"
            body[noshow.FIELD] = live.moves.seats_after(last)
        return body

    def decisions_of(self, live: LiveMatch, seat: int) -> list[Decision]:
        """What ``seat`` owes now, then its standing options."""
        if live.status != "running":
            return []
        return live.derived(("decisions", seat), lambda: [
            *(d for d in self._pending(live) if d.seat == seat),
            *(d for d in live.derived("standing", lambda: standing_options(live.engine, live.state))
              if d.seat == seat)])

    def _pending(self, live: LiveMatch) -> tuple[Decision, ...]:
        return live.derived("pending", lambda: tuple(live.engine.pending(live.state)))  # type: ignore[no-any-return]

    def _view(self, live: LiveMatch, viewer: int | None) -> Any:
        return live.derived(("view", viewer), lambda: live.engine.view(live.state, viewer))

    def _by_priority(self, live: LiveMatch, seat: int) -> list[Decision]:
        """The decisions of ``seat``, the one an action answers first when several list it."""

        def order() -> list[Decision]:
            mine = self.decisions_of(live, seat)
            ranked = sorted(range(len(mine)), key=lambda i: (-mine[i].priority, mine[i].standing, i))
            return [mine[i] for i in ranked]

        return live.derived(("by-priority", seat), order)  # type: ignore[no-any-return]

    def _listed(self, live: LiveMatch, seat: int, action: dict[str, Any]) -> Decision | None:
        """The decision whose legal list has ``action``, if any. Compared as dicts first (no
        encoding of the whole list), then by JSON key, where true and 1 stay different."""
        key = None
        for decision in self._by_priority(live, seat):
            for listed in decision.legal:
                if listed == action:
                    key = key or json_key(action)
                    if json_key(listed) == key:
                        return decision
        return None

    def _decision(self, live: LiveMatch, seat: int, action: dict[str, Any]) -> Decision:
        """The decision ``action`` answers. A listed legal action needs no further check
        (the engine lists every legal answer); anything else is checked against the
        action schema and the engine's validate, for a precise reason."""
        listed = self._listed(live, seat, action)
        if listed is not None:
            return listed
        errors = sorted(self._action_validator.iter_errors(action), key=lambda e: e.path)
        if errors:
            # the validator's words quote the offending value: a few hundred bytes of it
            raise InvalidArgument(f"action does not match the {self.engine.game_id} schema: "
                                  f"{clip(errors[0].message, 300)}")
        if action.get("type") == RESIGN["type"] and action != dict(RESIGN) \
                and offers_resign(live.engine):
            # a resignation is RESIGN alone (contract v2). Unlisted, one with more fields
            # would be recorded as answering whichever decision lists a resign, with
            # whatever it carried (an engine that took it: Barbaric)
            raise FailedPrecondition(f"illegal action: {RESIGN_ONLY}")
        mine = self.decisions_of(live, seat)
        reason = refusal(live.engine, live.state, seat, action, mine, self._pending(live))
        if reason is not None:
            raise FailedPrecondition(reason)
        decision = unlisted_answering(mine, action)
        if decision is None:
            raise FailedPrecondition(f"illegal action: {UNATTRIBUTED}")
        return decision

    async def _repeat(self, live: LiveMatch, seat: int, command_id: str,
                      action: dict[str, Any]) -> Answer:
        n = live.commands[(seat, command_id)]
        records = live.recent_from(n)
        if records is None:
            # the record and its own end (MatchEnded, MatchSealed) are all the answer is made
            # of (_answer): never the log up to the head, read under the match's lock again
            # for every repeat a seat sends
            records = await self._store(self.store.records, live.match_id, n - 1,
                                        min(live.version, n + 2))
        record = records[0]
        if record["seat"] != seat or canonical_json(record["action"]) != canonical_json(action):
            raise AlreadyExists(f"command id {command_id!r} was already used for another action")
        answer = self._answer(live, record, seat, records)
        answer.replayed = True
        return answer

    def _answer(self, live: LiveMatch, record: dict[str, Any], seat: int,
                following: list[dict[str, Any]]) -> Answer:
        """The answer to the action of ``record``: it and the end records that followed it,
        as ``seat`` sees them, plus the seat's decisions and view now."""
        n = record["n"]
        # its own end: MatchEnded and MatchSealed right after it, written with it (an
        # organiser's abandon later is not this action's end)
        own = [r for r in following if (r["n"], r["type"]) in ((n + 1, "MatchEnded"), (n + 2, "MatchSealed"))]
        if not own or own[0]["type"] != "MatchEnded" or rec.is_abandoned(own[0]["outcome"]):
            own = []
        shown = [record] + own
        version = shown[-1]["n"]
        ended = shown[-1]["type"] == "MatchSealed"
        outcome = own[0]["outcome"] if own else None
        if not ended and live.over:  # a repeat, after an abandon
            ended, outcome = True, live.outcome
        return Answer(
            version=version, state_hash=record["state_hash"],
            events=[rec.project(r, seat) for r in shown],
            status="ended" if ended else "running", outcome=rec.public_outcome(outcome),
            view=self._view(live, seat) if live.state is not None else None,
            clocks=self.clocks_view(live), live=live,
        )

    # -- clocks ----------------------------------------------------------------------

    @staticmethod
    def _owed(engine: GameEngine, state: Any) -> set[int]:
        """The seats owing a decision in ``state`` (none once it has an outcome): all clocks
        and bots ask. From the engine's own decision labels when it has them (contract:
        "decision labels", made without the legal lists), whose owed part is all but the
        last ``len(standing)`` (they list ``pending`` then the standing options); else from
        ``pending``, which the labels would be derived from anyway."""
        if engine.outcome(state) is not None:
            return set()
        labels = getattr(engine, "decision_labels", None)
        if labels is None:
            return {d.seat for d in engine.pending(state)}
        offered = tuple(labels(state))
        owed = len(offered) - len(standing_options(engine, state))
        return {seat for seat, _, _ in offered[:owed]}

    def _arm(self, live: LiveMatch) -> None:
        """Arm the match's next deadline, or hand a bot-played seat its move."""
        if live.clocks is None or live.status != "running":
            self.clockwork.cancel(live.match_id)
            return
        if self._forfeits_due(live):
            self.clockwork.arm(live.match_id, self.now_ms(), ("forfeit", live.version))
            return
        owed = self._owed(live.engine, live.state)
        if owed & set(live.clocks.bots):
            self.clockwork.arm(live.match_id, self.now_ms(), ("bot", live.version))
            return
        deadline = live.clocks.next_deadline()
        if deadline is None:
            self.clockwork.cancel(live.match_id)
        else:
            ms, seat = deadline
            self.clockwork.arm(live.match_id, ms, (seat, ms))

    async def _expire(self, match_id: str, token: object) -> None:
        """A deadline passed (or a bot-played seat owes): apply the default action, once. A
        seal's retry needs only the match loaded: :meth:`_get` seals an ended match (or arms
        the next try); a store that cannot load it yet arms the next try here.

        An expiry that fails (the store failed under its commit, or would not rebuild the
        match) arms a retry in ``expiry_retry_ms``: the timer fired once and is gone, and the
        match, dropped after a commit of unknown outcome, would otherwise wait for ever for
        a seat that is not there. The retry loads the match from the store and arms its
        clock from what is stored: a timeout whose commit landed after all is not applied
        again (its seat's deadline moved), one that did not land is applied once."""
        if isinstance(token, tuple) and token[0] == "seal":
            try:
                await self._get(match_id)
            except Exception as err:
                log.warning("match ended, its seal waits for the store", match_id=match_id,
                            error=error_words(err))
                self.clockwork.arm(match_id, self.now_ms() + self.seal_retry_ms, token)
            return
        try:
            if isinstance(token, tuple) and token[0] == "rearm":
                async with self._locked(match_id) as live:
                    self._arm(live)
                return
            await self._apply_expiry(match_id, token)
        except Exception as err:
            if not _passing(err):  # a bug, or a match that cannot be served here: no retry
                log.exception("clock expiry failed", match_id=match_id)
                return
            log.warning("clock expiry failed, tried again", match_id=match_id,
                        error=error_words(err), retry_ms=self.expiry_retry_ms)
            self.clockwork.arm(match_id, self.now_ms() + self.expiry_retry_ms, ("rearm", 0))

    async def _apply_expiry(self, match_id: str, token: object) -> None:
        async with self._locked(match_id) as live:
            if live.clocks is None or live.status != "running":
                return
            kind, when = token  # type: ignore[misc]
            if kind == "bot":
                await self._bot_moves(live)
                return
            if kind == "forfeit":
                if not await self._forfeits(live):
                    self._arm(live)
                return
            seat = int(kind)
            if not live.clocks.is_due(seat, int(when), self.now_ms()) \
                    or await self._time_out(live, seat) is None:
                self._arm(live)

    async def _time_out(self, live: LiveMatch, seat: int) -> int | None:
        """Apply ``seat``'s timeout, under the match's lock: its owed decision's default,
        recorded as a timeout (what replay and verify check it against), then its forfeit
        when that is due. The version of the timeout; None when the seat owes nothing."""
        owed = [d for d in live.engine.pending(live.state) if d.seat == seat]
        if not owed:
            return None
        decision = owed[0]
        action = dict(decision.default) if decision.default is not None else dict(decision.legal[0])
        # a timer's own Context, or the call's whose action found it due (_overdue): added
        _hide_action_in_logs(action, also=True)
        records, state = await self._act(live, seat, f"timeout:{live.version + 1}", action,
                                         decision, {"timeout": True})
        due = seat in records[0].get("clock_events", {}).get("forfeit_due", [])
        await self._commit(live, records, state)
        log.info("clock expired", match_id=live.match_id, seat=seat, version=records[0]["n"])
        if seat not in await self._forfeits(live) and due and live.status == "running":
            log.warning("forfeit due but the engine offers no resign", match_id=live.match_id,
                        seat=seat)
        return int(records[0]["n"])

    def _forfeits_due(self, live: LiveMatch) -> list[int]:
        """The seats whose forfeit is due and not recorded (:meth:`_forfeits`): at
        ``max_timeouts`` under policy forfeit, still in the game (offered resign) and never
        forfeited before (a seat forfeits once: an engine that still offered a resigned seat
        its resignation must not have it resign on every call)."""
        if live.clocks is None or live.status != "running" or not live.clocks.at_forfeit:
            return []
        due = [seat for seat in live.clocks.at_forfeit
               if answering(self.decisions_of(live, seat), RESIGN) is not None]
        if not due:
            return []
        forfeited = {seat for seat, command in live.commands if command.startswith("forfeit:")}
        return [seat for seat in due if seat not in forfeited]

    async def _forfeits(self, live: LiveMatch) -> list[int]:
        """Resign, under the match's lock, every seat whose forfeit is due. Right after the
        timeout that made it due, and again from what is stored whenever the match is armed
        or takes an action: a forfeit whose commit failed (or a process stopped between the
        timeout and its forfeit) is applied once the store answers, to the seat that timed
        out, before any other seat's clock or action. The seats resigned."""
        applied: list[int] = []
        while live.status == "running":
            due = self._forfeits_due(live)
            if not due:
                break
            await self._resign(live, due[0])
            applied.append(due[0])
        return applied

    async def _overdue(self, live: LiveMatch, now: int) -> dict[int, tuple[int, int]]:
        """Apply, under the match's lock and before an action judged at ``now``, every
        timeout whose deadline has passed by then (``deadline <= now``, as the timer judges)
        but whose timer has not fired yet (it is late, or waits for this lock): earliest
        deadline first, as the timers would have. The clock's deadline is the authority: an
        action after it never goes in ahead of the timeout, so the log is the one the timers
        write, whichever comes first. ``{seat: (deadline, version of its timeout)}``."""
        applied: dict[int, tuple[int, int]] = {}
        await self._forfeits(live)  # one not recorded yet goes first, as its timer would
        while live.clocks is not None and live.status == "running":
            due = [s for s in live.clocks.expired(now) if s not in applied]
            if not due:
                break
            deadline = int(live.clocks.seat(due[0]).deadline_ms)
            version = await self._time_out(live, due[0])
            if version is None:  # a running clock with nothing owed: not a timeout's to fix
                break
            applied[due[0]] = (deadline, version)
        return applied

    async def _timed_out_since(self, live: LiveMatch, seat: int, after: int) -> int | None:
        """The version of a timeout of ``seat`` recorded after version ``after``, if any."""
        for record in await self.records_since(live, after):
            if record["type"] == "ActionAccepted" and record["seat"] == seat \
                    and record.get("timeout") is True:
                return int(record["n"])
        return None

    async def _resign(self, live: LiveMatch, seat: int) -> None:
        """The forfeit of ``seat`` (:meth:`_forfeits_due` names it: it is offered resign)."""
        decision = answering(self.decisions_of(live, seat), RESIGN)
        assert decision is not None, "a forfeit is due only while the seat may resign"
        records, state = await self._act(live, seat, f"forfeit:{live.version + 1}", dict(RESIGN),
                                         decision, {"timeout": "forfeit"})
        await self._commit(live, records, state)

    async def _bot_moves(self, live: LiveMatch) -> None:
        """Seats a bot plays after their timeouts (policy "bot") answer with their default."""
        from services.rules.bots import make_bot

        bots = set(live.clocks.bots) if live.clocks else set()
        for _ in range(64):
            if live.status != "running":
                return
            owed = [d for d in live.engine.pending(live.state) if d.seat in bots]
            if not owed:
                return
            decision = owed[0]
            view = live.engine.view(live.state, decision.seat)
            bot = make_bot("rule" if "rule" in _game_bot_kinds(self.engine.game_id) else "random",
                           bot_seed(live.match_id, decision.seat, live.version, live.key),
                           self.engine.game_id)
            action = dict(bot.choose(decision, view))
            if live.engine.validate(live.state, decision.seat, action) is not None:
                action = dict(decision.default or decision.legal[0])
            _hide_action_in_logs(action, also=True)
            records, state = await self._act(live, decision.seat, f"bot:{live.version + 1}", action,
                                             decision, {"by": "bot"})
            await self._commit(live, records, state)

    async def rearm_clocks(self, owned: Callable[[str], bool] = lambda _: True) -> int:
        """After a start: find running matches with clocks and arm them (deadlines already
        past fire at once, once), and seal ended matches whose seal is missing (loading one
        seals it). Reads only the MatchCreated, MatchEnded and MatchSealed events. With
        several replicas, only the matches this one ``owned`` (the others are their owners').

        A match that cannot be loaded yet for a reason that may pass (the dice service not up
        yet, a store blip: :func:`_passing`) is tried again in ``expiry_retry_ms`` until it is
        armed, as a failed expiry is: nothing else arms it (loading a match for a view does
        not), and its absent seat's deadline would never pass. The read of the matches is
        tried again the same way while the store does not answer."""
        while True:
            try:
                found = [m for m in await asyncio.to_thread(_clocked_matches, self.app)
                         if owned(m)]
                break
            except Exception as err:
                log.warning("cannot read the clocked matches, tried again",
                            error=error_words(err), retry_ms=self.expiry_retry_ms)
                await asyncio.sleep(self.expiry_retry_ms / 1000)
        for match_id in found:
            try:
                self._arm(await self._get(match_id))
            except Exception as err:  # one broken match must not keep the others unarmed
                again = _passing(err)
                log.warning("cannot rearm clock", match_id=match_id,
                            error=error_words(err),
                            retry_ms=self.expiry_retry_ms if again else None)
                if again:
                    self.clockwork.arm(match_id, self.now_ms() + self.expiry_retry_ms,
                                       ("rearm", 0))
        return len(found)

    def clocks_view(self, live: LiveMatch) -> list[dict[str, Any]]:
        return live.clocks.view(self.now_ms()) if live.clocks is not None else []

    # -- queries ---------------------------------------------------------------------

    async def legal(self, claims: Claims | None, match_id: str) -> tuple[int, list[Decision]]:
        live, seat = await self.seat_match(claims, match_id)
        return live.version, self.decisions_of(live, seat)

    async def seat_match(self, claims: Claims | None, match_id: str) -> tuple[LiveMatch, int]:
        """The live match and the seat of ``claims`` in it (for queries answered from it)."""
        seat = access.seat_of(claims, match_id, self.engine.game_id)
        return await self._get(match_id), seat

    async def view(self, claims: Claims | None, match_id: str) -> dict[str, Any] | FinalView:
        """What GetView answers: a dict from the live match, or, to a caller without one of
        its seat tokens, the kept :class:`FinalView` of a sealed match."""
        viewer = access.viewer_of(claims, match_id, self.engine.game_id)
        if viewer is None:
            final = await self.final_view(match_id)
            if final is not None:
                return final
        live = await self._get(match_id)
        out: dict[str, Any] = {
            "match": live, "viewer": viewer, "version": live.version,
            "status": live.status, "view": None, "pending": [], "outcome": None,
            "state_hash": "",
        }
        if live.over:
            out["outcome"] = rec.public_outcome(await self.outcome_of(live))
        if live.state is None:  # not started (waiting for seeds, or abandoned before it)
            return out
        out["view"] = self._view(live, viewer)
        if live.status == "running":  # an ended match (also an abandoned one) owes nothing
            out["pending"] = [(d.seat, d.kind) for d in self._pending(live)]
        if viewer is not None:
            out["state_hash"] = live.state_hash
        return out

    async def final_view(self, match_id: str) -> FinalView | None:
        """The public view of a sealed match (None: the match is not sealed, or unknown;
        the caller takes the live path, which says which). Kept once made (``finals``): from
        the match in memory when it is there, else from the store without rebuilding the
        match: its latest snapshot and the records after it (at most ``SNAPSHOT_EVERY`` and
        a few more, however long the match), and never into ``live``, so spectators of old
        matches neither rebuild them whole nor push running matches out of memory."""
        if not MATCH_ID.match(match_id or ""):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        final = self.finals.get(match_id)
        if final is not None:
            return final
        live = self.live.get(match_id)
        if live is not None:
            if live.status != "sealed":
                return None
            view = self._view(live, None) if live.state is not None else None
            final = FinalView(
                match_id, live.version, dumps(view) if view is not None else "",
                _outcome_json(await self.outcome_of(live)), str(live.created["game"]),
                str(live.created["mode"]), int(live.created["seats"]),
                tuple(self.clocks_view(live)))
        else:
            final = await self._load_final(match_id)
        if final is not None:
            self.finals.put(final)
        return final

    async def _load_final(self, match_id: str) -> FinalView | None:
        """:meth:`_final_from_store`, once at a time per match, kept in ``finals`` by the
        load itself: a caller that comes after the load ended, but before its waiters
        resumed, finds it there instead of loading it again."""
        if match_id in self._finals_loading:
            return await asyncio.shield(self._finals_loading[match_id])

        async def load(m: str) -> FinalView | None:
            final = await self._store(self._final_from_store, m)
            if final is not None:
                self.finals.put(final)
            return final

        return await once(self._finals_loading, match_id, load)

    def _final_from_store(self, match_id: str) -> FinalView | None:
        """The public view of a sealed match from the store (blocking): its last record,
        its first, its latest snapshot and the records from just before it on. None when
        the match is not sealed (or not stored), or an unkeyed state does not hash as
        stored (the live path then replays and checks the whole log)."""
        last = self.store.last_record(match_id)
        if last is None or last["type"] != "MatchSealed":
            return None
        created = self.store.records(match_id, 0, 1)[0]
        engine = self._engine_for(created)
        snapshot = self.store.latest_snapshot(match_id, engine.engine_version, int(last["n"]))
        start, state = snapshot if snapshot is not None else (0, None)
        records = self.store.records(match_id, max(0, start - 2))
        config = self._config_of(created)
        try:
            for record in records:
                if record["n"] > start:
                    state = _fold(engine, config, state, record)
        except Exception as err:  # the live path replays the whole log
            _snapshot_refused(match_id, start, f"the log does not fold on it: {error_words(err)}")
            return None
        if state is not None:
            expected = _last_state_hash(records)
            key = _sealed_key([created, *records]) if created.get("state_hash_scheme") else None
            if created.get("state_hash_scheme") and key is None:
                return None
            data = canonical_state(engine, state)
            got = keyed_state_hash(key, data) if key is not None else sha256_hex(data)
            if expected is not None and got != expected:
                _snapshot_refused(match_id, start, "its state does not hash as recorded")
                return None
        clocks = next((r["clocks"] for r in reversed(records) if "clocks" in r), None)
        outcome = next((r["outcome"] for r in records if r["type"] == "MatchEnded"), None)
        log.info("final view made from the store", match_id=match_id, records=len(records))
        return FinalView(
            match_id, int(last["n"]),
            dumps(engine.view(state, None)) if state is not None else "",
            _outcome_json(outcome), str(created["game"]), str(created["mode"]),
            int(created["seats"]),
            tuple(Clocks.from_json(clocks).view(self.now_ms())) if clocks else ())

    async def outcome_of(self, live: LiveMatch) -> dict[str, Any] | None:
        """The stored outcome of an ended match (None before its end): from the records in
        memory, else read back from the store."""
        if live.outcome is not None:
            return live.outcome
        records = await self._store(self.store.records, live.match_id, max(0, live.version - 3))
        return next((r["outcome"] for r in records if r["type"] == "MatchEnded"), None)

    async def records_since(self, live: LiveMatch, after: int) -> list[dict[str, Any]]:
        cached = live.recent_from(after + 1)
        if cached is not None:
            return cached
        return await self._store(self.store.records, live.match_id, after, live.version)

    async def watch(self, claims: Claims | None, match_id: str,
                    from_version: int) -> AsyncIterator[dict[str, Any]]:
        viewer = access.viewer_of(claims, match_id, self.engine.game_id)
        check_from(await self._get(match_id), from_version)
        async for record in self.follow(match_id, from_version):
            yield rec.project(record, viewer)

    async def follow(self, match_id: str, from_version: int) -> AsyncIterator[dict[str, Any]]:
        """Stored records after ``from_version``, then live ones, until the seal."""
        sent = max(0, from_version)
        while True:
            live = await self._get(match_id)
            for record in await self.records_since(live, sent):
                yield record
                sent = record["n"]
            if live.status == "sealed" and sent >= live.version:
                self._forget(match_id)
                return
            cond = self._cond(match_id)
            async with cond:
                if self.live.get(match_id) is live and live.version > sent:
                    continue
                try:
                    await within(cond.wait(), timeout=5.0)
                except TimeoutError:
                    pass

    async def export(self, claims: Claims | None, match_id: str) -> tuple[bytes, str, int]:
        access.require_organiser(claims)
        live = await self._get(match_id)
        if not live.over and claims is not None and claims.role != "service" \
                and live.created.get("created_by") != access.creator_of(claims):
            # the export holds every seat's hidden zones and the draws: while the match is
            # played, only for the organiser who created it (and holds its seats anyway) or a
            # service, not for one who may not hold a seat of a match players queued for
            made_by = live.created.get("created_by")
            if isinstance(made_by, dict) and made_by.get("via"):
                # made by a service for organisers (each of whom may hold some seats only):
                # none of them had it made as their own, so none may see every seat's hand
                before = (f"before only by a service: {access.describe_creator(made_by)} "
                          "had it made by a service, not as their own")
            else:
                before = f"or before by {access.describe_creator(made_by)}, who created it"
            raise FailedPrecondition(
                f"match {match_id!r} is still being played: it is exported, with every seat's "
                f"hidden cards and the draws, once it has ended, {before}")
        records = await self._store(self.store.records, match_id)
        data = build_export(match_id, self.engine.game_id, records, self.signing_key)
        return data, live.head if live.version == len(records) else records[-1]["hash"], len(records)


UNATTRIBUTED = ("it is not one of your decisions' listed answers, and it is not clear which "
                "of them it answers: send it as it is listed")
"""Why an unlisted action the engine's ``validate`` accepts is refused when
:func:`unlisted_answering` finds no decision it answers."""


def unlisted_answering(mine: Sequence[Decision], action: Mapping[str, Any]) -> Decision | None:
    """The decision of ``mine`` (one seat's, owed then standing) that an action listed in none
    of them, but accepted by the engine's ``validate`` (another form of a listed answer: a
    NEON or Neon Reign card list in another order), answers: the one decision listing
    answers of the action's ``type``; None when none or several do.

    Its record takes that decision's kind and hidden flag (a hidden one's answer is shown
    to its seat alone) and whether it was standing (a standing option's answer is not the
    seat's move on the clock), so a guess would be a leak. It was the seat's first
    decision: an owed public one's label on the answer of a hidden one owed with it, or on
    a standing option's. With the four games it cannot be another (each seat owes at most
    one decision, and their standing options take their listed answers alone:
    tests/unit/test_unlisted_answers.py); an engine served with NEON_ENGINES may differ."""
    kind = action.get("type")
    found = [d for d in mine if any(a.get("type") == kind for a in d.legal)]
    return found[0] if len(found) == 1 else None


def refusal(engine: GameEngine, state: Any, seat: int, action: dict[str, Any],
            mine: Sequence[Decision], pending: Sequence[Decision]) -> str | None:
    """Why ``seat``, owing ``mine`` while ``pending`` is owed, may not play ``action`` (an
    action past the schema check and not listed as it is), in the words the host answers
    FAILED_PRECONDITION with; None when the engine's ``validate`` accepts it. The hiding
    probe (tests/support/campaign/twins.py) asks it too: these words must name nothing a
    seat may not see."""
    if not mine:
        waiting = sorted({d.seat for d in pending})
        return f"not your turn: waiting for seat(s) {waiting}"
    reason = engine.validate(state, seat, action)
    return None if reason is None else f"illegal action: {reason}"


def _outcome_json(outcome: dict[str, Any] | None) -> str:
    """The outcome anyone may see, as JSON ("" before the end)."""
    public = rec.public_outcome(outcome)
    return dumps(public) if public is not None else ""


def _passing(err: BaseException) -> bool:
    """Whether a clock expiry's failure may pass if tried again: the store or the dice
    service did not answer, or the match changed under it (never an engine's error, which
    would fail the same way every time)."""
    if isinstance(err, ServiceError):
        return err.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED)
    return isinstance(err, (OSError, TimeoutError)) or is_store_outage(err)


def _stamp(live: LiveMatch, record: dict[str, Any], event: Any) -> None:
    """Note on ``live`` when ``record`` was stored (its event's timestamp)."""
    at = event.timestamp.timestamp()
    live.moved_at = max(live.moved_at, at)
    if record.get("type") == "MatchEnded":
        live.ended_at = at


def _events_after(app: RulesApplication, match_id: str, after: int) -> list[Any]:
    """The stored events of a match after version ``after`` (its last few, with their times)."""
    return list(app.events.get(match_uuid(match_id), gt=after or None))


def _link(campaign: dict[str, Any] | None) -> tuple[Any, Any]:
    """The earlier match a campaign match continues (its id and final hash), or Nones."""
    return (campaign or {}).get("previous_match_id"), (campaign or {}).get("previous_final_hash")


def _fold(engine: GameEngine, config: MatchConfig, state: Any, record: dict[str, Any]) -> Any:
    """Advance a trusted stored record (the service's own log) without re-validating it."""
    kind = record["type"]
    if kind == "MatchStarted":
        return engine.setup(config, ReplayRandomness(_draws(record)))
    if kind == "ActionAccepted":
        return engine.apply(state, int(record["seat"]), record["action"],
                            ReplayRandomness(_draws(record))).state
    return state


def _last_state_hash(records: list[dict[str, Any]]) -> str | None:
    """The state hash the last record that stores one holds (None: none of them does)."""
    return next((r["state_hash"] for r in reversed(records) if "state_hash" in r), None)


def _sealed_key(records: list[dict[str, Any]]) -> bytes | None:
    """The state-hash key of a keyed match from its seal's revealed seed (``records`` from
    its MatchCreated on, the seal among them); None: not sealed (or no seed)."""
    seal = next((r for r in reversed(records) if r.get("type") == "MatchSealed"), None)
    dice = records[0].get("dice") or {}
    try:
        return state_key(bytes.fromhex(str(seal["seed"])), str(dice["stream_id"]))  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        return None


def replay_checked(engine: GameEngine, records: list[dict[str, Any]], match_id: str) -> Any:
    """The state ``records`` replay to, else FAILED_PRECONDITION naming the event alone: the
    replay's reason may quote an action's words or a state's contents, which the caller (any
    seat, a spectator) may not see. The log says why (its action words hidden: platform/logs)."""
    try:
        return replay(engine, records).state
    except ReplayError as err:
        log.error("the stored match does not replay", match_id=match_id, reason=str(err))
        raise FailedPrecondition(f"the stored match does not replay ({err.event}); the "
                                 "rules service's log says why") from None


def _snapshot_refused(match_id: str, version: int, why: str) -> None:
    log.warning("snapshot not used: the match is replayed from its log", match_id=match_id,
                snapshot_version=version, reason=why)


def _draws(record: dict[str, Any]) -> list[DrawRecord]:
    return [DrawRecord.from_json(d) for d in record.get("draws", [])]


def _clock_fields(step: ClockStep) -> dict[str, Any]:
    """What a record keeps of a clock step: the clocks (deadlines stored, so they survive a
    restart) and the clock events (started, stopped, bot, forfeit)."""
    events = {k: list(v) for k, v in (("started", step.started), ("stopped", step.stopped),
                                      ("now_bot", step.now_bot), ("forfeit_due", step.forfeit_due)) if v}
    return {"clocks": step.clocks.to_json(), "clock_events": events}


def _check_session(created: dict[str, Any], session: OpenedSession) -> None:
    """The dice session a rebuilt match opened again is the one its MatchCreated committed
    to. A dice store that lost it (a restore from an older backup, a replaced database)
    opens a new one with a new seed: drawing from it would give draws nobody committed to,
    and a seal whose seed fails the recorded commitment (``neon verify``). Refused instead,
    with the reason; the match waits for its session to be restored."""
    dice = created.get("dice") or {}
    if session.commitment != dice.get("commitment") or session.dev != bool(dice.get("dev")):
        log.error("match refused: its dice session is not the one it committed to",
                  match_id=created.get("match_id"), session=dice.get("session"))
        raise FailedPrecondition(
            f"the dice session of match {created.get('match_id')!r} is not the one its "
            "MatchCreated committed to (the dice store lost it?); the match cannot draw "
            "until the session is restored")


def bot_seed(match_id: str, seat: int, version: int, key: bytes | None) -> str:
    """The seed of the bot that answers for ``seat`` at ``version`` (clock policy "bot"). A
    bot's choice is a function of its seed and the seat's view, and some choices (a secret
    pick among public options) of the seed alone: seeded by match, seat and version, anyone
    at the table could rerun it before choosing their own. With the match's state key (secret
    until the seal reveals it, so the choices can be rerun afterwards) nobody can; a match
    without one (hashed unkeyed) keeps the public seed, having no secret to use."""
    public = f"{match_id}:{seat}:{version}"
    if key is None:
        return public
    return hmac.new(key, f"neon-arena/bot/{public}".encode(), hashlib.sha256).hexdigest()


def _game_bot_kinds(game: str) -> list[str]:
    from services.rules.bots import bot_kinds

    return bot_kinds(game)


def _clocked_matches(app: RulesApplication) -> list[str]:
    """Match ids with a clock that are not sealed, and ended ones whose seal is missing (a
    restart between the end's commit and the seal's), from the notification log's created,
    ended and sealed events only."""
    from eventsourcing.utils import get_topic

    from services.rules.app import Match

    topics = [get_topic(Match.MatchCreated), get_topic(Match.MatchEnded),
              get_topic(Match.MatchSealed)]
    unsealed: dict[str, bool] = {}
    position = 1
    while True:
        page = app.recorder.select_notifications(position, 500, topics=topics)
        if not page:
            break
        for notification in page:
            event = app.mapper.to_domain_event(notification)
            record = getattr(event, "record", {})
            if record.get("type") == "MatchCreated" and record.get("clock"):
                unsealed[record["match_id"]] = True
            elif record.get("type") == "MatchEnded":
                unsealed[record.get("match_id", "")] = True
            elif record.get("type") == "MatchSealed":
                unsealed.pop(record.get("match_id", ""), None)
        position = page[-1].id + 1
    return list(unsealed)
