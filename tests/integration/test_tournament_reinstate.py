"""ReinstatePlayer through the real services (gRPC, NATS, the rules service's clock): a
player who never came to their round 1 table is dropped as a no-show before round 2, the
organiser reinstates them with a reason, and round 3 pairs them again. The bundle records
the reinstatement and verifies. Refusals: a player token, no reason, a player who plays, a
round robin."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.timeout(300)
S = grpc.StatusCode


@pytest.fixture
async def b(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    settings = make_settings(tmp_path, nats_url)
    settings = dataclasses.replace(settings, ports={**settings.ports, "tournament": 0})
    backend = await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                                  tournament=True)
    yield backend
    await backend.stop(1)


async def _code(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value.code(), caught.value.details() or ""


async def _statuses(c: TournamentClient, tid: str) -> dict[str, str]:
    t = (await c.call("GetTournament", tournament_id=tid)).tournament
    return {p.player_id: p.status for p in t.players}


async def test_a_no_show_reinstated_is_paired_in_the_next_round_and_verifies(
        b: Backend) -> None:
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    names = [f"p{i}" for i in range(5)]
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    tid = "back"
    why = "client failed to ready; talked to the arbiter"
    try:
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=format_json("swiss", 3), check_in_seconds=3,
                     no_show=pb.NO_SHOW_POLICY_FORFEIT,
                     clock=pb.Clock(per_decision_ms=1500, max_timeouts=1))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for n in names:
            await c.call("Register", tokens[n], tournament_id=tid)
        await c.call("StartTournament", org, tournament_id=tid)
        await c.call("NextRound", org, tournament_id=tid)
        came = [n for n in names if n != "p3"]
        await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                               for n in came))
        await wait_round_complete(c, tid, 1, 60)
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
        await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                               for n in came))
        await wait_round_complete(c, tid, 2, 60)
        third = (await c.call("NextRound", org, tournament_id=tid)).round
        assert "p3" in {p for k in third.tables for p in k.seats}
        await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                               for n in names))
        await wait_round_complete(c, tid, 3, 60)
        rows = (await c.call("FinishTournament", org, tournament_id=tid)).rows
        p3 = next(r for r in rows if r.player_id == "p3")
        assert not p3.dropped
        assert p3.games + sum(1 for k in third.tables if k.bye and "p3" in k.seats) == 1
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await close_all(rules)
        await c.close()
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    records = [json.loads(x)["record"] for x in bundle.splitlines()
               if json.loads(x)["type"] == "LogRecord"]
    assert [(r["player_id"], r["after_round"]) for r in records
            if r["type"] == "NoShowDropped"] == [("p3", 1)]
    assert [(r["player_id"], r["from_round"], r["reason"], r["by"]) for r in records
            if r["type"] == "PlayerReinstated"] == [("p3", 3, why, "org")]


async def test_a_round_robin_reinstates_no_one(b: Backend) -> None:
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
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
