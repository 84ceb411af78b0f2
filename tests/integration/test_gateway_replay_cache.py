"""Replays from the services are kept in memory once they cannot change
(NEON_GATEWAY_REPLAY_CACHE_BYTES): anyone may ask the gateway for a finished match's replay as
often as they like, and each answer cost the rules service an export and the gateway a rules
step and a spectator view per event. A sealed match's answer is now kept (byte for byte what a
fresh one is), concurrent requests share one export, the byte budget drops the least recently
used answer, a match that is not sealed is not kept, and a budget of 0 keeps nothing.

What the rules service did is counted at its host: every ``ExportMatch`` reaches
``MatchHost.export``, wrapped here to count the calls (and, when a test says so, to hold them
until it lets them go)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import grpc
import pytest
from aiohttp import web

from services.cli.backend import Backend
from services.gateway.app import Gateway, Upstreams, build_app
from services.gateway.config import GatewayConfig, load_config
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.playing import play_table, random_choice
from services.platform.signing import public_key_hex
from services.platform.tokens import TokenIssuer
from services.rules.host import MatchHost
from tests.integration.test_gateway_replay import finished_match
from tests.support.gateway import upstreams

GAME = "neon-reign"


class Exports:
    """The rules service's exports, counted; held while ``gate`` is clear."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()


