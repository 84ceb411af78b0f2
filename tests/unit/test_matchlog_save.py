"""The group commit's write, straight to the recorder: a batch of several matches is one
transaction that reads back in order and in the notification log; a taken version fails the
whole batch with IntegrityError and stores none of it (memory and SQLite)."""

from __future__ import annotations

from pathlib import Path

import pytest
from eventsourcing.persistence import IntegrityError

from services.rules import records as rec
from services.rules.app import rules_application
from services.rules.matchlog import MatchLog, record_event


def chain(match_id: str, count: int) -> list[dict]:
    records: list[dict] = []
    body = {
        "type": "MatchCreated",
        "match_id": match_id,
        "game": "toy",
        "mode": "m",
        "seats": 2,
        "options": {},
        "players": ["", ""],
    }
    records.append(rec.seal_record(match_id, 1, rec.head([]), body))
    for n in range(2, count + 1):
        body = {
            "type": "ActionAccepted",
            "seat": n % 2,
            "command_id": f"c{n}",
            "action": {"n": n},
            "draws": [],
            "events": [],
            "state_hash": f"h{n}",
        }
        records.append(rec.seal_record(match_id, n, records[-1]["hash"], body))
    return records


@pytest.fixture(params=["memory", "sqlite"])
def log(request: pytest.FixtureRequest, tmp_path: Path) -> MatchLog:
    env = (
        {"PERSISTENCE_MODULE": "eventsourcing.popo"}
        if request.param == "memory"
        else {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "rules.db"),
        }
    )
    return MatchLog(rules_application("rules-toy", env))


def test_a_batch_of_two_matches_reads_back_in_order(log: MatchLog) -> None:
    a, b = chain("a", 3), chain("b", 2)
    log.save([record_event("a", r) for r in a] + [record_event("b", r) for r in b])
    assert log.records("a") == a
    assert log.records("b") == b
    assert log.records("a", 1, 2) == a[1:2]
    notes = log.app.recorder.select_notifications(1, 10)
    assert [n.originator_version for n in notes] == [1, 2, 3, 1, 2]


def test_a_taken_version_fails_the_whole_batch(log: MatchLog) -> None:
    a = chain("a", 2)
    log.save([record_event("a", a[0])])
    other = chain("b", 1)
    with pytest.raises(IntegrityError):
        log.save([record_event("b", other[0]), record_event("a", a[0])])
    assert log.records("b") == [], "part of a failed batch was stored"
    assert log.records("a") == a[:1]
