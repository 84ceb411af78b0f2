"""No-shows in the tournament's log and the bundle check, without any service: a Swiss of
five on the Tournament aggregate in memory, p3 never comes to its round 1 table (the match
started with p3's seat absent, p3 forfeited). ``FormatConfig.drop_no_shows`` (on for new
Swiss and multiplayer events, off for a format stored by an earlier release) says whether
the log must drop p3 before round 2; the bundle check recomputes the no-shows from the log
and fails a missing drop, or a no-show drop of a player who came."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.signing import public_key_hex
from services.tournament import formats, noshows
from services.tournament import log as tlog
from services.tournament.bundle import build_bundle, verify_bundle
from services.tournament.core.model import FormatConfig, TableResult, TournamentError
from tests.support.tournament_log import KEY, finish, log_records, publish_checkpoint, started

PLAYERS = [f"p{i}" for i in range(5)]
NEW = FormatConfig.from_dict({"format": "swiss", "rounds": 2,
                              "tiebreaks": ["buchholz", "wins"]}).to_dict()
EARLIER = {"format": "swiss", "rounds": 2, "tiebreaks": ["buchholz", "wins"]}
"""A format as a release before drop_no_shows (and pairing_version) stored it."""


def run(fmt: dict[str, Any], *, drop: bool = True, forge: str = "") -> list[dict[str, Any]]:
    """Two rounds; in round 1 p3 never comes (absent when its match started, forfeited) and
    p0 comes and loses. Before round 2 the no-shows the log calls for are dropped, as
    NextRound does (unless not ``drop``), and ``forge`` is dropped as a no-show too."""
    events: list[Any] = []
    t = started(PLAYERS, fmt)
    for number in (1, 2):
        replayed = tlog.replay_log(log_records(t, events))
        if number == 2:
            for n in noshows.due(replayed) if drop else ():
                t.drop_no_show(n.player_id, n.round, n.table, n.match_id, n.reason)
            if forge:
                table = next(k for k in replayed.rounds[0]["tables"] if forge in k.seats)
                t.drop_no_show(forge, 1, table.number, f"unit-r1-t{table.number}",
                               "no-show in round 1")
            replayed = tlog.replay_log(log_records(t, events))
        tables = formats.pair(replayed.config, replayed.history())
        t.pair_round(number, [tlog.table_json(k) for k in tables])
        for k in tables:
            if k.bye:
                continue
            match_id = f"unit-r{number}-t{k.number}"
            t.match_created(number, k.number, match_id, "127.0.0.1:1", "c", 0.0)
            absent = [i for i, p in enumerate(k.seats) if number == 1 and p == "p3"]
            t.match_started(number, k.number, absent)
            forfeited = tuple(k.seats[i] for i in absent)
            last = {"p3", "p0"} if number == 1 else {k.seats[1]}
            result = TableResult(table=k.number, seats=k.seats,
                                 placements=tuple(2 if p in last else 1 for p in k.seats),
                                 kind="forfeit" if forfeited else "played",
                                 forfeited=forfeited, match_id=match_id)
            t.correct_result(number, k.number, tlog.result_json(result), "entered by hand", "org")
        publish_checkpoint(t, events, number)
    return finish(t, events)


def verified(records: list[dict[str, Any]]) -> Any:
    return verify_bundle(build_bundle("unit", "g", records, {}, KEY, []), public_key_hex(KEY))


def seated(records: list[dict[str, Any]], number: int) -> dict[str, bool]:
    """Round ``number``'s players, each with whether it has the bye."""
    paired = [r for r in records if r["type"] == "RoundPaired"][number - 1]
    return {p: k["bye"] for k in paired["tables"] for p in k["seats"]}


