"""The stored match log: records in, records out, engine snapshots, and group commit.

The event store stays the source of truth. A match's record ``n`` is stored as the
event of version ``n`` of the Match aggregate (app.py keeps the event classes, so logs
written before the live-match host read the same). The live host never loads the
aggregate object: it writes new events directly, many matches per transaction, and
reads records back only to rebuild a match or to backfill a watcher.

Snapshots: every ``SNAPSHOT_EVERY`` records the host stores the engine state (pickled,
with the engine version) under a second originator id of the match, so a rebuild
restores the latest snapshot and replays only what came after it.

A snapshot row is data anyone who can write the store's tables could have written (an
injection elsewhere, a restored backup of unknown origin, another process holding the
same database login), and a pickle runs whatever callable it names. So a row is never
simply unpickled:

* its blob is ``s1:`` and the base64 of an HMAC-SHA256 tag (32 bytes) followed by the
  pickle; the tag covers the match id, the snapshot's version, the engine version and the
  pickle, under a key derived (HKDF) from the deployment's Ed25519 signing key
  (:func:`snapshot_key`). A blob without a valid tag (every row written before tags, a
  forged one, a row copied to another match or version) is not used;
* a tagged pickle is loaded by :class:`SnapshotUnpickler`, which resolves only the classes
  engine states are made of (:data:`STATE_CLASSES`, by game; for an engine outside
  ``services.rules.games``, a bench or test engine, the dataclasses of its own module):
  anything else it names is refused before it is looked up.

A snapshot that is not used is logged (never its blob) and the match is replayed from its
log; the next snapshot boundary writes a tagged one.

Heartbeats: beside the events, one small table (``<events table>`` with ``_heartbeats``
for ``_events``; ``stored_heartbeats`` on SQLite, ``rules_<game>_heartbeats`` in the
PostgreSQL schema) holds one row per serving place of the rules service (a replica slot, see
``services/rules/clockwork.py``): which process holds it, when it started, its last beat and
until when it may have served. Not events: a row is overwritten at every beat, never read
by the outbox relay or an export. The table is created on first use (``CREATE TABLE IF NOT
EXISTS``, on PostgreSQL under the advisory lock ``open_application`` takes for the event
tables): a store written by an earlier release gains it when a newer one starts, and an
earlier release never reads it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import hashlib
import hmac
import io
import pickle
import secrets
import struct
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import IntegrityError
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import get_topic

from services.platform.logs import get_logger
from services.platform.store import SCHEMA_LOCK
from services.platform.storehealth import is_store_outage
from services.rules.app import NAMESPACE, Match, RulesApplication, match_uuid

SNAPSHOT_EVERY = 100
MAX_BATCH = 256
log = get_logger("rules")

_EVENT_CLASSES = {
    "MatchStarted": Match.MatchStarted,
    "ActionAccepted": Match.ActionAccepted,
    "MatchEnded": Match.MatchEnded,
    "MatchSealed": Match.MatchSealed,
}


@dataclass(frozen=True)
class EngineSnapshot(DomainEvent):
    """The engine state after record ``originator_version`` of a match (pickled)."""

    engine_version: str
    blob: str


def snapshot_uuid(match_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"snapshot:{match_id}")


def record_event(match_id: str, record: dict[str, Any]) -> DomainEvent:
    """The domain event that stores ``record`` as version ``record["n"]`` of its match."""
    kind = record["type"]
    common = {"originator_id": match_uuid(match_id), "originator_version": record["n"],
              "timestamp": DomainEvent.create_timestamp(), "record": record}
    if kind == "MatchCreated":
        return Match.MatchCreated(originator_topic=get_topic(Match), match_id=match_id, **common)
    return _EVENT_CLASSES[kind](**common)  # type: ignore[no-any-return]


SNAPSHOT_TAGGED = "s1:"
"""The prefix of a tagged snapshot blob (an untagged one, written before tags, is bare
base64, which holds no ``:``)."""
_TAG_BYTES = 32
_MAC_LABEL = b"neon-arena/rules/snapshot/v1"

STATE_CLASSES: dict[str, frozenset[tuple[str, str]]] = {
    # (module, class) of every global the pickles of a game's states name, found by
    # unpickling every state of self-play games of every mode, seat count and kept engine
    # version (tests/unit/test_snapshot_unpickler.py walks them again: a new type fails
    # there, not in production, where its snapshots would only be replayed past)
    "neon": frozenset({
        ("services.rules.games.neon.state", "State"),
        ("services.rules.games.neon.state", "Fighter"),
        ("services.rules.games.neon.state", "Equip"),
        ("services.rules.games.neon.state", "CardChoice"),
        ("services.rules.games.neon.state", "Frame"),
        ("services.rules.games.neon.attack", "Attack"),
        ("services.rules.games.neon.attack", "AlliesWindow"),
        ("services.rules.games.windows", "ResponseWindow"),
    }),
    "neon-knights-2086": frozenset({
        ("services.rules.games.neon_knights.state", "State"),
    }),
    "neon-reign": frozenset({
        ("services.rules.games.neon_reign.state", "State"),
        ("services.rules.games.neon_reign.state", "Side"),
        ("services.rules.games.neon_reign.state", "GameResult"),
        ("services.rules.games.neon_reign.state", "Defense"),
        ("services.rules.games.neon_reign.state", "Resolving"),
        ("services.rules.games.neon_reign.state", "ShieldAsk"),
        ("services.rules.games.neon_reign.rulesets", "Ruleset"),
    }),
    "barbaric": frozenset({
        ("services.rules.games.barbaric.state", "State"),
    }),
}
_GAMES_PACKAGE = "services.rules.games."


def snapshot_classes(engine: Any) -> frozenset[tuple[str, str]]:
    """The globals a snapshot of ``engine``'s states may name: its game's
    :data:`STATE_CLASSES`; for an engine defined outside ``services.rules.games`` (a bench
    or test engine) the dataclasses defined in its own module; none for a game of the
    games package without an entry (its snapshots load only when they name nothing)."""
    module = type(engine).__module__
    if module.startswith(_GAMES_PACKAGE):
        return STATE_CLASSES.get(str(engine.game_id), frozenset())
    loaded = sys.modules[module]
    return frozenset((module, name) for name, value in vars(loaded).items()
                     if isinstance(value, type) and dataclasses.is_dataclass(value)
                     and value.__module__ == module and value.__qualname__ == name)


class SnapshotRefused(Exception):
    """A snapshot that is not used (its reason in ``args[0]``): the log is replayed."""


class SnapshotUnpickler(pickle.Unpickler):
    """Unpickles an engine state, resolving only the ``allowed`` (module, class) pairs, each
    a class defined under that very name in that module; any other global (``os.system``,
    ``builtins.eval``, a function or an attribute path of an allowed module) raises
    :class:`SnapshotRefused` before it is imported or looked up. No persistent ids."""

    def __init__(self, data: bytes, allowed: frozenset[tuple[str, str]]) -> None:
        super().__init__(io.BytesIO(data))
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.allowed:
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module \
                    and found.__qualname__ == name:
                return found
        raise SnapshotRefused(f"it names the global {module[:100]}.{name[:100]}")


def load_state(data: bytes, allowed: frozenset[tuple[str, str]]) -> Any:
    """The state pickled in ``data`` (:class:`SnapshotUnpickler`)."""
    return SnapshotUnpickler(data, allowed).load()


def snapshot_key(signing_key: Any) -> bytes:
    """The key of snapshot tags, derived (HKDF-SHA256, its own label) from the deployment's
    Ed25519 signing key: the secret the rules service holds anyway, kept by fewer services
    than the token secret (the gateway, matchmaking and dice hold that one, as every
    service that checks tokens does), and a key no other MAC of the platform is keyed
    with. A deployment that changes its signing key replays its matches' logs once (their
    snapshots' tags no longer check) and writes new snapshots as they go on."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    raw = signing_key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                    serialization.NoEncryption())
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=b"neon-arena/rules/snapshot-key/v1").derive(raw)


