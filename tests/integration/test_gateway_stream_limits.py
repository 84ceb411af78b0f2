"""The gateway limits the server streams of each HTTP client address
(NEON_GATEWAY_MAX_STREAMS_PER_CLIENT), so one web client cannot use up what the services allow
the gateway's own peer: past the limit a stream is the Connect error ``resource_exhausted``
(HTTP 429) with the reason; other clients are unaffected; a client that goes away, even from a
quiet stream, gives its slot back."""

from __future__ import annotations

import asyncio
import json
import struct
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from services.cli.backend import Backend
from services.gateway.app import Gateway, Upstreams, build_app
from services.gateway.config import GatewayConfig, load_config
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.support.gateway import upstreams

WATCH = "/games/toy/neon.rules.v1.RulesService/WatchMatch"
REFUSED = {"code": "resource_exhausted",
           "message": "too many open streams from this address (2); close one first"}


@pytest.fixture
async def gateway(toy_backend: Backend) -> AsyncIterator[tuple[Gateway, str, str]]:
    """A gateway allowing 2 streams per client, listening on 127.0.0.1 and on ::1, so that
    two clients of different addresses reach the same gateway."""
    app_gateway = Gateway(GatewayConfig(port=0, max_streams_per_client=2),
                          Upstreams(upstreams(toy_backend)))
    runner = web.AppRunner(build_app(app_gateway), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    urls = []
    for host in ("127.0.0.1", "::1"):
        site = web.TCPSite(runner, host, 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        urls.append(f"http://{'[::1]' if host == '::1' else host}:{port}")
    try:
        yield app_gateway, urls[0], urls[1]
    finally:
        await runner.cleanup()
        await app_gateway.upstreams.close()


async def new_match(backend: Backend) -> str:
    ch = channel(backend.address("rules-toy"))
    created = await rules_pb2_grpc.RulesServiceStub(ch).CreateMatch(
        rules_pb2.CreateMatchRequest(match_id=f"gw-{uuid.uuid4().hex[:8]}", mode="race", seats=2,
                                     options_json="{}"),
        metadata=call_metadata(backend.organiser_token()), timeout=15)
    await ch.close()
    return created.match_id


class Client:
    """One HTTP client: each stream on a connection of its own."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))
        self.open: list[aiohttp.ClientResponse] = []

    async def watch(self, match_id: str) -> tuple[int, Any]:
        """(200, the first event) for an open stream, else (status, the error body)."""
        data = json.dumps({"matchId": match_id}).encode()
        response = await self.http.post(
            self.url + WATCH, data=struct.pack(">BI", 0, len(data)) + data,
            headers={"Content-Type": "application/connect+json"})
        if response.status != 200:
            body = await response.json()
            response.release()
            return response.status, body
        flags, length = struct.unpack(">BI", await asyncio.wait_for(
            response.content.readexactly(5), 10))
        message = json.loads(await response.content.readexactly(length))
        assert flags == 0, message  # a message, not the end of the stream
        self.open.append(response)
        return 200, message["event"]

    async def close(self) -> None:
        for response in self.open:
            response.close()
        await self.http.close()


async def test_a_client_past_its_limit_is_refused_others_are_not(
    toy_backend: Backend, gateway: tuple[Gateway, str, str]
) -> None:
    app_gateway, v4_url, v6_url = gateway
    match_id = await new_match(toy_backend)
    a, b = Client(v4_url), Client(v6_url)
    try:
        for _ in range(2):
            status, event = await a.watch(match_id)
            assert status == 200 and event["type"] == "MatchCreated"
        assert await a.watch(match_id) == (429, REFUSED)
        status, _ = await b.watch(match_id)  # another address
        assert status == 200
        assert app_gateway.streams.total == 3

        # the client drops one stream of a quiet match (no message will come to fail a
        # write): the gateway notices, ends the upstream call and gives the slot back
        a.open.pop(0).close()
        for _ in range(100):
            status, _ = await a.watch(match_id)
            if status == 200:
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("a disconnected client's stream kept its slot")
        assert await a.watch(match_id) == (429, REFUSED)
    finally:
        await a.close()
        await b.close()
    for _ in range(100):
        if app_gateway.streams.total == 0:
            break
        await asyncio.sleep(0.05)
    assert app_gateway.streams.total == 0 and not app_gateway.streams.open
    # and the rules service's own count of the gateway's streams went back to nothing
    limiter = toy_backend.services["rules-toy"].handle.streams
    assert limiter is not None
    for _ in range(100):
        if limiter.counter.total == 0:
            break
        await asyncio.sleep(0.05)
    assert limiter.counter.total == 0


def test_the_limit_comes_from_the_environment() -> None:
    assert load_config({}).max_streams_per_client == 64
    assert load_config({"NEON_GATEWAY_MAX_STREAMS_PER_CLIENT": "5"}).max_streams_per_client == 5
    assert load_config({"NEON_GATEWAY_MAX_STREAMS_PER_CLIENT": "0"}).max_streams_per_client == 0
    with pytest.raises(ValueError, match="NEON_GATEWAY_MAX_STREAMS_PER_CLIENT"):
        load_config({"NEON_GATEWAY_MAX_STREAMS_PER_CLIENT": "many"})