def test_new_swiss_and_multiplayer_events_drop_no_shows_the_others_cannot() -> None:
    assert FormatConfig("swiss").drop_no_shows is True
    assert FormatConfig("multiplayer", table_sizes=(3, 4)).drop_no_shows is True
    for fmt in ("round-robin", "single-elimination", "double-elimination"):
        assert FormatConfig(fmt).drop_no_shows is False
        with pytest.raises(TournamentError, match="drop_no_shows"):
            FormatConfig(fmt, drop_no_shows=True)
    assert FormatConfig("swiss", drop_no_shows=False).drop_no_shows is False
    with pytest.raises(TournamentError, match="drop_no_shows"):
        FormatConfig.from_dict({"format": "swiss", "drop_no_shows": "yes"})
    assert FormatConfig.from_dict({"format": "swiss"}).to_dict()["drop_no_shows"] is True


def test_a_format_stored_by_an_earlier_release_does_not_drop_no_shows() -> None:
    assert FormatConfig.from_stored(EARLIER).drop_no_shows is False
    assert FormatConfig.from_stored(NEW).drop_no_shows is True
    assert FormatConfig.from_stored({**NEW, "drop_no_shows": False}).drop_no_shows is False


def test_the_log_names_the_no_show_its_drop_and_the_bundle_verifies() -> None:
    records = run(NEW)
    replayed = tlog.replay_log(records)
    found = noshows.of_round(replayed, 1)
    assert found == [noshows.NoShow("p3", 1, 2, "unit-r1-t2")]
    assert found[0].reason == "no-show in round 1"
    assert noshows.of_round(replayed, 2) == []
    assert ("p3", 1) in replayed.dropped
    assert "p3" not in seated(records, 2) and not any(seated(records, 2).values())
    drop = next(r for r in records if r["type"] == "NoShowDropped")
    assert {k: drop[k] for k in ("player_id", "after_round", "table", "match_id", "reason")} \
        == {"player_id": "p3", "after_round": 1, "table": 2, "match_id": "unit-r1-t2",
            "reason": "no-show in round 1"}
    report = verified(records)
    assert report.ok, report.failures
    assert "no-shows: 1 dropped after the round they did not come to (p3 after round 1)" \
        in report.checks, report.checks
    final = replayed.standings or []
    assert next(r for r in final if r["player_id"] == "p3")["dropped"]


def test_a_no_show_left_in_the_next_round_fails_the_check() -> None:
    """The pairings recompute (the log drops nobody, the rules pair everyone): only the
    no-show check sees that p3 should have been dropped; p3 even had round 2's bye."""
    records = run(NEW, drop=False)
    assert seated(records, 2)["p3"] is True
    report = verified(records)
    assert not report.ok
    assert report.failures == [
        "no-shows: p3 did not come to round 1 (table 2, match unit-r1-t2) and was not "
        "dropped before round 2 was paired (the format drops no-shows)"]


def test_a_no_show_drop_of_a_player_who_came_fails_the_check() -> None:
    records = run(NEW, forge="p0")  # p0 came and lost
    report = verified(records)
    assert not report.ok
    assert report.failures == [
        "no-shows: the log drops p0 as a no-show of round 1 (table 1), but p0 was there "
        "(not absent when the match started, or not forfeited)"]


def test_a_log_of_an_earlier_release_pairs_its_no_show_again_and_verifies() -> None:
    """Published logs recompute as they were published: no setting, no drop, and the
    no-show had round 2's bye, as that release paired it."""
    records = run(EARLIER)
    replayed = tlog.replay_log(records)
    assert replayed.config is not None and not replayed.config.drop_no_shows
    assert noshows.of_round(replayed, 1) == [noshows.NoShow("p3", 1, 2, "unit-r1-t2")]
    assert noshows.due(replayed) == []
    assert seated(records, 2)["p3"] is True
    report = verified(records)
    assert report.ok, report.failures
    assert not any("no-show" in c for c in report.checks), report.checks


def test_a_no_show_drop_in_a_format_that_keeps_no_shows_fails_the_check() -> None:
    report = verified(run(EARLIER, drop=False, forge="p3"))
    assert not report.ok
    assert report.failures == [
        "no-shows: the log drops p3 as a no-show of round 1, but the format does not drop "
        "no-shows (drop_no_shows is off)"]
