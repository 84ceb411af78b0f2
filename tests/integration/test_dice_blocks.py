"""DiceService over gRPC: ReserveBlocks and who receives a session's state key."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from services.cli.backend import Backend
from services.genproto.neon.dice.v1 import dice_pb2
from services.platform.draws import state_key, word
from services.platform.grpc_kit import call_metadata
from tests.support.client import dice_stub


async def test_reserve_blocks_and_the_state_key_go_to_services_only(backend: Backend) -> None:
    channel, dice = dice_stub(backend.address("dice"))
    service = call_metadata(backend.issuer.issue("service", "*", ttl=600))
    organiser = call_metadata(backend.organiser_token())
    seat = call_metadata(backend.issuer.issue("seat", "neon/b1", seat=0, ttl=600))
    key = "neon/b1"
    opened = await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id=key), metadata=service, timeout=5)
    assert len(opened.state_key) == 64
    again = await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id=key), metadata=organiser, timeout=5)
    assert again.state_key == "" and again.session.commitment == opened.session.commitment
    for md in (seat, organiser, ()):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(match_id=key, first=0, count=8),
                                     metadata=md, timeout=5)
        assert info.value.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)
    blocks = await dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(match_id=key, first=0, count=16),
                                      metadata=service, timeout=5)
    for bad in (dict(first=0, count=0), dict(first=-3, count=1), dict(first=0, count=5000)):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(match_id=key, **bad), metadata=service, timeout=5)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(match_id=key, seat=0, seed="late"),
                                 metadata=service, timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    closed = await dice.CloseSession(dice_pb2.CloseSessionRequest(match_id=key), metadata=service, timeout=5)
    seed = bytes.fromhex(closed.seed)
    assert hashlib.sha256(seed).hexdigest() == opened.session.commitment
    assert list(blocks.words) == [word(seed, key, [], n) for n in range(16)]
    assert opened.state_key == state_key(seed, key).hex()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(match_id=key, first=16, count=1),
                                 metadata=service, timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    await channel.close()


async def test_only_the_rules_service_closes_a_session(backend: Backend) -> None:
    """Closing reveals the seed to anyone (RevealSeed is public, the gateway serves it). An
    organiser token closing a running match's session made its future draws and its state
    key public while the match went on from the blocks it had reserved; the seal is the
    rules service's, after the match's end is stored."""
    channel, dice = dice_stub(backend.address("dice"))
    service = call_metadata(backend.issuer.issue("service", "*", ttl=600))
    organiser = call_metadata(backend.organiser_token())
    key = "neon/b2"
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id=key), metadata=service, timeout=5)
    await dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(match_id=key, first=0, count=16),
                             metadata=service, timeout=5)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.CloseSession(dice_pb2.CloseSessionRequest(match_id=key), metadata=organiser, timeout=5)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "service" in (info.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=key), timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    closed = await dice.CloseSession(dice_pb2.CloseSessionRequest(match_id=key), metadata=service, timeout=5)
    assert closed.session.closed and len(closed.seed) == 64
    await channel.close()
