"""A Play stream without a seat token, opened on a rules replica of several, is refused
within a second even when it sends nothing, as on a single replica.

The routed servicer read the stream's first message (to find the match's owner) before the
servicer's own check, with no bound: a caller with no token, or an organiser's or a player's,
that sent nothing held the stream, and its slot among the anonymous streams, until its own
deadline; the single replica refuses it within ``PLAY_OPEN_WAIT_S``. Two real replicas over
gRPC sockets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata

pytestmark = pytest.mark.timeout(120)


async def test_a_silent_stream_without_a_seat_token_is_refused_on_a_replica(
        duel_backend: Backend) -> None:
    from services.platform.replicas import owner_of
    from tests.integration.test_rules_loose_ends import two_replicas

    replicas, peers = await two_replicas(duel_backend)

    async def silent() -> AsyncIterator[Any]:
        await asyncio.sleep(30)
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id="never"))

    try:
        async with grpc.aio.insecure_channel(peers[0]) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            for token, code in (
                    (None, grpc.StatusCode.UNAUTHENTICATED),
                    (duel_backend.organiser_token(), grpc.StatusCode.PERMISSION_DENIED),
                    (duel_backend.issuer.issue("player", "*", player="p", ttl=600),
                     grpc.StatusCode.PERMISSION_DENIED)):
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    async with asyncio.timeout(5):
                        async for _ in stub.Play(silent(), metadata=call_metadata(token),
                                                 timeout=20):
                            pass
                assert info.value.code() == code, info.value.details()
                assert "seat token" in (info.value.details() or "")
            # a seat's stream on the replica that does not own its match is still relayed
            match_id = next(m for m in (f"routed-{i}" for i in range(100))
                            if owner_of(m, 2) == 1)
            created = await stub.CreateMatch(rules_pb2.CreateMatchRequest(
                match_id=match_id, mode="duel", seats=2),
                metadata=call_metadata(duel_backend.organiser_token()), timeout=10)
            seat_token = created.seat_tokens[0].token

            async def opened() -> AsyncIterator[Any]:
                yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
                await asyncio.sleep(30)

            async with asyncio.timeout(10):
                call = stub.Play(opened(), metadata=call_metadata(seat_token), timeout=20)
                first = await call.read()
                while first.WhichOneof("kind") != "update":  # the stored events come first
                    first = await call.read()
                call.cancel()
            assert first.update.view_json and first.update.version == 2
            assert replicas[0].extra["host"].live.get(match_id) is None  # its owner served it
        limiter = replicas[0].handle.streams
        assert limiter is not None
        for _ in range(20):
            if limiter.counter.total == 0:
                break
            await asyncio.sleep(0.1)
        assert limiter.counter.total == 0
    finally:
        for replica in replicas:
            await replica.stop(1)
