"""The scoring ledger names the stream its position counts in: a stream made again (its
sequences start again at 1) is read from its start, and ledgers stored before keep loading."""

from __future__ import annotations

import datetime
import json
from types import SimpleNamespace
from typing import Any

import pytest

from services.platform.bus import stream_identity
from services.scoring.app import Resume, ScoringApplication, StreamChanged
from services.scoring.domain import LEDGER_ID, Ledger
from services.scoring.results import MatchOutcome, parse_match_ended

OLD, NEW = "2026-01-02T03:04:05.123456+00:00", "2026-06-07T08:09:10.654321+00:00"


@pytest.fixture
def app() -> ScoringApplication:
    return ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def outcome(match_id: str) -> MatchOutcome:
    return parse_match_ended({
        "type": "MatchEnded", "match_id": match_id, "game": "neon", "mode": "duel",
        "players": ["ann", "bob"], "n": 9, "hash": "h",
        "outcome": {"placements": [1, 2], "scores": [1, 0], "reason": "over", "draw": False,
                    "breakdown": {}, "teams": []},
    })


def legacy_ledger(app: ScoringApplication, *positions: int) -> None:
    """Results scored as before streams were named: Opened and Applied events only."""
    for i, position in enumerate(positions):
        app.score(outcome(f"m{i}"), position)
    states = [json.loads(e.state) for e in app.recorder.select_events(LEDGER_ID)]
    assert states and not any("stream_id" in s for s in states)


def ledger(app: ScoringApplication) -> Ledger:
    found = app.find(LEDGER_ID)
    assert found is not None
    return found


def test_a_ledger_stored_before_streams_were_named_loads(app: ScoringApplication) -> None:
    legacy_ledger(app, 4, 9)
    loaded = ledger(app)
    assert (loaded.sequence, loaded.stream_seq, loaded.stream_id) == (2, 9, "")


def test_a_snapshot_stored_before_streams_were_named_loads(app: ScoringApplication) -> None:
    legacy_ledger(app, 4, 9)
    app.take_snapshot(LEDGER_ID)
    assert app.snapshots is not None
    snapshot = next(iter(app.snapshots.get(LEDGER_ID, desc=True, limit=1)))
    assert "stream_id" not in snapshot.state
    loaded = app.repository.get(LEDGER_ID)
    assert (loaded.sequence, loaded.stream_seq, loaded.stream_id) == (2, 9, "")
    assert app.follow_stream(NEW, 20) == Resume(9, adopted=True)
    assert app.repository.get(LEDGER_ID).stream_id == NEW


def test_a_fresh_store_names_the_stream_before_reading_it(app: ScoringApplication) -> None:
    assert app.follow_stream(OLD, 0) == Resume(0)
    assert (ledger(app).stream_id, ledger(app).stream_seq, ledger(app).sequence) == (OLD, 0, 0)
    app.score(outcome("m1"), 3, stream_id=OLD)
    assert app.follow_stream(OLD, 3) == Resume(3)  # the same stream: the position is kept
    assert len(list(app.recorder.select_events(LEDGER_ID))) == 3  # Opened, Followed, Applied


def test_a_stream_made_again_is_read_from_its_start(app: ScoringApplication) -> None:
    app.follow_stream(OLD, 0)
    for i in range(3):
        app.score(outcome(f"m{i}"), 10 * (i + 1), stream_id=OLD)
    resume = app.follow_stream(NEW, 50)  # already beyond the old position: the name tells
    assert resume.position == 0 and "made again" in resume.restarted and OLD in resume.restarted
    assert (ledger(app).stream_id, ledger(app).stream_seq) == (NEW, 0)
    assert app.follow_stream(NEW, 50) == Resume(0)  # recorded: decided once
    assert app.score(outcome("m0"), 1, stream_id=NEW).new is False  # read again: no change
    app.score(outcome("m9"), 2, stream_id=NEW)
    assert (ledger(app).stream_seq, ledger(app).sequence) == (2, 4)


def test_a_position_beyond_the_stream_is_dropped_whatever_the_name(app: ScoringApplication) -> None:
    app.follow_stream(OLD, 0)
    app.score(outcome("m1"), 30, stream_id=OLD)
    resume = app.follow_stream(OLD, 12)
    assert resume.position == 0 and "beyond the stream's last sequence 12" in resume.restarted


def test_a_legacy_ledger_adopts_the_stream_it_reads(app: ScoringApplication) -> None:
    legacy_ledger(app, 4, 9)
    assert app.follow_stream(OLD, 9) == Resume(9, adopted=True)
    assert (ledger(app).stream_id, ledger(app).stream_seq) == (OLD, 9)
    assert app.follow_stream(OLD, 9) == Resume(9)


def test_a_legacy_ledger_beyond_the_stream_reads_it_again(app: ScoringApplication) -> None:
    legacy_ledger(app, 4, 9)
    resume = app.follow_stream(NEW, 5)
    assert resume.position == 0 and not resume.adopted and "beyond" in resume.restarted
    assert (ledger(app).stream_id, ledger(app).stream_seq) == (NEW, 0)


def test_an_unknown_stream_identity_is_judged_by_position_alone(app: ScoringApplication) -> None:
    app.follow_stream(OLD, 0)
    app.score(outcome("m1"), 8, stream_id=OLD)
    assert app.follow_stream("", 8) == Resume(8)
    assert app.follow_stream("", 7).position == 0
    assert ledger(app).stream_id == OLD


def test_a_result_of_another_stream_than_the_ledgers_is_not_saved(app: ScoringApplication) -> None:
    app.follow_stream(OLD, 0)
    app.score(outcome("m1"), 5, stream_id=OLD)
    app.follow_stream(NEW, 2)  # another instance found the stream made again
    with pytest.raises(StreamChanged):
        app.score(outcome("m2"), 6, stream_id=OLD)
    assert (ledger(app).stream_seq, ledger(app).sequence) == (0, 1)
    app.board.catch_up()
    assert ("neon", "m2") not in app.board.results


def test_the_stream_identity_is_its_creation_time() -> None:
    created = datetime.datetime(2026, 6, 7, 8, 9, 10, 654321, tzinfo=datetime.UTC)
    info: Any = SimpleNamespace(created=created)
    assert stream_identity(info) == NEW
    assert stream_identity(SimpleNamespace(created=None)) == ""
