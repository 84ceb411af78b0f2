"""CorrectResult on a table whose match is still running, over real gRPC, NATS and a real
store: the correction is saved, then the table's match is abandoned on its rules service as
ForceEnd abandons (retried when the rules service misses it, again at the next start), so
its seats cannot play on a match whose result no longer counts; a result of the match that
arrives anyway never overwrites the correction nor counts twice; a match still waiting for
its seats is never started (it is abandoned where it waits); and the bundle verifies."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import join_table, wait_round_complete
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from services.platform import playing
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from tests.integration.test_abandon import (
    _first_round,
    _tournament_backend,
    _tournament_settings,
)
from tests.support import toy

pytestmark = pytest.mark.timeout(120)
REASON = "scored on paper"
STOPPED = f"the organiser set the table's result: {REASON}"
"""The reason the correction's abandon gives the match."""


class _Event:
    def __init__(self, b: Any, client: RulesClient, org: str, c: Any, tid: str,
                 match_ids: list[str]) -> None:
        self.b, self.client, self.org, self.c, self.tid = b, client, org, c, tid
        self.match_ids = match_ids
        self.director = b.services["tournament"].extra["director"]

    def token(self, player: str) -> str:
        return self.b.issuer.issue("player", "*", player=player, ttl=600)

    async def table(self, number: int) -> Any:
        tables = (await self.c.call("GetRound", tournament_id=self.tid, round=1)).round.tables
        return next(t for t in tables if t.number == number)

    async def start_table(self, number: int) -> dict[int, str]:
        """Both seats of table ``number`` seed and ready, as players do: its match runs.
        Returns the seat tokens."""
        table = await self.table(number)
        seats: dict[int, str] = {}
        for player in table.seats:
            a = (await self.c.call("MyNextMatch", self.token(player), tournament_id=self.tid)
                 ).assignment
            assert a.match_id == table.match_id and a.seat_token
            assert await join_table(self.c, self.client, self.token(player), self.tid, a)
            seats[a.seat] = a.seat_token
        for _ in range(100):
            if (await self.client.view(table.match_id)).status == rules_pb2.MATCH_STATUS_RUNNING:
                break
            await asyncio.sleep(0.1)
        assert (await self.table(number)).status == tournament_pb2.TABLE_STATUS_RUNNING
        return seats

    async def correct(self, number: int, placements: list[int]) -> Any:
        return await self.c.call("CorrectResult", self.org, tournament_id=self.tid, round=1,
                                 table=number, placements=placements, reason=REASON)

    async def kinds(self) -> list[tuple[str, int]]:
        return [(r["type"], int(r.get("table", 0))) for r in await self.director.records(self.tid)]

    async def until_recorded(self, kind: str, number: int, wait: float = 10) -> None:
        for _ in range(int(wait / 0.1)):
            if (kind, number) in await self.kinds():
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"no {kind} of table {number} within {wait} s")

    def bundle_report(self, bundle: bytes) -> Any:
        return verify_bundle(bundle, verify_match=lambda data, key: verify_export(
            data, key, engine=toy.ENGINE))


@contextlib.asynccontextmanager
async def _event(settings: Any, **options: Any) -> AsyncIterator[_Event]:
    """A Swiss of four on the toy game, round 1 paired, its two matches created and waiting
    for their seats (check-in 60 s); everything closed and stopped afterwards."""
    b = await _tournament_backend(settings, poll=0.1, **options)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    c = None
    try:
        c, tid, match_ids = await _first_round(b, client, org, start=False, check_in_seconds=60)
        yield _Event(b, client, org, c, tid, match_ids)
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)


async def _abandoned_for(client: RulesClient, match_id: str, reason: str,
                         wait: float = 5) -> bool:
    for _ in range(int(wait / 0.1) + 1):
        view = await client.view(match_id)
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            outcome = json.loads(view.outcome_json)
            assert outcome.get("abandoned") is True, outcome
            assert outcome["reason"] == reason
            return True
        await asyncio.sleep(0.1)
    return False


