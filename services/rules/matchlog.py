"""The stored match log: records in, records out, engine snapshots, and group commit.

The event store stays the source of truth. A match's record ``n`` is stored as the
event of version ``n`` of the Match aggregate (app.py keeps the event classes, so logs
written before the live-match host read the same). The live host never loads the
aggregate object: it writes new events directly, many matches per transaction, and
reads records back only to rebuild a match or to backfill a watcher.

Snapshots: every ``SNAPSHOT_EVERY`` records the host stores the engine state (pickled,
with the engine version) under a second originator id of the match, so a rebuild
restores the latest snapshot and replays only what came after it.
"""

from __future__ import annotations

import asyncio
import base64
import pickle
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import IntegrityError
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import get_topic

from services.platform.logs import get_logger
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


class MatchLog:
    """Reads and writes match records in one service's event store (blocking calls)."""

    def __init__(self, app: RulesApplication) -> None:
        self.app = app

    def exists(self, match_id: str) -> bool:
        return any(True for _ in self.app.events.get(match_uuid(match_id), limit=1))

    def records(self, match_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        events = self.app.events.get(match_uuid(match_id), gt=after or None, lte=upto)
        return [e.record for e in events]  # type: ignore[attr-defined]

    def latest_snapshot(self, match_id: str, engine_version: str) -> tuple[int, Any] | None:
        for event in self.app.events.get(snapshot_uuid(match_id), desc=True, limit=1):
            if getattr(event, "engine_version", None) != engine_version:
                return None
            try:
                return event.originator_version, pickle.loads(base64.b64decode(event.blob))  # type: ignore[attr-defined]
            except Exception as err:  # a snapshot that no longer loads: replay the log instead
                log.warning("snapshot does not load", match_id=match_id, error=repr(err))
                return None
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
