"""A stored event's topic names the class eventsourcing builds it with, and resolving a topic
imports its module: a row the service did not write (an injection, a restored backup of
unknown origin, another holder of the database login) must not make a service import a
module of its choosing, run its code, or build an object of any class. Over a real SQLite
store, the rows written straight into its table (services/platform/topics.py)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.application import Application
from eventsourcing.utils import get_topic

from services.dice.app import DiceApplication
from services.matchmaking.app import MatchmakingApplication
from services.platform import bus
from services.platform.topics import TrustedMapper, UntrustedTopic
from services.rules.app import Match, RulesApplication
from services.scoring.app import ScoringApplication
from services.tournament.app import TournamentApplication

EVIL = '''
import pathlib
pathlib.Path({marker!r}).write_text("ran")


class Thing:
    pass
'''


def sqlite_env(path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}


@pytest.fixture
def evil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A module on the import path whose top-level code leaves a marker file: its name, and
    the marker."""
    name = f"evil_{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "ran"
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / f"{name}.py").write_text(EVIL.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    yield name, marker
    sys.modules.pop(name, None)


def insert_row(app: Any, originator: uuid.UUID, version: int, topic: str,
               state: dict[str, Any]) -> None:
    """A stored event written straight into the app's table, as an attacker would."""
    table = app.recorder.events_table_name
    with app.recorder.datastore.transaction(commit=True) as cursor:
        cursor.execute(f"INSERT INTO {table} (originator_id, originator_version, topic, state)"
                       " VALUES (?, ?, ?, ?)",
                       (originator.hex, version, topic, app.mapper.transcoder.encode(state)))


def test_every_service_application_resolves_only_trusted_topics(tmp_path: Path) -> None:
    apps = [RulesApplication(env=sqlite_env(tmp_path / "rules.db")),
            TournamentApplication(env=sqlite_env(tmp_path / "tournament.db")),
            MatchmakingApplication(env=sqlite_env(tmp_path / "matchmaking.db")),
            ScoringApplication(env=sqlite_env(tmp_path / "scoring.db")),
            DiceApplication(env=sqlite_env(tmp_path / "dice.db"))]
    try:
        for app in apps:
            assert isinstance(app.mapper, TrustedMapper), type(app).__name__
    finally:
        for app in apps:
            app.close()


def test_a_row_naming_a_module_of_its_own_is_refused_before_the_import(
        tmp_path: Path, evil: tuple[str, Path]) -> None:
    """The control first: eventsourcing's own mapper imports the module (its code runs)."""
    name, marker = evil
    plain = Application(env=sqlite_env(tmp_path / "plain.db"))
    try:
        insert_row(plain, uuid.uuid4(), 1, f"{name}:Thing", {"timestamp": "x"})
        [row] = plain.recorder.select_notifications(1, 10)
        try:
            plain.mapper.to_domain_event(row)
        except Exception:
            pass  # the object may not be built: the module's code ran all the same
        assert marker.exists(), "the control: a plain mapper imports the row's module"
    finally:
        plain.close()
    marker.unlink()
    sys.modules.pop(name, None)

    app = RulesApplication(env=sqlite_env(tmp_path / "rules.db"))
    try:
        match = uuid.uuid4()
        insert_row(app, match, 1, f"{name}:Thing", {"timestamp": "x"})
        with pytest.raises(UntrustedTopic, match="not a class of this project"):
            app.repository.get(match)
        assert not marker.exists() and name not in sys.modules
    finally:
        app.close()


@pytest.mark.parametrize("topic", [
    "services.rules.app:Match.__init__.__globals__",  # an attribute walk to anything
    "services.rules.app:Match",  # ours, but an aggregate, not an event
    "services.platform.topics:TrustedMapper",  # ours, not an event
    "services.rules.nothing_here:Event",  # ours in name, not there
    "os:system",
    "",
])
def test_a_row_naming_anything_but_one_of_our_event_classes_is_refused(
        tmp_path: Path, topic: str) -> None:
    app = RulesApplication(env=sqlite_env(tmp_path / "rules.db"))
    try:
        match = uuid.uuid4()
        insert_row(app, match, 1, topic, {"timestamp": "x"})
        with pytest.raises(UntrustedTopic):
            app.repository.get(match)
    finally:
        app.close()


def test_a_created_event_naming_a_foreign_aggregate_class_is_refused(
        tmp_path: Path, evil: tuple[str, Path]) -> None:
    """The topic column names our Created event, and its state's ``originator_topic`` (the
    aggregate class that mutate() resolves and builds) names the module's class."""
    name, marker = evil
    app = RulesApplication(env=sqlite_env(tmp_path / "rules.db"))
    try:
        match = uuid.uuid4()
        insert_row(app, match, 1, get_topic(Match.Created),
                   {"timestamp": "x", "originator_topic": f"{name}:Thing"})
        with pytest.raises(UntrustedTopic, match="not a class of this project"):
            app.repository.get(match)
        assert not marker.exists() and name not in sys.modules
    finally:
        app.close()


def test_a_snapshot_naming_a_foreign_aggregate_class_is_refused(
        tmp_path: Path, evil: tuple[str, Path]) -> None:
    """eventsourcing's own snapshots (a matchmaking queue's, in their own table) name the
    aggregate class in their state (``topic``): one naming the module's class is refused,
    and the queue's own snapshot loads."""
    from eventsourcing.domain import Snapshot

    from services.matchmaking.domain import Queue

    name, marker = evil
    app = MatchmakingApplication(env=sqlite_env(tmp_path / "matchmaking.db"))
    try:
        assert app.snapshots is not None
        mapper = app.snapshots.mapper
        assert isinstance(mapper, TrustedMapper)
        table = app.snapshots.recorder.events_table_name
        ok, bad = uuid.uuid4(), uuid.uuid4()
        for originator, aggregate in ((ok, get_topic(Queue)), (bad, f"{name}:Thing")):
            state = {"timestamp": "2026-12-06T00:00:00+00:00", "topic": aggregate, "state": {}}
            with app.snapshots.recorder.datastore.transaction(commit=True) as cursor:
                cursor.execute(f"INSERT INTO {table} (originator_id, originator_version, topic,"
                               " state) VALUES (?, ?, ?, ?)",
                               (originator.hex, 1, get_topic(Snapshot),
                                mapper.transcoder.encode(state)))
        [good] = app.snapshots.get(ok)
        assert isinstance(good, Snapshot)
        with pytest.raises(UntrustedTopic, match="not a class of this project"):
            list(app.snapshots.get(bad))
        assert not marker.exists() and name not in sys.modules
    finally:
        app.close()


def test_the_outbox_passes_over_a_row_it_did_not_write_and_publishes_the_rest(
        tmp_path: Path) -> None:
    """A foreign row in the store is never published, and holds back none of the events
    after it (the relay logs it once)."""
    app = RulesApplication(env=sqlite_env(tmp_path / "rules.db"))
    try:
        insert_row(app, uuid.uuid4(), 1, "os:system", {"timestamp": "x"})
        insert_row(app, uuid.uuid4(), 1, "services.rules.app:Match.__init__.__globals__",
                   {"timestamp": "x"})
        good = uuid.uuid4()
        insert_row(app, good, 1, get_topic(Match.Created),
                   {"timestamp": "2026-12-06T00:00:00+00:00",
                    "originator_topic": get_topic(Match)})
        relay = bus.OutboxRelay(app, "rules-test", None,  # type: ignore[arg-type]
                                lambda event: [("neon.test", {"id": str(event.originator_id)})])
        relay.store_id = "test"
        notifications = app.recorder.select_notifications(1, 10)
        for _ in range(2):  # once more: told once
            sent = list(relay._messages(notifications))
            assert [body for _, body, _ in sent] == [f'{{"id":"{good}"}}'.encode()]
        assert relay.dropped == {(1, -1), (2, -1)}
    finally:
        app.close()