def snapshot_tag(key: bytes, match_id: str, n: int, engine_version: str, data: bytes) -> bytes:
    """HMAC-SHA256 over the match id, version, engine version and pickle, each
    length-prefixed (no two different tuples give one message)."""
    message = bytearray(_MAC_LABEL)
    for part in (match_id.encode(), str(n).encode(), engine_version.encode(), data):
        message += struct.pack(">Q", len(part)) + part
    return hmac.new(key, bytes(message), hashlib.sha256).digest()


def snapshot_event(match_id: str, n: int, engine_version: str, state: Any,
                   key: bytes) -> EngineSnapshot:
    """The snapshot of ``state`` after record ``n``, tagged under ``key``."""
    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    tag = snapshot_tag(key, match_id, n, engine_version, data)
    blob = SNAPSHOT_TAGGED + base64.b64encode(tag + data).decode()
    return EngineSnapshot(originator_id=snapshot_uuid(match_id), originator_version=n,
                          timestamp=DomainEvent.create_timestamp(),
                          engine_version=engine_version, blob=blob)


def open_snapshot(key: bytes, allowed: frozenset[tuple[str, str]], match_id: str, n: int,
                  engine_version: str, blob: str) -> Any:
    """The state of a stored snapshot blob: its tag checked first, then the pickle loaded
    with only ``allowed`` globals. :class:`SnapshotRefused` (why) when it is not to be used."""
    if not isinstance(blob, str) or not blob.startswith(SNAPSHOT_TAGGED):
        raise SnapshotRefused("it is not tagged (written before tags, or forged)")
    try:
        raw = base64.b64decode(blob[len(SNAPSHOT_TAGGED):], validate=True)
    except (binascii.Error, ValueError):
        raise SnapshotRefused("its blob does not decode") from None
    tag, data = raw[:_TAG_BYTES], raw[_TAG_BYTES:]
    if len(tag) != _TAG_BYTES or not hmac.compare_digest(
            tag, snapshot_tag(key, match_id, n, engine_version, data)):
        raise SnapshotRefused("its tag does not check (forged, another match's or version's,"
                              " or of another signing key)")
    return load_state(data, allowed)


