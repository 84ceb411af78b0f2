"""The copies of a tournament that reads hand out share its rounds (``app._copied``), which is
sound only because no event changes a round in place (``Tournament._changing``).

Every read of the cached tournament made a whole copy of it, rounds and all, so each result
of a big Swiss cost more than the last (35 ms in round 1 of a 256-player Swiss, 146 ms in
round 7, most of it copies). Here a tournament goes through every event that changes a round,
each saved on a real SQLite store with the service's cache: a copy handed out before an event
is never changed by it (neither by the store bringing its cached tournament up to date, nor
by a command applying the event to its own copy), and every copy equals the tournament
rebuilt from its log.
"""

from __future__ import annotations

import json
import pickle
import time
from pathlib import Path
from typing import Any

from services.tournament.app import TournamentApplication
from services.tournament.domain import Tournament
from tests.unit.tournament.support import sqlite_app, started_swiss

PLAYERS = 64


def _state(t: Tournament) -> str:
    """The tournament's state as it is now, in canonical JSON (its pending events left
    out)."""
    return json.dumps({k: v for k, v in vars(t).items() if k != "_pending_events"},
                      sort_keys=True, default=str)


def _started(app: TournamentApplication) -> list[str]:
    t, names = started_swiss("shared", PLAYERS, 4)
    app.save(t)
    return names


def _round_events(number: int, names: list[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """Every kind of event that changes round ``number``, in an order a round may see."""
    tables = PLAYERS // 2
    mid = f"shared-r{number}-t"
    steps: list[tuple[str, tuple[Any, ...]]] = [
        ("pair_round", (number, [{"number": k + 1, "seats": [names[2 * k], names[2 * k + 1]],
                                  "bye": False, "note": ""} for k in range(tables)]))]
    for k in range(1, tables + 1):
        steps.append(("match_created", (number, k, f"{mid}{k}", "", "c" * 64, time.time())))
    steps += [
        ("seat_ready", (number, 1, 0, names[0])),
        ("seat_ready", (number, 1, 1, names[1])),
        ("match_started", (number, 1, [])),
        ("record_result", (number, 1, {"table": 1, "placements": [1, 2]}, {"sig": "s"})),
        ("match_sealed", (number, 1, f"{mid}1", "h" * 64, 10)),
        ("correct_result", (number, 2, {"table": 2, "placements": [2, 1]}, "paper", "org")),
        ("match_abandoned", (number, 2, f"{mid}2", "stopped", "tournament")),
        ("match_abandoned", (number, 3, f"{mid}3", "broken", "org")),
        ("table_rematched", (number, 3, f"{mid}3", "h" * 64, 4, "again", "org")),
        ("match_created", (number, 3, f"{mid}3-g2", "", "d" * 64, time.time())),
    ]
    for k in range(3, tables + 1):
        steps.append(("record_result", (number, k, {"table": k, "placements": [1, 2]},
                                        {"sig": "s"})))
    steps.append(("publish_checkpoint", (number, {"root": "r" * 64, "round": number})))
    return steps


def test_no_event_changes_a_copy_handed_out_before_it(tmp_path: Path) -> None:
    app = sqlite_app(tmp_path / "tournament.sqlite")
    try:
        names = _started(app)
        handed: list[tuple[Tournament, str]] = []
        for number in (1, 2, 3):
            for command, args in _round_events(number, names):
                before = app.find("shared")  # a reader's copy, from the cache
                assert before is not None
                handed.append((before, _state(before)))
                t = app.find("shared")  # the command's own copy
                assert t is not None
                getattr(t, command)(*args)
                app.save(t)
                # the command's copy took the event; the reader's copy did not change
                assert t.version == before.version + 1
                assert _state(before) == handed[-1][1], (number, command)
        for copy, state in handed:  # nor did any later event change an earlier copy
            assert _state(copy) == state
        now = app.find("shared")
        assert now is not None
        rebuilt = app.repository.get(now.id, version=now.version)  # from the log
        assert _state(now) == _state(rebuilt)
        assert len(now.rounds) == 3 and all(r["checkpoint"] for r in now.rounds)
        assert now.round(3)["earlier"]["3"][0]["match_id"] == "shared-r3-t3"
        assert now.round(3)["ready"]["1"] == [0, 1]
    finally:
        app.close()


def test_a_copy_is_the_tournament_as_it_is(tmp_path: Path) -> None:
    """Two copies are equal to each other and to a whole (pickled) copy, and independent: a
    change to one (its own rounds list, its players) is not seen by the other."""
    app = sqlite_app(tmp_path / "tournament.sqlite")
    try:
        names = _started(app)
        t = app.find("shared")
        assert t is not None
        t.pair_round(1, _round_events(1, names)[0][1][1])
        app.save(t)
        a, b = app.find("shared"), app.find("shared")
        assert a is not None and b is not None
        assert _state(a) == _state(b) == _state(pickle.loads(pickle.dumps(a)))
        a.match_created(1, 1, "shared-r1-t1", "", "c" * 64, 0.0)
        a.players[names[0]]["status"] = "dropped"
        assert b.round(1)["matches"] == {}
        assert b.players[names[0]]["status"] == "playing"
        assert app.find("shared").round(1)["matches"] == {}  # type: ignore[union-attr]
    finally:
        app.close()
