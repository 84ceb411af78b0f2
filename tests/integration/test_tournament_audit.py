"""Defects found walking the tournament as a clumsy or hostile organiser and player, over
real gRPC (the tournament and Neon Reign's rules services on sockets, real NATS):

- settings the rules service refuses (a clock of 25 hours, -1 timeouts) or that cannot be
  scored (NaN points) were accepted by CreateTournament: every match of round 1 then failed
  to be created, and the round waited for ever;
- CorrectResult with ``forfeited`` and no seat placed below another (a double forfeit, say
  placements 1,1) gave every seat a forfeit win;
- a player who withdrew and registered again shared their registration number with the
  next player to register, so the seed order (and round 1's bye) went by player id
  instead of who registered first.
"""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.tournament_commands import TournamentClient, format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import registered_swiss
from tests.integration.test_tournament_api import _code

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def b(reign_tournament_backend: Backend) -> Backend:
    return reign_tournament_backend


async def _complete(c: TournamentClient, tid: str, number: int) -> pb.Round:
    for _ in range(200):
        r = (await c.call("GetRound", tournament_id=tid, round=number)).round
        if r.complete:
            return r
        await asyncio.sleep(0.05)
    raise AssertionError(f"round {number} of {tid} did not complete")


async def test_settings_that_would_stall_or_break_the_event_are_refused_at_creation(
        b: Backend) -> None:
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    S = grpc.StatusCode
    ok = dict(tournament_id="bad_clock", game="neon-reign", mode="single",
              format_json=format_json("swiss", 1))
    try:
        for clock, named in (
                (pb.Clock(per_decision_ms=25 * 3600 * 1000), "per_decision_ms"),
                (pb.Clock(max_timeouts=-1), "max_timeouts"),
                (pb.Clock(max_timeouts=100_000), "max_timeouts"),
                (pb.Clock(bank_ms=60_000, increment_ms=25 * 3600 * 1000), "increment_ms"),
                (pb.Clock(bank_ms=10**12), "bank_ms")):
            code, why = await _code(c.call("CreateTournament", org, **ok, clock=clock))
            assert code == S.INVALID_ARGUMENT and named in why, (clock, code, why)
        for fmt, named in (('{"format": "swiss", "rounds": 1, "bye_points": NaN}', "bye_points"),
                           ('{"format": "swiss", "rounds": 1, "draw_points": "half"}',
                            "draw_points"),
                           ('{"format": "swiss", "rounds": 1.5}', "rounds")):
            code, why = await _code(c.call("CreateTournament", org,
                                           **{**ok, "format_json": fmt}))
            assert code == S.INVALID_ARGUMENT and named in why, (fmt, code, why)
        code, _ = await _code(c.call("GetTournament", tournament_id="bad_clock"))
        assert code == S.NOT_FOUND  # nothing was created by the refused calls
        # a good clock still makes a tournament whose round's match is created
        await c.call("CreateTournament", org, **ok,
                     clock=pb.Clock(per_decision_ms=30_000, max_timeouts=3))
        await c.call("OpenRegistration", org, tournament_id="bad_clock")
        for p in ("alice", "bob"):
            await c.call("Register", org, tournament_id="bad_clock", player_id=p)
        await c.call("StartTournament", org, tournament_id="bad_clock")
        paired = (await c.call("NextRound", org, tournament_id="bad_clock")).round
        assert paired.tables[0].status == pb.TABLE_STATUS_AWAITING_SEATS
        # a match id of round 0 is no match of the tournament (it read as the last round's)
        alice = b.issuer.issue("player", "*", player="alice", ttl=600)
        code, why = await _code(c.call("ReadyForMatch", alice, tournament_id="bad_clock",
                                       match_id="bad_clock-r0-t1"))
        assert code == S.NOT_FOUND and "no round 0" in why, (code, why)
    finally:
        await c.close()


async def test_a_forfeit_with_no_winner_is_a_double_forfeit(b: Backend) -> None:
    """Round 1: table 1 set by hand as forfeited with placements 1,1 (nobody came, nobody
    won): both seats lose by forfeit, 0 points each, no game; table 2 a plain forfeit. The
    bundle verifies with the corrections."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "double_ff"
    try:
        await registered_swiss(c, org, tid, ("p1", "p2", "p3", "p4"), 2)
        first = (await c.call("NextRound", org, tournament_id=tid)).round
        one, two = first.tables
        await c.call("CorrectResult", org, tournament_id=tid, round=1, table=one.number,
                     placements=[1, 1], forfeited=True, reason="nobody came")
        await c.call("CorrectResult", org, tournament_id=tid, round=1, table=two.number,
                     placements=[1, 2], forfeited=True, reason="seat 2 did not come")
        r = await _complete(c, tid, 1)
        assert r.tables[0].result.forfeited and r.tables[0].result.kind == "correction"
        rows = {row.player_id: row for row in
                (await c.call("GetStandings", tournament_id=tid)).rows}
        for p in one.seats:
            assert (rows[p].points, rows[p].games, rows[p].wins) == (0.0, 0, 0), rows[p]
        assert rows[two.seats[0]].points == 1.0 and rows[two.seats[1]].points == 0.0
        await c.call("ForceEnd", org, tournament_id=tid, reason="venue closed")
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await c.close()
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    records = [json.loads(x)["record"] for x in bundle.splitlines()
               if json.loads(x)["type"] == "LogRecord"]
    corrected = [r for r in records if r["type"] == "ResultCorrected"]
    assert sorted(corrected[0]["result"]["forfeited"]) == sorted(one.seats)
    assert corrected[0]["result"]["kind"] == "forfeit"


async def test_registering_again_after_withdrawing_keeps_the_registration_order(
        b: Backend) -> None:
    """zed and bob register; zed withdraws and registers again; amy registers last. Seed
    order (no ratings): bob, zed, amy, so round 1's bye (three players) goes to amy, the
    last to register. Before the fix zed and amy shared registration number 2, and amy's
    id sorted her above zed, so zed had the bye."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "reregister"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=format_json("swiss", 2))
        await c.call("OpenRegistration", org, tournament_id=tid)
        await c.call("Register", org, tournament_id=tid, player_id="zed")
        await c.call("Register", org, tournament_id=tid, player_id="bob")
        await c.call("Withdraw", org, tournament_id=tid, player_id="zed")
        await c.call("Register", org, tournament_id=tid, player_id="zed")
        await c.call("Register", org, tournament_id=tid, player_id="amy")
        shown = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert [p.player_id for p in shown.players] == ["bob", "zed", "amy"]
        await c.call("StartTournament", org, tournament_id=tid)
        first = (await c.call("NextRound", org, tournament_id=tid)).round
        bye = next(t for t in first.tables if t.bye)
        assert list(bye.seats) == ["amy"], [list(t.seats) for t in first.tables]
        await c.call("ForceEnd", org, tournament_id=tid, reason="test over")
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await c.close()
    records = [json.loads(x)["record"] for x in bundle.splitlines()
               if json.loads(x)["type"] == "LogRecord"]
    started = next(r for r in records if r["type"] == "Started")
    numbers = [e["registered"] for e in started["entrants"]]
    assert len(set(numbers)) == len(numbers), started["entrants"]
    assert verify_bundle(bundle).ok
