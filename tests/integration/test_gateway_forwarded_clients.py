"""Spectators behind the gateway are counted per client at the services, over real gRPC and
the real gateway over HTTP.

The gateway counts its HTTP clients' streams by address (NEON_GATEWAY_MAX_STREAMS_PER_CLIENT)
and names the client of each call in ``x-neon-client`` metadata. A service takes that name
only from a peer it trusts as a gateway (NEON_TRUSTED_GATEWAYS; the one-process backend
trusts loopback, where ``neon up`` runs its gateway): a tokenless stream is then counted
against that client (NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT), not against the gateway's host
(NEON_MAX_ANONYMOUS_STREAMS_PER_PEER), where a few clients holding their share at the gateway
used up the host's allowance and every other spectator was refused. From any other peer the
metadata is ignored: a direct caller cannot dodge its host's limit with it."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest

from services.cli.backend import LOOPBACK_GATEWAYS, Backend, start_backend
from services.gateway.config import GatewayConfig
from services.gateway.connect import HTTP_STATUS
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import channel
from tests.integration.conftest import make_settings
from tests.integration.test_gateway_stream_limits import WATCH, new_match, serve
from tests.support import toy

PER_PEER = ("too many open streams without a token from this address (3); close one first, "
            "or call with a token")
PER_CLIENT = ("too many open streams without a token from this client address (2); close one "
              "first, or call with a token")
AT_GATEWAY = "too many open streams from this address (2); close one first"
PROXIED = ("127.0.0.0/8",)
"""The gateway's trusted proxy: its HTTP clients are told apart by X-Forwarded-For."""


async def limited(tmp_path: Path, nats_url: str, **kw: Any) -> Backend:
    """The toy's rules service allowing 3 tokenless streams per peer host (and, by default,
    trusting a loopback gateway, as ``neon up`` does)."""
    settings = make_settings(tmp_path, nats_url, max_anonymous_streams_per_peer=3, **kw)
    return await start_backend(settings, games=[], embedded_nats=False,
                               engines={"toy": toy.ENGINE})


@pytest.fixture
async def toy_peer3(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    b = await limited(tmp_path, nats_url)
    yield b
    await b.stop(1)


class Spectators:
    """HTTP clients of one gateway behind its trusted proxy (this test): each stream on a
    connection of its own, the client named by its X-Forwarded-For."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))
        self.open: list[aiohttp.ClientResponse] = []

    async def watch(self, match_id: str, client: str, **headers: str) -> tuple[int, Any]:
        """(200, the first event's type) for an open stream, else (status, the reason)."""
        data = json.dumps({"matchId": match_id}).encode()
        response = await self.http.post(
            self.url + WATCH, data=struct.pack(">BI", 0, len(data)) + data,
            headers={"Content-Type": "application/connect+json", "X-Forwarded-For": client,
                     **headers})
        assert response.status == 200, await response.text()
        flags, length = struct.unpack(">BI", await asyncio.wait_for(
            response.content.readexactly(5), 10))
        message = json.loads(await response.content.readexactly(length))
        if flags == 2:  # refused: the Connect end of stream
            response.release()
            return HTTP_STATUS[message["error"]["code"]], message["error"]["message"]
        self.open.append(response)
        return 200, message["event"]["type"]

    async def close(self) -> None:
        for response in self.open:
            response.close()
        await self.http.close()


class Direct:
    """WatchMatch over gRPC straight to a service, with metadata of the caller's choosing."""

    def __init__(self, address: str) -> None:
        self.channel = channel(address)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.calls: list[Any] = []

    async def watch(self, match_id: str, metadata: tuple[tuple[str, str], ...] = ()) -> str:
        """"open", or the reason of a RESOURCE_EXHAUSTED refusal."""
        call = self.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id),
                                    metadata=metadata, timeout=30)
        self.calls.append(call)
        try:
            await asyncio.wait_for(call.read(), 10)
        except grpc.aio.AioRpcError as err:
            assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
            return err.details() or ""
        return "open"

    async def close(self) -> None:
        for call in self.calls:
            call.cancel()
        await self.channel.close()


def open_streams(backend: Backend) -> dict[tuple[str, ...], int]:
    limiter = backend.services["rules-toy"].handle.streams
    assert limiter is not None
    return dict(limiter.counter.open)


async def test_clients_holding_their_share_at_the_gateway_leave_others_their_streams(
    toy_peer3: Backend,
) -> None:
    """The review's case, small: the service allows the gateway's host 3 tokenless streams,
    the gateway each client 2. Two clients holding their 2 each used to fill the host's 3 at
    the service, and every other spectator's stream was refused there."""
    assert toy_peer3.settings.trusted_gateways == LOOPBACK_GATEWAYS  # the dev default
    config = GatewayConfig(port=0, max_streams_per_client=2, trusted_proxies=PROXIED)
    async with serve(toy_peer3, config) as (_, url, _v6):
        match_id = await new_match(toy_peer3)
        web = Spectators(url)
        direct = Direct(toy_peer3.address("rules-toy"))
        try:
            for client in ("198.51.100.1", "198.51.100.2", "198.51.100.3"):
                for _ in range(2):
                    assert await web.watch(match_id, client) == (200, "MatchCreated"), client
            # one client past its share is refused at the gateway; the others are not
            assert await web.watch(match_id, "198.51.100.1") == (429, AT_GATEWAY)
            assert await web.watch(match_id, "198.51.100.4") == (200, "MatchCreated")
            opened = open_streams(toy_peer3)
            assert opened[("peer", "127.0.0.1", "198.51.100.1")] == 2
            assert opened[("peer", "127.0.0.1", "198.51.100.4")] == 1
            # the gateway's 7 streams are not the host's: a tokenless caller of the same host
            # without a client name still has its own 3, and no more
            assert [await direct.watch(match_id) for _ in range(4)] == ["open"] * 3 + [PER_PEER]
        finally:
            await web.close()
            await direct.close()