async def test_correcting_a_running_table_abandons_its_match_and_the_bundle_verifies(
        tmp_path: Any, nats_url: str) -> None:
    async with _event(_tournament_settings(tmp_path, nats_url)) as ev:
        seats = await ev.start_table(1)
        first = (await ev.table(1)).match_id
        await ev.correct(1, [2, 1])
        # the correction is answered once its abandon was made: the seats play no more
        assert await _abandoned_for(ev.client, first, STOPPED, wait=0)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ev.client.submit(seats[0], first, "late-1", {"type": "pick", "step": 1})
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        # the abandon's signed end reaches the tournament: the log records it, once
        await ev.until_recorded("MatchAbandoned", 1)
        table = await ev.table(1)
        assert table.status == tournament_pb2.TABLE_STATUS_DONE
        assert list(table.result.placements) == [2, 1] and table.result.kind == "correction"
        assert table.abandoned_reason == STOPPED
        # a table whose match still waits for its seats is decided: the match is never
        # started (no seat may ready it), and it is abandoned where it waits
        # (test_tournament_correct_waiting.py), so nothing plays on there
        second = (await ev.table(2)).match_id
        await ev.correct(2, [1, 2])
        player = (await ev.table(2)).seats[0]
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ev.c.call("ReadyForMatch", ev.token(player), tournament_id=ev.tid,
                            match_id=second)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        round_ = await wait_round_complete(ev.c, ev.tid, 1, timeout=20)
        assert [t.status for t in round_.tables] == [tournament_pb2.TABLE_STATUS_DONE] * 2
        # the stopped match, sealed before the checkpoint; the abandoned waiting one is
        # never sealed (the checkpoint does not wait for it)
        assert round_.checkpoint.leaves == 1
        assert await _abandoned_for(ev.client, second, STOPPED, wait=0)
        await ev.until_recorded("MatchAbandoned", 2)
        kinds = await ev.kinds()
        for number in (1, 2):
            assert kinds.count(("ResultCorrected", number)) == 1
            assert ("ResultRecorded", number) not in kinds
            assert kinds.count(("MatchAbandoned", number)) == 1
        assert ("MatchStarted", 2) not in kinds
        bundle = (await ev.c.call("ExportTournament", ev.org, tournament_id=ev.tid)).bundle_jsonl
        report = ev.bundle_report(bundle)
        assert report.ok, report.failures
        assert report.matches == 2
        where = f"round 1 table 1 (match {first})"
        assert f"{where}: the match was abandoned ({STOPPED})" in report.warnings
        assert f"{where}: result set by the organiser ({REASON})" in report.warnings
        assert f"round 1 table 2 (match {second}): result set by the organiser ({REASON})" \
            in report.warnings


async def test_an_abandon_the_rules_service_missed_is_tried_again(tmp_path: Any,
                                                                  nats_url: str) -> None:
    async with _event(_tournament_settings(tmp_path, nats_url),
                      abandon_retries=(0.3, 0.3, 0.3)) as ev:
        await ev.start_table(1)
        first = (await ev.table(1)).match_id
        real, tried = ev.director.rules.abandon_match, []

        async def flaky(game: str, match_id: str, reason: str) -> Any:
            tried.append(match_id)
            if tried.count(match_id) == 1:
                raise ConnectionError("the rules service is restarting")
            return await real(game, match_id, reason)

        ev.director.rules.abandon_match = flaky
        reply = await ev.correct(1, [1, 2])  # answered: the correction is saved
        assert tried == [first]
        table = next(t for t in reply.round.tables if t.number == 1)
        assert list(table.result.placements) == [1, 2]
        assert await _abandoned_for(ev.client, first, STOPPED, wait=5)
        assert tried == [first, first]
        await ev.until_recorded("MatchAbandoned", 1)
        await asyncio.sleep(0.5)  # no further try once it was answered
        assert tried == [first, first]