@dataclass(frozen=True)
class Beat:
    """One row of the heartbeat table: the latest process of one serving place."""

    slot: str
    """The serving place: ``single`` for a lone rules service, ``<replica list>/<ordinal>``
    for a replica (services/rules/clockwork.py)."""
    replicas: str
    """The replica list the place belongs to (``single``, or the list's fingerprint)."""
    process: str
    """The process that wrote the row (random, new at every start)."""
    started_ms: int
    beat_ms: int
    """Its latest beat (Unix ms)."""
    until_ms: int
    """The latest time it may have served a match: its next beat's due time plus a
    margin while it runs, the beat itself once it stopped cleanly."""
    stopped: bool = False
    """Written by its clean stop, after it stopped serving."""


_COLUMNS = ("slot", "replicas", "process", "started_ms", "beat_ms", "until_ms", "stopped")


class MatchLog:
    """Reads and writes match records in one service's event store (blocking calls)."""

    def __init__(self, app: RulesApplication, key: bytes | None = None,
                 classes: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.app = app
        self.key = key if key is not None else secrets.token_bytes(32)
        """The snapshot tags' key (:func:`snapshot_key`); none given, one of this process
        only (its snapshots are used by itself alone)."""
        self.classes = classes
        """The globals a snapshot may name (:func:`snapshot_classes`)."""
        self._heartbeats_ready = False

    def snapshot(self, match_id: str, n: int, engine_version: str, state: Any) -> EngineSnapshot:
        """:func:`snapshot_event` under this store's key."""
        return snapshot_event(match_id, n, engine_version, state, self.key)

    def exists(self, match_id: str) -> bool:
        return any(True for _ in self.app.events.get(match_uuid(match_id), limit=1))

    def records(self, match_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        events = self.app.events.get(match_uuid(match_id), gt=after or None, lte=upto)
        return [e.record for e in events]  # type: ignore[attr-defined]

    def last_record(self, match_id: str) -> dict[str, Any] | None:
        """The match's latest record (None: no such match), read alone."""
        for event in self.app.events.get(match_uuid(match_id), desc=True, limit=1):
            return event.record  # type: ignore[attr-defined,no-any-return]
        return None

    def latest_snapshot(self, match_id: str, engine_version: str,
                        upto: int | None = None) -> tuple[int, Any] | None:
        """The latest snapshot of the match at version ``upto`` or before (the version the
        log reaches: a snapshot ahead of it is no state of this log), as its version and
        state; None when there is none, it is of another engine version, or it is not to be
        used (:func:`open_snapshot`: untagged, its tag does not check, it names a global
        engine states are not made of, or it does not load): the caller replays the log
        instead. A store that does not answer raises, as every read does."""
        version = -1
        try:
            for event in self.app.events.get(snapshot_uuid(match_id), lte=upto, desc=True,
                                             limit=1):
                if getattr(event, "engine_version", None) != engine_version:
                    return None
                version = event.originator_version
                return version, open_snapshot(self.key, self.classes, match_id, version,
                                              engine_version, getattr(event, "blob", None))
        except SnapshotRefused as refused:
            log.warning("snapshot not used: the match is replayed from its log",
                        match_id=match_id, snapshot_version=version, reason=str(refused))
        except Exception as err:  # a snapshot that no longer loads: replay the log instead
            if is_store_outage(err):
                raise
            log.warning("snapshot does not load", match_id=match_id, snapshot_version=version,
                        error=type(err).__name__)
        return None

    def save(self, events: Sequence[DomainEvent]) -> None:
        """One transaction; raises IntegrityError when any version is taken already.

        Straight to the recorder (the Application's save adds nothing the host uses: no
        aggregates, no snapshots, no listeners); on SQLite one ``executemany`` for the
        batch, since the notification ids the per-row inserts return are not needed."""
        stored = [self.app.mapper.to_stored_event(e) for e in events]
        recorder = self.app.recorder
        if isinstance(recorder, SQLiteApplicationRecorder):
            rows = [(s.originator_id.hex if isinstance(s.originator_id, uuid.UUID) else s.originator_id,
                     s.originator_version, s.topic, s.state) for s in stored]
            with recorder.datastore.transaction(commit=True) as cursor:
                cursor.executemany(recorder.insert_events_statement, rows)
        else:
            recorder.insert_events(stored)

    # -- heartbeats ------------------------------------------------------------------

    def heartbeats(self) -> list[Beat]:
        """Every row of the heartbeat table (none before the first beat)."""
        recorder = self.app.recorder
        if _kind(recorder) != "memory":
            self._ensure_heartbeats()
            with recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute(self._select_beats())
                rows = cursor.fetchall()
            return [_beat(row) for row in rows]
        return list(_memory_beats(recorder).values())

    def beat(self, beat: Beat) -> None:
        """Write ``beat`` over its slot's row."""
        recorder = self.app.recorder
        if _kind(recorder) != "memory":
            self._ensure_heartbeats()
            values = (beat.slot, beat.replicas, beat.process, beat.started_ms, beat.beat_ms,
                      beat.until_ms, int(beat.stopped))
            with recorder.datastore.transaction(commit=True) as cursor:
                cursor.execute(self._upsert_beat(), values)
            return
        _memory_beats(recorder)[beat.slot] = beat

    def _heartbeat_table(self) -> str:
        events = str(getattr(self.app.recorder, "events_table_name", "stored_events"))
        return events.removesuffix("_events") + "_heartbeats"

    def _pg_table(self) -> Any:
        """The heartbeat table in the store's PostgreSQL schema, as an SQL identifier."""
        from psycopg import sql

        return sql.SQL("{}.{}").format(sql.Identifier(self.app.recorder.datastore.schema),
                                       sql.Identifier(self._heartbeat_table()))

    def _ensure_heartbeats(self) -> None:
        """The table, made once per process; a store of an earlier release gains it here."""
        if self._heartbeats_ready:
            return
        recorder = self.app.recorder
        table = self._heartbeat_table()
        if _kind(recorder) == "postgres":
            from psycopg import sql

            recorder.check_identifier_length(table)
            create = sql.SQL(
                "CREATE TABLE IF NOT EXISTS {table} (slot text PRIMARY KEY,"
                " replicas text NOT NULL, process text NOT NULL, started_ms bigint NOT NULL,"
                " beat_ms bigint NOT NULL, until_ms bigint NOT NULL, stopped smallint NOT NULL)"
            ).format(table=self._pg_table())
            with recorder.datastore.transaction(commit=True) as cursor:
                # the lock open_application holds while tables are made: two replicas
                # starting at once must not race on CREATE TABLE (a duplicate type error)
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                cursor.execute(create)
        else:
            with recorder.datastore.transaction(commit=True) as cursor:  # type: ignore[attr-defined]
                cursor.execute(
                    f"CREATE TABLE IF NOT EXISTS {table} (slot TEXT PRIMARY KEY,"
                    " replicas TEXT NOT NULL, process TEXT NOT NULL, started_ms INTEGER NOT NULL,"
                    " beat_ms INTEGER NOT NULL, until_ms INTEGER NOT NULL,"
                    " stopped INTEGER NOT NULL)")
        self._heartbeats_ready = True

    def _select_beats(self) -> Any:
        columns = ", ".join(_COLUMNS)
        recorder = self.app.recorder
        if _kind(recorder) == "postgres":
            from psycopg import sql

            return sql.SQL("SELECT " + columns + " FROM {table}").format(table=self._pg_table())
        return f"SELECT {columns} FROM {self._heartbeat_table()}"

    def _upsert_beat(self) -> Any:
        columns = ", ".join(_COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[1:])
        recorder = self.app.recorder
        if _kind(recorder) == "postgres":
            from psycopg import sql

            return sql.SQL(
                "INSERT INTO {table} (" + columns + ") VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (slot) DO UPDATE SET " + updates
            ).format(table=self._pg_table())
        return (f"INSERT INTO {self._heartbeat_table()} ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (slot) DO UPDATE SET {updates}")


def _kind(recorder: Any) -> str:
    """``sqlite``, ``postgres`` or ``memory`` (eventsourcing's popo): the store a recorder
    writes to. PostgreSQL's module is looked up only when it is loaded (a PostgreSQL store
    loads it), so a SQLite service never imports psycopg for this."""
    if isinstance(recorder, SQLiteApplicationRecorder):
        return "sqlite"
    postgres = sys.modules.get("eventsourcing.postgres")
    if postgres is not None and isinstance(recorder, postgres.PostgresRecorder):
        return "postgres"
    return "memory"


def _beat(row: Any) -> Beat:
    """A heartbeat row: a sequence (SQLite) or a mapping (PostgreSQL's dict rows)."""
    values = [row[c] for c in _COLUMNS] if isinstance(row, dict) else list(row)
    slot, replicas, process, started, beat, until, stopped = values
    return Beat(str(slot), str(replicas), str(process), int(started), int(beat), int(until),
                bool(stopped))


def _memory_beats(recorder: Any) -> dict[str, Beat]:
    """The heartbeats of an in-memory store: kept on its recorder, so every MatchLog of one
    Application sees the same (an in-memory store does not outlive its process anyway)."""
    beats: dict[str, Beat] | None = getattr(recorder, "_neon_heartbeats", None)
    if beats is None:
        beats = {}
        recorder._neon_heartbeats = beats
    return beats


@dataclass
class _Pending:
    events: list[DomainEvent]
    done: asyncio.Future[None]


class GroupCommitter:
    """Saves the events of many matches in one transaction.

    Callers ``await commit(events)``; a background task takes every request queued so
    far (up to ``MAX_BATCH``) and saves them together in a worker thread, then answers
    each caller. While one batch is being written the next one gathers, so under load
    batches grow by themselves and with one caller nothing waits. When a batch fails on
    a version conflict, its requests are retried one by one so only the conflicting
    ones fail.
    """

    def __init__(self, log_: MatchLog, on_saved: Any = lambda: None) -> None:
        self.log = log_
        self.on_saved = on_saved
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.saved = 0
        self.on_batch: Any = lambda size: None
        """Told each stored batch's number of commits (the metrics' batch-size histogram)."""

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="group-commit")

    async def commit(self, events: list[DomainEvent]) -> None:
        self.start()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Pending(events, done))  # unbounded: never waits
        await done

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if not item.done.done():
                item.done.set_exception(ConnectionError("the rules service is stopping"))

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < MAX_BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            await self._write(batch)

    async def _write(self, batch: list[_Pending]) -> None:
        events = [e for item in batch for e in item.events]
        try:
            await asyncio.to_thread(self.log.save, events)
        except IntegrityError:
            if len(batch) == 1:
                _fail(batch[0], IntegrityError("version conflict"))
                return
            for item in batch:
                await self._write([item])
            return
        except BaseException as err:  # store down: every caller of this batch hears it
            for item in batch:
                _fail(item, err)
            if isinstance(err, asyncio.CancelledError):
                raise
            return
        self.batches += 1
        self.saved += len(events)
        self.on_batch(len(batch))
        for item in batch:
            if not item.done.done():
                item.done.set_result(None)
        self.on_saved()


def _fail(item: _Pending, err: BaseException) -> None:
    if not item.done.done():
        item.done.set_exception(err)