async def test_the_service_holds_each_client_of_a_gateway_to_its_own_limit(
    tmp_path: Path, nats_url: str,
) -> None:
    """A gateway without a limit of its own (NEON_GATEWAY_MAX_STREAMS_PER_CLIENT=0) in front
    of a service allowing each of its clients 2: the third stream of one client is refused
    by the service, with its reason; a client's own X-Neon-Client header is not passed on
    (the gateway names the client), so it does not help."""
    backend = await limited(tmp_path, nats_url, max_anonymous_streams_per_client=2)
    try:
        config = GatewayConfig(port=0, max_streams_per_client=0, trusted_proxies=PROXIED)
        async with serve(backend, config) as (_, url, _v6):
            match_id = await new_match(backend)
            web = Spectators(url)
            try:
                for _ in range(2):
                    assert (await web.watch(match_id, "198.51.100.1"))[0] == 200
                assert await web.watch(match_id, "198.51.100.1") == (429, PER_CLIENT)
                for n in range(3):
                    assert await web.watch(match_id, "198.51.100.1",
                                           **{"X-Neon-Client": f"192.0.2.{n}"}) == \
                        (429, PER_CLIENT)
                assert (await web.watch(match_id, "198.51.100.2"))[0] == 200
                assert open_streams(backend) == {("peer", "127.0.0.1", "198.51.100.1"): 2,
                                                 ("peer", "127.0.0.1", "198.51.100.2"): 1}
            finally:
                await web.close()
    finally:
        await backend.stop(1)


async def test_a_client_named_by_a_peer_not_trusted_is_ignored(
    tmp_path: Path, nats_url: str,
) -> None:
    """A service that trusts another network as its gateways (not loopback): a direct caller
    naming a new client in x-neon-client on each stream still holds only its host's 3, and so
    does a gateway it does not trust (today's count, by the gateway's host)."""
    backend = await limited(tmp_path, nats_url, trusted_gateways=("192.0.2.0/24",))
    try:
        match_id = await new_match(backend)
        direct = Direct(backend.address("rules-toy"))
        try:
            got = [await direct.watch(match_id, (("x-neon-client", f"198.51.100.{n}"),))
                   for n in range(4)]
            assert got == ["open"] * 3 + [PER_PEER]
            assert open_streams(backend) == {("peer", "127.0.0.1"): 3}
        finally:
            await direct.close()
        config = GatewayConfig(port=0, max_streams_per_client=2, trusted_proxies=PROXIED)
        async with serve(backend, config) as (_, url, _v6):
            web = Spectators(url)
            try:
                for _ in range(50):  # the direct streams' slots come back
                    if not open_streams(backend):
                        break
                    await asyncio.sleep(0.1)
                got = [await web.watch(match_id, client) for client in
                       ("198.51.100.1", "198.51.100.1", "198.51.100.2", "198.51.100.2")]
                assert [status for status, _ in got] == [200, 200, 200, 429]
                assert got[3][1] == PER_PEER
            finally:
                await web.close()
    finally:
        await backend.stop(1)


@pytest.mark.parametrize(("trusted", "named", "seen"), [
    (("127.0.0.0/8",), "198.51.100.1", "198.51.100.1"),
    (("192.0.2.0/24",), "198.51.100.1", ""),
    (("127.0.0.0/8",), "", ""),
])
async def test_a_stream_knows_the_client_it_is_counted_against(
    trusted: tuple[str, ...], named: str, seen: str,
) -> None:
    """``grpc_kit.current_client`` over real gRPC: the client a trusted gateway named (what a
    call passed on to another service may name there), and nothing from a peer not trusted."""
    from services.platform.grpc_kit import current_client, start_server
    from services.platform.stream_limits import StreamLimits

    async def who(request: bytes, context: Any) -> AsyncIterator[bytes]:
        yield (current_client.get() or "").encode()

    def register(server: grpc.aio.Server) -> None:
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "test.Who", {"Stream": grpc.unary_stream_rpc_method_handler(who)}),))

    handle = await start_server("127.0.0.1:0", register, ["test.Who"], None,
                                StreamLimits(trusted_gateways=trusted), metrics=False)
    ch = channel(f"127.0.0.1:{handle.port}")
    try:
        metadata = (("x-neon-client", named),) if named else ()
        call = ch.unary_stream("/test.Who/Stream")(b"", metadata=metadata, timeout=10)
        assert [item async for item in call] == [seen.encode()]
    finally:
        await ch.close()
        await handle.stop(0)
