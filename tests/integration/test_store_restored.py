"""A store restored from a backup while NATS JetStream (the stream, the relays' positions,
the consumers) was not: real gRPC, real NATS JetStream, the SQLite stores of a backend
stopped, its rules store put back as an earlier copy, and started again.

The restored rules store numbers its new events from where the backup ended, below the ids
its outbox relay had published already. Before the fix the relay resumed from its saved
position (beyond the restored store's end), so the new events up to it were never
published, and had they been, JetStream would have dropped them within its duplicate window
as repeats of the message ids of the events the backup lost: a new match's result never
reached scoring, with no word in any log.

Scoring's store restored (test_scoring.py, "restored_from_a_backup") and the tournament's
(test_tournament_results_consumer.py) are covered where their consumers are tested.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.scoring.v1.scoring_pb2_grpc import ScoringServiceStub
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import bus
from services.platform.grpc_kit import channel
from services.platform.settings import Settings
from tests.integration.conftest import make_settings, registered_swiss
from tests.integration.test_outbox_poison import Note, Notes
from tests.integration.test_outbox_stream_lost import Place
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import delete_consumers
from tests.integration.test_scoring_backend import _result
from tests.support import toy
from tests.support.logcapture import captured_logs
from tests.support.namespaces import drop_outbox_names

pytestmark = pytest.mark.timeout(240)


async def _started(settings: Settings) -> Backend:
    return await start_backend(settings, games=[], embedded_nats=False,
                               engines={"toy": toy.ENGINE}, scoring=True)


async def _played(backend: Backend, match_id: str) -> None:
    client = RulesClient(backend.address("rules-toy"))
    try:
        created = await client.create(backend.organiser_token(), match_id=match_id, mode="race",
                                      seats=2)
        await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
    finally:
        await client.close()


async def _scored(backend: Backend, match_id: str, timeout: float = 20) -> Any:
    ch = channel(backend.address("scoring"))
    try:  # _result asks only the stub
        return await _result(SimpleNamespace(stub=ScoringServiceStub(ch)), match_id, timeout)
    finally:
        await ch.close()


def _copy_store(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite store (the online backup API, as ``sqlite3 .backup``)."""
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(source)) as src, \
            contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


async def test_a_rules_store_restored_from_a_backup_publishes_its_new_results(
        tmp_path: Path, nats_url: str) -> None:
    settings = make_settings(tmp_path, nats_url)
    store = settings.sqlite_path("rules-toy")
    backup = tmp_path / "backup.sqlite"
    run = uuid.uuid4().hex[:8]
    kept, lost, new = f"kept-{run}", f"lost-{run}", f"new-{run}"
    durables: set[str] = set()
    backend = await _started(settings)
    try:
        durables.add(backend.services["scoring"].extra["consumer"].durable)
        await _played(backend, kept)
        await _scored(backend, kept)
        _copy_store(store, backup)  # last night's backup
        await _played(backend, lost)  # and more played after it
        await _played(backend, f"{lost}-2")
        await _scored(backend, f"{lost}-2")
    finally:
        await backend.stop(1)

    shutil.copyfile(backup, store)  # the disk lost: the rules store put back from the backup
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    backend = await _started(settings)
    try:
        durables.add(backend.services["scoring"].extra["consumer"].durable)
        client = RulesClient(backend.address("rules-toy"))
        try:
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await client.view(lost)
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND
            assert (await client.view(kept)).outcome_json
        finally:
            await client.close()
        assert (await _scored(backend, lost)).match_id == lost  # scored before: kept
        await _played(backend, new)
        assert (await _scored(backend, new)).match_id == new, "the new result never came"
        relay = backend.services["rules-toy"].extra["relay"]
        app = backend.services["rules-toy"].extra["app"]
        await relay.drain()
        assert relay.position == await asyncio.to_thread(app.recorder.max_notification_id)
        assert relay.publisher.startswith(f"{relay.store_id}.")  # a new epoch of msg ids
        # what the relay published again is the same results: no conflict told
        assert backend.services["scoring"].extra["consumer"].stats.conflicting == 0
    finally:
        await backend.stop(1)
        await delete_consumers(nats_url, durables)


