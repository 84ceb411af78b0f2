"""Matchmaking and the tournament service against a rules service from before StartMatch
answered repeats (it refuses one FAILED_PRECONDITION "the match has already started"): both
take that as started, so the services can be upgraded in any order; any other refusal still
reaches the caller. The rules service is a real gRPC server on a socket."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.matchmaking.rules_port import RulesGateway as MatchmakingRules
from services.tournament.rules_port import RulesGateway as TournamentRules


async def test_an_older_rules_services_already_started_is_a_start() -> None:
    async def start(request: pb.StartMatchRequest, context: Any) -> Any:
        if request.match_id == "old-repeat":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "the match has already started")
        if request.match_id == "abandoned":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "the match was abandoned: table broken")
        return pb.StartMatchResponse(version=2, state_hash="h")

    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "neon.rules.v1.RulesService", {"StartMatch": grpc.unary_unary_rpc_method_handler(
            start, pb.StartMatchRequest.FromString, pb.StartMatchResponse.SerializeToString)})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    address = f"127.0.0.1:{port}"
    tournament = TournamentRules(lambda game: address, "svc", 5.0)
    matchmaking = MatchmakingRules(lambda game: address, "svc", 5.0)
    try:
        assert await tournament.start_match("toy", "old-repeat") is True
        assert await tournament.start_match("toy", "fresh") is False
        await matchmaking.start_match("toy", "old-repeat")  # no error: started
        for rules in (tournament, matchmaking):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await rules.start_match("toy", "abandoned")
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        await server.stop(0)
