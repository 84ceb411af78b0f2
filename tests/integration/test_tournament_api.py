"""The tournament API over real gRPC: clear statuses for bad input and wrong tokens, and a
no-show forfeited by the rules service's clock after the check-in window."""

from __future__ import annotations

import asyncio
import json
import uuid

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import bus
from services.platform.grpc_kit import call_metadata
from services.tournament.bundle import verify_bundle

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def b(reign_tournament_backend: Backend) -> Backend:
    return reign_tournament_backend


async def _code(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value.code(), caught.value.details() or ""


async def test_bad_input_gets_a_clear_status(b: Backend) -> None:
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    alice = b.issuer.issue("player", "*", player="alice", ttl=600)
    S = grpc.StatusCode
    try:
        ok = dict(tournament_id="api_1", game="neon-reign", mode="single",
                  format_json=format_json("swiss", 1))  # two players: one round, no rematch
        assert (await _code(c.call("CreateTournament", None, **ok)))[0] == S.UNAUTHENTICATED
        assert (await _code(c.call("CreateTournament", alice, **ok)))[0] == S.PERMISSION_DENIED
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "tournament_id": "a b"}))
        assert code == S.INVALID_ARGUMENT and "tournament_id" in why
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "format_json": '{"format": "chess960"}'}))
        assert code == S.INVALID_ARGUMENT and "unknown format" in why
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "format_json": "{"}))
        assert code == S.INVALID_ARGUMENT and "format_json" in why
        deep = "[" * 100_000  # past the JSON parser's recursion limit
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "format_json": deep}))
        assert code == S.INVALID_ARGUMENT and "format_json" in why, (code, why)
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "options_json": deep}))
        assert code == S.INVALID_ARGUMENT and "options_json" in why, (code, why)
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "game": "chess"}))
        assert code == S.INVALID_ARGUMENT and "unknown game 'chess'" in why, (code, why)
        code, why = await _code(c.call("CreateTournament", org, **{**ok, "mode": "speed"}))
        assert code == S.INVALID_ARGUMENT and "unknown mode" in why
        code, why = await _code(c.call("CreateTournament", org, **{
            **ok, "format_json": format_json("multiplayer", 2, table_sizes="3,4")}))
        assert code == S.INVALID_ARGUMENT and "tables of 3" in why
        for fmt, named in (("round-robin", "a round-robin"),
                           ("single-elimination", "an elimination bracket")):
            # their pairing refuses a round with a late entry: refused at the creation, not
            # when the tournament has run into it
            code, why = await _code(c.call("CreateTournament", org, **{
                **ok, "format_json": json.dumps({"format": fmt, "late_entry_until": 2})}))
            assert code == S.INVALID_ARGUMENT and f"{named} takes no late entries" in why, why
        first = await c.call("CreateTournament", org, **ok)
        again = await c.call("CreateTournament", org, **ok)  # idempotent
        assert first.tournament.version == again.tournament.version
        code, _ = await _code(c.call("CreateTournament", org, **{**ok, "name": "other"}))
        assert code == S.ALREADY_EXISTS
        code, why = await _code(c.call("Register", alice, tournament_id="api_1"))
        assert code == S.FAILED_PRECONDITION and "registration is not open" in why
        await c.call("OpenRegistration", org, tournament_id="api_1")
        code, _ = await _code(c.call("Register", alice, tournament_id="api_1", player_id="bob"))
        assert code == S.PERMISSION_DENIED
        code, why = await _code(c.call("Register", org, tournament_id="api_1", player_id="bot-7"))
        assert code == S.INVALID_ARGUMENT and "reserved for bots" in why
        await c.call("Register", alice, tournament_id="api_1")
        code, why = await _code(c.call("StartTournament", org, tournament_id="api_1"))
        assert code == S.FAILED_PRECONDITION and "at least 2 players" in why
        code, why = await _code(c.call("NextRound", org, tournament_id="api_1"))
        assert code == S.FAILED_PRECONDITION and "not running" in why
        await c.call("Register", org, tournament_id="api_1", player_id="bob")
        await c.call("StartTournament", org, tournament_id="api_1")
        mine_stream = c.stub.WatchMyMatches(pb.WatchMyMatchesRequest(tournament_id="api_1"),
                                            metadata=call_metadata(alice), timeout=30)
        everyone = c.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id="api_1"),
                                          timeout=30)
        first_seen = await mine_stream.read()
        assert not first_seen.HasField("assignment")
        assert (await everyone.read()).tournament.status == pb.TOURNAMENT_STATUS_RUNNING
        paired = await c.call("NextRound", org, tournament_id="api_1")
        handed = await mine_stream.read()
        while not handed.assignment.seat_token:
            handed = await mine_stream.read()
        assert handed.assignment.match_id == paired.round.tables[0].match_id
        assert handed.assignment.seats == paired.round.tables[0].seats
        seen = await everyone.read()
        while not seen.HasField("round"):
            seen = await everyone.read()
        assert seen.round.number == 1 and seen.tournament.rounds_paired == 1
        mine_stream.cancel()
        everyone.cancel()
        bob = b.issuer.issue("player", "*", player="bob", ttl=600)
        other = c.stub.WatchMyMatches(pb.WatchMyMatchesRequest(tournament_id="api_1"),
                                      metadata=call_metadata(bob), timeout=30)
        bobs = await other.read()
        assert bobs.assignment.seat_token != handed.assignment.seat_token  # each its own seat
        other.cancel()
        assert paired.round.number == 1 and len(paired.round.tables) == 1
        again_round = await c.call("NextRound", org, tournament_id="api_1", round=1)
        assert again_round.round.tables[0].match_id == paired.round.tables[0].match_id
        code, why = await _code(c.call("NextRound", org, tournament_id="api_1"))
        assert code == S.FAILED_PRECONDITION and "still waits for the results" in why
        code, why = await _code(c.call("CorrectResult", org, tournament_id="api_1", round=1,
                                       table=1, placements=[1, 2]))
        assert code == S.INVALID_ARGUMENT and "reason" in why
        code, why = await _code(c.call("CorrectResult", org, tournament_id="api_1", round=1,
                                       table=1, placements=[1, 7], reason="typo"))
        assert code == S.INVALID_ARGUMENT and "placements" in why
        code, _ = await _code(c.call("GetRound", tournament_id="nope", round=1))
        assert code == S.NOT_FOUND
        code, _ = await _code(c.call("FinishTournament", org, tournament_id="api_1"))
        assert code == S.FAILED_PRECONDITION
        mine = await c.call("MyNextMatch", alice, tournament_id="api_1")
        assert mine.assignment.match_id == paired.round.tables[0].match_id and mine.assignment.seat_token
        code, _ = await _code(c.call("ReadyForMatch", alice, tournament_id="api_1", match_id="zzz"))
        assert code == S.INVALID_ARGUMENT
        ended = await c.call("ForceEnd", org, tournament_id="api_1", reason="venue closed")
        assert ended.tournament.status == pb.TOURNAMENT_STATUS_FORCE_ENDED
    finally:
        await c.close()