class Restorable(Place):
    """A Place (test_outbox_stream_lost.py) whose notes are a store on disk, SQLite or a
    PostgreSQL schema, to be backed up and put back."""

    def __init__(self, js: Any, namespace: str, path: Path, schema: str = "") -> None:
        super().__init__(js, namespace)
        self.path, self.schema = path, schema
        self.app = self._open()
        self.tokens: list[str] = []

    def _open(self) -> Notes:
        if self.schema:
            from services.platform.store import eventsourcing_env

            settings = make_settings(self.path.parent, "", "postgres",
                                     database_url=os.environ["DATABASE_URL"],
                                     postgres_schema=self.schema)
            return Notes(env=eventsourcing_env(settings, "notes"))
        return Notes(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                          "SQLITE_DBNAME": str(self.path)})

    def write_tokens(self, *tokens: str) -> None:
        for token in tokens:
            self.app.save(Note(token))
            self.tokens.append(token)

    def backup(self) -> Any:
        if self.schema:  # a point in time: the last notification id (and the id sequence's)
            return self.app.recorder.max_notification_id()
        copy = self.path.with_name(f"backup-{uuid.uuid4().hex[:6]}.sqlite")
        with contextlib.closing(sqlite3.connect(copy)) as dst:
            src = sqlite3.connect(self.path)
            with contextlib.closing(src):
                src.backup(dst)
        return copy

    def restore(self, backup: Any, live: bool = False) -> None:
        """Put ``backup`` back: the store stopped and restored, or (``live``) restored in
        place under the running store, as a point-in-time restore of a database."""
        if self.schema:
            import psycopg

            table = f'"{self.schema}".{self.app.recorder.events_table_name.rpartition(".")[2]}'
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f"DELETE FROM {table} WHERE notification_id > %s", (backup,))
                conn.execute("SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s)",
                             (table, backup))
            if not live:
                self.app.close()
                self.app = self._open()
            return
        if live:
            with contextlib.closing(sqlite3.connect(backup)) as src, \
                    contextlib.closing(sqlite3.connect(self.path)) as dst:
                src.backup(dst)
            return
        self.app.close()
        _copy_store(backup, self.path)
        self.app = self._open()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def restorable(nats_client: Any, tmp_path: Path,
                     request: pytest.FixtureRequest) -> AsyncIterator[Restorable]:
    namespace = f"rs{uuid.uuid4().hex[:10]}"
    js = nats_client.jetstream()  # type: ignore[attr-defined]
    schema = request.getfixturevalue("postgres_schema") if request.param == "postgres" else ""
    place = Restorable(js, namespace, tmp_path / "notes.sqlite", schema)
    try:
        yield place
    finally:
        place.app.close()
        await drop_outbox_names(js, namespace)


async def test_a_store_restored_before_start_publishes_its_new_events(
        restorable: Restorable) -> None:
    place = restorable
    relay = place.relay()
    await relay.start()
    place.write_tokens("a1", "a2", "a3")
    await relay.drain()
    copy = place.backup()
    place.write_tokens("lost1", "lost2", "lost3")
    await relay.drain()
    await relay.stop()

    place.restore(copy)
    again = place.relay()
    try:
        with captured_logs("info") as lines:
            await again.start()
            await again.drain()  # found once it leads
        told = [json.loads(x) for x in lines.getvalue().splitlines() if "outbox published" in x]
        assert [(x["level"], x["position"], x["publishing_from"]) for x in told] == \
            [("error", 7, 5)]  # its identity (1) and a1..a3 are the store it published
        place.write_tokens("new1", "new2")
        await again.drain()
        assert await place.in_stream() == ["a1", "a2", "a3", "lost1", "lost2", "lost3",
                                           "new1", "new2"]
        assert again.position == place.app.recorder.max_notification_id()
    finally:
        await again.stop()

    after = place.relay()  # a restart carries on in the new epoch: nothing sent again
    await after.start()
    try:
        place.write_tokens("new3")
        await after.drain()
        assert after.sent == 1
        assert (await place.in_stream())[-3:] == ["new1", "new2", "new3"]
    finally:
        await after.stop()


