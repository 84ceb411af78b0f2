"""ReinstatePlayer through the real services (gRPC, NATS, the rules service's clock): a
player who never came to their round 1 table is dropped as a no-show before round 2, the
organiser reinstates them with a reason, and round 3 pairs them again. The bundle records
the reinstatement and verifies. Refusals: a player token, no reason, a player who plays, a
round robin."""

from __future__ import annotations

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import TournamentClient, format_json
from tests.integration.test_tournament_api import _code
from tests.integration.test_tournament_no_show import (
    organiser_and_players,
    play_round,
    start_forfeiting_no_shows,
    verified_log,
)

pytestmark = pytest.mark.timeout(300)
S = grpc.StatusCode


@pytest.fixture
def b(reign_tournament_backend: Backend) -> Backend:
    return reign_tournament_backend


async def _statuses(c: TournamentClient, tid: str) -> dict[str, str]:
    t = (await c.call("GetTournament", tournament_id=tid)).tournament
    return {p.player_id: p.status for p in t.players}


async def test_a_no_show_reinstated_is_paired_in_the_next_round_and_verifies(
        b: Backend) -> None:
    names = [f"p{i}" for i in range(5)]
    c, org, tokens = organiser_and_players(b, names)
    rules: dict[str, RulesClient] = {}
    tid = "back"
    why = "client failed to ready; talked to the arbiter"
    try:
        await start_forfeiting_no_shows(c, org, tokens, tid, game="neon-reign", mode="single",
                                        format_json=format_json("swiss", 3))
        came = [n for n in names if n != "p3"]
        await play_round(c, rules, tokens, tid, came, 1, 60)
        # p3 plays: nothing to reinstate
        code, text = await _code(c.call("ReinstatePlayer", org, tournament_id=tid,
                                        player_id="p3", reason=why))
        assert code == S.FAILED_PRECONDITION and "is not dropped" in text, text
        second = (await c.call("NextRound", org, tournament_id=tid)).round
        assert "p3" not in {p for k in second.tables for p in k.seats}
        assert (await _statuses(c, tid))["p3"] == "dropped"
        # refusals: a player token, a missing reason, no such player
        code, _ = await _code(c.call("ReinstatePlayer", tokens["p3"], tournament_id=tid,
                                     player_id="p3", reason=why))
        assert code == S.PERMISSION_DENIED
        code, text = await _code(c.call("ReinstatePlayer", org, tournament_id=tid,
                                        player_id="p3", reason="  "))
        assert code == S.INVALID_ARGUMENT and "reason" in text
        code, _ = await _code(c.call("ReinstatePlayer", org, tournament_id=tid,
                                     player_id="nobody", reason=why))
        assert code == S.NOT_FOUND
        t = (await c.call("ReinstatePlayer", org, tournament_id=tid, player_id="p3",
                          reason=why)).tournament
        assert {p.player_id: p.status for p in t.players}["p3"] == "playing"
        again = (await c.call("ReinstatePlayer", org, tournament_id=tid, player_id="p3",
                              reason=why)).tournament
        assert again.version == t.version  # a repeat changes nothing
        mine = await c.call("MyNextMatch", tokens["p3"], tournament_id=tid)
        assert not mine.HasField("assignment")  # round 2 was paired without p3
        await play_round(c, rules, tokens, tid, came, 2, 60)
        third = (await c.call("NextRound", org, tournament_id=tid)).round
        assert "p3" in {p for k in third.tables for p in k.seats}
        await play_round(c, rules, tokens, tid, names, 3, 60)
        rows = (await c.call("FinishTournament", org, tournament_id=tid)).rows
        p3 = next(r for r in rows if r.player_id == "p3")
        assert not p3.dropped
        assert p3.games + sum(1 for k in third.tables if k.bye and "p3" in k.seats) == 1
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await close_all(rules)
        await c.close()
    _, records = verified_log(bundle)
    assert [(r["player_id"], r["after_round"]) for r in records
            if r["type"] == "NoShowDropped"] == [("p3", 1)]
    assert [(r["player_id"], r["from_round"], r["reason"], r["by"]) for r in records
            if r["type"] == "PlayerReinstated"] == [("p3", 3, why, "org")]


async def test_a_round_robin_reinstates_no_one(b: Backend) -> None:
    c, org, _ = organiser_and_players(b, [])
    tid = "rr_back"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=format_json("round-robin", 0))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for n in ("a", "b", "c"):
            await c.call("Register", org, tournament_id=tid, player_id=n)
        await c.call("StartTournament", org, tournament_id=tid)
        await c.call("DropPlayer", org, tournament_id=tid, player_id="b", reason="left")
        code, text = await _code(c.call("ReinstatePlayer", org, tournament_id=tid,
                                        player_id="b", reason="came back"))
        assert code == S.FAILED_PRECONDITION
        assert "a round-robin reinstates no dropped player" in text, text
        assert (await _statuses(c, tid))["b"] == "dropped"
    finally:
        await c.close()