async def test_a_swiss_longer_than_its_players_allow_does_not_start(b: Backend) -> None:
    """Four players meet every other after three rounds: a fourth could only be a rematch,
    so StartTournament says so, not NextRound after three rounds (the README's example)."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        for tid, rounds in (("four_in_4", 4), ("four_in_3", 3)):
            await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                         mode="single", format_json=format_json("swiss", rounds))
            await c.call("OpenRegistration", org, tournament_id=tid)
            for p in ("alice", "bob", "carol", "dave"):
                await c.call("Register", org, tournament_id=tid, player_id=p)
        code, why = await _code(c.call("StartTournament", org, tournament_id="four_in_4"))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "4 players" in why and "at most 3 rounds" in why, why
        started = await c.call("StartTournament", org, tournament_id="four_in_3")
        assert started.tournament.planned_rounds == 3
    finally:
        await c.close()


@pytest.mark.parametrize("policy", ["forfeit", "bot"])
async def test_a_no_show_after_the_check_in_window(b: Backend, policy: str) -> None:
    """Forfeit: the rules clock resigns the absent seat, a forfeit (no game for tie-breaks).
    Bot: the rules service's bot plays the absent seat to the end, an ordinary game."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    names = ["here", "gone"]
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    try:
        await c.call("CreateTournament", org, tournament_id="noshow", game="neon-reign",
                     mode="single", format_json=format_json("swiss", 1), check_in_seconds=3,
                     no_show=pb.NO_SHOW_POLICY_FORFEIT if policy == "forfeit" else pb.NO_SHOW_POLICY_BOT,
                     clock=pb.Clock(per_decision_ms=1500, max_timeouts=1))
        await c.call("OpenRegistration", org, tournament_id="noshow")
        for n in names:
            await c.call("Register", tokens[n], tournament_id="noshow")
        await c.call("StartTournament", org, tournament_id="noshow")
        await c.call("NextRound", org, tournament_id="noshow")
        assert await play_round_as(c, rules, tokens["here"], "noshow", "here", timeout=30) == "played"
        for _ in range(100):
            r = (await c.call("GetRound", tournament_id="noshow", round=1)).round
            if r.complete:
                break
            await asyncio.sleep(0.1)
        table = r.tables[0]
        gone = list(table.seats).index("gone")
        standings = {row.player_id: row for row in
                     (await c.call("FinishTournament", org, tournament_id="noshow")).rows}
        if policy == "forfeit":
            assert table.result.kind == "forfeit" and table.result.placements[gone] == 2
            assert standings["here"].points == 1 and standings["here"].games == 0  # not a game
            assert standings["gone"].points == 0
        else:
            assert table.result.kind == "played" and not table.result.forfeited
            assert standings["gone"].games == standings["here"].games == 1
        bundle = (await c.call("ExportTournament", org, tournament_id="noshow")).bundle_jsonl
    finally:
        await c.close()
        for rc in rules.values():
            await rc.close()
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    records = [json.loads(x)["record"] for x in bundle.splitlines() if json.loads(x)["type"] == "LogRecord"]
    started = next(r for r in records if r["type"] == "MatchStarted")
    assert started["absent"] == [gone]
    export = next(json.loads(x)["export"] for x in bundle.splitlines()
                  if json.loads(x)["type"] == "MatchExport")
    timeouts = [json.loads(x) for x in export.splitlines() if '"timeout"' in x]
    assert timeouts and all(t.get("seat") == gone for t in timeouts if "seat" in t)


