"""/metrics over real HTTP from a backend in one process (dice and the toy's rules service,
real gRPC over sockets, real NATS): the counters move by exactly what the calls did, refused
calls are counted with their codes, and no match id or token shows in the scrape."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.cli.backend import Backend, start_backend
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1.tournament_pb2 import NO_SHOW_POLICY_BOT as NO_SHOW_BOT
from services.platform.grpc_kit import call_metadata
from services.platform.natsrv import free_port
from tests.integration.conftest import make_settings
from tests.integration.test_matchmaking import env  # noqa: F401 - the fixture
from tests.support import toy
from tests.support.client import RulesClient

RULES = "neon.rules.v1.RulesService"
GARBAGE = b"\xff\xff\xff\x07garbage"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
async def metered(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    settings = make_settings(tmp_path, nats_url, metrics_port=free_port())
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


async def scrape(url: str) -> tuple[str, Samples]:
    def get() -> tuple[str, str]:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.headers["Content-Type"], answer.read().decode()

    content_type, text = await asyncio.to_thread(get)
    assert content_type.startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def calls(samples: Samples, method: str, code: str, service: str = "rules-toy") -> float:
    return value(samples, "neon_grpc_calls_total", service=service,
                 method=f"{RULES}/{method}", code=code)


async def settled(url: str, service: str = "rules-toy") -> tuple[str, Samples]:
    """A scrape once the relay has published everything stored (lag 0)."""
    for _ in range(100):
        text, samples = await scrape(url)
        if value(samples, "neon_outbox_lag", service=service) == 0:
            return text, samples
        await asyncio.sleep(0.1)
    raise AssertionError("the outbox relay did not catch up")


async def test_metrics_count_calls_codes_actions_and_matches(metered: Backend) -> None:
    url = metered.metrics_url
    assert url.startswith("http://127.0.0.1:") and url.endswith("/metrics")
    _, before = await settled(url)

    client = RulesClient(metered.address("rules-toy"))
    match_id = "metrics-match-7f3a"
    created = await client.create(metered.organiser_token(), match_id=match_id, mode="race",
                                  seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    for n, seat in enumerate((0, 1, 0, 1)):  # two rounds of hidden picks: four actions
        await client.submit(tokens[seat], match_id, f"c{n}", {"type": "pick", "step": 1})
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # a bad token
        await client.submit("not-a-token", match_id, "c9", {"type": "pick", "step": 1})
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    raw = client.channel.unary_unary(f"/{RULES}/SubmitAction")  # garbage bytes
    with pytest.raises(grpc.aio.AioRpcError) as garbage:
        await raw(GARBAGE, metadata=call_metadata(tokens[0]), timeout=10)
    assert garbage.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    unknown = client.channel.unary_unary(f"/{RULES}/NoSuchMethod-{match_id}")
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await unknown(b"", timeout=10)
    assert missing.value.code() == grpc.StatusCode.UNIMPLEMENTED

    watch = client.watch(match_id, tokens[0])  # a stream, open while scraped
    await watch.read()
    text, during = await scrape(url)
    assert value(during, "neon_grpc_open_streams", service="rules-toy",
                 method=f"{RULES}/WatchMatch") == 1
    watch.cancel()
    for _ in range(50):
        text, after = await settled(url)
        if value(after, "neon_grpc_open_streams", service="rules-toy",
                 method=f"{RULES}/WatchMatch") == 0:
            break
        await asyncio.sleep(0.1)
    await client.close()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert calls(after, "CreateMatch", "OK") - calls(before, "CreateMatch", "OK") == 1
    assert calls(after, "SubmitAction", "OK") - calls(before, "SubmitAction", "OK") == 4
    assert (calls(after, "SubmitAction", "UNAUTHENTICATED")
            - calls(before, "SubmitAction", "UNAUTHENTICATED")) == 1
    assert (calls(after, "SubmitAction", "INVALID_ARGUMENT")
            - calls(before, "SubmitAction", "INVALID_ARGUMENT")) == 1
    assert calls(after, "WatchMatch", "CANCELLED") - calls(before, "WatchMatch", "CANCELLED") == 1
    assert moved("neon_grpc_calls_total", service="rules-toy", method="unknown",
                 code="UNIMPLEMENTED") == 1
    # unary calls are timed, refused ones too; streams are not
    assert moved("neon_grpc_call_seconds_count", service="rules-toy",
                 method=f"{RULES}/SubmitAction") == 6
    assert moved("neon_grpc_call_seconds_count", service="rules-toy",
                 method=f"{RULES}/WatchMatch") == 0
    # the rules service called the dice service: its own series, in the same registry
    assert sum(v - value(before, n, **dict(k)) for (n, k), v in after.items()
               if n == "neon_grpc_calls_total" and ("service", "dice") in k) >= 1
    # what the host stored
    assert moved("neon_rules_actions_total", service="rules-toy", game="toy") == 4
    assert moved("neon_rules_matches_created_total", service="rules-toy") == 1
    assert moved("neon_rules_matches_ended_total", service="rules-toy") == 0
    assert moved("neon_rules_clock_expiries_total", service="rules-toy") == 0
    assert value(after, "neon_rules_live_matches", service="rules-toy", status="running") == 1
    # MatchCreated, MatchStarted and four ActionAccepted: six notifications, published
    assert moved("neon_outbox_published_total", service="rules-toy") == 6
    assert value(after, "neon_outbox_lag", service="rules-toy") == 0
    # commits: one per call that stored (a create with its start, four actions)
    assert moved("neon_rules_commit_batch_size_sum", service="rules-toy") == 5

    # nothing of a match, a player or a token: counts and timings only
    assert match_id not in text and "metrics-match" not in text
    for token in [*tokens.values(), metered.organiser_token(), "not-a-token"]:
        assert token not in text
    assert "NoSuchMethod" not in text


async def test_abandon_and_clock_expiry_are_counted(metered: Backend) -> None:
    url = metered.metrics_url
    _, before = await scrape(url)
    client = RulesClient(metered.address("rules-toy"))
    organiser = metered.organiser_token()
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=150)
    await client.create(organiser, match_id="metrics-clock", mode="race", seats=2, clock=clock)
    await client.create(organiser, match_id="metrics-gone", mode="race", seats=2)
    await client.abandon(organiser, "metrics-gone", "testing the counters")
    for _ in range(100):
        _, after = await scrape(url)
        if value(after, "neon_rules_clock_expiries_total", service="rules-toy") > value(
                before, "neon_rules_clock_expiries_total", service="rules-toy"):
            break
        await asyncio.sleep(0.1)
    await client.close()

    def moved(name: str) -> float:
        return value(after, name, service="rules-toy") - value(before, name, service="rules-toy")

    assert moved("neon_rules_matches_created_total") == 2
    assert moved("neon_rules_matches_abandoned_total") == 1
    assert moved("neon_rules_matches_ended_total") == 0
    assert moved("neon_rules_clock_expiries_total") >= 1
    assert (value(after, "neon_rules_actions_total", service="rules-toy", game="toy")
            - value(before, "neon_rules_actions_total", service="rules-toy", game="toy")
            >= moved("neon_rules_clock_expiries_total"))


async def test_a_stopped_backend_takes_its_gauges_along(tmp_path: Path, nats_url: str) -> None:
    from services.platform import metrics

    settings = make_settings(tmp_path, nats_url, metrics_port=free_port())
    b = await start_backend(settings, games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE})
    _, samples = await scrape(b.metrics_url)
    assert ("neon_rules_live_matches", frozenset({("service", "rules-toy"),
                                                  ("status", "running")})) in samples
    url = b.metrics_url
    await b.stop(1)
    assert b.metrics is None
    with pytest.raises(OSError):
        await scrape(url)
    text = generate_latest(metrics.REGISTRY).decode()
    assert 'neon_rules_live_matches{service="rules-toy"' not in text
    assert 'neon_outbox_lag{service="rules-toy"' not in text


async def test_matchmaking_queue_cycles_and_formed_matches(env: Any) -> None:  # noqa: F811
    """The matchmaking service's series, from the same registry (read as a scrape reads it)."""
    from services.platform import metrics
    from tests.integration.test_matchmaking import Client, S, status_is

    def sample(name: str, **labels: str) -> float:
        return metrics.REGISTRY.get_sample_value(name, labels) or 0.0

    svc = await env.start(metrics_port=free_port())  # metrics on (read here, not served)
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    formed = sample("neon_matchmaking_matches_formed_total", service="matchmaking", game="toy")
    await mm.call("CreateTicket", ta, ticket_id=env.id("t-ann"), game="toy", players=[a])
    await metrics.refresh_all()
    assert sample("neon_matchmaking_tickets_waiting", service="matchmaking", game="toy") == 1
    cycles = sample("neon_matchmaking_cycle_seconds_count", service="matchmaking")
    await asyncio.sleep(0.3)  # cycles every 0.05 s
    assert sample("neon_matchmaking_cycle_seconds_count", service="matchmaking") > cycles
    await mm.call("CreateTicket", tb, ticket_id=env.id("t-bob"), game="toy", players=[b])
    await status_is(mm, ta, env.id("t-ann"), S.TICKET_STATUS_PROPOSED)
    await metrics.refresh_all()
    assert sample("neon_matchmaking_tickets_waiting", service="matchmaking", game="toy") == 0
    assert sample("neon_matchmaking_matches_formed_total", service="matchmaking",
                  game="toy") - formed == 1
    body, _ = await metrics.scrape()
    assert a.encode() not in body and env.tag.encode() not in body
    await mm.channel.close()


