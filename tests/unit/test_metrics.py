"""The pure parts of services/platform/metrics.py: bounded labels, the service label of a gRPC
server, the record counting of a rules service, the settings, and the HTTP middleware's route
labels (a real aiohttp server on a socket)."""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.error
import urllib.request

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
