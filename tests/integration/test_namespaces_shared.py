"""Two deployments in different namespaces on one NATS and one PostgreSQL database play at the
same time; neither's scoring sees the other's results (NEON_NAMESPACE)."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.scoring.v1 import scoring_pb2 as pb
from services.genproto.neon.scoring.v1 import scoring_pb2_grpc as pb_grpc
from services.platform import bus
from services.platform.grpc_kit import channel
from tests.integration.conftest import make_settings
from tests.integration.test_rules_host_toy import play_to_end
from tests.support import toy
from tests.support.namespaces import forget

pytestmark = [pytest.mark.postgres,
              pytest.mark.serial]  # 39 PostgreSQL connections (tests/conftest.py)
MATCHES = 3


@dataclasses.dataclass
class Deployment:
    namespace: str
    backend: Backend
    players: tuple[str, str]

    def scoring(self) -> tuple[grpc.aio.Channel, Any]:
        ch = channel(self.backend.address("scoring"))
        return ch, pb_grpc.ScoringServiceStub(ch)


@pytest.fixture
async def deployments(tmp_path: Path, nats_url: str,
                      postgres_url: str) -> AsyncIterator[list[Deployment]]:
    tag = uuid.uuid4().hex[:8]
    made: list[Deployment] = []
    try:
        for name in ("alpha", "beta"):
            namespace = f"{name}-{tag}"
            settings = dataclasses.replace(
                make_settings(tmp_path / name, nats_url, persistence="postgres"),
                database_url=postgres_url, postgres_schema="", namespace=namespace)
            backend = await start_backend(settings, games=[], embedded_nats=False,
                                          engines={"toy": toy.ENGINE}, scoring=True)
            made.append(Deployment(namespace, backend, (f"ann-{name}-{tag}", f"bob-{name}-{tag}")))
        yield made
    finally:
        for d in made:
            await d.backend.stop(1)
        await _forget(nats_url, postgres_url, [d.namespace for d in made])


async def _forget(nats_url: str, postgres_url: str, namespaces: list[str]) -> None:
    """Drop what the namespaces left on the shared NATS and database: stream (and durables),
    outbox KV bucket, schema."""
    for ns in namespaces:
        await forget(ns, nats_url, postgres_url)


async def play(d: Deployment, match_ids: list[str]) -> None:
    client = RulesClient(d.backend.address("rules-toy"))
    # a service token: matches an organiser creates are recorded but counted in no standing
    creator = d.backend.issuer.issue("service", "*", player="neon-cli", ttl=600)
    try:
        for i, match_id in enumerate(match_ids):
            players = list(d.players) if i % 2 == 0 else list(reversed(d.players))
            created = await client.create(creator, match_id=match_id, mode="race", seats=2,
                                          players=players)
            await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
    finally:
        await client.close()


async def result_of(stub: Any, match_id: str, timeout: float = 20) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            reply = await stub.GetMatchResult(pb.GetMatchResultRequest(match_id=match_id,
                                                                        game="toy"), timeout=5)
            return reply.result
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.NOT_FOUND or loop.time() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_two_namespaces_share_nats_and_postgres_without_seeing_each_other(
        deployments: list[Deployment]) -> None:
    alpha, beta = deployments
    # the same match ids in both deployments: each store and each scoring keeps its own
    match_ids = [f"shared-{uuid.uuid4().hex[:8]}" for _ in range(MATCHES)]
    await asyncio.gather(play(alpha, match_ids), play(beta, match_ids))

    for mine, other in ((alpha, beta), (beta, alpha)):
        ch, stub = mine.scoring()
        try:
            for match_id in match_ids:
                result = await result_of(stub, match_id)
                assert set(result.players) == set(mine.players), mine.namespace
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(game="toy", limit=100),
                                              timeout=5)
            assert {e.rating.player for e in board.entries} == set(mine.players)
            assert all(e.rating.matches == MATCHES for e in board.entries)
            for player in mine.players:
                history = await stub.GetPlayerHistory(
                    pb.GetPlayerHistoryRequest(game="toy", player=player), timeout=5)
                assert sorted(r.match_id for r in history.results) == sorted(match_ids)
            for player in other.players:
                history = await stub.GetPlayerHistory(
                    pb.GetPlayerHistoryRequest(game="toy", player=player), timeout=5)
                assert list(history.results) == [], f"{mine.namespace} scored {player}"
        finally:
            await ch.close()

    # each deployment's match events went to its own stream, under its own subjects
    js = alpha.backend.nats_client.jetstream()
    for d in deployments:
        info = await js.stream_info(bus.stream_name(d.namespace))
        assert info.config.subjects == [f"{bus.subject_prefix(d.namespace)}.>"]
        assert info.state.messages > 0
        assert d.backend.services["scoring"].extra["consumer"].durable.startswith(d.namespace)