async def test_a_result_that_races_the_correction_does_not_overwrite_it(tmp_path: Any,
                                                                        nats_url: str) -> None:
    """The rules service never takes the abandon (unreachable for it): the match is played
    to its end, and its signed result reaches the tournament after the correction. The
    correction stands, the result is counted once, and the match is sealed."""
    async with _event(_tournament_settings(tmp_path, nats_url),
                      abandon_retries=(0.2,) * 50) as ev:
        seats = await ev.start_table(1)
        first = (await ev.table(1)).match_id
        players = list((await ev.table(1)).seats)

        async def unreachable(game: str, match_id: str, reason: str) -> Any:
            raise ConnectionError("no route to the rules service")

        real = ev.director.rules.abandon_match
        ev.director.rules.abandon_match = unreachable
        heard: list[str] = []
        record = ev.director.record_signed_result

        async def recorded(result: dict[str, Any], signed: dict[str, Any]) -> str:
            answer = await record(result, signed)
            if result.get("match_id") == first:
                heard.append(answer)
            return answer

        ev.director.record_signed_result = recorded
        await ev.correct(1, [2, 1])
        ended = await asyncio.gather(*(playing.play_seat(
            ev.client.stub, token, first, playing.random_choice(f"s{seat}"), seat=seat,
            wait=10.0) for seat, token in seats.items()))
        assert all(e is not None for e in ended)
        for _ in range(100):  # the match's signed result arrives over NATS
            if heard:
                break
            await asyncio.sleep(0.1)
        assert heard and set(heard) == {"duplicate"}  # left out (a redelivery: again)
        table = await ev.table(1)
        assert list(table.result.placements) == [2, 1] and table.result.kind == "correction"
        kinds = await ev.kinds()
        assert ("ResultRecorded", 1) not in kinds and ("MatchAbandoned", 1) not in kinds
        assert kinds.count(("ResultCorrected", 1)) == 1
        await ev.until_recorded("MatchSealed", 1)  # ended: the driver seals it
        ev.director.rules.abandon_match = real
        rows = (await ev.c.call("GetStandings", tournament_id=ev.tid)).rows
        by_player = {r.player_id: r for r in rows}
        assert by_player[players[1]].wins == 1 and by_player[players[0]].wins == 0
        assert by_player[players[0]].games == 1 and by_player[players[1]].games == 1
        await ev.correct(2, [1, 2])
        await wait_round_complete(ev.c, ev.tid, 1, timeout=20)
        bundle = (await ev.c.call("ExportTournament", ev.org, tournament_id=ev.tid)).bundle_jsonl
        report = ev.bundle_report(bundle)
        assert report.ok, report.failures
        assert f"round 1 table 1 (match {first}): result set by the organiser ({REASON})" \
            in report.warnings


async def test_a_restart_abandons_what_a_stopped_correction_left_playing(
        tmp_path: Any, nats_url: str) -> None:
    """The service stops between the correction's save and its abandon (here: it never
    makes it): its next start abandons the match."""
    settings = _tournament_settings(tmp_path, nats_url)
    async with _event(settings) as ev:
        await ev.start_table(1)
        first = (await ev.table(1)).match_id
        tid = ev.tid

        async def stopped_first(*args: Any) -> list[str]:
            return []

        ev.director._stop_corrected = stopped_first
        await ev.correct(1, [1, 2])
        assert list((await ev.table(1)).result.placements) == [1, 2]  # saved first
        assert (await ev.client.view(first)).status == rules_pb2.MATCH_STATUS_RUNNING
    await restarted_stops(settings, tid, 1, first)


async def restarted_stops(settings: Any, tid: str, table: int, match_id: str) -> None:
    """After a restart of the tournament service on ``settings``: table ``table``'s match
    ``match_id``, which a correction decided before the service could stop it, ends
    abandoned with the correction's reason, and the log records that once."""
    b = await _tournament_backend(settings, poll=0.1)
    client = RulesClient(b.address("rules-toy"))
    try:
        assert await _abandoned_for(client, match_id, STOPPED, wait=10)
        director = b.services["tournament"].extra["director"]
        for _ in range(100):
            kinds = [(r["type"], r.get("table")) for r in await director.records(tid)]
            if ("MatchAbandoned", table) in kinds:
                break
            await asyncio.sleep(0.1)
        assert kinds.count(("MatchAbandoned", table)) == 1
    finally:
        await client.close()
        await b.stop(1)
