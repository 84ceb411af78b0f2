"""Open-stream limits of the kernel interceptor, over real gRPC: a seat or player token holds at
most NEON_MAX_STREAMS_PER_CALLER streams, callers without a token at most
NEON_MAX_ANONYMOUS_STREAMS_PER_PEER per host, organiser and service tokens only count toward
NEON_MAX_STREAMS; a stream over a limit is RESOURCE_EXHAUSTED with the reason, and a stream
that ends however it ends (cancel, deadline, error) gives its slot back."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.conftest import make_settings
from tests.support import duel, toy

PER_CALLER = "too many open streams for this caller (3); close one first"


async def limited(tmp_path: Path, nats_url: str, engines: dict[str, Any],
                  **limits: int) -> Backend:
    settings = make_settings(tmp_path, nats_url, bind_host="localhost", **limits)
    return await start_backend(settings, games=[], embedded_nats=False, engines=engines)


@pytest.fixture
async def toy3(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """The toy's rules service: 3 streams per token, 2 per anonymous host, 10 in all."""
    b = await limited(tmp_path, nats_url, {"toy": toy.ENGINE}, max_streams_per_caller=3,
                      max_anonymous_streams_per_peer=2, max_streams=10)
    yield b
    await b.stop(1)


class Watcher:
    """WatchMatch streams of one channel; each is open once its first event arrived."""

    def __init__(self, address: str) -> None:
        self.channel = channel(address)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.calls: list[Any] = []

    async def open(self, match_id: str, token: str | None = None, timeout: float = 30) -> Any:
        call = self.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id),
                                    metadata=call_metadata(token), timeout=timeout)
        self.calls.append(call)
        await asyncio.wait_for(call.read(), 10)  # MatchCreated; a refusal raises
        return call

    async def refused(self, match_id: str, token: str | None = None) -> str:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await self.open(match_id, token)
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, info.value
        return info.value.details() or ""

    async def reopen(self, match_id: str, token: str | None = None) -> Any:
        """Open a stream as soon as a slot is back (within 5 s), else fail."""
        for _ in range(100):
            try:
                return await self.open(match_id, token)
            except grpc.aio.AioRpcError as err:
                if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
            await asyncio.sleep(0.05)
        pytest.fail("the slot of an ended stream never came back")

    async def close(self) -> None:
        for call in self.calls:
            call.cancel()
        await self.channel.close()


def counted(backend: Backend, service: str) -> Any:
    limiter = backend.services[service].handle.streams
    assert limiter is not None
    return limiter.counter


async def all_given_back(backend: Backend, service: str) -> None:
    counter = counted(backend, service)
    for _ in range(100):
        if counter.total == 0 and not counter.open:
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"streams still counted after every one ended: {counter.total}")


async def new_match(backend: Backend) -> tuple[str, dict[int, str]]:
    client = Watcher(backend.address("rules-toy"))
    created = await client.stub.CreateMatch(
        rules_pb2.CreateMatchRequest(match_id=f"lim-{uuid.uuid4().hex[:8]}", mode="race", seats=2,
                                     options_json="{}"),
        metadata=call_metadata(backend.organiser_token()), timeout=15)
    await client.close()
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def test_a_token_holds_at_most_its_limit_of_streams_and_gets_slots_back(toy3: Backend) -> None:
    match_id, seats = await new_match(toy3)
    ann = toy3.issuer.issue_player("ann")
    bob = toy3.issuer.issue_player("bob")
    w = Watcher(toy3.address("rules-toy"))
    try:
        mine = [await w.open(match_id, ann) for _ in range(3)]
        assert await w.refused(match_id, ann) == PER_CALLER
        await w.open(match_id, bob)  # another player is not affected
        # a seat token is a caller of its own (its match and seat)
        for _ in range(3):
            await w.open(match_id, seats[0])
        assert await w.refused(match_id, seats[0]) == PER_CALLER
        await w.open(match_id, seats[1])

        mine[0].cancel()  # the client goes away: its slot comes back
        await w.reopen(match_id, ann)
        assert await w.refused(match_id, ann) == PER_CALLER
    finally:
        await w.close()
    await all_given_back(toy3, "rules-toy")


