"""A web client that goes away in the middle of a unary call: the gateway cancels the call it
forwarded, as it does a stream's, rather than leaving the service working for nobody until the
gateway's timeout. The upstream here is a real gRPC server over a socket that answers nothing
until it is cancelled; the gateway is the real one in front of it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp
import grpc

from services.gateway.config import GatewayConfig
from tests.support.gateway import bare_gateway

SERVICE, METHOD = "neon.scoring.v1.ScoringService", "GetLeaderboard"


class Stuck:
    """A scoring service whose GetLeaderboard never answers: it waits, and notes whether its
    caller cancelled it."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def leaderboard(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return b""


@contextlib.asynccontextmanager
async def stuck_scoring() -> AsyncIterator[tuple[Stuck, str]]:
    stuck = Stuck()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, {
        METHOD: grpc.unary_unary_rpc_method_handler(stuck.leaderboard)})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield stuck, f"127.0.0.1:{port}"
    finally:
        await server.stop(0)


async def test_a_unary_call_is_cancelled_upstream_when_its_client_goes_away() -> None:
    async with stuck_scoring() as (stuck, upstream), bare_gateway(
            GatewayConfig(port=0, unary_timeout=60.0), {"scoring": upstream}) as url:
        async with aiohttp.ClientSession() as http:
            request = asyncio.create_task(http.post(
                f"{url}/{SERVICE}/{METHOD}", json={}, headers={"Content-Type": "application/json"}))
            await asyncio.wait_for(stuck.started.wait(), 10)
            assert not stuck.cancelled.is_set()
            request.cancel()  # the client gives up: its connection is closed
            with contextlib.suppress(asyncio.CancelledError):
                await request
        # the gateway notices within its disconnect poll (0.5 s), far inside its 60 s timeout
        await asyncio.wait_for(stuck.cancelled.wait(), 10)
