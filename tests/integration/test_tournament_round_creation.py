"""NextRound creates the round's matches a few at a time and records them in few saves, and a
stop midway still converges: every table ends with exactly one match, recorded once.

Over real gRPC, with the real tournament and Neon Reign rules services. The rules service's
CreateMatch is wrapped to count the calls in flight (each held a little, as a rules service
at work is); the tournament store's saves are counted by the MatchCreated events they carry.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.service import RulesServicer
from services.tournament import director as director_module
from services.tournament.app import TournamentApplication
from tests.integration.conftest import start_tournament_backend, started_swiss

pytestmark = pytest.mark.timeout(180)


@dataclasses.dataclass
class Creations:
    """What the wrapped CreateMatch saw (see :func:`count_creations`)."""

    delay: float = 0.05
    in_flight: int = 0
    peak: int = 0
    calls: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    hold: set[str] = dataclasses.field(default_factory=set)
    """Match ids whose answer is held (the match created) until ``open`` is set."""
    held: set[str] = dataclasses.field(default_factory=set)
    open: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)


def count_creations(monkeypatch: pytest.MonkeyPatch, seen: Creations) -> None:
    """RulesServicer.CreateMatch counted (before the backend starts: the server takes the
    servicer's methods when it is built)."""
    real = RulesServicer.CreateMatch

    async def create(self: RulesServicer, request: Any, context: Any) -> Any:
        seen.calls[request.match_id] += 1
        seen.in_flight += 1
        seen.peak = max(seen.peak, seen.in_flight)
        try:
            await asyncio.sleep(seen.delay)
            answer = await real(self, request, context)
            if request.match_id in seen.hold and not seen.open.is_set():
                seen.held.add(request.match_id)
                await seen.open.wait()  # created; its answer never comes before the stop
            return answer
        finally:
            seen.in_flight -= 1

    monkeypatch.setattr(RulesServicer, "CreateMatch", create)


def count_saves(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The names of the events of each save of the tournament store, in order."""
    saves: list[list[str]] = []
    real = TournamentApplication.save

    def save(self: TournamentApplication, *objs: Any, **kwargs: Any) -> Any:
        saves.append([type(e).__name__ for o in objs for e in getattr(o, "pending_events", ())])
        return real(self, *objs, **kwargs)

    monkeypatch.setattr(TournamentApplication, "save", save)
    return saves


def tokens_of(b: Any, players: int) -> dict[str, str]:
    return {f"p{i:02d}": b.issuer.issue("player", "*", player=f"p{i:02d}", ttl=600)
            for i in range(players)}


def match_created_per_table(records: list[dict[str, Any]]) -> collections.Counter[int]:
    return collections.Counter(int(r["table"]) for r in records if r["type"] == "MatchCreated")


async def test_a_rounds_matches_are_created_a_few_at_a_time_and_recorded_in_few_saves(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = Creations()
    count_creations(monkeypatch, seen)
    saves = count_saves(monkeypatch)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "wide"
    try:
        await started_swiss(c, org, tokens_of(b, 32), tid, next_round=False)
        del saves[:]
        rnd = (await c.call("NextRound", org, tournament_id=tid)).round
        tables = [t for t in rnd.tables if not t.bye]
        assert len(tables) == 16
        # NextRound answers with every table's match, each its table's own
        assert [t.match_id for t in tables] == [f"{tid}-r1-t{t.number}" for t in tables]
        assert 1 < seen.peak <= director_module.CREATING_AT_ONCE, seen.peak
        assert set(seen.calls.values()) == {1}, seen.calls  # each match asked for once
        with_matches = [s for s in saves if "MatchCreated" in s]
        assert sum(s.count("MatchCreated") for s in with_matches) == 16
        # one after another was a save per table (16); together, a few
        assert len(with_matches) <= 16 // 2, with_matches
        records = await asyncio.to_thread(
            b.services["tournament"].extra["director"].app.records, tid)
        assert match_created_per_table(records) == {t.number: 1 for t in tables}
    finally:
        await c.close()
        await b.stop(1)


async def test_a_stop_while_a_rounds_matches_are_created_converges_after_the_restart(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables 5-8's matches are created on the rules service but their answers never come
    back before the tournament service stops (tables 1-4's are recorded): after the restart,
    the round driver re-finds them by their ids and records them; no table has two matches,
    none has none."""
    tid = "halfway"
    seen = Creations(delay=0.0, hold={f"{tid}-r1-t{n}" for n in range(5, 9)})
    count_creations(monkeypatch, seen)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = tokens_of(b, 16)
    try:
        await started_swiss(c, org, tokens, tid, next_round=False)
        pairing = asyncio.create_task(c.call("NextRound", org, tournament_id=tid))
        for _ in range(600):
            rnd = (await c.call("GetRound", tournament_id=tid, round=1)).round \
                if seen.held == seen.hold else None
            if rnd is not None and sum(bool(t.match_id) for t in rnd.tables) == 4:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"held {sorted(seen.held)}; the others not recorded")
        assert sorted(t.number for t in rnd.tables if t.match_id) == [1, 2, 3, 4]
    finally:
        await c.close()
        await b.stop(1)  # the held answers with it
    await asyncio.gather(pairing, return_exceptions=True)  # cut with the service
    seen.open.set()

    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    rules = RulesClient(b.address("rules-neon-reign"))
    try:
        for _ in range(600):
            rnd = (await c.call("GetRound", tournament_id=tid, round=1)).round
            if all(t.match_id for t in rnd.tables):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the round's matches were not all recorded after the restart")
        assert [t.match_id for t in rnd.tables] == [f"{tid}-r1-t{n}" for n in range(1, 9)]
        records = await asyncio.to_thread(
            b.services["tournament"].extra["director"].app.records, tid)
        assert match_created_per_table(records) == {n: 1 for n in range(1, 9)}
        for n in range(1, 9):  # each waits for its seats on the rules service
            view = await rules.view(f"{tid}-r1-t{n}")
            assert view.status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS, (n, view.status)
        # and a player is handed its table's match, with its seat token
        a = (await c.call("MyNextMatch", tokens["p00"], tournament_id=tid)).assignment
        assert a.match_id.startswith(f"{tid}-r1-t") and a.seat_token
    finally:
        await c.close()
        await rules.close()
        await b.stop(1)