async def test_streams_ended_by_deadline_or_error_give_their_slot_back(toy3: Backend) -> None:
    match_id, _ = await new_match(toy3)
    ann = toy3.issuer.issue_player("ann")
    w = Watcher(toy3.address("rules-toy"))
    try:
        short = [await w.open(match_id, ann, timeout=1.0) for _ in range(3)]
        assert await w.refused(match_id, ann) == PER_CALLER
        for call in short:  # deadline
            with pytest.raises(grpc.aio.AioRpcError) as info:
                while True:
                    await call.read()
            assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        for _ in range(5):  # the handler's own error (NOT_FOUND), many more than the limit
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await w.open("no-such-match", ann)
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
        for _ in range(3):
            await w.reopen(match_id, ann)
        assert await w.refused(match_id, ann) == PER_CALLER
    finally:
        await w.close()
    await all_given_back(toy3, "rules-toy")


async def test_anonymous_streams_are_limited_per_host_organisers_only_by_the_total(
    toy3: Backend,
) -> None:
    match_id, _ = await new_match(toy3)
    port = toy3.address("rules-toy").rpartition(":")[2]
    v4, v6 = Watcher(f"127.0.0.1:{port}"), Watcher(f"[::1]:{port}")
    organiser = toy3.organiser_token()
    try:
        for _ in range(2):
            await v4.open(match_id)
        reason = await v4.refused(match_id)
        assert reason == ("too many open streams without a token from this address (2); "
                          "close one first, or call with a token")
        assert "127.0.0.1" not in reason
        await v6.open(match_id)  # another host
        await v4.open(match_id, toy3.issuer.issue_player("ann"))  # a token from the same host
        # organisers are not limited per caller (3): up to the total (10)
        for _ in range(6):
            await v4.open(match_id, organiser)
        assert counted(toy3, "rules-toy").total == 10
        total = "this server has too many open streams (10); try again later"
        assert await v4.refused(match_id, organiser) == total
        assert await v6.refused(match_id, toy3.bot_driver_token()) == total
        assert await v6.refused(match_id, toy3.issuer.issue_player("bob")) == total

        v4.calls[0].cancel()
        await v4.reopen(match_id, organiser)
        assert await v4.refused(match_id, organiser) == total
        # health checking is never limited
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        health = health_pb2_grpc.HealthStub(v4.channel)
        watch = health.Watch(health_pb2.HealthCheckRequest())
        assert (await asyncio.wait_for(watch.read(), 5)).status == \
            health_pb2.HealthCheckResponse.SERVING
        watch.cancel()
    finally:
        await v4.close()
        await v6.close()
    await all_given_back(toy3, "rules-toy")


async def test_play_streams_count_per_seat(tmp_path: Path, nats_url: str) -> None:
    backend = await limited(tmp_path, nats_url, {"duel": duel.ENGINE}, max_streams_per_caller=2)
    ch = channel(backend.address("rules-duel"))
    stub = rules_pb2_grpc.RulesServiceStub(ch)
    calls: list[Any] = []
    try:
        created = await stub.CreateMatch(
            rules_pb2.CreateMatchRequest(mode="duel", seats=2, dev_seed="4", options_json="{}"),
            metadata=call_metadata(backend.organiser_token()), timeout=15)
        seat0 = next(t.token for t in created.seat_tokens if t.seat == 0)
        hold = asyncio.Event()

        async def requests() -> AsyncIterator[Any]:
            yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=created.match_id))
            await hold.wait()

        async def play() -> Any:
            call = stub.Play(requests(), metadata=call_metadata(seat0), timeout=30)
            calls.append(call)
            await asyncio.wait_for(call.read(), 10)
            return call

        first = await play()
        await play()
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await play()
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert info.value.details() == "too many open streams for this caller (2); close one first"
        first.cancel()
        for _ in range(100):
            try:
                await play()
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                await asyncio.sleep(0.05)
        else:
            pytest.fail("the cancelled Play stream's slot never came back")
    finally:
        for call in calls:
            call.cancel()
        await ch.close()
        try:
            await all_given_back(backend, "rules-duel")
        finally:
            await backend.stop(1)
