"""CorrectResult on a table whose match was created on the rules service but still waits for
its seats (one seat ready, the other not), over real gRPC, NATS and a real store: the match
is abandoned on its rules service with the correction's reason (GetView and WatchMatch show
it ended, abandoned), so nobody following it waits for ever; the log records the abandon
(MatchAbandoned), once; the table's result stays the organiser's; through a restart of the
rules service in between, through a restart of the tournament service (the log says what is
still to stop), and at FinishTournament at the latest; and the bundle verifies."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, format_json, wait_round_complete
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from services.rules import main as rules_main
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from tests.integration.test_abandon import _tournament_backend, _tournament_settings
from tests.integration.test_tournament_correct_running import (
    REASON,
    STOPPED,
    _abandoned_for,
    _Event,
    _event,
    restarted_stops,
)
from tests.support import toy

pytestmark = pytest.mark.timeout(180)


async def _ready_one(ev: _Event, number: int) -> str:
    """The first seat of table ``number`` seeds and readies, the other does not: the match
    waits for its seats. Returns the match id."""
    table = await ev.table(number)
    player = table.seats[0]
    a = (await ev.c.call("MyNextMatch", ev.token(player), tournament_id=ev.tid)).assignment
    assert a.match_id == table.match_id and a.seat_token
    await ev.client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id=a.match_id, seed="a" * 32), a.seat_token)
    ready = await ev.c.call("ReadyForMatch", ev.token(player), tournament_id=ev.tid,
                            match_id=a.match_id)
    assert not ready.started
    assert (await ev.client.view(a.match_id)).status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS
    assert (await ev.table(number)).status == tournament_pb2.TABLE_STATUS_AWAITING_SEATS
    return a.match_id


async def _watched(client: RulesClient, match_id: str) -> list[dict[str, Any]]:
    """A spectator's WatchMatch of the match from its first event to its seal."""
    events = []
    call = client.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id))
    try:
        async for message in call:
            events.append(json.loads(message.event.payload_json))
            if message.event.type == "MatchSealed":
                break
    finally:
        call.cancel()
    return events


def _ended_abandoned(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert [e["type"] for e in events][-2:] == ["MatchEnded", "MatchSealed"]
    assert "MatchStarted" not in [e["type"] for e in events]
    outcome = events[-2]["outcome"]
    assert outcome["abandoned"] is True and outcome["placements"] == []
    return outcome


async def test_a_table_decided_while_its_match_waits_ends_that_match(
        tmp_path: Any, nats_url: str) -> None:
    async with _event(_tournament_settings(tmp_path, nats_url)) as ev:
        second = await _ready_one(ev, 2)
        watching = asyncio.create_task(_watched(ev.client, second))
        await asyncio.sleep(0.3)  # the spectator follows the waiting match
        assert not watching.done()
        await ev.correct(2, [1, 2])
        # the correction is answered once its abandon was made: the match ended where it
        # waited, abandoned with the correction's reason, and its spectator stops waiting
        assert await _abandoned_for(ev.client, second, STOPPED, wait=0)
        outcome = _ended_abandoned(await asyncio.wait_for(watching, 10))
        assert outcome["reason"] == STOPPED
        await ev.until_recorded("MatchAbandoned", 2)
        table = await ev.table(2)
        # the table's result stays the organiser's; the abandoned match never counts
        assert table.status == tournament_pb2.TABLE_STATUS_DONE
        assert list(table.result.placements) == [1, 2] and table.result.kind == "correction"
        assert table.abandoned_reason == STOPPED
        # the seat that did not ready is told the match will not start
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ev.c.call("ReadyForMatch", ev.token(table.seats[1]), tournament_id=ev.tid,
                            match_id=second)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        # the other table plays and is decided while running (the started case)
        await ev.start_table(1)
        first = (await ev.table(1)).match_id
        await ev.correct(1, [2, 1])
        assert await _abandoned_for(ev.client, first, STOPPED, wait=0)
        round_ = await wait_round_complete(ev.c, ev.tid, 1, timeout=30)
        assert [t.status for t in round_.tables] == [tournament_pb2.TABLE_STATUS_DONE] * 2
        assert round_.checkpoint.leaves == 1  # the started one; the waiting one is no leaf
        kinds = await ev.kinds()
        for number in (1, 2):
            assert kinds.count(("ResultCorrected", number)) == 1
            assert kinds.count(("MatchAbandoned", number)) == 1
            assert ("ResultRecorded", number) not in kinds
        assert ("MatchStarted", 2) not in kinds
        rows = {r.player_id: r for r in (await ev.c.call(
            "GetStandings", tournament_id=ev.tid)).rows}
        assert rows[table.seats[0]].wins == 1 and rows[table.seats[1]].wins == 0
        bundle = (await ev.c.call("ExportTournament", ev.org, tournament_id=ev.tid)).bundle_jsonl
        report = ev.bundle_report(bundle)
        assert report.ok, report.failures
        assert report.matches == 2  # the abandoned waiting match's export too
        where = f"round 1 table 2 (match {second})"
        assert f"{where}: the match was abandoned ({STOPPED})" in report.warnings
        assert f"{where}: result set by the organiser ({REASON})" in report.warnings


async def _restart_rules(b: Any, down: float = 0.0) -> Any:
    """Stop the toy's rules service (``down`` > 0: then wait, start it again on its port;
    0: leave it stopped and return a starter)."""
    old = b.services.pop("rules-toy")
    port = int(old.address.rsplit(":", 1)[1])
    await old.stop(1)

    async def start() -> Any:
        settings = dataclasses.replace(b.settings,
                                       ports={**b.settings.ports, "rules-toy": port})
        service = await rules_main.start("toy", settings, b.keys, b.nats_client, toy.ENGINE)
        b.services[service.name] = service
        assert service.address.endswith(f":{port}")
        return service

    return start


async def _answering(address: str, wait: float = 10) -> RulesClient:
    """A client of the rules service at ``address`` once it answers (a channel of this
    process to the same address may be in its reconnect backoff a moment longer)."""
    client = RulesClient(address)
    for _ in range(int(wait / 0.1)):
        try:
            await client.info()
            return client
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.1)
    await client.close()
    raise AssertionError(f"the rules service at {address} does not answer")


