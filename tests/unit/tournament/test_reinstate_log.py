"""Reinstatement in the tournament's log and the bundle check, without any service: a Swiss
of six on the Tournament aggregate in memory. p3 never comes to its round 1 table and is
dropped as a no-show before round 2 (NoShowDropped); the organiser reinstates p3 once round
2 is paired (PlayerReinstated, from round 3), and p3 is paired again in round 3. The bundle
check recomputes the pairings and the standings with the reinstatement, and names a forged
one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from services.platform.signing import public_key_hex
from services.tournament import formats, noshows
from services.tournament import log as tlog
from services.tournament.bundle import build_bundle, verify_bundle
from services.tournament.core.model import FormatConfig, TableResult
from tests.support.tournament_log import KEY, log_records, publish_checkpoint, started

PLAYERS = [f"p{i}" for i in range(6)]
SWISS = FormatConfig.from_dict({"format": "swiss", "rounds": 4,
                                "tiebreaks": ["buchholz", "wins"]}).to_dict()


def run(*, rounds: int = 3, away: tuple[int, ...] = (1,), back: str = "genuine",
        when: int = 2) -> list[dict[str, Any]]:
    """``rounds`` rounds; p3 never comes in the rounds ``away``, and NextRound's drops
    happen as the log calls for them. After round ``when`` is paired the organiser
    reinstates p3 (``back``: "genuine"; "none": no reinstatement; "unrecorded": round
    ``when`` + 1 is paired as if p3 were reinstated, but the log has no reinstatement;
    "early": the reinstatement names round ``when``, already paired; "playing": p1, who
    plays, is reinstated instead)."""
    events: list[Any] = []
    t = started(PLAYERS, SWISS)
    for number in range(1, rounds + 1):
        replayed = tlog.replay_log(log_records(t, events))
        for n in noshows.due(replayed):
            t.drop_no_show(n.player_id, n.round, n.table, n.match_id, n.reason)
        replayed = tlog.replay_log(log_records(t, events))
        history = replayed.history()
        if back == "unrecorded" and number == when + 1:
            history = replace(history, reinstated=(("p3", number),))
        tables = formats.pair(replayed.config, history)
        t.pair_round(number, [tlog.table_json(k) for k in tables])
        if number == when and back != "none":
            player = "p1" if back == "playing" else "p3"
            first = number if back == "early" else number + 1
            if back != "unrecorded":
                t.reinstate(player, first, "client failed to ready; arbiter agreed", "org")
        for k in tables:
            if k.bye:
                continue
            match_id = f"unit-r{number}-t{k.number}"
            t.match_created(number, k.number, match_id, "127.0.0.1:1", "c", 0.0)
            absent = [i for i, p in enumerate(k.seats) if number in away and p == "p3"]
            t.match_started(number, k.number, absent)
            forfeited = tuple(k.seats[i] for i in absent)
            result = TableResult(table=k.number, seats=k.seats,
                                 placements=(1, 2) if k.seats[1] in forfeited or not forfeited
                                 else (2, 1),
                                 kind="forfeit" if forfeited else "played",
                                 forfeited=forfeited, match_id=match_id)
            t.correct_result(number, k.number, tlog.result_json(result), "entered by hand", "org")
        publish_checkpoint(t, events, number)
        replayed = tlog.replay_log(log_records(t, events))
        rows = [formats.row_json(r)
                for r in formats.standings(replayed.config, replayed.history())]
        t.publish_standings(rows, False)
    return log_records(t, events)


def verified(records: list[dict[str, Any]]) -> Any:
    return verify_bundle(build_bundle("unit", "g", records, {}, KEY, []), public_key_hex(KEY))


def seated(records: list[dict[str, Any]], number: int) -> set[str]:
    paired = [r for r in records if r["type"] == "RoundPaired"][number - 1]
    return {p for k in paired["tables"] for p in k["seats"]}


def test_a_no_show_dropped_then_reinstated_plays_again_and_the_bundle_verifies() -> None:
    records = run()
    assert ["p3" in seated(records, n) for n in (1, 2, 3)] == [True, False, True]
    back = next(r for r in records if r["type"] == "PlayerReinstated")
    assert {k: back[k] for k in ("player_id", "from_round", "reason", "by")} == {
        "player_id": "p3", "from_round": 3,
        "reason": "client failed to ready; arbiter agreed", "by": "org"}
    replayed = tlog.replay_log(records)
    assert replayed.reinstated == [("p3", 3)]
    row = next(r for r in replayed.standings or [] if r["player_id"] == "p3")
    assert row["dropped"] is False and row["games"] == 1  # round 1 forfeited, 2 missed
    report = verified(records)
    assert report.ok, report.failures
    assert ("reinstatements: 1 of a dropped player, each before the round it names was "
            "paired (p3 from round 3)") in report.checks, report.checks


def test_a_reinstated_player_who_misses_again_is_dropped_again_and_verifies() -> None:
    records = run(rounds=4, away=(1, 3))
    assert ["p3" in seated(records, n) for n in (1, 2, 3, 4)] == [True, False, True, False]
    drops = [(r["player_id"], r["after_round"]) for r in records
             if r["type"] == "NoShowDropped"]
    assert drops == [("p3", 1), ("p3", 3)]
    report = verified(records)
    assert report.ok, report.failures


def test_without_a_reinstatement_the_no_show_stays_out() -> None:
    records = run(back="none")
    assert "p3" not in seated(records, 3)
    assert verified(records).ok


@pytest.mark.parametrize("back,failure", [
    ("unrecorded", "round 3: table"),
    ("early", "reinstatement of p3 from round 2: the next round to be paired is 3"),
    ("playing", "reinstatement of p1 from round 3: p1 is not dropped"),
])
def test_a_forged_reinstatement_fails_the_check(back: str, failure: str) -> None:
    report = verified(run(back=back))
    assert not report.ok
    assert any(f.startswith(failure) for f in report.failures), report.failures