TOURNAMENT = "neon.tournament.v1.TournamentService"


def by_status(samples: Samples) -> dict[str, float]:
    return {status: samples[("neon_tournaments", frozenset({("service", "tournament"),
                                                             ("status", status)}))]
            for status in ("created", "registration", "running", "finished", "force-ended")}


async def _tournament(c: Any, org: str, tid: str, until: str) -> None:
    """Tournament ``tid`` on the toy game (Swiss, one round, two players) taken to ``until``."""
    from services.cli.tournament_commands import format_json

    await c.call("CreateTournament", org, tournament_id=tid, game="toy", mode="race",
                 format_json=format_json("swiss", 1), no_show=NO_SHOW_BOT)
    if until == "created":
        return
    await c.call("OpenRegistration", org, tournament_id=tid)
    if until == "registration":
        return
    for player in ("ann", "bob"):
        await c.call("Register", org, tournament_id=tid, player_id=player)
    await c.call("StartTournament", org, tournament_id=tid)
    if until == "running":
        return
    if until == "force-ended":
        await c.call("ForceEnd", org, tournament_id=tid, reason="venue closed")
        return
    await c.call("NextRound", org, tournament_id=tid)
    await c.call("CorrectResult", org, tournament_id=tid, round=1, table=1, placements=[1, 2],
                 reason="played on paper")
    for _ in range(100):  # the round's checkpoint comes from the round's driver
        if (await c.call("GetRound", tournament_id=tid, round=1)).round.complete:
            break
        await asyncio.sleep(0.1)
    await c.call("FinishTournament", org, tournament_id=tid)