async def test_corrections_drops_late_entries_and_force_end_verify(b: Backend) -> None:
    """Round 1 decided by the organiser (results entered with a reason, matches never played),
    a drop and a late entry before round 2, round 2 played by bots, then a force-end: the
    bundle verifies, notes the corrections, and round 2 pairs the late entry, not the drop."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    names = ["a1", "a2", "a3", "a4", "late"]
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    tid = "edits"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign", mode="single",
                     format_json=format_json("swiss", 3, extra='{"late_entry_until": 2}'))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for n in names[:4]:
            await c.call("Register", tokens[n], tournament_id=tid)
        await c.call("StartTournament", org, tournament_id=tid)
        code, why = await _code(c.call("Register", tokens["late"], tournament_id=tid))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "late entry" in why
        first = (await c.call("NextRound", org, tournament_id=tid)).round
        for t in first.tables:
            for _ in range(2):  # a retried call records the correction once
                await c.call("CorrectResult", org, tournament_id=tid, round=1, table=t.number,
                             placements=[1, 2], reason="played on paper")
        for _ in range(100):
            r = (await c.call("GetRound", tournament_id=tid, round=1)).round
            if r.complete:
                break
            await asyncio.sleep(0.1)
        assert r.complete and r.checkpoint.leaves == 0
        assert {(t.result.kind, t.result.reason) for t in r.tables} == {
            ("correction", "played on paper")}, "a corrected result says so, with its reason"
        await c.call("DropPlayer", tokens["a1"], tournament_id=tid, reason="had to leave")
        await c.call("AddLateEntry", org, tournament_id=tid, player_id="late")
        second = (await c.call("NextRound", org, tournament_id=tid)).round
        seated = {p for t in second.tables for p in t.seats}
        assert "late" in seated and "a1" not in seated
        await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                               for n in names if n != "a1"))
        for _ in range(200):
            r = (await c.call("GetRound", tournament_id=tid, round=2)).round
            if r.complete:
                break
            await asyncio.sleep(0.1)
        assert r.complete
        await c.call("ForceEnd", org, tournament_id=tid, reason="time is up")
        standings = (await c.call("GetStandings", tournament_id=tid))
        assert standings.final and {row.player_id for row in standings.rows} == set(names)
        assert next(row for row in standings.rows if row.player_id == "a1").dropped
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await c.close()
        for rc in rules.values():
            await rc.close()
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    assert sum("result set by the organiser (played on paper)" in w for w in report.warnings) == 2
    records = [json.loads(x)["record"] for x in bundle.splitlines()
               if json.loads(x)["type"] == "LogRecord"]
    assert sum(1 for r in records if r["type"] == "ResultCorrected") == 2
    # every step is published on NATS too, tokens never (neon.events.tournament.<id>)
    js = b.nats_client.jetstream()
    for _ in range(50):
        try:
            last = await js.get_last_msg(bus.stream_name(), f"{bus.subject_prefix()}.tournament.{tid}")
            if json.loads(last.data)["type"] == "AbandonsConfirmed":
                break
        except Exception:  # not relayed yet
            pass
        await asyncio.sleep(0.1)
    payload = json.loads(last.data)
    # every table had its result: nothing to abandon, confirmed at once, after the ForceEnded
    assert payload["type"] == "AbandonsConfirmed" and payload["matches"] == []
    assert payload["n"] == len(records)
    assert records[-2]["type"] == "ForceEnded" and records[-2]["reason"] == "time is up"


async def _open(c: TournamentClient, org: str, tid: str, players: tuple[str, ...],
                checked_in: tuple[str, ...] = (), extra: str = "") -> None:
    """A one-round neon-reign Swiss in registration: ``players`` registered by the organiser
    in that order, ``checked_in`` of them checked in."""
    await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign", mode="single",
                 format_json=format_json("swiss", 1, extra=extra))
    await c.call("OpenRegistration", org, tournament_id=tid)
    for p in players:
        await c.call("Register", org, tournament_id=tid, player_id=p)
    for p in checked_in:
        await c.call("CheckIn", org, tournament_id=tid, player_id=p)


async def _log(c: TournamentClient, org: str, tid: str) -> list[dict[str, object]]:
    """The tournament's log records, from its audit bundle."""
    bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    return [json.loads(x)["record"] for x in bundle.splitlines()
            if json.loads(x)["type"] == "LogRecord"]