@pytest.fixture
def exports(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Exports:
    host = backend.services[f"rules-{GAME}"].extra["host"]
    assert isinstance(host, MatchHost)
    real = host.export
    counted = Exports()

    async def export(claims: Any, match_id: str) -> tuple[bytes, str, int]:
        counted.calls.append(match_id)
        await counted.gate.wait()
        return await real(claims, match_id)

    monkeypatch.setattr(host, "export", export)
    return counted


class Served:
    def __init__(self, gateway: Gateway, url: str) -> None:
        self.gateway, self.url = gateway, url
        self.entered = 0
        """Replay requests that reached the handler."""

    async def replay(self, match_id: str, forwarded_for: str = "") -> tuple[int, str, bytes]:
        """(status, content type, body) of the replay of ``match_id``."""
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
        async with aiohttp.ClientSession() as http, http.post(
            f"{self.url}/api/games/{GAME}/matches/{match_id}/replay", headers=headers
        ) as r:
            return r.status, r.headers["Content-Type"], await r.read()

    async def until_entered(self, count: int) -> None:
        for _ in range(400):
            if self.entered >= count:
                return
            await asyncio.sleep(0.025)
        raise AssertionError(f"{self.entered} of {count} requests reached the gateway")


@contextlib.asynccontextmanager
async def serve(backend: Backend, config: GatewayConfig) -> AsyncIterator[Served]:
    """The gateway as ``neon serve gateway`` builds it (its service token, the deployment's
    public key), with a count of the replay requests its handler has begun."""
    issuer = TokenIssuer(backend.keys.token_secret)
    gateway = Gateway(
        config,
        Upstreams(upstreams(backend)),
        lambda: issuer.issue("service", "*", player="gateway", ttl=300),
        public_key_hex(backend.keys.signing_key),
    )
    app = build_app(gateway)

    @web.middleware
    async def entered(request: web.Request, handler: Callable[..., Awaitable[Any]]) -> Any:
        if request.path.endswith("/replay"):
            served.entered += 1
        return await handler(request)

    app.middlewares.append(entered)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    served = Served(gateway, f"http://127.0.0.1:{port}")
    try:
        yield served
    finally:
        await runner.cleanup()
        await gateway.upstreams.close()


async def test_a_sealed_matchs_replay_is_answered_from_memory_byte_for_byte(
    backend: Backend, exports: Exports
) -> None:
    match_id, _ = await finished_match(backend)
    exports.calls.clear()
    async with serve(backend, GatewayConfig(port=0)) as served:
        status, ctype, first = await served.replay(match_id)
        assert status == 200, first
        report = json.loads(first)
        assert report["verification"]["ok"] and report["frames"][-1]["type"] == "MatchSealed"
        assert exports.calls == [match_id]
        assert await served.replay(match_id) == (200, ctype, first)
        assert exports.calls == [match_id], "the second request exported the match again"
        assert served.gateway.replays.bytes == len(first)
    async with serve(backend, GatewayConfig(port=0, replay_cache_bytes=0)) as fresh:
        assert await fresh.replay(match_id) == (200, ctype, first)  # what a fresh one is
    assert ctype == "application/json; charset=utf-8"


async def test_concurrent_requests_for_one_match_share_one_export(
    backend: Backend, exports: Exports
) -> None:
    match_id, _ = await finished_match(backend)
    exports.calls.clear()
    exports.gate.clear()
    async with serve(backend, GatewayConfig(port=0, max_replays_per_client=0)) as served:
        asked = [asyncio.create_task(served.replay(match_id)) for _ in range(6)]
        await served.until_entered(6)  # all six in the gateway while the export is held
        exports.gate.set()
        answers = await asyncio.gather(*asked)
        assert {status for status, _, _ in answers} == {200}
        assert len({body for _, _, body in answers}) == 1
        assert exports.calls == [match_id], f"{len(exports.calls)} exports for 6 requests"


async def test_the_byte_budget_drops_the_least_recently_used_answer(
    backend: Backend, exports: Exports
) -> None:
    a, _ = await finished_match(backend)
    b, _ = await finished_match(backend)
    async with serve(backend, GatewayConfig(port=0, replay_cache_bytes=0)) as fresh:
        sizes = {m: len((await fresh.replay(m))[2]) for m in (a, b)}
    budget = sum(sizes.values()) - 1  # either answer, not both
    exports.calls.clear()
    async with serve(backend, GatewayConfig(port=0, replay_cache_bytes=budget)) as served:
        for match_id in (a, b, b, a, a, b):
            status, _, body = await served.replay(match_id)
            assert status == 200 and len(body) == sizes[match_id]
        # a, b (a dropped), b kept, a (b dropped), a kept, b
        assert exports.calls == [a, b, a, b]
        assert served.gateway.replays.bytes == sizes[b] <= budget
    async with serve(backend, GatewayConfig(port=0, replay_cache_bytes=sizes[a] - 1)) as small:
        exports.calls.clear()
        for _ in range(2):  # an answer larger than the whole budget is not kept
            assert (await small.replay(a))[0] == 200
        assert exports.calls == [a, a] and small.gateway.replays.bytes == 0


async def test_a_budget_of_0_keeps_nothing(backend: Backend, exports: Exports) -> None:
    match_id, _ = await finished_match(backend)
    exports.calls.clear()
    async with serve(backend, GatewayConfig(port=0, replay_cache_bytes=0)) as served:
        first = await served.replay(match_id)
        assert first[0] == 200
        assert await served.replay(match_id) == first
        assert exports.calls == [match_id, match_id]
        assert served.gateway.replays.bytes == 0 and len(served.gateway.replays) == 0


def test_the_budget_comes_from_the_environment() -> None:
    assert load_config({}).replay_cache_bytes == 64 * 1024 * 1024
    assert load_config({"NEON_GATEWAY_REPLAY_CACHE_BYTES": "1000"}).replay_cache_bytes == 1000
    assert load_config({"NEON_GATEWAY_REPLAY_CACHE_BYTES": "0"}).replay_cache_bytes == 0
    with pytest.raises(ValueError, match="NEON_GATEWAY_REPLAY_CACHE_BYTES"):
        load_config({"NEON_GATEWAY_REPLAY_CACHE_BYTES": "64M"})


async def _play(backend: Backend, match_id: str, tokens: dict[int, str]) -> None:
    async with grpc.aio.insecure_channel(backend.address(f"rules-{GAME}")) as channel:
        await play_table(rules_pb2_grpc.RulesServiceStub(channel), match_id, tokens,
                         random_choice("replay"))


async def _created(backend: Backend) -> tuple[str, dict[int, str]]:
    organiser = [("authorization", f"Bearer {backend.organiser_token()}")]
    async with grpc.aio.insecure_channel(backend.address(f"rules-{GAME}")) as channel:
        created = await rules_pb2_grpc.RulesServiceStub(channel).CreateMatch(
            rules_pb2.CreateMatchRequest(mode="single", seats=2, dev_seed="replay"),
            metadata=organiser,
        )
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def test_a_running_match_is_not_kept(backend: Backend, exports: Exports) -> None:
    """Refused while it runs (no export asked); that refusal is not kept: once it is sealed,
    the replay is there, and kept from then on."""
    match_id, tokens = await _created(backend)
    async with serve(backend, GatewayConfig(port=0)) as served:
        for _ in range(2):
            status, _, body = await served.replay(match_id)
            assert status == 400 and json.loads(body)["code"] == "failed_precondition"
        assert exports.calls == []
        await _play(backend, match_id, tokens)
        for _ in range(100):
            status, _, body = await served.replay(match_id)
            assert status == 200, body
            if json.loads(body)["verification"]["ok"]:
                break
            await asyncio.sleep(0.05)  # ended: its seal is on its way
        else:
            pytest.fail("never sealed")
        exports.calls.clear()
        assert await served.replay(match_id) == (200, "application/json; charset=utf-8", body)
        assert exports.calls == []


async def test_an_ended_match_whose_seal_waits_is_not_kept(
    backend: Backend, exports: Exports, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between its end and its seal (the dice service does not answer: the seal waits) a
    match's export has no seal and its replay says it is not sealed; that answer changes when
    the seal comes, so it is not kept. The sealed one is."""
    from services.platform.errors import Unavailable

    host = backend.services[f"rules-{GAME}"].extra["host"]
    real_close = host.dice.close_session
    dice_down = [True]

    async def close_session(dice_key: str) -> Any:
        if dice_down[0]:
            raise Unavailable("dice: the service does not answer")
        return await real_close(dice_key)

    monkeypatch.setattr(host.dice, "close_session", close_session)
    match_id, tokens = await _created(backend)
    await _play(backend, match_id, tokens)
    async with serve(backend, GatewayConfig(port=0)) as served:
        for tries in (1, 2):
            status, _, body = await served.replay(match_id)
            report = json.loads(body)
            assert status == 200 and not report["verification"]["ok"], report["verification"]
            assert "not sealed" in report["verification"]["failure"]
            assert len(exports.calls) == tries
        dice_down[0] = False  # the next call on the match seals it
        status, _, sealed = await served.replay(match_id)
        assert status == 200 and json.loads(sealed)["verification"]["ok"]
        assert len(exports.calls) == 3
        assert (await served.replay(match_id))[2] == sealed
        assert len(exports.calls) == 3, "the sealed match's replay was not kept"


async def test_a_client_waits_for_a_few_replays_at_once(
    backend: Backend, exports: Exports
) -> None:
    """NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT, counted as the gateway counts a client's streams
    (by address; X-Forwarded-For from a trusted proxy): past it ``resource_exhausted`` (429),
    even to wait for a replay another request is computing; an answer kept in memory costs
    nothing and is not refused; other clients are not limited by it."""
    a, _ = await finished_match(backend)
    b, _ = await finished_match(backend)
    x, y = "198.51.100.1", "198.51.100.2"
    config = GatewayConfig(port=0, max_replays_per_client=1, trusted_proxies=("127.0.0.0/8",))
    async with serve(backend, config) as served:
        assert (await served.replay(b, y))[0] == 200  # b kept
        exports.calls.clear()
        exports.gate.clear()
        x_a = asyncio.create_task(served.replay(a, x))
        await served.until_entered(2)
        status, _, body = await served.replay(a, x)
        assert (status, json.loads(body)) == (429, {
            "code": "resource_exhausted",
            "message": "too many replays at once from this address (1); wait for one to end"})
        assert (await served.replay(b, x))[0] == 200  # kept: at once, whatever x waits for
        y_a = asyncio.create_task(served.replay(a, y))  # another client: waits with x
        await served.until_entered(5)
        exports.gate.set()
        (x_status, _, x_body), (y_status, _, y_body) = await asyncio.gather(x_a, y_a)
        assert x_status == y_status == 200 and x_body == y_body
        assert exports.calls == [a]
        assert served.gateway.replays_running.total == 0  # every slot given back


def test_the_replays_per_client_come_from_the_environment() -> None:
    assert load_config({}).max_replays_per_client == 4
    assert load_config({"NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT": "0"}).max_replays_per_client == 0
    with pytest.raises(ValueError, match="NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT"):
        load_config({"NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT": "few"})


async def test_replays_of_many_clients_are_computed_a_few_at_once(
    backend: Backend, exports: Exports
) -> None:
    """Clients from many addresses (each within its own limit) asking for different finished
    matches: the gateway exports and replays ``SERVICE_REPLAYS`` of them at once, the others
    wait their turn without an export held, and every one is answered. Before, each request
    had its export asked at once: memory and the rules service's work grew with the number of
    addresses, which a flood of clients chooses."""
    from services.gateway.app import SERVICE_REPLAYS

    matches = [(await finished_match(backend))[0] for _ in range(SERVICE_REPLAYS + 2)]
    exports.calls.clear()
    exports.gate.clear()
    config = GatewayConfig(port=0, max_replays_per_client=1, trusted_proxies=("127.0.0.0/8",))
    async with serve(backend, config) as served:
        asked = [asyncio.create_task(served.replay(m, f"198.51.100.{k + 1}"))
                 for k, m in enumerate(matches)]
        await served.until_entered(len(matches))
        await asyncio.sleep(0.3)  # time for any more exports to be asked
        assert len(exports.calls) == SERVICE_REPLAYS, exports.calls
        exports.gate.set()
        answers = await asyncio.gather(*asked)
        assert [status for status, _, _ in answers] == [200] * len(matches)
        assert sorted(exports.calls) == sorted(matches)
        assert served.gateway.replays_running.total == 0
