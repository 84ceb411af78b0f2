"""``neon tournament simulate``'s bots follow their matches as a player's client does
(WatchMyMatches, the code ``neon tournament play`` follows them with), rather than ask
MyNextMatch every 0.1 s while they wait: 128 bots made some 1,300 calls a second of a
service that copied the whole tournament for each.

Over real gRPC, with the real tournament and Neon Reign rules services; the tournament
servicer's two methods are counted."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest

from services.cli.tournament_commands import format_json, simulate_run
from services.tournament.service import TournamentServicer
from tests.integration.conftest import start_tournament_backend

pytestmark = pytest.mark.timeout(240)
PLAYERS, ROUNDS = 8, 2


def count_calls(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """MyNextMatch and WatchMyMatches of the tournament servicer counted (before the backend
    starts: the server takes the servicer's methods when it is built)."""
    calls: collections.Counter[str] = collections.Counter()
    mine, watch = TournamentServicer.MyNextMatch, TournamentServicer.WatchMyMatches

    async def my_next_match(self: TournamentServicer, request: Any, context: Any) -> Any:
        calls["MyNextMatch"] += 1
        return await mine(self, request, context)

    async def watch_my_matches(self: TournamentServicer, request: Any, context: Any) -> Any:
        calls["WatchMyMatches"] += 1
        async for update in watch(self, request, context):
            calls["updates"] += 1
            yield update

    monkeypatch.setattr(TournamentServicer, "MyNextMatch", my_next_match)
    monkeypatch.setattr(TournamentServicer, "WatchMyMatches", watch_my_matches)
    return calls


async def test_the_bots_follow_their_matches_rather_than_ask_again_and_again(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_calls(monkeypatch)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    try:
        report = await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                    format_json("swiss", ROUNDS), PLAYERS, mode="single",
                                    timeout=120)
    finally:
        await b.stop(1)
    assert len(report.rounds) == ROUNDS and report.verify.ok, report.verify
    assert all(t.HasField("result") for r in report.rounds for t in r.tables)
    assert calls["MyNextMatch"] == 0, calls
    # one watch per bot and round, each told a few changes of its table (its match
    # created, started, its result), not polled
    assert calls["WatchMyMatches"] == PLAYERS * ROUNDS, calls
    assert PLAYERS * ROUNDS <= calls["updates"] <= PLAYERS * ROUNDS * 8, calls