async def test_a_store_restored_under_the_running_relay_publishes_its_new_events(
        restorable: Restorable) -> None:
    """A point-in-time restore of the database while the service runs: the relay notices at
    its next look (every STREAM_CHECK seconds; 0 here)."""
    place = restorable
    relay = place.relay()
    await relay.start()
    try:
        place.write_tokens("a1", "a2")
        await relay.drain()
        copy = place.backup()
        place.write_tokens("lost1", "lost2", "lost3")
        await relay.drain()
        place.restore(copy, live=True)
        place.write_tokens("new1")
        await relay.drain()
        assert await place.in_stream() == ["a1", "a2", "lost1", "lost2", "lost3", "new1"]
    finally:
        await relay.stop()


async def test_a_restored_store_grown_past_the_old_position_is_noticed(
        restorable: Restorable) -> None:
    """More events stored after the restore than the backup lost, before the relay looked:
    the saved position is inside the store again, but at another event."""
    place = restorable
    relay = place.relay()
    await relay.start()
    place.write_tokens("a1", "a2")
    await relay.drain()
    copy = place.backup()
    place.write_tokens("lost1")
    await relay.drain()
    await relay.stop()

    place.restore(copy)
    place.write_tokens("new1", "new2", "new3")
    again = place.relay()
    await again.start()
    try:
        await again.drain()
        assert await place.in_stream() == ["a1", "a2", "lost1", "new1", "new2", "new3"]
    finally:
        await again.stop()


async def test_a_tournament_store_restored_to_before_its_round_pairs_it_again_and_completes_it(
        tmp_path: Path, nats_url: str) -> None:
    """The tournament's store put back as it was before a round was paired, while the
    round's matches ran on in the rules service: NextRound pairs the round again (the same
    tables, the same match ids), the rules service answers the existing matches, and the
    results, already published, are found on the stream: the round completes once."""
    from services.cli.tournament_commands import (
        TournamentClient,
        play_round_as,
        wait_round_complete,
    )

    settings = make_settings(tmp_path, nats_url)
    store = settings.sqlite_path("tournament")
    backup = tmp_path / "tournament-backup.sqlite"
    names = [f"p{i}" for i in range(4)]
    tid = f"restored_{uuid.uuid4().hex[:6]}"

    async def up() -> tuple[Backend, TournamentClient, str, dict[str, str]]:
        b = await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                                tournament=True)
        issue = b.issuer.issue
        return (b, TournamentClient(b.address("tournament")),
                issue("organiser", "*", player="organiser", ttl=3600),
                {n: issue("player", "*", player=n, ttl=3600) for n in names})

    backend, client, organiser, tokens = await up()
    rules: dict[str, RulesClient] = {}
    try:
        await registered_swiss(client, organiser, tid, names, 2)
        _copy_store(store, backup)  # the backup: started, no round paired
        first = (await client.call("NextRound", organiser, tournament_id=tid)).round
        await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n) for n in names))
        await wait_round_complete(client, tid, 1, 60)
    finally:
        await client.close()
        for rc in rules.values():
            await rc.close()
        rules.clear()
        await backend.stop(1)

    shutil.copyfile(backup, store)
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    backend, client, organiser, tokens = await up()
    try:
        again = (await client.call("NextRound", organiser, tournament_id=tid)).round
        assert [list(t.seats) for t in again.tables] == [list(t.seats) for t in first.tables]
        done = await wait_round_complete(client, tid, 1, 60)
        assert all(t.status == pb.TABLE_STATUS_DONE for t in done.tables)
    finally:
        await client.close()
        await backend.stop(1)


async def test_a_store_restored_twice_from_one_backup_publishes_its_new_events_each_time(
        restorable: Restorable) -> None:
    """The epoch started at the first restore is lost with the second: another is started,
    never the first again (the events after the first restore hold its message ids)."""
    place = restorable
    relay = place.relay()
    await relay.start()
    place.write_tokens("a1")
    await relay.drain()
    copy = place.backup()
    place.write_tokens("lost1", "lost2")
    await relay.drain()
    await relay.stop()
    publishers = {relay.publisher}
    for new in (("b1", "b2"), ("c1", "c2")):
        place.restore(copy)
        again = place.relay()
        await again.start()
        try:
            place.write_tokens(*new)
            await again.drain()
            publishers.add(again.publisher)
        finally:
            await again.stop()
    assert len(publishers) == 3
    assert await place.in_stream() == ["a1", "lost1", "lost2", "b1", "b2", "c1", "c2"]


