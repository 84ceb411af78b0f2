"""A player who never comes to their table, through the real services (gRPC, NATS, the
rules service's clock): the match starts without them when the check-in window runs out,
the no-show policy forfeits their seat, and the next round is paired without them (the
format's ``drop_no_shows``, on for new events). The bundle records the drop and verifies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import start_tournament_backend

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def b(reign_tournament_backend: Backend) -> Backend:
    return reign_tournament_backend


def organiser_and_players(b: Backend, names: list[str]) -> tuple[TournamentClient, str,
                                                                 dict[str, str]]:
    """A tournament client of ``b``, an organiser's token and each of ``names``' player token."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    return c, org, {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}


async def start_forfeiting_no_shows(c: TournamentClient, org: str, tokens: dict[str, str],
                                    tid: str, **create: Any) -> Any:
    """Create the tournament (``create``: its game, mode and format) with a 3 s check-in
    window, no-shows forfeited and a 1.5 s clock (one timeout), register every player of
    ``tokens`` with their own token, in order, start it and pair round 1: that round."""
    await c.call("CreateTournament", org, tournament_id=tid, check_in_seconds=3,
                 no_show=pb.NO_SHOW_POLICY_FORFEIT,
                 clock=pb.Clock(per_decision_ms=1500, max_timeouts=1), **create)
    await c.call("OpenRegistration", org, tournament_id=tid)
    for token in tokens.values():
        await c.call("Register", token, tournament_id=tid)
    await c.call("StartTournament", org, tournament_id=tid)
    return (await c.call("NextRound", org, tournament_id=tid)).round


def verified_log(bundle: str) -> tuple[Any, list[dict[str, Any]]]:
    """The bundle's check, which passes, and the tournament log's records it holds."""
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    return report, [json.loads(x)["record"] for x in bundle.splitlines()
                    if json.loads(x)["type"] == "LogRecord"]


async def no_move_seats(b: Backend, match_id: str) -> Any:
    """The match's MatchEnded ``no_move_seats`` (services/rules/noshow.py), from its export,
    which verifies: the signed result carries it to scoring, which rates no such match. The
    tournament keeps its own forfeit result (the standings below)."""
    rules = RulesClient(b.address("rules-neon-reign"))
    try:
        data = (await rules.export(b.organiser_token(), match_id)).export_jsonl
    finally:
        await rules.close()
    report = verify_export(data)
    assert report.ok, report.failure
    records = [json.loads(line) for line in data.splitlines()[:-1]]
    return next(r for r in records if r["type"] == "MatchEnded").get("no_move_seats")


async def play_round(c: TournamentClient, rules: dict[str, RulesClient], tokens: dict[str, str],
                     tid: str, came: list[str], number: int, timeout: float) -> Any:
    """The players who ``came`` play round ``number`` as bots (the others never ready);
    the round once every table's result is in."""
    await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=timeout)
                           for n in came))
    return await wait_round_complete(c, tid, number, timeout)


async def test_a_player_who_never_came_is_not_paired_in_the_next_round(b: Backend) -> None:
    """Five players: round 1 pairs p0-p2 and p1-p3, p4 has the bye. p3 never readies. Round
    2 pairs the four who came, with no bye (an earlier release paired p3 again, and its 0
    points made it the likeliest to get the pairing bye)."""
    names = [f"p{i}" for i in range(5)]
    c, org, tokens = organiser_and_players(b, names)
    rules: dict[str, RulesClient] = {}
    tid = "gone"
    try:
        first = await start_forfeiting_no_shows(c, org, tokens, tid, game="neon-reign",
                                                mode="single", format_json=format_json("swiss", 2))
        assert [list(t.seats) for t in first.tables] == [["p0", "p2"], ["p3", "p1"], ["p4"]]
        came = [n for n in names if n != "p3"]
        first = await play_round(c, rules, tokens, tid, came, 1, 60)
        gone = first.tables[1]
        assert gone.result.kind == "forfeit" and gone.result.forfeited
        assert list(gone.result.placements) == [2, 1]
        assert await no_move_seats(b, gone.match_id) == [0]  # p3's: scoring rates it not
        assert await no_move_seats(b, first.tables[0].match_id) == []
        t = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert {p.player_id: p.status for p in t.players}["p3"] == "playing"  # until round 2
        second = (await c.call("NextRound", org, tournament_id=tid)).round
        seated = [p for k in second.tables for p in k.seats]
        assert sorted(seated) == ["p0", "p1", "p2", "p4"]
        assert not any(k.bye for k in second.tables)
        t = (await c.call("GetTournament", tournament_id=tid)).tournament
        statuses = {p.player_id: p.status for p in t.players}
        assert statuses == {"p0": "playing", "p1": "playing", "p2": "playing",
                            "p3": "dropped", "p4": "playing"}
        mine = await c.call("MyNextMatch", tokens["p3"], tournament_id=tid)
        assert not mine.HasField("assignment")
        await play_round(c, rules, tokens, tid, came, 2, 60)
        rows = (await c.call("FinishTournament", org, tournament_id=tid)).rows
        p3 = next(r for r in rows if r.player_id == "p3")
        assert p3.dropped and p3.points == 0 and p3.games == 0
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await close_all(rules)
        await c.close()
    report, records = verified_log(bundle)
    assert "no-shows: 1 dropped after the round they did not come to (p3 after round 1)" \
        in report.checks, report.checks
    drops = [r for r in records if r["type"] == "NoShowDropped"]
    assert [(r["player_id"], r["after_round"], r["table"], r["match_id"], r["reason"])
            for r in drops] == [("p3", 1, 2, "gone-r1-t2", "no-show in round 1")]
    started = next(r for r in records if r["type"] == "MatchStarted" and r["table"] == 2)
    assert started["absent"] == [0]  # p3's seat