async def test_tournaments_by_status_and_their_calls(tmp_path: Path, nats_url: str) -> None:
    """neon_tournaments over /metrics, from real services: kept as tournaments are created,
    opened, started, finished and force-ended; counted again from the store by a restarted
    tournament service; the tournament calls and the gateway's requests counted too."""
    from services.cli.tournament_commands import TournamentClient
    from services.tournament import main as tournament_main
    from services.tournament.director import Options
    from tests.support.gateway import gateway_for

    settings = make_settings(tmp_path, nats_url, metrics_port=free_port())
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE},
                            tournament=True, tournament_options=Options(poll=0.1))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    c = TournamentClient(b.address("tournament"))
    try:
        _, before = await scrape(b.metrics_url)
        assert by_status(before) == dict.fromkeys(by_status(before), 0.0)
        plan = {"c1": "created", "r1": "registration", "r2": "registration", "u1": "running",
                "u2": "running", "u3": "running", "f1": "finished", "e1": "force-ended"}
        for tid, until in plan.items():
            await _tournament(c, org, f"metrics_{tid}", until)
        _, after = await scrape(b.metrics_url)
        expected = {"created": 1.0, "registration": 2.0, "running": 3.0, "finished": 1.0,
                    "force-ended": 1.0}
        assert by_status(after) == expected
        assert value(after, "neon_grpc_calls_total", service="tournament",
                     method=f"{TOURNAMENT}/CreateTournament", code="OK") == len(plan)
        assert value(after, "neon_grpc_calls_total", service="tournament",
                     method=f"{TOURNAMENT}/FinishTournament", code="OK") == 1
        async with gateway_for(b) as gateway:  # the gateway's HTTP middleware, metrics on
            for _ in range(2):
                await asyncio.to_thread(urllib.request.urlopen, gateway.url + "/healthz", None, 10)
        _, seen = await scrape(b.metrics_url)
        assert value(seen, "neon_http_requests_total", service="gateway", route="/healthz",
                     status="200") - value(after, "neon_http_requests_total", service="gateway",
                                           route="/healthz", status="200") == 2

        # a restart counts them from the store, and goes on from there
        await c.close()
        await b.services.pop("tournament").stop(1)
        _, stopped = await scrape(b.metrics_url)
        assert not any(name == "neon_tournaments" for name, _ in stopped)
        b.services["tournament"] = await tournament_main.start(
            b.settings, b.keys, b.nats_client, options=Options(poll=0.1))
        c = TournamentClient(b.address("tournament"))
        _, again = await scrape(b.metrics_url)
        assert by_status(again) == expected
        await c.call("OpenRegistration", org, tournament_id="metrics_c1")
        await c.call("ForceEnd", org, tournament_id="metrics_u1", reason="venue closed")
        _, last = await scrape(b.metrics_url)
        assert by_status(last) == {**expected, "created": 0.0, "registration": 3.0,
                                   "running": 2.0, "force-ended": 2.0}
    finally:
        await c.close()
        await b.stop(1)


