"""The gateway limits the unary calls one HTTP client address has waiting for their answers
(NEON_GATEWAY_MAX_CALLS_PER_CLIENT): past it a call is answered ``resource_exhausted`` (429)
at once with the reason, before its body is read or an upstream is called; an answer, or a
client that goes away, gives its slot back. The upstream is a real gRPC server on a socket
that holds GetGameInfo until the test lets it answer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp
import grpc
import pytest

from services.gateway.config import GatewayConfig, load_config
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from tests.support.gateway import bare_gateway

pytestmark = pytest.mark.timeout(60)

INFO = "/games/toy/neon.rules.v1.RulesService/GetGameInfo"
REFUSED = {"code": "resource_exhausted",
           "message": "too many calls from this address waiting for their answers (2); wait "
                      "for one first"}


class Held(rules_pb2_grpc.RulesServiceServicer):
    """GetGameInfo waits for ``answer``; ``arrived`` counts the calls that reached it."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.arrived = 0
        self.cancelled = 0

    async def GetGameInfo(self, request: rules_pb2.GetGameInfoRequest,  # noqa: N802
                          context: grpc.aio.ServicerContext) -> rules_pb2.GetGameInfoResponse:
        self.arrived += 1
        try:
            await self.answer.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return rules_pb2.GetGameInfoResponse(game_id="toy", title="held")


@contextlib.asynccontextmanager
async def held_upstream() -> AsyncIterator[tuple[Held, str]]:
    server = grpc.aio.server()
    held = Held()
    rules_pb2_grpc.add_RulesServiceServicer_to_server(held, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield held, f"127.0.0.1:{port}"
    finally:
        held.answer.set()
        await server.stop(0)


@contextlib.asynccontextmanager
async def gateway_before_held() -> AsyncIterator[tuple[Held, str, aiohttp.ClientSession]]:
    """A gateway allowing 2 calls in flight per client in front of :func:`held_upstream`, and
    an HTTP client whose every call has a connection of its own."""
    async with held_upstream() as (held, address), \
            bare_gateway(GatewayConfig(port=0, max_calls_per_client=2),
                         {"rules-toy": address}) as url, \
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
        yield held, url, http


async def info(http: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, str]]:
    async with http.post(url + INFO, json={}) as r:
        return r.status, await r.json()


async def until(condition: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_client_past_its_calls_in_flight_is_refused_until_one_answers() -> None:
    async with gateway_before_held() as (held, url, http):
        waiting = [asyncio.create_task(info(http, url)) for _ in range(2)]
        await until(lambda: held.arrived == 2)
        status, body = await info(http, url)
        assert (status, body) == (429, REFUSED)
        assert held.arrived == 2  # the refused call never reached the upstream
        held.answer.set()
        answers = await asyncio.gather(*waiting)
        assert [s for s, _ in answers] == [200, 200]
        assert answers[0][1]["title"] == "held"
        assert await info(http, url) == (200, answers[0][1])  # their slots were given back


async def test_a_client_that_goes_away_gives_its_slot_back() -> None:
    async with gateway_before_held() as (held, url, http):
        gone = [asyncio.create_task(info(http, url)) for _ in range(2)]
        await until(lambda: held.arrived == 2)
        for task in gone:
            task.cancel()
        await asyncio.gather(*gone, return_exceptions=True)
        # the gateway hears the disconnects and cancels the upstream calls, which gives
        # their slots back (the release may follow the upstream's cancel by a moment)
        await until(lambda: held.cancelled == 2)
        second = []
        for _ in range(50):
            if len(second) == 2:
                break
            task = asyncio.create_task(info(http, url))
            await asyncio.sleep(0.2)
            if task.done():
                assert task.result() == (429, REFUSED)
                continue
            second.append(task)
        assert len(second) == 2, "the slots of the calls whose clients went away never came back"
        await until(lambda: held.arrived == 4)
        held.answer.set()
        assert [s for s, _ in await asyncio.gather(*second)] == [200, 200]


def test_the_limit_is_read_from_the_environment() -> None:
    assert load_config({}).max_calls_per_client == 64
    assert load_config({"NEON_GATEWAY_MAX_CALLS_PER_CLIENT": "0"}).max_calls_per_client == 0
    with pytest.raises(ValueError, match="NEON_GATEWAY_MAX_CALLS_PER_CLIENT"):
        load_config({"NEON_GATEWAY_MAX_CALLS_PER_CLIENT": "-1"})
