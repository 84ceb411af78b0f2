"""Organisers mint player tokens on matchmaking; the tokens open tickets."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from services.cli.backend import start_backend
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.conftest import make_settings


async def test_an_organiser_mints_a_player_token_that_opens_a_ticket(tmp_path: Path,
                                                                     nats_url: str) -> None:
    backend = await start_backend(make_settings(tmp_path, nats_url), games=[],
                                  embedded_nats=False, matchmaking=True)
    ch = channel(backend.address("matchmaking"))
    stub = pb_grpc.MatchmakingServiceStub(ch)
    try:
        organiser = backend.organiser_token()
        reply = await stub.MintPlayerToken(pb.MintPlayerTokenRequest(player_id="ana", ttl_seconds=600),
                                           metadata=call_metadata(organiser), timeout=10)
        assert reply.player_id == "ana" and reply.expires_at > 0
        assert backend.issuer.verify(reply.token).player == "ana"
        ticket = await stub.GetTicket(pb.GetTicketRequest(ticket_id="none"),
                                      metadata=call_metadata(reply.token), timeout=10)
        pytest.fail(f"unexpected ticket {ticket}")
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.NOT_FOUND  # authenticated: the ticket is just absent
    try:
        for token, request, code in [
            (reply.token, pb.MintPlayerTokenRequest(player_id="ben"), grpc.StatusCode.PERMISSION_DENIED),
            (None, pb.MintPlayerTokenRequest(player_id="ben"), grpc.StatusCode.UNAUTHENTICATED),
            (organiser, pb.MintPlayerTokenRequest(player_id="bot-evil"), grpc.StatusCode.INVALID_ARGUMENT),
            (organiser, pb.MintPlayerTokenRequest(player_id=""), grpc.StatusCode.INVALID_ARGUMENT),
            (organiser, pb.MintPlayerTokenRequest(player_id="x", ttl_seconds=-1),
             grpc.StatusCode.INVALID_ARGUMENT),
        ]:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.MintPlayerToken(request, metadata=call_metadata(token), timeout=10)
            assert refused.value.code() == code, refused.value.details()
    finally:
        await ch.close()
        await backend.stop(1)
