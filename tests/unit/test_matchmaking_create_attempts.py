"""An accepted match's CreateMatch tries are stored with its proposal (its ProposalBatch):
a matchmaker restarted while the rules service does not answer goes on counting from the
tries already made, not from zero, so a match is given up after CREATE_ATTEMPTS tries in all,
and a match tried before the restart is still abandoned when it falls through after it.

Real store (SQLite, one file; each ``open()`` a fresh process's view of it), an injected
clock, a rules service that answers UNAVAILABLE (a fake: the retry logic is the subject)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.matchmaking import matchmaker as mm_module
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.tokens import Claims


def claims(player: str) -> Claims:
    return Claims(role="player", match="*", player=player, exp=2**40)


class DownRules:
    """A rules service that never answers CreateMatch; counts the tries and abandons."""

    def __init__(self) -> None:
        self.creates: list[str] = []
        self.abandoned: list[str] = []

    def address(self, game: str) -> str:
        return ""

    async def create_match(self, game: str, match_id: str, *args: Any, **kw: Any) -> Any:
        self.creates.append(match_id)
        raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                   grpc.aio.Metadata(), details="down")

    async def abandon_match(self, game: str, match_id: str, reason: str) -> None:
        self.abandoned.append(match_id)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Store:
    def __init__(self, path: Path) -> None:
        self.env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
        self.apps: list[MatchmakingApplication] = []
        self.clock = Clock()

    async def open(self, rules: DownRules) -> Matchmaker:
        app = MatchmakingApplication(env=self.env)
        self.apps.append(app)
        catalogue = Catalogue()
        catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
        config = Config(policy=Policy(partial_after=0, backfill_after=1e9), client_seeds=False)
        mm = Matchmaker(app, rules, StaticRatings({}), config, catalogue,  # type: ignore[arg-type]
                        clock=self.clock)
        await mm.recover()
        return mm

    def close(self) -> None:
        for app in self.apps:
            app.close()


async def tries(mm: Matchmaker, clock: Clock, n: int) -> None:
    """Cycles until ``n`` more CreateMatch tries were made (the clock moved past each
    backoff)."""
    rules: DownRules = mm.rules  # type: ignore[assignment]
    want = len(rules.creates) + n
    for _ in range(200):
        if len(rules.creates) >= want:
            break
        clock.now += 10
        await mm.cycle()
        if mm._creating:
            await asyncio.gather(*list(mm._creating))
    assert len(rules.creates) == want, rules.creates


async def proposed_and_accepted(mm: Matchmaker) -> str:
    for p in ("ann", "bob"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    await mm.cycle()
    (match_id,) = mm.proposals
    for p in ("ann", "bob"):
        await mm.accept_match(claims(p), f"t-{p}", match_id)
    return match_id


async def test_create_tries_go_on_counting_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mm_module, "CREATE_ATTEMPTS", 5)
    store = Store(tmp_path / "mm.db")
    rules = DownRules()
    try:
        mm = await store.open(rules)
        match_id = await proposed_and_accepted(mm)
        await tries(mm, store.clock, 3)
        assert mm.proposals[match_id].attempts == 3
        await mm.cycle()  # stores the tries (before the backoff ends: no fourth)
        assert len(rules.creates) == 3

        restarted = DownRules()
        mm2 = await store.open(restarted)  # the first process is gone (never cycled again)
        assert mm2.proposals[match_id].attempts == 3  # before: 0, five more tries
        await tries(mm2, store.clock, 2)
        for _ in range(5):  # given up after the fifth try in all: no sixth
            store.clock.now += 10
            await mm2.cycle()
        assert restarted.creates == [match_id] * 2
        assert match_id not in mm2.proposals
        t = mm2.tickets.get("t-ann") or mm2.app.find("t-ann")
        assert t is not None and t.released == match_id
        assert match_id in restarted.abandoned or any(
            not task.done() for task in mm2._abandoning)
    finally:
        store.close()


async def test_a_match_tried_before_a_restart_is_abandoned_when_cancelled_after_it(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "mm.db")
    rules = DownRules()
    try:
        mm = await store.open(rules)
        match_id = await proposed_and_accepted(mm)
        await tries(mm, store.clock, 1)  # it may exist on the rules service (answer lost)
        await mm.cycle()  # stores the try

        restarted = DownRules()
        mm2 = await store.open(restarted)
        await mm2.cancel_ticket(claims("ann"), "t-ann")
        if mm2._abandoning:
            await asyncio.gather(*list(mm2._abandoning))
        assert restarted.abandoned == [match_id]  # before: attempts 0, nothing abandoned
    finally:
        store.close()
