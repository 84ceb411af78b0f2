"""The gateway limits the server streams of each HTTP client address
(NEON_GATEWAY_MAX_STREAMS_PER_CLIENT), so one web client cannot use up what the services allow
the gateway's own peer: past the limit a stream ends at once with the Connect error
``resource_exhausted`` and the reason (a Connect stream: HTTP 200, the error in its end; the
client below reports it as the code's HTTP status, 429); other clients are unaffected; a client that goes away, even from a
quiet stream, gives its slot back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from multidict import CIMultiDict

from services.cli.backend import Backend
from services.gateway.app import Gateway, Upstreams, build_app
from services.gateway.config import GatewayConfig, client_address, load_config
from services.gateway.connect import HTTP_STATUS
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.support.gateway import upstreams

WATCH = "/games/toy/neon.rules.v1.RulesService/WatchMatch"
REFUSED = {"code": "resource_exhausted",
           "message": "too many open streams from this address (2); close one first"}


@contextlib.asynccontextmanager
async def serve(backend: Backend, config: GatewayConfig) -> AsyncIterator[tuple[Gateway, str, str]]:
    app_gateway = Gateway(config, Upstreams(upstreams(backend)))
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


@pytest.fixture
async def gateway(toy_backend: Backend) -> AsyncIterator[tuple[Gateway, str, str]]:
    """A gateway allowing 2 streams per client, listening on 127.0.0.1 and on ::1, so that
    two clients of different addresses reach the same gateway."""
    async with serve(toy_backend, GatewayConfig(port=0, max_streams_per_client=2)) as served:
        yield served


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

    async def watch(self, match_id: str, forwarded_for: str | list[str] = "") -> tuple[int, Any]:
        """(200, the first event) for an open stream, else (status, the error body).
        ``forwarded_for``: one X-Forwarded-For header, or a list of them (one line each)."""
        data = json.dumps({"matchId": match_id}).encode()
        headers = CIMultiDict({"Content-Type": "application/connect+json"})
        for hop in [forwarded_for] if isinstance(forwarded_for, str) else forwarded_for:
            if hop:
                headers.add("X-Forwarded-For", hop)
        response = await self.http.post(
            self.url + WATCH, data=struct.pack(">BI", 0, len(data)) + data, headers=headers)
        if response.status != 200:
            body = await response.json()
            response.release()
            return response.status, body
        flags, length = struct.unpack(">BI", await asyncio.wait_for(
            response.content.readexactly(5), 10))
        message = json.loads(await response.content.readexactly(length))
        if flags == 2:  # refused before it started: the Connect end of stream, HTTP 200
            response.release()
            error = message["error"]
            return HTTP_STATUS[error["code"]], error
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
        # X-Forwarded-For is not read unless the connection is from a trusted proxy
        assert await a.watch(match_id, forwarded_for="203.0.113.9") == (429, REFUSED)
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


async def test_behind_a_trusted_proxy_clients_are_told_apart_by_x_forwarded_for(
    toy_backend: Backend,
) -> None:
    config = GatewayConfig(port=0, max_streams_per_client=1, trusted_proxies=("127.0.0.0/8",))
    async with serve(toy_backend, config) as (_, v4_url, v6_url):
        match_id = await new_match(toy_backend)
        proxy, direct = Client(v4_url), Client(v6_url)
        try:
            assert (await proxy.watch(match_id, "198.51.100.1"))[0] == 200
            assert await proxy.watch(match_id, "198.51.100.1") == (429, {
                **REFUSED, "message": REFUSED["message"].replace("(2)", "(1)")})
            # a client's own X-Forwarded-For (left of the proxy's hop) does not help it
            assert (await proxy.watch(match_id, "10.9.9.9, 198.51.100.1"))[0] == 429
            assert (await proxy.watch(match_id, "198.51.100.2"))[0] == 200
            assert (await direct.watch(match_id, "198.51.100.3"))[0] == 200  # ::1 not trusted
            assert (await direct.watch(match_id, "198.51.100.4"))[0] == 429
        finally:
            await proxy.close()
            await direct.close()


async def test_a_client_forwarded_for_header_line_of_its_own_does_not_help_it(
    toy_backend: Backend,
) -> None:
    """A proxy that adds its own X-Forwarded-For line (HAProxy's ``option forwardfor``)
    instead of appending to the client's: the lines are one list, in order (RFC 9110), so
    the last hop that is not a trusted proxy is still the one the proxy wrote. Reading only
    the first line took the client's own, a new address with every request: no limit."""
    config = GatewayConfig(port=0, max_streams_per_client=1, trusted_proxies=("127.0.0.0/8",))
    async with serve(toy_backend, config) as (_, v4_url, _v6):
        match_id = await new_match(toy_backend)
        proxy = Client(v4_url)
        try:
            assert (await proxy.watch(match_id, ["10.9.9.1", "198.51.100.1"]))[0] == 200
            for spoofed in ("10.9.9.2", "10.9.9.3, 10.9.9.4"):
                status, body = await proxy.watch(match_id, [spoofed, "198.51.100.1"])
                assert status == 429, (spoofed, body)
            assert (await proxy.watch(match_id, ["10.9.9.5", "198.51.100.2"]))[0] == 200
        finally:
            await proxy.close()


def test_the_client_address_is_the_connections_unless_a_trusted_proxy_forwards() -> None:
    trusted = ("10.0.0.0/8", "fd00::1")
    assert client_address("192.0.2.1", "198.51.100.1", ()) == "192.0.2.1"
    assert client_address("192.0.2.1", "198.51.100.1", trusted) == "192.0.2.1"
    assert client_address("10.1.2.3", "198.51.100.1", trusted) == "198.51.100.1"
    assert client_address("10.1.2.3", "6.6.6.6, 198.51.100.1, 10.0.0.5", trusted) == \
        "198.51.100.1"
    assert client_address("fd00::1", None, trusted) == "fd00::1"
    assert client_address(None, None, trusted) == "unknown"
    # an IPv4 address written IPv4-mapped (a dual-stack socket's peer, a hop a dual-stack
    # proxy wrote) is that IPv4 address: a trusted proxy stays trusted
    assert client_address("::ffff:10.1.2.3", "198.51.100.1", trusted) == "198.51.100.1"
    assert client_address("10.1.2.3", "198.51.100.1, ::ffff:10.0.0.6", trusted) == \
        "198.51.100.1"
    assert client_address("10.1.2.3", "::ffff:198.51.100.1", trusted) == "::ffff:198.51.100.1"
    # a hop written with its port (Azure's Application Gateway) is its address
    assert client_address("10.1.2.3", "198.51.100.1:50213", trusted) == "198.51.100.1"
    assert client_address("10.1.2.3", "[2001:db8::7]:443, 10.0.0.5:80", trusted) == "2001:db8::7"
    assert client_address("10.1.2.3", "[fd00::1]:80", trusted) == "fd00::1"  # all trusted
    assert client_address("10.1.2.3", "not-an-address:1", trusted) == "not-an-address:1"
    with pytest.raises(ValueError, match="NEON_GATEWAY_TRUSTED_PROXIES"):
        load_config({"NEON_GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8, ingress"})
    assert load_config({"NEON_GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8"}).trusted_proxies \
        == ("10.0.0.0/8", "fd00::/8")
