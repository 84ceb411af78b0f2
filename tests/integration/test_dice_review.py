"""A hostile review of the dice service over the real services (rules and dice over gRPC,
PostgreSQL, NATS): a session an organiser drew from by hand before its match was created."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.client import dice_stub

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pg_backend(tmp_path: Path, nats_url: str, postgres_url: str,
                     postgres_schema: str) -> AsyncIterator[Backend]:
    settings = dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                                   database_url=postgres_url, postgres_schema=postgres_schema)
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


async def test_a_session_drawn_from_by_hand_is_no_match_session(pg_backend: Backend) -> None:
    """An organiser may open a dice session for itself and Draw from it. Opened under the key
    of a match to come (a tournament's ids are "<tid>-r<round>-t<table>") and drawn from, the
    match's CreateMatch failed with the words of a reservation ("blocks below N were handed out
    by Draw"), and its open had marked the session the match's, so the organiser's own session
    drew no more. CreateMatch is now refused by the open, saying why, no match is made, and
    the session stays the organiser's; a session opened ahead but never drawn from still
    serves its match."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    md = call_metadata(organiser)
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/ahead-1"), metadata=md,
                           timeout=5)
    drawn = await dice.Draw(dice_pb2.DrawRequest(match_id="toy/ahead-1", request_id="peek",
                                                 op=dice_pb2.DRAW_OP_SHUFFLE, n=20),
                            metadata=md, timeout=5)
    assert drawn.draw.first == 0 and drawn.draw.next > 0
    try:
        await rules.create(organiser, match_id="ahead-1", mode="race", seats=2)
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err
        assert "by hand" in (err.details() or "") and "another id" in (err.details() or ""), \
            err.details()
    else:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="ahead-1"),
                             organiser)
        pytest.fail(f"a match was created on a session drawn from by hand, and cannot start: "
                    f"{info.value.code()} {info.value.details()}")
    with pytest.raises(grpc.aio.AioRpcError) as info:  # no match was made
        await rules.view("ahead-1")
    assert info.value.code() == grpc.StatusCode.NOT_FOUND, info.value.details()
    # the session is still the organiser's own: it draws on
    again = await dice.Draw(dice_pb2.DrawRequest(match_id="toy/ahead-1", request_id="more",
                                                 op=dice_pb2.DRAW_OP_RANDBELOW, n=6),
                            metadata=md, timeout=5)
    assert again.draw.first == drawn.draw.next
    # opened ahead and never drawn from: the match takes it, starts and plays
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/ahead-2"), metadata=md,
                           timeout=5)
    await rules.create(organiser, match_id="ahead-2", mode="race", seats=2)
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="ahead-2"), organiser)
    await channel.close()
    await rules.close()


async def test_tokens_roles_and_unknown_sessions_get_clear_answers_that_reveal_no_seed(
        pg_backend: Backend) -> None:
    """Every dice call with an expired token is UNAUTHENTICATED, with a seat or player token
    on a service call PERMISSION_DENIED; an unknown session (or another game's key for a
    match) NOT_FOUND; a running match's seed is refused to everyone (the organiser included)
    and no refusal, nor a public read, carries the seed, the state key or the counter."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    created = await rules.create(organiser, match_id="probe-1", mode="race", seats=2)
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="probe-1"), organiser)
    seat = created.seat_tokens[0].token
    issuer = pg_backend.issuer
    expired = issuer.issue("service", "*", ttl=-120)
    player = issuer.issue("player", "*", player="ann", ttl=600)
    key = "toy/probe-1"
    calls = {
        "OpenSession": (dice.OpenSession, dice_pb2.OpenSessionRequest(match_id=key)),
        "AddClientSeed": (dice.AddClientSeed, dice_pb2.AddClientSeedRequest(
            match_id=key, seat=0, seed="x")),
        "Draw": (dice.Draw, dice_pb2.DrawRequest(match_id=key, request_id="r",
                                                op=dice_pb2.DRAW_OP_RANDBELOW, n=6)),
        "ReserveBlocks": (dice.ReserveBlocks, dice_pb2.ReserveBlocksRequest(
            match_id=key, first=0, count=1)),
        "CloseSession": (dice.CloseSession, dice_pb2.CloseSessionRequest(match_id=key)),
        "GetCommitment": (dice.GetCommitment, dice_pb2.GetCommitmentRequest(match_id=key)),
        "RevealSeed": (dice.RevealSeed, dice_pb2.RevealSeedRequest(match_id=key)),
    }
    for name, (method, request) in calls.items():
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await method(request, metadata=call_metadata(expired), timeout=5)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED, (name, info.value.details())
        if name in ("GetCommitment", "RevealSeed"):
            continue
        for token in (seat, player):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await method(request, metadata=call_metadata(token), timeout=5)
            assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED, \
                (name, info.value.details())
    public = await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id=key), timeout=5)
    assert public.session.counter == 0 and not public.session.closed  # how far it drew: hidden
    for token in (None, seat, player, organiser):
        md = call_metadata(token) if token else ()
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=key), metadata=md, timeout=5)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for unknown in ("toy/never-made", "neon/probe-1", "probe-1"):
        for method, request in ((dice.GetCommitment, dice_pb2.GetCommitmentRequest(match_id=unknown)),
                                (dice.RevealSeed, dice_pb2.RevealSeedRequest(match_id=unknown))):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await method(request, timeout=5)
            assert info.value.code() == grpc.StatusCode.NOT_FOUND, (unknown, info.value.details())
    for bad in ("", "../x", "a" * 65, "toy/x/y/z", "toy/\x00"):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id=bad), timeout=5)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (bad, info.value.details())
    # ended: the seed is public and is the one committed to
    await rules.abandon(organiser, "probe-1", "done")
    revealed = await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=key), timeout=5)
    assert hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == public.session.commitment
    await channel.close()
    await rules.close()
