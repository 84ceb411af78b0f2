"""DiceService over gRPC: ReserveBlocks and who receives a session's state key."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.draws import state_key, word
from services.platform.grpc_kit import call_metadata
from services.rules.verify import verify_export
from tests.support import toy
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


async def test_an_organisers_draw_does_not_block_a_created_matchs_start(toy_backend: Backend) -> None:
    """The rules service opens a match's dice session at CreateMatch and reserves its blocks
    from block 0 only at StartMatch. An organiser's Draw on it in between (by hand, or a bug
    in an organiser's script) moved the session's counter: the seats' client seeds were then
    refused and the first ReserveBlocks too, so the match could never start. A session the
    rules service opened for its match now draws only through ReserveBlocks; a Draw on it is
    FAILED_PRECONDITION with the reason, and the match starts and verifies. A session an
    organiser opened for itself draws as before."""
    rules = RulesClient(toy_backend.address("rules-toy"))
    channel, dice = dice_stub(toy_backend.address("dice"))
    organiser = toy_backend.organiser_token()
    service = call_metadata(toy_backend.issuer.issue("service", "*", ttl=600))
    created = await rules.create(organiser, match_id="drawn-1", mode="race", seats=2,
                                 await_client_seeds=True)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    for md in (call_metadata(organiser), service):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.Draw(dice_pb2.DrawRequest(match_id="toy/drawn-1", request_id="peek",
                                                 op=dice_pb2.DRAW_OP_ROLL, n=6, count=1),
                            metadata=md, timeout=5)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION, info.value
        assert "ReserveBlocks" in (info.value.details() or ""), info.value.details()
    seen = await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id="toy/drawn-1"),
                                    metadata=service, timeout=5)
    assert seen.session.counter == 0
    await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id="drawn-1", seed="mine"), tokens[0])
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="drawn-1"), organiser)
    await rules.submit(tokens[0], "drawn-1", "a", {"type": "pick", "step": 3})
    await rules.submit(tokens[1], "drawn-1", "b", {"type": "pick", "step": 1})  # rolls
    await rules.abandon(organiser, "drawn-1", "done")
    export = (await rules.export(organiser, "drawn-1")).export_jsonl
    assert verify_export(export, engine=toy.ENGINE).ok
    # an organiser's own session (opened by the organiser, then the same again): draws
    md = call_metadata(organiser)
    for _ in range(2):
        await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="own-1"), metadata=md, timeout=5)
    draw = (await dice.Draw(dice_pb2.DrawRequest(match_id="own-1", request_id="r1",
                                                 op=dice_pb2.DRAW_OP_ROLL, n=6, count=3),
                            metadata=md, timeout=5)).draw
    assert len(draw.result) == 3 and draw.first == 0 and draw.next > 0
    await channel.close()
    await rules.close()
