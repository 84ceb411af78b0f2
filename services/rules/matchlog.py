"""The stored match log: records in, records out, engine snapshots, and group commit.

The event store stays the source of truth. A match's record ``n`` is stored as the
event of version ``n`` of the Match aggregate (app.py keeps the event classes, so logs
written before the live-match host read the same). The live host never loads the
aggregate object: it writes new events directly, many matches per transaction, and
reads records back only to rebuild a match or to backfill a watcher.

Snapshots: every ``SNAPSHOT_EVERY`` records the host stores the engine state (pickled,
with the engine version) under a second originator id of the match, so a rebuild
restores the latest snapshot and replays only what came after it.

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
import pickle
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


def snapshot_event(match_id: str, n: int, engine_version: str, state: Any) -> EngineSnapshot:
    blob = base64.b64encode(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)).decode()
    return EngineSnapshot(originator_id=snapshot_uuid(match_id), originator_version=n,
                          timestamp=DomainEvent.create_timestamp(),
                          engine_version=engine_version, blob=blob)


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

    def __init__(self, app: RulesApplication) -> None:
        self.app = app
        self._heartbeats_ready = False

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
        state; None when there is none, it is of another engine version, or its row does
        not decode or load (corrupt, truncated): the caller replays the log instead. A store
        that does not answer raises, as every read does."""
        try:
            for event in self.app.events.get(snapshot_uuid(match_id), lte=upto, desc=True,
                                             limit=1):
                if getattr(event, "engine_version", None) != engine_version:
                    return None
                return event.originator_version, pickle.loads(base64.b64decode(event.blob))  # type: ignore[attr-defined]
        except Exception as err:  # a snapshot that no longer loads: replay the log instead
            if is_store_outage(err):
                raise
            log.warning("snapshot does not load", match_id=match_id, error=repr(err))
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
