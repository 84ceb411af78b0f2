"""A clock whose timeout policy is ``forfeit`` on an engine that offers no resignation, over
real gRPC, real rules services and the tournament service (real NATS).

Before: CreateMatch took such a clock, and when a seat reached ``max_timeouts`` the host only
logged "forfeit due but the engine offers no resign": the absent player was never forfeited
(the organiser believed they would be). The engines here: NEON of ruleset 2 (contract v2,
its ruleset has no resignation: ``Ruleset.resign``), and the Hidden Race toy (contract v1,
no standing options at all). The refusal names the policy and the ruleset; the other
policies are still taken. The tournament service refuses ``no_show: forfeit`` up front for a
game whose rules service says (GetGameInfo) it cannot resign a seat, rather than leave every
round with matches it can never create.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, format_json
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.rules.games.neon.engine import ENGINES
from tests.integration.conftest import make_settings
from tests.support import toy

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def b(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Dice, NEON of ruleset 2 (served as "neon"), the toy, and the tournament service."""
    backend = await start_backend(make_settings(tmp_path, nats_url), games=[],
                                  embedded_nats=False, tournament=True,
                                  engines={"neon": ENGINES["2"], "toy": toy.ENGINE})
    yield backend
    await backend.stop(1)


def clock(policy: int) -> rules_pb2.ClockConfig:
    return rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=60_000,
                                 max_timeouts=1, policy=policy)


@pytest.mark.parametrize(("game", "mode", "ruleset"), [("neon", "rebirth", "2"),
                                                       ("toy", "race", "1")])
async def test_create_match_refuses_a_forfeit_no_seat_could_be_given(
        b: Backend, game: str, mode: str, ruleset: str) -> None:
    client = RulesClient(b.address(f"rules-{game}"))
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.create(b.organiser_token(), match_id=f"{game}-forfeit", mode=mode,
                                seats=2, clock=clock(rules_pb2.TIMEOUT_POLICY_FORFEIT))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        reason = refused.value.details()
        assert "policy forfeit" in reason and f"ruleset {ruleset}" in reason, reason
        assert "resign" in reason and "bot" in reason, reason
        with pytest.raises(grpc.aio.AioRpcError) as missing:  # nothing was created
            await client.view(f"{game}-forfeit")
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        # the other policies need no resignation: still taken
        for policy in (rules_pb2.TIMEOUT_POLICY_BOT, rules_pb2.TIMEOUT_POLICY_DEFAULT_ACTION):
            created = await client.create(b.organiser_token(), match_id=f"{game}-{policy}",
                                          mode=mode, seats=2, clock=clock(policy))
            assert len(created.seat_tokens) == 2
    finally:
        await client.close()


async def test_a_tournament_refuses_forfeiting_no_shows_of_a_game_without_resign(
        b: Backend) -> None:
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await c.call("CreateTournament", org, tournament_id="toyforfeit", game="toy",
                         mode="race", format_json=format_json("swiss", 1),
                         no_show=pb.NO_SHOW_POLICY_FORFEIT)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        reason = refused.value.details()
        assert "no_show forfeit" in reason and "resign" in reason and "bot" in reason, reason
        # forfeit is the default no-show policy: left out, it is refused the same
        with pytest.raises(grpc.aio.AioRpcError) as default:
            await c.call("CreateTournament", org, tournament_id="toyforfeit", game="toy",
                         mode="race", format_json=format_json("swiss", 1))
        assert default.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        created = await c.call("CreateTournament", org, tournament_id="toybot", game="toy",
                               mode="race", format_json=format_json("swiss", 1),
                               no_show=pb.NO_SHOW_POLICY_BOT)
        assert created.tournament.no_show == pb.NO_SHOW_POLICY_BOT
    finally:
        await c.channel.close()
