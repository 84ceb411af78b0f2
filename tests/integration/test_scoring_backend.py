"""Toy matches played through the in-process backend reach the scoring service."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend, start_backend
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform import bus
from services.platform.grpc_kit import channel
from services.platform.settings import Settings
from services.platform.signing import public_key_hex
from tests.integration.conftest import make_settings
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import Scoring, delete_consumers, scoring_settings
from tests.support import toy
from tests.support.client import RulesClient


@pytest.fixture
def settings(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> Settings:
    return scoring_settings(tmp_path, nats_url, request)


async def test_toy_matches_are_scored(backend: Backend, settings: Settings, nats_url: str) -> None:
    # The real path: signed results on neon.events.results.>, trusted by the deployment's key.
    scoring = await Scoring(settings, "toy", deliver_new=True, filter_subject=f"{bus.subject_prefix()}.results.toy.>",
                            trusted_keys=(public_key_hex(backend.keys.signing_key),)).start()
    try:
        client = RulesClient(backend.address("rules-toy"))
        # a service token, as the server's own tools create rated matches (scoring rates an
        # organiser's match only with NEON_SCORING_RATE_ORGANISER_MATCHES: test_scoring_creators)
        creator = backend.issuer.issue("service", "*", player="neon-cli", ttl=600)
        ann, bob = f"ann-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
        outcomes = {}
        for i in range(3):
            match_id = f"score-{uuid.uuid4().hex[:8]}"
            created = await client.create(creator, match_id=match_id, mode="race", seats=2,
                                          players=[ann, bob] if i % 2 else [bob, ann])
            await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
            outcomes[match_id] = json.loads((await client.view(match_id)).outcome_json)
        await client.close()
        for match_id, outcome in outcomes.items():
            result = await _result(scoring, match_id)
            assert list(result.placements) == outcome["placements"]
            assert list(result.scores) == outcome["scores"]
            assert result.draw == outcome["draw"] and result.mode == "race"
            assert json.loads(result.breakdown_json) == outcome["breakdown"]
        # (Every one of our signed results was scored. The refused count is not checked:
        # other runs sharing the machine's NATS may publish results signed by other keys.)
        got = await scoring.ratings([ann, bob])
        replayed = scoring.app.replay_ratings("toy")
        assert got == {p: (replayed[p].mu, replayed[p].sigma) for p in (ann, bob)}
        history = await scoring.stub.GetPlayerHistory(
            scoring_pb2.GetPlayerHistoryRequest(game="toy", player=ann), timeout=5)
        assert [r.match_id for r in history.results] == list(reversed(outcomes))
    finally:
        await scoring.stop()
        await delete_consumers(nats_url, scoring.durables)


async def _result(scoring: Scoring, match_id: str, timeout: float = 15) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            reply = await scoring.stub.GetMatchResult(
                scoring_pb2.GetMatchResultRequest(match_id=match_id), timeout=5)
            return reply.result
        except Exception:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_start_backend_runs_scoring_when_asked(tmp_path: Path, nats_url: str) -> None:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE}, scoring=True)
    durable = b.services["scoring"].extra["consumer"].durable
    try:
        ch = channel(b.address("scoring"))
        stub = scoring_pb2_grpc.ScoringServiceStub(ch)
        reply = await stub.GetRatings(scoring_pb2.GetRatingsRequest(game="toy", players=["x"]), timeout=5)
        assert reply.ratings[0].player == "x"
        await ch.close()
    finally:
        await b.stop(1)
        await delete_consumers(nats_url, {durable})
