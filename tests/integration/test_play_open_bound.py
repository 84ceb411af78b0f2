"""A seat's Play stream that never sends its first message, ``open``, ends INVALID_ARGUMENT
naming ``open`` after ``PLAY_OPEN_TIMEOUT_S``, on a single replica and on a replica that
reads the first message to find the match's owner; its slot among the caller's open
streams is given back.

It waited for ever: the seat token let the stream past the tokenless bound
(``PLAY_OPEN_WAIT_S``), and nothing bounded the read of the first message after it. Real
rules services over gRPC sockets (with real NATS)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata
from services.rules import service as rules_service

pytestmark = pytest.mark.timeout(120)

BOUND_S = 0.5


async def silent() -> AsyncIterator[Any]:
    """A stream that sends nothing for longer than any test waits."""
    await asyncio.sleep(60)
    yield rules_pb2.PlayRequest()  # never reached


async def refused_silent(stub: Any, token: str) -> grpc.aio.AioRpcError:
    """The status a seat's silent Play stream ends with, within a few seconds (a stream
    that waits longer fails the test)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async with asyncio.timeout(5):
            async for _ in stub.Play(silent(), metadata=call_metadata(token), timeout=30):
                pass
    assert loop.time() - started >= BOUND_S * 0.9, "refused before the bound"
    return info.value


async def no_streams_left(limiter: Any) -> None:
    for _ in range(30):
        if limiter.counter.total == 0:
            break
        await asyncio.sleep(0.1)
    assert limiter.counter.total == 0


async def test_a_seats_silent_play_stream_ends_naming_open(
        duel_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_service, "PLAY_OPEN_TIMEOUT_S", BOUND_S)
    organiser = call_metadata(duel_backend.organiser_token())
    async with grpc.aio.insecure_channel(duel_backend.address("rules-duel")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = await stub.CreateMatch(rules_pb2.CreateMatchRequest(mode="duel", seats=2),
                                         metadata=organiser, timeout=10)
        token = created.seat_tokens[0].token
        err = await refused_silent(stub, token)
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
        assert "'open'" in (err.details() or "")
        assert f"{BOUND_S:g} s" in (err.details() or "")

        # a stream that opens within the bound is served as before
        async def opened() -> AsyncIterator[Any]:
            await asyncio.sleep(BOUND_S / 5)
            yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=created.match_id))
            await asyncio.sleep(60)

        async with asyncio.timeout(10):
            call = stub.Play(opened(), metadata=call_metadata(token), timeout=30)
            first = await call.read()
            while first.WhichOneof("kind") != "update":
                first = await call.read()
            call.cancel()
        assert first.update.version == created.version and first.update.view_json
    await no_streams_left(duel_backend.services["rules-duel"].handle.streams)


async def test_a_seats_silent_play_stream_ends_naming_open_on_a_replica(
        duel_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replica that does not own the match reads the first message to find its owner:
    bounded the same way, answered by that replica itself (nothing is forwarded)."""
    from services.platform.replicas import owner_of
    from tests.integration.test_rules_loose_ends import two_replicas

    monkeypatch.setattr(rules_service, "PLAY_OPEN_TIMEOUT_S", BOUND_S)
    replicas, peers = await two_replicas(duel_backend)
    try:
        match_id = next(m for m in (f"open-bound-{i}" for i in range(100))
                        if owner_of(m, 2) == 1)
        async with grpc.aio.insecure_channel(peers[0]) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            created = await stub.CreateMatch(rules_pb2.CreateMatchRequest(
                match_id=match_id, mode="duel", seats=2),
                metadata=call_metadata(duel_backend.organiser_token()), timeout=10)
            err = await refused_silent(stub, created.seat_tokens[1].token)
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
            assert "'open'" in (err.details() or "")
        for replica in replicas:
            await no_streams_left(replica.handle.streams)
    finally:
        for replica in replicas:
            await replica.stop(1)
