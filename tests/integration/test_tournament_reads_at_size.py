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
from tests.integration.conftest import started_swiss

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
        paired = await started_swiss(
            c, org, {f"p{i:02d}": b.issuer.issue("player", "*", player=f"p{i:02d}", ttl=600)
                     for i in range(PLAYERS)}, tid, rounds=3)
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


async def test_watchers_share_one_read_of_each_version(
        reign_tournament_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every WatchTournament and WatchMyMatches stream read the tournament anew (a copy of
    the whole event) after each save, and every WatchTournament stream built its update (the
    current round's every table): 256 watchers, 256 copies and builds a save, about 640 saves
    a round of a 256-player Swiss. Their reads and updates of one version are one now."""
    finds: Counter[str] = Counter()
    find = Director._find

    async def counting(self: Director, tournament_id: str) -> Any:
        finds[str(get_contextvars().get("method", "")).rpartition("/")[2]] += 1
        return await find(self, tournament_id)

    monkeypatch.setattr(Director, "_find", counting)
    views: Counter[str] = Counter()
    round_view = Director.round_view

    async def counting_views(self: Director, t: Any, number: int) -> Any:
        views[str(get_contextvars().get("method", "")).rpartition("/")[2]] += 1
        return await round_view(self, t, number)

    monkeypatch.setattr(Director, "round_view", counting_views)
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {f"p{i:02d}": b.issuer.issue("player", "*", player=f"p{i:02d}", ttl=600)
              for i in range(PLAYERS)}
    tid = "watchers"
    streams: list[asyncio.Task[None]] = []
    try:
        paired = await started_swiss(c, org, tokens, tid, rounds=3)
        last: dict[str, Any] = {}

        async def watch(name: str, token: str, mine: bool) -> None:
            if mine:
                stream = c.stub.WatchMyMatches(pb.WatchMyMatchesRequest(tournament_id=tid),
                                               metadata=call_metadata(token))
            else:
                stream = c.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid),
                                                metadata=call_metadata(token))
            async for m in stream:
                last[name] = m

        streams = [asyncio.create_task(watch(f"all{i}", org, False)) for i in range(WATCHERS)]
        streams += [asyncio.create_task(watch(p, token, True)) for p, token in tokens.items()]
        async with asyncio.timeout(30):
            while len(last) < WATCHERS + PLAYERS:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # the first reads done
        before = (await c.call("GetTournament", tournament_id=tid)).tournament.version
        finds.clear()
        views.clear()
        for table in paired.round.tables[:4]:
            await c.call("CorrectResult", org, tournament_id=tid, round=1, table=table.number,
                         placements=[1, 2], reason="watchers")
        decided = {p for t in paired.round.tables[:4] for p in t.seats}
        async with asyncio.timeout(30):
            while not (all(sum(1 for t in last[f"all{i}"].round.tables if t.result.placements)
                           == 4 for i in range(WATCHERS))
                       and all(last[p].assignment.status == pb.TABLE_STATUS_DONE
                               for p in decided)):
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        saves = (await c.call("GetTournament", tournament_id=tid)).tournament.version - before
        watching = finds["WatchTournament"] + finds["WatchMyMatches"]
        # each save wakes every stream; a version is read once for all of them (a save
        # made while a read is under way: once more), not once per stream (24 here)
        assert saves >= 4 and watching <= 2 * saves, (finds, saves)
        # and each version's update is built once for every WatchTournament stream
        assert views["WatchTournament"] <= 2 * saves, (views, saves)
    finally:
        for s in streams:
            s.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        await c.close()


async def test_a_round_driver_pass_reads_the_tournament_once(
        reign_tournament_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round driver passes over the current round after every save and twice a second:
    it read the whole tournament five times a pass (the pass, then the matches to create,
    to start, to seal, the checkpoint), each read a copy of the whole event (3.5 ms in round
    7 of a 256-player Swiss). A pass with nothing to do reads it once now; a save made
    during a pass is not missed (the driver passes again at once, not at its next poll)."""
    b = reign_tournament_backend
    director: Director = b.services["tournament"].extra["director"]
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "driver_reads"
    try:
        paired = await started_swiss(
            c, org, {f"p{i}": b.issuer.issue("player", "*", player=f"p{i}", ttl=600)
                     for i in range(4)}, tid, rounds=2)
        await asyncio.sleep(0.5)  # its matches created and recorded
        finds = 0
        find = Director._find

        async def counting(self: Director, tournament_id: str) -> Any:
            nonlocal finds
            if asyncio.current_task() is mine:  # the running driver's passes are its own
                finds += 1
            return await find(self, tournament_id)

        mine = asyncio.current_task()

        monkeypatch.setattr(Director, "_find", counting)
        assert await director._step(tid) is False  # a live round: nothing to do now
        assert finds == 1, finds

        for table in paired.round.tables:  # the round decided: the pass that checkpoints it
            await c.call("CorrectResult", org, tournament_id=tid, round=1, table=table.number,
                         placements=[1, 2], reason="driver")
        async with asyncio.timeout(30):
            while not (await c.call("GetRound", tournament_id=tid, round=1)).round.complete:
                await asyncio.sleep(0.05)
    finally:
        await c.close()


async def test_other_calls_are_answered_while_a_round_is_paired(
        reign_tournament_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairing ran on the service's event loop: 0.2-0.4 s at 256 players (networkx), during
    which no other call of any tournament was answered. Here a pairing made slow (1 s) does
    not hold up a GetTournament of another tournament."""
    import time

    from services.tournament import formats

    pair = formats.pair

    def slow(config: Any, history: Any) -> Any:
        time.sleep(1.0)  # a big field's pairing, as the event loop sees it
        return pair(config, history)

    monkeypatch.setattr(formats, "pair", slow)
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        for tid in ("paired_slowly", "other"):
            await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                         mode="single", format_json=format_json("swiss", 1))
        await c.call("OpenRegistration", org, tournament_id="paired_slowly")
        for i in range(2):
            await c.call("Register", b.issuer.issue("player", "*", player=f"p{i}", ttl=600),
                         tournament_id="paired_slowly")
        await c.call("StartTournament", org, tournament_id="paired_slowly")
        # the client shares the service's event loop (one process): a pairing on the loop
        # holds up this test's own sleep too, so the time is taken from before it
        t0 = time.perf_counter()
        pairing = asyncio.create_task(c.call("NextRound", org, tournament_id="paired_slowly",
                                             round=1))
        await asyncio.sleep(0.3)  # the pairing under way
        got = await c.call("GetTournament", tournament_id="other")
        took = time.perf_counter() - t0
        assert got.tournament.tournament_id == "other"
        assert not pairing.done() and took < 0.9, took
        paired = await pairing
        assert len(paired.round.tables) == 1
    finally:
        await c.close()