async def test_a_multiplayer_seat_that_never_came_is_not_seated_again(
        tmp_path: Path, nats_url: str) -> None:
    """NEON at one table of four; n2 never readies, its seat is forfeited while the three
    others play on. Round 2 seats the three who came, at a table of three."""
    nb = await start_tournament_backend(tmp_path, nats_url, "neon")
    names = [f"n{i}" for i in range(4)]
    c, org, tokens = organiser_and_players(nb, names)
    rules: dict[str, RulesClient] = {}
    tid = "gone_mp"
    came = [n for n in names if n != "n2"]
    try:
        fmt = format_json("multiplayer", 2, table_sizes="3,4", points="4,2,1,0")
        first = await start_forfeiting_no_shows(c, org, tokens, tid, game="neon",
                                                mode="rebirth", format_json=fmt)
        assert [sorted(t.seats) for t in first.tables] == [names]
        first = await play_round(c, rules, tokens, tid, came, 1, 120)
        assert first.tables[0].result.forfeited
        second = (await c.call("NextRound", org, tournament_id=tid)).round
        assert [sorted(t.seats) for t in second.tables] == [came]
        t = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert {p.player_id: p.status for p in t.players}["n2"] == "dropped"
        await play_round(c, rules, tokens, tid, came, 2, 120)
        await c.call("FinishTournament", org, tournament_id=tid)
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await close_all(rules)
        await c.close()
        await nb.stop(1)
    report, _ = verified_log(bundle)
    assert "no-shows: 1 dropped after the round they did not come to (n2 after round 1)" \
        in report.checks, report.checks


async def play_late(c: TournamentClient, rules: dict[str, RulesClient], token: str, tid: str,
                    player: str, timeout: float) -> str:
    """Never ready, never seed: wait until the table's match started without ``player``
    (the check-in window ran out), then play its seat to the end as a bot. Its match id."""
    from services.cli.client import client_for
    from services.platform import playing

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        a = (await c.call("MyNextMatch", token, tournament_id=tid)).assignment
        if a.status == pb.TABLE_STATUS_RUNNING:
            break
        assert asyncio.get_running_loop().time() < deadline, f"{player}: never started"
        await asyncio.sleep(0.05)
    rc = client_for(rules, a.rules_address)
    await playing.play_seat(rc.stub, a.seat_token, a.match_id,
                            playing.random_choice(f"{player}:{a.match_id}"), seat=a.seat,
                            wait=10.0)
    return str(a.match_id)


async def test_a_player_who_missed_the_check_in_but_played_is_not_forfeited(b: Backend) -> None:
    """p1 never readies: its match starts without it when the 3 s window runs out (the log's
    MatchStarted names its seat absent), but p1 comes and plays its seat to the end. The
    match's signed result says p1 moved (no_move_seats []), so the result is the game's,
    not p1's forfeit loss (a game played in the standings), and the bundle verifies. An
    earlier release forfeited every absent seat, whatever the match said."""
    names = ["p0", "p1"]
    c, org, tokens = organiser_and_players(b, names)
    rules: dict[str, RulesClient] = {}
    tid = "late"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, check_in_seconds=3,
                     no_show=pb.NO_SHOW_POLICY_FORFEIT, game="neon-reign", mode="single",
                     clock=pb.Clock(per_decision_ms=8000, max_timeouts=1),
                     format_json=format_json("swiss", 1))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for token in tokens.values():
            await c.call("Register", token, tournament_id=tid)
        await c.call("StartTournament", org, tournament_id=tid)
        await c.call("NextRound", org, tournament_id=tid)
        _, match_id = await asyncio.gather(
            play_round_as(c, rules, tokens["p0"], tid, "p0", timeout=60),
            play_late(c, rules, tokens["p1"], tid, "p1", 60))
        first = await wait_round_complete(c, tid, 1, 60)
        table = first.tables[0]
        assert table.match_id == match_id
        assert await no_move_seats(b, match_id) == []
        assert table.result.kind == "played" and not table.result.forfeited
        rows = {r.player_id: r for r in
                (await c.call("FinishTournament", org, tournament_id=tid)).rows}
        assert rows["p1"].games == 1 and not rows["p1"].dropped  # a game, not a forfeit
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await close_all(rules)
        await c.close()
    report, records = verified_log(bundle)
    started = next(r for r in records if r["type"] == "MatchStarted")
    p1 = list(table.seats).index("p1")
    assert started["absent"] == [p1]
    recorded = next(r for r in records if r["type"] == "ResultRecorded")
    assert recorded["result"]["forfeited"] == [] and recorded["result"]["kind"] == "played"
    created = next(r for r in records if r["type"] == "Created")
    assert created["settings"]["log_version"] == 2
