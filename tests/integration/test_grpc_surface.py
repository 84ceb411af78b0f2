"""What every server offers: health, reflection, clean answers to garbage; the dice API."""

from __future__ import annotations

import hashlib

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.cli.backend import Backend
from services.genproto.neon.dice.v1 import dice_pb2
from services.platform.grpc_kit import call_metadata
from tests.support.client import dice_stub


@pytest.mark.parametrize("service", ["dice", "rules-toy"])
async def test_health_and_reflection(backend: Backend, service: str) -> None:
    async with grpc.aio.insecure_channel(backend.address(service)) as channel:
        status = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert status.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = set()
        async for r in responses:
            names |= {s.name for s in r.list_services_response.service}
        expected = "neon.dice.v1.DiceService" if service == "dice" else "neon.rules.v1.RulesService"
        assert expected in names and "grpc.health.v1.Health" in names
        if service == "rules-toy":  # the game a rules service serves, by its id
            assert "neon.rules.v1.RulesService.toy" in names
            per_game = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="neon.rules.v1.RulesService.toy"), timeout=5)
            assert per_game.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("method", [
    "/neon.rules.v1.RulesService/SubmitAction", "/neon.rules.v1.RulesService/CreateMatch",
    "/neon.rules.v1.RulesService/WatchMatch",
])
async def test_garbage_bytes_get_invalid_argument(backend: Backend, method: str) -> None:
    async with grpc.aio.insecure_channel(backend.address("rules-toy")) as channel:
        if method.endswith("WatchMatch"):
            call = channel.unary_stream(method)(b"\xff\xff\xff\x07garbage", timeout=5)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                async for _ in call:
                    pass
        else:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await channel.unary_unary(method)(b"\xff\xff\xff\x07garbage", timeout=5)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "malformed" in (info.value.details() or "")


async def test_dice_commits_reveals_only_after_close_and_takes_seeds_before_draws(backend: Backend) -> None:
    channel, dice = dice_stub(backend.address("dice"))
    md = call_metadata(backend.organiser_token())
    opened = await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="dice-1"), metadata=md, timeout=5)
    commitment = opened.session.commitment
    service = call_metadata(backend.issuer.issue("service", "*", ttl=600))  # the rules service's
    with pytest.raises(grpc.aio.AioRpcError) as info:  # seats add seeds through the rules service
        await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(match_id="dice-1", seat=0, seed="alice"), metadata=md, timeout=5)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(match_id="dice-1", seat=0, seed="alice"), metadata=service, timeout=5)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id="dice-1"), timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.Draw(dice_pb2.DrawRequest(match_id="dice-1", request_id="r", op=dice_pb2.DRAW_OP_ROLL, n=6, count=2), timeout=5)
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    draw = (await dice.Draw(dice_pb2.DrawRequest(match_id="dice-1", request_id="r1", op=dice_pb2.DRAW_OP_ROLL, n=6, count=2), metadata=md, timeout=5)).draw
    again = (await dice.Draw(dice_pb2.DrawRequest(match_id="dice-1", request_id="r1", op=dice_pb2.DRAW_OP_ROLL, n=6, count=2), metadata=md, timeout=5)).draw
    assert list(draw.result) == list(again.result) and draw.next == again.next
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(match_id="dice-1", seat=1, seed="late"), metadata=service, timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for bad in [dict(op=dice_pb2.DRAW_OP_UNSPECIFIED, n=6), dict(op=dice_pb2.DRAW_OP_ROLL, n=0),
                dict(op=dice_pb2.DRAW_OP_SHUFFLE, n=100_000)]:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.Draw(dice_pb2.DrawRequest(match_id="dice-1", request_id="x", count=1, **bad), metadata=md, timeout=5)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    closed = await dice.CloseSession(dice_pb2.CloseSessionRequest(match_id="dice-1"), metadata=service, timeout=5)
    assert hashlib.sha256(bytes.fromhex(closed.seed)).hexdigest() == commitment
    revealed = await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id="dice-1"), timeout=5)
    assert revealed.seed == closed.seed
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.Draw(dice_pb2.DrawRequest(match_id="dice-1", request_id="r2", op=dice_pb2.DRAW_OP_ROLL, n=6, count=1), metadata=md, timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id="nope"), timeout=5)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    await channel.close()


async def test_public_commitment_hides_the_draw_counter_until_the_seal(backend: Backend) -> None:
    """The counter tells how many draw blocks a match has used: a running signal of hidden
    play (a reroll, a shuffle, a secret pick). Anyone may read the commitment, but only the
    services and the organiser see the counter while the session is open."""
    channel, dice = dice_stub(backend.address("dice"))
    md = call_metadata(backend.organiser_token())
    player = call_metadata(backend.issuer.issue("seat", "dice-2", seat=0, player="alice", ttl=600))
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="dice-2"), metadata=md, timeout=5)
    for i in range(3):
        await dice.Draw(dice_pb2.DrawRequest(match_id="dice-2", request_id=f"d{i}",
                                             op=dice_pb2.DRAW_OP_SHUFFLE, n=20), metadata=md, timeout=5)
    seen = (await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id="dice-2"),
                                     metadata=md, timeout=5)).session
    assert seen.counter > 0 and not seen.closed
    for metadata in (None, player):
        public = (await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id="dice-2"),
                                           metadata=metadata, timeout=5)).session
        assert public.counter == 0
        assert public.commitment == seen.commitment
    service = call_metadata(backend.issuer.issue("service", "*", ttl=600))
    await dice.CloseSession(dice_pb2.CloseSessionRequest(match_id="dice-2"), metadata=service, timeout=5)
    sealed = (await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id="dice-2"),
                                       timeout=5)).session
    assert sealed.closed and sealed.counter == seen.counter
    await channel.close()