async def test_without_a_metrics_port_nothing_is_collected(tmp_path: Path, nats_url: str) -> None:
    """Every service of a backend with no metrics port, and a gateway in front: no interceptor,
    no rules meter, no gauge refresh (so no store read for one), no tournament counts, and
    served calls (accepted, refused, unknown) and HTTP requests move no series at all."""
    from services.cli.tournament_commands import TournamentClient, format_json
    from services.platform import metrics
    from tests.support.gateway import gateway_for

    def series() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        return {(s.name, frozenset(s.labels.items())): s.value
                for family in metrics.REGISTRY.collect() if family.name.startswith("neon_")
                for s in family.samples}

    settings = make_settings(tmp_path, nats_url)
    assert not settings.serves_metrics
    refreshers = dict(metrics._refreshers)
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE},
                            scoring=True, matchmaking=True, tournament=True)
    try:
        assert set(b.services) == {"dice", "rules-toy", "scoring", "matchmaking", "tournament"}
        for svc in b.services.values():
            assert svc.handle.metrics is None, svc.name
        host = b.services["rules-toy"].extra["host"]
        assert host.meter is None
        assert not isinstance(getattr(host.committer.on_batch, "__self__", None),
                              metrics.RulesMeter)
        assert b.services["tournament"].extra["director"].statuses is None
        assert metrics._refreshers == refreshers
        before = series()

        client = RulesClient(b.address("rules-toy"))
        created = await client.create(b.organiser_token(), match_id="quiet-1", mode="race",
                                      seats=2)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        for n, seat in enumerate((0, 1, 0, 1)):
            await client.submit(tokens[seat], "quiet-1", f"c{n}", {"type": "pick", "step": 1})
        with pytest.raises(grpc.aio.AioRpcError):
            await client.submit("not-a-token", "quiet-1", "c9", {"type": "pick", "step": 1})
        await client.close()
        c = TournamentClient(b.address("tournament"))
        org = b.issuer.issue("organiser", "*", player="org", ttl=600)
        await c.call("CreateTournament", org, tournament_id="quiet_t", game="toy", mode="race",
                     format_json=format_json("swiss", 1), no_show=NO_SHOW_BOT)
        await c.call("OpenRegistration", org, tournament_id="quiet_t")
        await c.close()
        for name, svc in b.services.items():  # a method no service has
            async with grpc.aio.insecure_channel(svc.address) as channel:
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await channel.unary_unary(f"/neon.{name}.v1.Nothing/Here")(b"", timeout=10)
                assert missing.value.code() == grpc.StatusCode.UNIMPLEMENTED
        async with gateway_for(b) as gateway:
            await asyncio.to_thread(urllib.request.urlopen, gateway.url + "/healthz", None, 10)

        # what a scrape elsewhere in the process would run reads none of these stores
        reads = 0

        def counted(read: Any) -> Any:
            def max_notification_id() -> Any:
                nonlocal reads
                reads += 1
                return read()
            return max_notification_id

        for svc in b.services.values():
            recorder = svc.extra["app"].recorder if "app" in svc.extra else None
            if recorder is not None:
                recorder.max_notification_id = counted(recorder.max_notification_id)
        await metrics.refresh_all()
        assert reads == 0
        assert series() == before
        assert metrics._refreshers == refreshers
    finally:
        await b.stop(1)