async def test_a_waiting_matchs_abandon_goes_through_a_rules_service_restart(
        tmp_path: Any, nats_url: str) -> None:
    async with _event(_tournament_settings(tmp_path, nats_url),
                      abandon_retries=(0.5,) * 60) as ev:
        second = await _ready_one(ev, 2)
        start = await _restart_rules(ev.b)
        reply = await ev.correct(2, [2, 1])  # answered: saved, its abandon missed
        table = next(t for t in reply.round.tables if t.number == 2)
        assert list(table.result.placements) == [2, 1]
        await asyncio.sleep(1.0)  # a retry or two miss as well
        assert ("MatchAbandoned", 2) not in await ev.kinds()
        service = await start()
        client = await _answering(service.address)
        try:
            assert await _abandoned_for(client, second, STOPPED, wait=20)
            await ev.until_recorded("MatchAbandoned", 2, wait=20)
            assert (await ev.kinds()).count(("MatchAbandoned", 2)) == 1
        finally:
            await client.close()


async def test_a_tournament_service_restart_abandons_what_a_correction_left_waiting(
        tmp_path: Any, nats_url: str) -> None:
    """The service stops between the correction's save and its abandon (here: it never
    makes it): the log says the match is still to stop, and the next start abandons it."""
    settings = _tournament_settings(tmp_path, nats_url)
    async with _event(settings) as ev:
        second = await _ready_one(ev, 2)
        tid = ev.tid

        async def stopped_first(*args: Any) -> list[str]:
            return []

        ev.director._stop_corrected = stopped_first
        await ev.correct(2, [1, 2])
        assert list((await ev.table(2)).result.placements) == [1, 2]  # saved first
        assert (await ev.client.view(second)).status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS
    await restarted_stops(settings, tid, 2, second)


@contextlib.asynccontextmanager
async def _one_round(tmp_path: Any, nats_url: str,
                     **options: Any) -> AsyncIterator[tuple[Any, TournamentClient, str, str]]:
    """A one-round Swiss of four on the toy game, its two matches created and waiting for
    their seats: the backend, the tournament client, the organiser token and the id."""
    b = await _tournament_backend(_tournament_settings(tmp_path, nats_url), poll=0.1,
                                  **options)
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "fw1"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="toy", mode="race",
                     format_json=format_json("swiss", 1), check_in_seconds=60,
                     no_show=tournament_pb2.NO_SHOW_POLICY_BOT)
        await c.call("OpenRegistration", org, tournament_id=tid)
        for n in ("p1", "p2", "p3", "p4"):
            await c.call("Register", org, tournament_id=tid, player_id=n)
        await c.call("StartTournament", org, tournament_id=tid)
        await c.call("NextRound", org, tournament_id=tid)
        for _ in range(100):
            tables = (await c.call("GetRound", tournament_id=tid, round=1)).round.tables
            if all(t.match_id for t in tables):
                break
            await asyncio.sleep(0.1)
        yield b, c, org, tid
    finally:
        await c.close()
        await b.stop(1)


