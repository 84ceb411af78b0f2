"""The rules process's heartbeat: its rows in the match store (memory, SQLite, PostgreSQL),
what a successor learns from them (``served_until``), and the conservative answers."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.platform.replicas import Replicas
from services.platform.settings import Settings
from services.platform.store import eventsourcing_env, open_application
from services.rules.app import rules_application
from services.rules.clockwork import (
    NEVER_MS,
    SINGLE,
    Heartbeat,
    replica_slot,
    served_until,
)
from services.rules.matchlog import Beat, MatchLog, record_event
from tests.unit.test_clockwork import T0, Wall
from tests.unit.test_matchlog_save import chain


def beat(slot: str = SINGLE, until: int = T0, *, replicas: str = SINGLE, stopped: bool = False,
         process: str = "p") -> Beat:
    return Beat(slot, replicas, process, T0 - 60_000, until, until, stopped)


# -- what a successor learns ----------------------------------------------------------


def test_the_previous_process_of_the_place_tells_when_it_last_served() -> None:
    assert served_until([beat(until=T0, stopped=True)], SINGLE, SINGLE) == (T0, "stopped")
    assert served_until([beat(until=T0)], SINGLE, SINGLE) == (T0, "crashed or killed")
    # the other replicas of the same list own other matches: their beats say nothing here
    rows = [beat("f/0", T0, replicas="f"), beat("f/1", T0 + 90_000, replicas="f")]
    assert served_until(rows, "f/0", "f") == (T0, "crashed or killed")


@pytest.mark.parametrize(("rows", "reason"), [
    ([], "no heartbeat of a previous process in this place"),
    ([beat("f/1", T0, replicas="f")], "no heartbeat of a previous process in this place"),
    ([beat(until=NEVER_MS)], "the previous process wrote no heartbeats"),
    # a lone service ran after this replica's last process (or another replica list did)
    ([beat("f/0", T0, replicas="f"), beat(SINGLE, T0 + 1)],
     "a process of another replica list may have served after it"),
    ([beat("f/0", T0, replicas="f"), beat("g/1", T0 + 1, replicas="g")],
     "a process of another replica list may have served after it"),
])
def test_a_previous_server_not_known_for_sure_gives_no_end_of_service(
        rows: list[Beat], reason: str) -> None:
    slot, replicas = ("f/0", "f") if any(r.replicas == "f" for r in rows) else (SINGLE, SINGLE)
    assert served_until(rows, slot, replicas) == (None, reason)


def test_another_replica_list_that_stopped_before_does_not_matter() -> None:
    rows = [beat("f/0", T0, replicas="f"), beat("g/1", T0 - 1, replicas="g", stopped=True)]
    assert served_until(rows, "f/0", "f") == (T0, "crashed or killed")


def test_a_replica_slot_is_its_list_and_ordinal() -> None:
    assert replica_slot(None) == (SINGLE, SINGLE)
    replicas = Replicas(("a:1", "b:2"), 1)
    assert replica_slot(replicas) == (f"{replicas.fingerprint}/1", replicas.fingerprint)
    assert replica_slot(Replicas(("a:1", "b:2", "c:3"), 1))[1] != replicas.fingerprint


# -- the rows in each store -----------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MatchLog]:
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        schema = request.getfixturevalue("postgres_schema")
        settings = dataclasses.replace(Settings(), persistence="postgres", database_url=url,
                                       postgres_schema=schema, var_dir=tmp_path)
    else:
        settings = dataclasses.replace(Settings(), persistence=request.param, var_dir=tmp_path)
    app = open_application(settings, lambda: rules_application(
        "rules-toy", eventsourcing_env(settings, "rules-toy")))
    yield MatchLog(app)
    app.close()


def test_a_beat_overwrites_its_slot_and_leaves_the_others(store: MatchLog) -> None:
    assert store.heartbeats() == []
    store.beat(beat(until=T0, process="a"))
    store.beat(beat("f/0", T0 + 5, replicas="f"))
    store.beat(beat(until=T0 + 10, process="b", stopped=True))
    rows = sorted(store.heartbeats(), key=lambda b: b.slot)
    assert rows == [beat("f/0", T0 + 5, replicas="f"),
                    beat(until=T0 + 10, process="b", stopped=True)]
    # a second MatchLog of the same store reads the same rows
    assert sorted(MatchLog(store.app).heartbeats(), key=lambda b: b.slot) == rows


async def test_a_successor_learns_a_clean_stop_exactly(store: MatchLog) -> None:
    wall = Wall()
    first = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await first.start()
    assert (first.served_until_ms, first.basis) == (None, "no heartbeat of a previous process in this place")
    wall.now = T0 + 42_000
    await first.stop()
    wall.now = T0 + 342_000
    second = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await second.start()
    assert (second.served_until_ms, second.basis) == (T0 + 42_000, "stopped")
    [row] = store.heartbeats()
    assert row.process == second.process and not row.stopped
    assert row.until_ms == T0 + 342_000 + 10_000, "a running process may serve two beats on"
    await second.stop()


async def test_after_a_crash_the_successor_counts_two_beats_past_the_last_one(store: MatchLog) -> None:
    wall = Wall()
    crashed = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await crashed.start()
    crashed._task.cancel()  # type: ignore[union-attr]  # killed: no last beat
    wall.now = T0 + 100_000
    successor = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await successor.start()
    assert (successor.served_until_ms, successor.basis) == (T0 + 10_000, "crashed or killed")
    await successor.stop()


async def test_a_process_without_heartbeats_leaves_its_successor_no_end_of_service(
        store: MatchLog) -> None:
    wall = Wall()
    earlier = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await earlier.start()
    await earlier.stop()
    off = Heartbeat(store, interval_ms=0, now_ms=wall)
    await off.start()
    assert (off.served_until_ms, off.basis) == (None, "heartbeats off")
    await off.stop()
    [row] = store.heartbeats()
    assert row.until_ms == NEVER_MS and row.process == off.process, "it may have served any time"
    wall.now = T0 + 600_000
    after = Heartbeat(store, interval_ms=5_000, now_ms=wall)
    await after.start()
    assert (after.served_until_ms, after.basis) == (None, "the previous process wrote no heartbeats")
    await after.stop()


async def test_the_process_beats_on_its_interval() -> None:
    store = MatchLog(rules_application("rules-toy", {"PERSISTENCE_MODULE": "eventsourcing.popo"}))
    heartbeat = Heartbeat(store, interval_ms=20)
    await heartbeat.start()
    async with asyncio.timeout(3):
        while heartbeat.beats < 4:
            await asyncio.sleep(0.01)
    await heartbeat.stop()
    [row] = store.heartbeats()
    assert row.stopped and row.until_ms == row.beat_ms


class Broken:
    def __init__(self) -> None:
        self.fail = True
        self.rows: list[Beat] = []

    def heartbeats(self) -> list[Beat]:
        raise OSError("store down")

    def beat(self, beat: Beat) -> None:
        if self.fail:
            raise OSError("store down")
        self.rows.append(beat)


async def test_a_store_that_does_not_answer_gives_no_end_of_service_and_no_failure() -> None:
    store = Broken()
    heartbeat = Heartbeat(store, interval_ms=20)
    await heartbeat.start()  # neither the read nor the first beat raises
    assert (heartbeat.served_until_ms, heartbeat.basis) == (None, "heartbeats unreadable")
    store.fail = False
    async with asyncio.timeout(3):  # the beats go on once the store is back
        while not store.rows:
            await asyncio.sleep(0.01)
    await heartbeat.stop()
    assert store.rows[-1].stopped


def test_an_sqlite_store_of_an_earlier_release_gains_the_table(tmp_path: Path) -> None:
    """A store written before heartbeats (events, no heartbeat table) keeps its events and
    gets the table on the first beat."""
    path = tmp_path / "rules.db"
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    old = MatchLog(rules_application("rules-toy", env))
    records = chain("m", 3)
    old.save([record_event("m", r) for r in records])
    old.app.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "stored_heartbeats" not in tables
    new = MatchLog(rules_application("rules-toy", env))
    assert new.heartbeats() == []
    new.beat(beat(until=T0))
    assert new.heartbeats() == [beat(until=T0)] and new.records("m") == records
    new.app.close()


def test_the_heartbeat_interval_is_a_setting() -> None:
    from services.platform.settings import CLOCK_HEARTBEAT_MS, load

    assert load({}).clock_heartbeat_ms == CLOCK_HEARTBEAT_MS == 5_000
    assert load({"NEON_CLOCK_HEARTBEAT_MS": "250"}).clock_heartbeat_ms == 250
    assert load({"NEON_CLOCK_HEARTBEAT_MS": "0"}).clock_heartbeat_ms == 0
    with pytest.raises(ValueError, match="NEON_CLOCK_HEARTBEAT_MS"):
        load({"NEON_CLOCK_HEARTBEAT_MS": "-5"})
    with pytest.raises(ValueError, match="NEON_CLOCK_HEARTBEAT_MS '²': use a whole number of "
                                         "milliseconds, 0 for no heartbeat"):
        load({"NEON_CLOCK_HEARTBEAT_MS": "²"})  # a digit to str.isdigit, not to int()
