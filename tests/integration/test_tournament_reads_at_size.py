"""What the tournament service reads to answer, as an event grows: over real gRPC, with the
real store (SQLite), the real rules service and NATS.

GetTournament (and every command's reply, and every WatchTournament update) replayed the
whole tournament log to say its planned rounds, which depend on the format and the number of
entrants only: 110 ms per call in round 4 of a 256-player Swiss, once per watcher per save.
GetStandings replayed it on every call. Here: GetTournament and the updates of a Swiss read no
log record; GetStandings reads the log once per version of the tournament, however often it
is asked."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from structlog.contextvars import get_contextvars

from services.cli.backend import Backend
from services.cli.tournament_commands import TournamentClient, format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform.grpc_kit import call_metadata
from services.tournament.director import Director

pytestmark = pytest.mark.timeout(120)

PLAYERS = 16
WATCHERS = 8


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Log reads (Director.records) by the gRPC method that made them ("" outside a call)."""
    counted: Counter[str] = Counter()
    records = Director.records

    async def counting(self: Director, tournament_id: str, upto: int | None = None) -> Any:
        counted[str(get_contextvars().get("method", "")).rpartition("/")[2]] += 1
        return await records(self, tournament_id, upto)

    monkeypatch.setattr(Director, "records", counting)
    return counted


async def test_tournament_answers_and_updates_read_no_log_and_standings_once_per_version(
        reign_tournament_backend: Backend, reads: Counter[str]) -> None:
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "reads"
    watches: list[asyncio.Task[None]] = []
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=format_json("swiss", 3))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for i in range(PLAYERS):
            await c.call("Register", b.issuer.issue("player", "*", player=f"p{i:02d}", ttl=600),
                         tournament_id=tid)
        await c.call("StartTournament", org, tournament_id=tid)
        paired = await c.call("NextRound", org, tournament_id=tid, round=1)
        assert len(paired.round.tables) == PLAYERS // 2

        reads.clear()
        for _ in range(3):
            got = await c.call("GetTournament", tournament_id=tid)
            assert got.tournament.planned_rounds == 3  # said as before, from the format
        assert reads["GetTournament"] == 0, reads

        seen: list[list[Any]] = [[] for _ in range(WATCHERS)]

        async def watch(i: int) -> None:
            stream = c.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid),
                                            metadata=call_metadata(org))
            async for m in stream:
                seen[i].append(m)

        watches = [asyncio.create_task(watch(i)) for i in range(WATCHERS)]
        async with asyncio.timeout(30):
            while not all(seen):
                await asyncio.sleep(0.05)
        for table in paired.round.tables[:2]:
            await c.call("CorrectResult", org, tournament_id=tid, round=1, table=table.number,
                         placements=[1, 2], reason="reads")
        async with asyncio.timeout(30):
            while not all(any(len(t.result.placements) == 2 for t in s[-1].round.tables)
                          and sum(1 for t in s[-1].round.tables if t.result.placements) == 2
                          for s in seen):
                await asyncio.sleep(0.05)
        assert all(s[-1].tournament.planned_rounds == 3 for s in seen)
        assert reads["WatchTournament"] == 0, reads

        reads.clear()
        first = await c.call("GetStandings", tournament_id=tid)
        for _ in range(4):
            again = await c.call("GetStandings", tournament_id=tid)
            assert again == first
        assert reads["GetStandings"] == 1, reads
        assert [r.points for r in first.rows].count(1.0) == 2  # the two corrected winners
        await c.call("CorrectResult", org, tournament_id=tid, round=1,
                     table=paired.round.tables[2].number, placements=[2, 1], reason="reads")
        after = await c.call("GetStandings", tournament_id=tid)
        assert [r.points for r in after.rows].count(1.0) == 3  # a new version: computed anew
        assert reads["GetStandings"] == 2, reads
    finally:
        for w in watches:
            w.cancel()
        await asyncio.gather(*watches, return_exceptions=True)
        await c.close()