def _statuses(t: pb.Tournament) -> dict[str, str]:
    return {p.player_id: p.status for p in t.players}


async def test_a_start_that_leaves_registered_players_out_needs_checked_in_only(
        b: Backend) -> None:
    """Some players checked in, others not: StartTournament refuses (FAILED_PRECONDITION)
    naming how many and which, sorted by id, and starts nothing; organiser only, as before.
    With checked_in_only it starts with the checked-in players: left_out names the others,
    who stay "registered" (GetTournament says the same), and the Started event records them.
    A repeat, with the flag or without, is the running tournament with the same left_out and
    no second Started, even after a late entry added one of them; the bundle verifies."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    alice = b.issuer.issue("player", "*", player="alice", ttl=600)
    tid = "half_in"
    S = grpc.StatusCode
    try:
        await _open(c, org, tid, ("dan", "ann", "cat", "ben", "eve"), ("eve", "ann"),
                    extra='{"late_entry_until": 1}')
        before = (await c.call("GetTournament", tournament_id=tid)).tournament
        code, why = await _code(c.call("StartTournament", org, tournament_id=tid))
        assert code == S.FAILED_PRECONDITION, why
        assert "3 registered players did not check in: ben, cat, dan." in why, why
        assert "pass checked_in_only to start without them" in why, why
        for flag in (False, True):
            code, _ = await _code(c.call("StartTournament", None, tournament_id=tid,
                                         checked_in_only=flag))
            assert code == S.UNAUTHENTICATED
            code, _ = await _code(c.call("StartTournament", alice, tournament_id=tid,
                                         checked_in_only=flag))
            assert code == S.PERMISSION_DENIED
        after = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert after.version == before.version, "a refused start records nothing"
        assert after.status == pb.TOURNAMENT_STATUS_REGISTRATION
        assert _statuses(after) == _statuses(before)

        started = await c.call("StartTournament", org, tournament_id=tid, checked_in_only=True)
        assert list(started.left_out) == ["ben", "cat", "dan"]
        expected = {"dan": "registered", "ann": "playing", "cat": "registered",
                    "ben": "registered", "eve": "playing"}
        assert _statuses(started.tournament) == expected
        shown = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert shown.status == pb.TOURNAMENT_STATUS_RUNNING and _statuses(shown) == expected
        for flag in (False, True):
            again = await c.call("StartTournament", org, tournament_id=tid, checked_in_only=flag)
            assert list(again.left_out) == ["ben", "cat", "dan"]
            assert again.tournament.version == shown.version, "a repeat records nothing"
        await c.call("AddLateEntry", org, tournament_id=tid, player_id="ben")
        again = await c.call("StartTournament", org, tournament_id=tid)
        assert list(again.left_out) == ["ben", "cat", "dan"], "what the start left out"
        assert _statuses(again.tournament)["ben"] == "playing"
        assert next(p for p in again.tournament.players if p.player_id == "ben").late
        starts = [r for r in await _log(c, org, tid) if r["type"] == "Started"]
        assert len(starts) == 1
        assert starts[0]["left_out"] == ["ben", "cat", "dan"]
        assert [e["player_id"] for e in starts[0]["entrants"]] == ["ann", "eve"]  # type: ignore[index]

        paired = (await c.call("NextRound", org, tournament_id=tid)).round
        assert sorted(p for t in paired.tables for p in t.seats) == ["ann", "ben", "eve"]
        for t in paired.tables:
            if not t.bye:
                await c.call("CorrectResult", org, tournament_id=tid, round=1, table=t.number,
                             placements=[1, 2], reason="played on paper")
        await wait_round_complete(c, tid, 1, timeout=10)
        rows = (await c.call("FinishTournament", org, tournament_id=tid)).rows
        assert sorted(r.player_id for r in rows) == ["ann", "ben", "eve"]
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await c.close()
    report = verify_bundle(bundle)
    assert report.ok, report.failures


@pytest.mark.parametrize("case", ["nobody checked in", "nobody checked in, flag",
                                  "everyone checked in"])
async def test_a_start_that_leaves_nobody_out_needs_no_flag(b: Backend, case: str) -> None:
    """Nobody checked in: every registered player plays, with checked_in_only or without.
    Everyone registered checked in (a withdrawn player aside): no flag needed. left_out is
    empty in the answer and in the Started event either way."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = {"nobody checked in": "none_in", "nobody checked in, flag": "none_in_flag",
           "everyone checked in": "all_in"}[case]
    players = ("cat", "ann", "ben", "gus")
    try:
        await _open(c, org, tid, players,
                    ("ann", "cat", "ben") if case == "everyone checked in" else ())
        if case == "everyone checked in":
            await c.call("Withdraw", org, tournament_id=tid, player_id="gus")
        started = await c.call("StartTournament", org, tournament_id=tid,
                               checked_in_only=case.endswith("flag"))
        assert list(started.left_out) == []
        expected = dict.fromkeys(players, "playing")
        if case == "everyone checked in":
            expected["gus"] = "withdrawn"
        assert _statuses(started.tournament) == expected
        shown = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert _statuses(shown) == expected
        starts = [r for r in await _log(c, org, tid) if r["type"] == "Started"]
        assert len(starts) == 1 and starts[0]["left_out"] == []
    finally:
        await c.close()


