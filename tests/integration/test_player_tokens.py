"""Organisers mint player tokens on matchmaking; the tokens open tickets, and so do JWTs of an
external identity provider the deployment trusts; forged, expired or misaddressed JWTs do not."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.cli.backend import start_backend
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.matchmaking import main as mm_main
from services.matchmaking.ratings import StaticRatings
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.conftest import make_settings
from tests.integration.test_matchmaking import FAST, catalogue
from tests.support import toy


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
            # ids no ticket and no tournament takes: a token for them could never play
            (organiser, pb.MintPlayerTokenRequest(player_id="José"), grpc.StatusCode.INVALID_ARGUMENT),
            (organiser, pb.MintPlayerTokenRequest(player_id="ann lee"), grpc.StatusCode.INVALID_ARGUMENT),
            (organiser, pb.MintPlayerTokenRequest(player_id="a" * 65), grpc.StatusCode.INVALID_ARGUMENT),
        ]:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.MintPlayerToken(request, metadata=call_metadata(token), timeout=10)
            assert refused.value.code() == code, refused.value.details()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.MintPlayerToken(pb.MintPlayerTokenRequest(player_id="ann lee"),
                                       metadata=call_metadata(organiser), timeout=10)
        assert refused.value.details() == ("player id 'ann lee' must be 1-64 letters, digits or "
                                           "_ . : @ | + - (the ids tickets and tournaments take)")
    finally:
        await ch.close()
        await backend.stop(1)


AUDIENCE, ISSUER = "neon-arena", "https://id.example"


def _pem(key: Any) -> str:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def _jwt(key: Any, sub: str, *, aud: str = AUDIENCE, iss: str = ISSUER, ttl: int = 600) -> str:
    now = int(time.time())
    return jwt.encode({"sub": sub, "aud": aud, "iss": iss, "iat": now, "exp": now + ttl},
                      key, algorithm="EdDSA")


async def test_tickets_open_with_a_minted_token_or_an_external_jwt_and_bad_jwts_are_refused(
        tmp_path: Path, nats_url: str) -> None:
    provider, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings = make_settings(tmp_path, nats_url, jwt_public_key=_pem(provider),
                             jwt_audience=AUDIENCE, jwt_issuer=ISSUER)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    addresses = {name: svc.address for name, svc in backend.services.items()}
    mm = await mm_main.start(
        dataclasses.replace(backend.settings, addresses={**settings.addresses, **addresses}),
        backend.keys, backend.nats_client, config=FAST, ratings=StaticRatings(),
        catalogue=catalogue())
    ch = channel(mm.address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    tag = uuid.uuid4().hex[:8]

    async def ticket(token: str, player: str) -> Any:
        reply = await stub.CreateTicket(
            pb.CreateTicketRequest(ticket_id=f"t-{player}", game="toy", players=[player],
                                   rating_window=0.5),
            metadata=call_metadata(token), timeout=10)
        return reply.ticket

    try:
        minted = await stub.MintPlayerToken(
            pb.MintPlayerTokenRequest(player_id=f"ana-{tag}", ttl_seconds=600),
            metadata=call_metadata(backend.organiser_token()), timeout=10)
        made = await ticket(minted.token, f"ana-{tag}")
        assert made.status == pb.TICKET_STATUS_WAITING
        external = await ticket(_jwt(provider, f"jo-{tag}"), f"jo-{tag}")
        assert external.status == pb.TICKET_STATUS_WAITING and external.players == [f"jo-{tag}"]
        # an identity provider's subject as it comes (Auth0: provider|id; an e-mail with +)
        for sub in (f"google-oauth2|10{tag}", f"ann+{tag}@mail.example"):
            queued = await stub.CreateTicket(
                pb.CreateTicketRequest(ticket_id=f"t-sub-{len(sub)}-{tag}", game="toy",
                                       players=[sub], rating_window=0.5),
                metadata=call_metadata(_jwt(provider, sub)), timeout=10)
            assert queued.ticket.status == pb.TICKET_STATUS_WAITING, sub

        cases = {
            "forged": (_jwt(forger, f"eve-{tag}"), grpc.StatusCode.UNAUTHENTICATED, "JWT"),
            "expired": (_jwt(provider, f"eve-{tag}", ttl=-3600),
                        grpc.StatusCode.UNAUTHENTICATED, "expired"),
            "wrong audience": (_jwt(provider, f"eve-{tag}", aud="another-app"),
                               grpc.StatusCode.UNAUTHENTICATED, "audience"),
            "wrong issuer": (_jwt(provider, f"eve-{tag}", iss="https://evil.example"),
                             grpc.StatusCode.UNAUTHENTICATED, "issuer"),
            "unsigned": (jwt.encode({"sub": f"eve-{tag}", "aud": AUDIENCE, "iss": ISSUER,
                                     "exp": int(time.time()) + 600}, None, algorithm="none"),
                         grpc.StatusCode.UNAUTHENTICATED, "algorithm"),
            "a bot's id": (_jwt(provider, "bot-eve"), grpc.StatusCode.PERMISSION_DENIED, "bot-"),
            "someone else's party": (_jwt(provider, f"eve-{tag}"),
                                     grpc.StatusCode.PERMISSION_DENIED, "party"),
        }
        for name, (token, code, words) in cases.items():
            player = f"ben-{tag}" if name == "someone else's party" else f"eve-{tag}"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await ticket(token, player)
            assert refused.value.code() == code, (name, refused.value.details())
            assert words in (refused.value.details() or ""), (name, refused.value.details())
    finally:
        await ch.close()
        await mm.stop(0.5)
        await backend.stop(1)


async def test_a_stream_taken_with_a_jwt_in_its_leeway_lasts_until_the_jwt_is_refused(
        tmp_path: Path, nats_url: str) -> None:
    """An identity provider's JWT is taken up to 30 s past its ``exp`` (clock skew). A
    stream opened with one in that leeway was ended at once (its end was ``exp`` + 1): the
    client, whose unary calls still went through, reconnected in a loop. Every stream now
    ends the moment the token stops being taken (``exp`` + the leeway), not before."""
    provider = Ed25519PrivateKey.generate()
    settings = make_settings(tmp_path, nats_url, jwt_public_key=_pem(provider),
                             jwt_audience=AUDIENCE, jwt_issuer=ISSUER)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    addresses = {name: svc.address for name, svc in backend.services.items()}
    mm = await mm_main.start(
        dataclasses.replace(backend.settings, addresses={**settings.addresses, **addresses}),
        backend.keys, backend.nats_client, config=FAST, ratings=StaticRatings(),
        catalogue=catalogue())
    ch = channel(mm.address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    late = _jwt(provider, f"lou-{uuid.uuid4().hex[:8]}", ttl=-26)  # taken for 4 s more at most
    refused_from = jwt.decode(late, options={"verify_signature": False})["exp"] + 30

    async def listed() -> Any:
        return await stub.ListMyInvitations(pb.ListMyInvitationsRequest(),
                                            metadata=call_metadata(late), timeout=10)

    try:
        assert (await listed()).total == 0  # taken: inside the leeway
        call = stub.WatchMyInvitations(pb.WatchMyInvitationsRequest(),
                                       metadata=call_metadata(late), timeout=30)
        stream = aiter(call)
        assert (await anext(stream)).total == 0
        with pytest.raises(grpc.aio.AioRpcError) as info:
            while True:
                await asyncio.wait_for(anext(stream), 10)
        ended = time.time()
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED, info.value
        assert "expired" in (info.value.details() or "")
        assert ended >= refused_from - 0.1, (
            f"the stream ended {refused_from - ended:.1f} s before its token was refused")
        assert ended < refused_from + 3
        with pytest.raises(grpc.aio.AioRpcError) as info:  # refused from then on
            await listed()
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "expired" in (info.value.details() or "")
    finally:
        await ch.close()
        await mm.stop(0.5)
        await backend.stop(1)
