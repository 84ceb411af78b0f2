"""The pure parts of services/platform/metrics.py: bounded labels, the service label of a gRPC
server, the record counting of a rules service, the settings, and the HTTP middleware's route
labels (a real aiohttp server on a socket)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from aiohttp import web

from services.cli.main import up_metrics
from services.cli.processes import _metrics_port
from services.platform import metrics
from services.platform.natsrv import free_port, port_open
from services.platform.settings import DEFAULT_METRICS_PORT, load


def test_a_bounded_label_admits_its_limit_then_reads_other() -> None:
    games = metrics.Bounded(2, known=["neon"])
    assert games("neon") == "neon"
    assert games("barbaric") == "barbaric"
    assert games("match-7f3a") == metrics.OTHER  # past the limit: never a new series
    assert games("player-42") == metrics.OTHER
    assert games("neon") == "neon" and games("barbaric") == "barbaric"  # the admitted stay


def test_the_service_label_of_each_server() -> None:
    from services.dice.service import SERVICE_NAME as DICE
    from services.matchmaking.service import SERVICE_NAME as MATCHMAKING
    from services.rules.main import game_service_name
    from services.rules.service import SERVICE_NAME as RULES
    from services.scoring.service import SERVICE_NAME as SCORING
    from services.tournament.service import SERVICE_NAME as TOURNAMENT

    assert metrics.service_label([DICE]) == "dice"
    assert metrics.service_label([MATCHMAKING]) == "matchmaking"
    assert metrics.service_label([SCORING]) == "scoring"
    assert metrics.service_label([TOURNAMENT]) == "tournament"
    for game in ("neon-reign", "neon", "neon-knights-2086", "barbaric", "toy"):
        assert metrics.service_label([RULES, game_service_name(game)]) == f"rules-{game}"


def sample(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def test_the_rules_meter_counts_records_by_kind() -> None:
    service = "rules-unit-meter"
    meter = metrics.RulesMeter(service, "unit-game")
    meter.stored([{"type": "MatchCreated"}, {"type": "MatchStarted"}])
    meter.stored([{"type": "ActionAccepted"}, {"type": "ActionAccepted", "timeout": True},
                  {"type": "ActionAccepted", "timeout": "forfeit"}])
    meter.stored([{"type": "MatchEnded", "outcome": {"winners": [0]}}, {"type": "MatchSealed"}])
    meter.stored([{"type": "MatchEnded", "outcome": {"abandoned": True, "reason": "x"}}])
    meter.batch_size(3)
    assert sample("neon_rules_matches_created_total", service=service) == 1
    assert sample("neon_rules_actions_total", service=service, game="unit-game") == 3
    assert sample("neon_rules_clock_expiries_total", service=service) == 1  # not the forfeit
    assert sample("neon_rules_matches_ended_total", service=service) == 1
    assert sample("neon_rules_matches_abandoned_total", service=service) == 1
    assert sample("neon_rules_commit_batch_size_sum", service=service) == 3
    assert sample("neon_rules_commit_batch_size_count", service=service) == 1


@pytest.mark.serial  # looks whether 9464 is taken, as neon up does
def test_settings_and_neon_up_default() -> None:
    unset = load({})
    assert unset.metrics_port is None and unset.metrics_bind_host == "127.0.0.1"
    assert load({"NEON_METRICS_PORT": "0"}).metrics_port == 0
    set_ = load({"NEON_METRICS_PORT": "9100", "NEON_BIND_HOST": "0.0.0.0"})
    assert set_.metrics_port == 9100 and set_.metrics_bind_host == "0.0.0.0"
    assert load({"NEON_METRICS_HOST": "10.0.0.5"}).metrics_bind_host == "10.0.0.5"
    # neon up: the default port (or a free one when it is taken); 0 stays off; a set one stays
    chosen = up_metrics(unset).metrics_port
    if port_open("127.0.0.1", DEFAULT_METRICS_PORT):
        assert chosen not in (None, 0, DEFAULT_METRICS_PORT)
    else:
        assert chosen == DEFAULT_METRICS_PORT
    assert up_metrics(dataclasses.replace(unset, metrics_port=0)).metrics_port == 0
    assert up_metrics(dataclasses.replace(unset, metrics_port=9100)).metrics_port == 9100
    # neon up --processes: one port per child, never the same one
    assert _metrics_port("0", 3) == 0
    assert [_metrics_port("9500", i) for i in range(3)] == [9500, 9501, 9502]
    assert _metrics_port("", 0) > 0


async def test_http_requests_are_counted_by_route_pattern_not_path() -> None:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hi")

    async def refuse(request: web.Request) -> web.Response:
        raise web.HTTPForbidden()

    app = web.Application()
    app.middlewares.append(metrics.http_middleware("gateway-unit"))
    app.router.add_get("/games/{game}/matches/{match_id}", hello)
    app.router.add_get("/refuse", refuse)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()

    def get(path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as err:
            return int(err.code)

    try:
        assert await asyncio.to_thread(get, "/games/toy/matches/m-secret-1") == 200
        assert await asyncio.to_thread(get, "/games/toy/matches/m-secret-2") == 200
        assert await asyncio.to_thread(get, "/refuse") == 403
        assert await asyncio.to_thread(get, "/nowhere/m-secret-3") == 404
    finally:
        await runner.cleanup()
    route = "/games/{game}/matches/{match_id}"
    assert sample("neon_http_requests_total", service="gateway-unit", route=route,
                  status="200") == 2
    assert sample("neon_http_request_seconds_count", service="gateway-unit", route=route) == 2
    assert sample("neon_http_requests_total", service="gateway-unit", route="/refuse",
                  status="403") == 1
    assert sample("neon_http_requests_total", service="gateway-unit", route="unmatched",
                  status="404") == 1
    body, content_type = await metrics.scrape()
    assert content_type.startswith("text/plain")
    assert b"m-secret" not in body and b"nowhere" not in body


def test_a_process_serves_metrics_only_with_a_port() -> None:
    assert not load({}).serves_metrics
    assert not load({"NEON_METRICS_PORT": "0"}).serves_metrics
    assert load({"NEON_METRICS_PORT": "9100"}).serves_metrics
    assert up_metrics(load({})).serves_metrics  # neon up: on unless told 0
    assert not up_metrics(load({"NEON_METRICS_PORT": "0"})).serves_metrics


def grpc_calls() -> dict[tuple[tuple[str, str], ...], float]:
    return {tuple(sorted(s.labels.items())): s.value for family in metrics.REGISTRY.collect()
            if family.name in ("neon_grpc_calls", "neon_grpc_call_seconds")
            for s in family.samples}


async def test_start_server_meters_calls_only_when_told() -> None:
    """A real server on a socket each way: without metrics no interceptor is installed and a
    served call (answered, refused, unknown) moves no gRPC series; with them, it does."""
    import grpc

    from services.platform.grpc_kit import call_metadata, start_server
    from services.platform.tokens import TokenIssuer

    service = "neon.unitmetrics.v1.Echo"
    issuer = TokenIssuer(b"unit-metrics-secret-0123456789abcdef")

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    def register(server: grpc.aio.Server) -> None:
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            service, {"Say": grpc.unary_unary_rpc_method_handler(echo)})])

    async def serve_three_calls(on: bool) -> Any:
        handle = await start_server("127.0.0.1:0", register, [service], issuer, metrics=on)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
                assert await channel.unary_unary(f"/{service}/Say")(b"hi", timeout=10) == b"hi"
                with pytest.raises(grpc.aio.AioRpcError) as refused:  # a bad token
                    await channel.unary_unary(f"/{service}/Say")(
                        b"hi", metadata=call_metadata("not-a-token"), timeout=10)
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                with pytest.raises(grpc.aio.AioRpcError):
                    await channel.unary_unary(f"/{service}/Nothing")(b"", timeout=10)
        finally:
            await handle.stop(0)
        return handle

    before = grpc_calls()
    off = await serve_three_calls(False)
    assert off.metrics is None
    assert grpc_calls() == before
    on = await serve_three_calls(True)
    assert isinstance(on.metrics, metrics.GrpcMetrics)
    assert sample("neon_grpc_calls_total", service="unitmetrics", method=f"{service}/Say",
                  code="OK") == 1
    assert sample("neon_grpc_calls_total", service="unitmetrics", method=f"{service}/Say",
                  code="UNAUTHENTICATED") == 1
    assert sample("neon_grpc_call_seconds_count", service="unitmetrics",
                  method=f"{service}/Say") == 2
    assert sample("neon_grpc_calls_total", service="unitmetrics", method="unknown",
                  code="UNIMPLEMENTED") == 1


async def test_store_reads_run_one_at_a_time_in_one_thread_off_the_loop() -> None:
    reads = metrics.StoreReads()
    running = peak = 0
    threads: set[int] = set()
    guard = threading.Lock()

    def read(n: int) -> Any:
        def go() -> int:
            nonlocal running, peak
            with guard:
                running += 1
                peak = max(peak, running)
            threads.add(threading.get_ident())
            time.sleep(0.02)
            with guard:
                running -= 1
            return n
        return go

    answers = await asyncio.gather(*(reads.read(("key", n), read(n)) for n in range(6)))
    assert answers == list(range(6))
    assert peak == 1 and len(threads) == 1 and threading.get_ident() not in threads


async def test_a_read_asked_again_while_running_is_shared_and_outlives_a_timeout() -> None:
    reads = metrics.StoreReads()
    calls = 0
    release = threading.Event()

    def slow() -> str:
        nonlocal calls
        calls += 1
        release.wait(10)
        return "head"

    with pytest.raises(TimeoutError):
        await reads.read("lag", slow, timeout=0.05)  # the read goes on
    waiting = asyncio.ensure_future(reads.read("lag", slow, timeout=10))  # joins it
    await asyncio.sleep(0.05)
    release.set()
    assert await waiting == "head"
    assert calls == 1
    assert await reads.read("lag", lambda: "next") == "next"  # done: the next read is new


def test_a_read_done_before_its_callback_is_added_does_not_deadlock() -> None:
    """The executor may finish a fast read (SQLite's max id) before ``read`` adds its done
    callback, which then runs at once in the event loop's thread, under the lock."""
    from concurrent.futures import Future

    class AtOnce:
        def submit(self, fn: Any) -> Future[Any]:
            done: Future[Any] = Future()
            done.set_result(fn())
            return done

    reads = metrics.StoreReads()
    reads._executor = AtOnce()  # type: ignore[assignment]
    answers: list[Any] = []
    runner = threading.Thread(target=lambda: answers.append(
        asyncio.run(reads.read("k", lambda: 42))), daemon=True)
    runner.start()
    runner.join(5)
    assert answers == [42], "the read deadlocked"
    assert reads._running == {}