async def test_finish_abandons_what_is_left_waiting_and_the_bundle_verifies(
        tmp_path: Any, nats_url: str) -> None:
    """The rules service is away while the organiser decides every table (and stays away
    past every retry): the round's checkpoint comes all the same, FinishTournament is
    refused while the matches cannot be abandoned, and abandons them (recorded before the
    finish) once the rules service is back."""
    async with _one_round(tmp_path, nats_url, abandon_retries=()) as (b, c, org, tid):
        director = b.services["tournament"].extra["director"]
        matches = [t.match_id for t in
                   (await c.call("GetRound", tournament_id=tid, round=1)).round.tables]
        start = await _restart_rules(b)
        for number in (1, 2):
            await c.call("CorrectResult", org, tournament_id=tid, round=1, table=number,
                         placements=[1, 2], reason=REASON)
        round_ = await wait_round_complete(c, tid, 1, timeout=30)
        assert round_.checkpoint.leaves == 0  # not waited for, never sealed
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await c.call("FinishTournament", org, tournament_id=tid)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert ", ".join(matches) in (refused.value.details() or "")
        assert (await c.call("GetTournament", tournament_id=tid)).tournament.status \
            == tournament_pb2.TOURNAMENT_STATUS_RUNNING
        service = await start()
        client = await _answering(service.address)
        try:
            for _ in range(50):  # the tournament service's channel reconnects
                try:
                    await c.call("FinishTournament", org, tournament_id=tid)
                    break
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    await asyncio.sleep(0.2)
            else:
                raise AssertionError("FinishTournament stayed UNAVAILABLE")
            for match_id in matches:
                assert await _abandoned_for(client, match_id, STOPPED, wait=0)
            kinds = [r["type"] for r in await director.records(tid)]
            assert kinds[-4:] == ["MatchAbandoned", "MatchAbandoned", "StandingsPublished",
                                  "Finished"]
            await asyncio.sleep(0.5)  # their signed ends arrive: duplicates, nothing added
            assert [r["type"] for r in await director.records(tid)] == kinds
            bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
            report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
                data, key, engine=toy.ENGINE))
            assert report.ok, report.failures
            assert report.matches == 2
        finally:
            await client.close()


async def test_force_end_abandons_what_a_correction_left_waiting(
        tmp_path: Any, nats_url: str) -> None:
    """The rules service is away when a table is decided and at the ForceEnd: a repeat
    ForceEnd once it is back abandons the waiting match (as every match without a result),
    and the log confirms it."""
    async with _one_round(tmp_path, nats_url, abandon_retries=()) as (b, c, org, tid):
        director = b.services["tournament"].extra["director"]
        decided, other = [t.match_id for t in
                          (await c.call("GetRound", tournament_id=tid, round=1)).round.tables]
        start = await _restart_rules(b)
        await c.call("CorrectResult", org, tournament_id=tid, round=1, table=1,
                     placements=[2, 1], reason=REASON)
        await c.call("ForceEnd", org, tournament_id=tid, reason="the venue closed")
        assert "AbandonsConfirmed" not in [r["type"] for r in await director.records(tid)]
        service = await start()
        client = await _answering(service.address)
        try:
            for _ in range(50):  # the tournament service's channel reconnects
                await c.call("ForceEnd", org, tournament_id=tid, reason="again")
                confirmed = [r for r in await director.records(tid)
                             if r["type"] == "AbandonsConfirmed"]
                if confirmed:
                    break
                await asyncio.sleep(0.2)
            assert sorted(confirmed[0]["matches"]) == sorted([decided, other])
            for match_id in (decided, other):
                assert await _abandoned_for(client, match_id, "the venue closed", wait=0)
            bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
            report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
                data, key, engine=toy.ENGINE))
            assert report.ok, report.failures
        finally:
            await client.close()