async def test_force_end_with_the_status_the_caller_saw(b: Backend) -> None:
    """ForceEndRequest.expected_status: a call-off decided while registration was open, the
    tournament started meanwhile, is refused FAILED_PRECONDITION naming both statuses, and
    nothing ends (it still runs, its table still plays); the status it is in ends it; a
    repeat on the force-ended tournament answers as before whatever it expects; unset ends
    it as before; a number that is no status is INVALID_ARGUMENT."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    S = grpc.StatusCode
    tag = uuid.uuid4().hex[:8]
    tid, off, made = f"fe_run_{tag}", f"fe_off_{tag}", f"fe_made_{tag}"
    try:
        await _open(c, org, tid, ("ann", "bob"), checked_in=("ann", "bob"))
        await c.call("StartTournament", org, tournament_id=tid)
        paired = (await c.call("NextRound", org, tournament_id=tid)).round
        code, why = await _code(c.call(
            "ForceEnd", org, tournament_id=tid, reason="too few players",
            expected_status=pb.TOURNAMENT_STATUS_REGISTRATION))
        assert (code, why) == (S.FAILED_PRECONDITION, (
            "the tournament is running now, not in registration: nothing was ended; look "
            "again before ending it"))
        t = (await c.call("GetTournament", tournament_id=tid)).tournament
        assert (t.status, t.reason) == (pb.TOURNAMENT_STATUS_RUNNING, "")
        still = (await c.call("GetRound", tournament_id=tid, round=1)).round
        assert [x.status for x in still.tables] == [x.status for x in paired.tables]
        assert pb.TABLE_STATUS_ABANDONED not in [x.status for x in still.tables]
        assert not (await c.call("GetStandings", tournament_id=tid)).final
        assert "ForceEnded" not in [r["type"] for r in await _log(c, org, tid)]

        ended = await c.call("ForceEnd", org, tournament_id=tid, reason="time is up",
                             expected_status=pb.TOURNAMENT_STATUS_RUNNING)
        assert (ended.tournament.status, ended.tournament.reason) == (
            pb.TOURNAMENT_STATUS_FORCE_ENDED, "time is up")
        # a repeat answers as before (idempotent), whatever status it expected
        for expected in (pb.TOURNAMENT_STATUS_REGISTRATION, pb.TOURNAMENT_STATUS_RUNNING,
                         pb.TOURNAMENT_STATUS_UNSPECIFIED):
            again = await c.call("ForceEnd", org, tournament_id=tid, reason="again",
                                 expected_status=expected)
            assert (again.tournament.status, again.tournament.reason) == (
                pb.TOURNAMENT_STATUS_FORCE_ENDED, "time is up")
        assert [r["type"] for r in await _log(c, org, tid)].count("ForceEnded") == 1

        # unset: no check, as before (a call-off in registration)
        await _open(c, org, off, ("ann", "bob"))
        called = await c.call("ForceEnd", org, tournament_id=off, reason="venue lost")
        assert called.tournament.status == pb.TOURNAMENT_STATUS_FORCE_ENDED

        # created, registration not open: the refusal says so; a number that is no status
        await c.call("CreateTournament", org, tournament_id=made, game="neon-reign",
                     mode="single", format_json=format_json("swiss", 1))
        code, why = await _code(c.call(
            "ForceEnd", org, tournament_id=made, reason="r",
            expected_status=pb.TOURNAMENT_STATUS_RUNNING))
        assert (code, why) == (S.FAILED_PRECONDITION, (
            "the tournament is created (registration not open yet) now, not running: nothing "
            "was ended; look again before ending it"))
        code, why = await _code(c.call("ForceEnd", org, tournament_id=made, reason="r",
                                       expected_status=99))
        assert code == S.INVALID_ARGUMENT and "expected_status 99" in why
        assert (await c.call("GetTournament", tournament_id=made)).tournament.status == \
            pb.TOURNAMENT_STATUS_CREATED
    finally:
        await c.close()
