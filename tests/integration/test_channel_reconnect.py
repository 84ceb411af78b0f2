"""A channel from one service to another (grpc_kit.channel: the tournament's and the command
line's to the rules services, dice, ...) reaches a restarted service again within a second or
two: with gRPC's default reconnect backoff (growing to two minutes) every call failed at once
for as long after the service was back, and a round's matches waited for it."""

from __future__ import annotations

import asyncio
import time

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from services.platform.grpc_kit import channel
from services.platform.natsrv import free_port


async def serve(port: int) -> grpc.aio.Server:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server


async def answers(stub: health_pb2_grpc.HealthStub) -> bool:
    try:
        await stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
        return True
    except grpc.aio.AioRpcError:
        return False


async def test_a_restarted_service_is_reached_again_within_seconds() -> None:
    port = free_port()
    server = await serve(port)
    ch = channel(f"127.0.0.1:{port}")
    stub = health_pb2_grpc.HealthStub(ch)
    try:
        assert await answers(stub)
        await server.stop(0)
        down_until = time.monotonic() + 12  # long enough for the default backoff to grow
        while time.monotonic() < down_until:
            assert not await answers(stub)
            await asyncio.sleep(0.2)
        server = await serve(port)
        back = time.monotonic()
        while not await answers(stub):
            assert time.monotonic() - back < 4, "the channel did not reconnect within 4 s"
            await asyncio.sleep(0.1)
    finally:
        await ch.close()
        await server.stop(0)
