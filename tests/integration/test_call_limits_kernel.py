"""Call rate limits in the kernel interceptor alone (start_server over a real socket, generic
handlers): each client a trusted gateway names has a bucket of its own, a server stream's
opening counts, a bidirectional stream without answers of its own ends RESOURCE_EXHAUSTED
with retry-after-ms at the message over the rate, and a flood of distinct callers keeps the
tables bounded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.platform.call_limits import CallLimiter
from services.platform.grpc_kit import ServerHandle, channel, current_client, start_server
from services.platform.stream_limits import StreamLimits

SERVICE = "test.Rated"


async def say(request: bytes, context: Any) -> bytes:
    return (current_client.get() or "").encode() + b":" + request


async def listen(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield request


async def chat(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
    async for request in requests:
        yield request


def register(server: grpc.aio.Server) -> None:
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {
        "Say": grpc.unary_unary_rpc_method_handler(say),
        "Listen": grpc.unary_stream_rpc_method_handler(listen),
        "Chat": grpc.stream_stream_rpc_method_handler(chat),
    }),))


async def serve(**limits: Any) -> tuple[ServerHandle, grpc.aio.Channel]:
    handle = await start_server("127.0.0.1:0", register, [SERVICE], None,
                                StreamLimits(**limits), metrics=False)
    return handle, channel(f"127.0.0.1:{handle.port}")


def over_rate(err: grpc.aio.AioRpcError, who: str) -> None:
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
    assert (err.details() or "").startswith(f"too many calls from {who}: at most 2 a second "
                                            "(burst 4); try again in "), err.details()
    assert int(dict(err.trailing_metadata() or ())["retry-after-ms"]) >= 1


async def test_each_client_of_a_trusted_gateway_has_its_own_rate() -> None:
    handle, ch = await serve(trusted_gateways=("127.0.0.0/8",), calls_per_second=2,
                             anonymous_calls_per_second=100)
    call = ch.unary_unary(f"/{SERVICE}/Say")
    try:
        for _ in range(4):
            assert await call(b"x", metadata=(("x-neon-client", "10.0.0.1"),), timeout=5) \
                == b"10.0.0.1:x"
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call(b"x", metadata=(("x-neon-client", "10.0.0.1"),), timeout=5)
        over_rate(info.value, "this client address without a token")
        # another client of the gateway, and the gateway's own calls (its host), are served
        assert await call(b"y", metadata=(("x-neon-client", "10.0.0.2"),), timeout=5) \
            == b"10.0.0.2:y"
        for _ in range(10):
            await call(b"z", timeout=5)
    finally:
        await ch.close()
        await handle.stop(0)


async def test_a_server_stream_opening_counts_as_a_call() -> None:
    handle, ch = await serve(calls_per_second=100, anonymous_calls_per_second=2)
    listen_ = ch.unary_stream(f"/{SERVICE}/Listen")
    try:
        for _ in range(4):
            assert [m async for m in listen_(b"a", timeout=5)] == [b"a"]
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in listen_(b"a", timeout=5):
                pass
        over_rate(info.value, "this address without a token")
    finally:
        await ch.close()
        await handle.stop(0)


async def test_a_bidirectional_stream_without_answers_of_its_own_ends_at_the_rate() -> None:
    handle, ch = await serve(calls_per_second=100, anonymous_calls_per_second=2)
    try:
        outbox: asyncio.Queue[bytes] = asyncio.Queue()
        for n in range(10):
            outbox.put_nowait(str(n).encode())

        async def requests() -> AsyncIterator[bytes]:
            while True:
                yield await outbox.get()

        got = []
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for message in ch.stream_stream(f"/{SERVICE}/Chat")(requests(), timeout=10):
                got.append(message)
        over_rate(info.value, "this address without a token")
        assert got == [b"0", b"1", b"2", b"3"]  # the burst, answered; nothing after
        limiter = handle.streams
        assert limiter is not None
        for _ in range(100):  # its slot comes back
            if limiter.counter.total == 0:
                break
            await asyncio.sleep(0.02)
        assert limiter.counter.total == 0
    finally:
        await ch.close()
        await handle.stop(0)


def test_a_flood_of_distinct_callers_keeps_the_tables_bounded() -> None:
    from services.platform.stream_limits import Caller

    limiter = CallLimiter(2, 2, max_keys=1000)
    for n in range(50_000):
        limiter.take(Caller("anonymous", ("peer", f"10.{n >> 16}.{n >> 8 & 255}.{n & 255}")))
        limiter.take(Caller("token", ("seat", f"m{n}", "0")))
    assert len(limiter) <= 2000
