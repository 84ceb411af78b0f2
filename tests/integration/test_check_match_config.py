"""CheckMatchConfig over real gRPC: a config is checked as CreateMatch checks it (mode, seats,
teams, options, the engine's own set-up) and nothing is made; and CreateTournament asks it,
so an event's options are checked by the engine its rules service runs, whatever engine and
version that is (before, only where the tournament service's build had the same engine)."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from services.tournament import director
from services.tournament.rules_port import RulesGateway
from tests.integration.test_tournament_api import _code, b  # noqa: F401 (b: the fixture)

pytestmark = pytest.mark.timeout(120)
S = grpc.StatusCode


async def _check(client: RulesClient, token: str | None = None, **kw: Any) -> Any:
    return await client.call("CheckMatchConfig", rules_pb2.CheckMatchConfigRequest(**kw), token)


async def test_a_config_is_checked_as_create_match_checks_it_and_nothing_is_made(
        b: Backend) -> None:  # noqa: F811
    client = RulesClient(b.address("rules-neon-reign"))
    try:
        info = await client.info()
        before = await client.call("ListMatches", rules_pb2.ListMatchesRequest())
        # public: no token needed; the answer names the game and the engine that took it
        ok = await _check(client, mode="single", seats=2,
                          options_json='{"decks": ["neon-pulse", "chrome-fury"]}')
        assert (ok.game_id, ok.engine_version) == ("neon-reign", info.engine_version)
        assert (await _check(client, mode="single", seats=2)).game_id == "neon-reign"
        refused = {
            "unknown mode": dict(mode="chess", seats=2),
            "takes": dict(mode="single", seats=9),
            "no_such_option": dict(mode="single", seats=2, options_json='{"no_such_option": 1}'),
            "NaN": dict(mode="single", seats=2, options_json='{"decks": NaN}'),
            "JSON object": dict(mode="single", seats=2, options_json="[1]"),
            # the schema allows it; the engine's set-up refuses one deck for two seats
            "one Action deck per seat": dict(mode="single", seats=2,
                                             options_json='{"decks": ["neon-pulse"]}'),
            "teams": dict(mode="single", seats=2,
                          teams=[rules_pb2.TeamSeats(seats=[0, 0])]),
        }
        for named, kw in refused.items():
            code, why = await _code(_check(client, **kw))
            assert code == S.INVALID_ARGUMENT and named in why, (named, code, why)
        # the same reasons as CreateMatch's
        code, created_why = await _code(client.create(
            b.organiser_token(), mode="single", seats=2, options={"decks": ["neon-pulse"]}))
        code2, checked_why = await _code(_check(client, mode="single", seats=2,
                                                options_json='{"decks": ["neon-pulse"]}'))
        assert code == code2 == S.INVALID_ARGUMENT and created_why == checked_why
        # a bad token is refused as on every call; nothing was made by any of it
        code, _ = await _code(_check(client, "not.a.token", mode="single", seats=2))
        assert code == S.UNAUTHENTICATED
        after = await client.call("ListMatches", rules_pb2.ListMatchesRequest())
        assert list(after.matches) == list(before.matches)
    finally:
        await client.close()


async def test_create_tournament_asks_the_rules_service_not_its_own_build(
        b: Backend, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """With the tournament service's own check of the engine's set-up out of the way (a
    build without the game's engine, or with another version of it), options the rules
    service's engine refuses are still refused at creation: the rules service said so."""
    monkeypatch.setattr(director, "check_set_up", lambda *a, **k: None)
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    fmt = json.dumps({"format": "swiss", "rounds": 1})
    code, why = await _code(c.call("CreateTournament", org, tournament_id="deck1",
                                   game="neon-reign", mode="single", format_json=fmt,
                                   options_json='{"decks": ["neon-pulse"]}'))
    assert code == S.INVALID_ARGUMENT, why
    assert "options_json: the rules service of neon-reign refuses tables of 2" in why, why
    assert "one Action deck per seat" in why, why
    await c.call("CreateTournament", org, tournament_id="deck2", game="neon-reign",
                 mode="single", format_json=fmt,
                 options_json='{"decks": ["neon-pulse", "chrome-fury"]}')


class _BeforeCheck(rules_pb2_grpc.RulesServiceServicer):
    """A rules service from before CheckMatchConfig: UNIMPLEMENTED (the generated base)."""


async def test_a_rules_service_from_before_check_match_config_cannot_say() -> None:
    """The tournament's port takes UNIMPLEMENTED as "cannot say" (False: the tournament
    service then checks with its own build's engine, where it has the same), and passes
    a refusal on as InvalidArgument; any other failure is the caller's to report."""
    server = grpc.aio.server()
    rules_pb2_grpc.add_RulesServiceServicer_to_server(_BeforeCheck(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    port_of = RulesGateway(lambda game: f"127.0.0.1:{port}", "", 5)
    try:
        assert await port_of.check_config("neon-reign", "single", 2, "") is False
    finally:
        await port_of.close()
        await server.stop(0)


async def test_the_port_passes_a_refusal_on(b: Backend) -> None:  # noqa: F811
    port_of = RulesGateway(lambda game: b.address("rules-neon-reign"), "", 5)
    try:
        assert await port_of.check_config("neon-reign", "single", 2, "") is True
        with pytest.raises(director.InvalidArgument, match="one Action deck per seat"):
            await port_of.check_config("neon-reign", "single", 2, '{"decks": ["neon-pulse"]}')
        ch = channel(b.address("rules-neon-reign"))
        try:  # the raw call, as a client makes it: the same reason
            stub = rules_pb2_grpc.RulesServiceStub(ch)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await stub.CheckMatchConfig(rules_pb2.CheckMatchConfigRequest(
                    mode="single", seats=2, options_json='{"decks": ["neon-pulse"]}'),
                    metadata=call_metadata(), timeout=10)
            assert info.value.code() == S.INVALID_ARGUMENT
        finally:
            await ch.close()
    finally:
        await port_of.close()