async def test_every_store_restored_and_the_stream_deleted_is_one_point_in_time(
        tmp_path: Path, nats_url: str) -> None:
    """docs/OPERATIONS.md, "Restoring every store": the rules and scoring stores put back
    from one backup and the event stream deleted. Scoring ends with the backup's results
    only (the lost match's is gone with the stream), and a match created again under a lost
    match's id is scored with its own result, not the lost one's."""
    settings = make_settings(tmp_path, nats_url, namespace=f"ra{uuid.uuid4().hex[:8]}")
    stores = [settings.sqlite_path(s) for s in ("dice", "rules-toy", "scoring")]
    run = uuid.uuid4().hex[:8]
    kept, lost = f"kept-{run}", f"lost-{run}"
    durables: set[str] = set()
    backend = await _started(settings)
    try:
        durables.add(backend.services["scoring"].extra["consumer"].durable)
        await _played(backend, kept)
        await _scored(backend, kept)
    finally:
        await backend.stop(1)
    copies = [tmp_path / f"backup-{store.name}" for store in stores]
    for store, copy in zip(stores, copies, strict=True):
        _copy_store(store, copy)
    backend = await _started(settings)
    try:
        await _played(backend, lost)
        await _scored(backend, lost)
    finally:
        await backend.stop(1)

    for store, copy in zip(stores, copies, strict=True):
        shutil.copyfile(copy, store)
        for suffix in ("-wal", "-shm"):
            Path(f"{store}{suffix}").unlink(missing_ok=True)
    nc = await bus.connect(nats_url, "restore-test")
    try:
        await nc.jetstream().delete_stream(bus.stream_name(settings.namespace))
    finally:
        await nc.close()
    backend = await _started(settings)
    try:
        durables.add(backend.services["scoring"].extra["consumer"].durable)
        scoring = backend.services["scoring"].extra["consumer"]
        await _scored(backend, kept)
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await _scored(backend, lost, timeout=3)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        await _played(backend, lost)  # the same id, a match played anew
        again = await _scored(backend, lost)
        assert again.match_id == lost and scoring.stats.conflicting == 0
    finally:
        await backend.stop(1)
        nc = await bus.connect(nats_url, "restore-test")
        try:
            for durable in durables:
                try:
                    await nc.jetstream().delete_consumer(bus.stream_name(settings.namespace),
                                                         durable)
                except Exception:  # gone with its stream
                    pass
            await nc.jetstream().delete_stream(bus.stream_name(settings.namespace))
            await nc.jetstream().delete_key_value(bus.positions_bucket(settings.namespace))
        finally:
            await nc.close()


class NeverLeads:
    async def lead(self) -> bool:
        return False

    async def close(self) -> None:
        pass


async def test_a_follower_on_a_restored_store_writes_nothing(restorable: Restorable) -> None:
    """Only the leading relay starts an epoch and moves the position back: a replica that
    follows (another leads, or will) leaves the store and the saved position alone."""
    place = restorable
    relay = place.relay()
    await relay.start()
    place.write_tokens("a1")
    await relay.drain()
    copy = place.backup()
    place.write_tokens("lost1")
    await relay.drain()
    await relay.stop()
    saved = relay.position

    place.restore(copy)
    end = place.app.recorder.max_notification_id()
    follower = place.relay()
    follower.leader = NeverLeads()
    await follower.start()
    try:
        await follower.drain()
        await asyncio.sleep(0.1)
    finally:
        await follower.stop()
    kv = await place.js.key_value(bus.positions_bucket(place.namespace))
    assert int((await kv.get(follower._key)).value) == saved
    assert place.app.recorder.max_notification_id() == end  # no epoch stored
