"""Over real gRPC, real NATS JetStream and real PostgreSQL (dice, the Hidden Race toy's rules
service and scoring, each on its own store): a match created with a dev seed and a service
token (``neon play --seed 42`` against a running deployment) ends with ``"dev_seed": true``
in its MatchEnded, and scoring records its signed result unrated, counted in no standing,
with the reason; the same players' match without a dev seed, created the same way, is rated
and its MatchEnded holds no such field. The pure parts: tests/unit/test_dev_seed_unrated.py."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.cli.backend import Backend, start_backend
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.grpc_kit import channel
from services.platform.signing import public_key_hex
from services.rules.export import parse_export
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import delete_consumers
from tests.support import toy
from tests.support.client import RulesClient

pytestmark = [pytest.mark.timeout(120), pytest.mark.postgres]


@pytest.fixture
async def scored_backend(tmp_path: Path, nats_url: str, postgres_url: str,
                         postgres_schema: str) -> AsyncIterator[Backend]:
    """Dice, the toy's rules service and scoring, stored in PostgreSQL."""
    settings = make_settings(tmp_path, nats_url, "postgres", database_url=postgres_url,
                             postgres_schema=postgres_schema)
    b = await start_backend(settings, games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE}, scoring=True)
    durable = b.services["scoring"].extra["consumer"].durable
    try:
        yield b
    finally:
        await b.stop(1)
        await delete_consumers(nats_url, {durable})


async def _result(stub: scoring_pb2_grpc.ScoringServiceStub, match_id: str) -> scoring_pb2.MatchResult:
    for _ in range(150):
        try:
            reply = await stub.GetMatchResult(
                scoring_pb2.GetMatchResultRequest(game="toy", match_id=match_id), timeout=5)
            return reply.result
        except Exception:  # NOT_FOUND until scored
            await asyncio.sleep(0.1)
    raise AssertionError(f"match {match_id} was not scored")


async def test_a_dev_seeded_match_is_recorded_unrated_and_the_same_players_match_is_rated(
        scored_backend: Backend) -> None:
    client = RulesClient(scored_backend.address("rules-toy"))
    ch = channel(scored_backend.address("scoring"))
    stub = scoring_pb2_grpc.ScoringServiceStub(ch)
    service = scored_backend.issuer.issue("service", "*", player="neon-cli", ttl=600)
    tag = uuid.uuid4().hex[:6]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    try:
        played = {}
        for name, dev_seed in (("dev", "42"), ("plain", "")):
            match_id = f"{name}-{tag}"
            created = await client.create(service, match_id=match_id, mode="race", seats=2,
                                          players=[ann, bob], dev_seed=dev_seed)
            await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
            played[name] = match_id

        # the match log: MatchEnded says it of the dev-seeded match only
        for name, match_id in played.items():
            data = (await client.export(service, match_id)).export_jsonl
            records, _ = parse_export(data)
            ended = records[-2]
            assert ended["type"] == "MatchEnded"
            if name == "dev":
                assert records[0]["dice"]["dev"] is True and ended["dev_seed"] is True
            else:
                assert records[0]["dice"]["dev"] is False and "dev_seed" not in ended
            report = verify_export(data, public_key_hex(scored_backend.keys.signing_key), toy.ENGINE)
            assert report.ok, report.failure
            assert report.dev_seed is (name == "dev")

        dev = await _result(stub, played["dev"])
        assert (dev.created_by.role, dev.created_by.name) == ("service", "neon-cli")
        assert not dev.rated and not dev.after
        assert "drawn from a dev seed" in dev.unrated_reason
        plain = await _result(stub, played["plain"])
        assert plain.rated and plain.unrated_reason == "" and len(plain.after) == 2

        ratings = {r.player: r for r in (await stub.GetRatings(scoring_pb2.GetRatingsRequest(
            game="toy", players=[ann, bob]), timeout=5)).ratings}
        for player in (ann, bob):  # only the match without a dev seed counts
            assert ratings[player].rated_matches == ratings[player].matches == 1
        history = await stub.GetPlayerHistory(
            scoring_pb2.GetPlayerHistoryRequest(game="toy", player=ann), timeout=5)
        assert {r.match_id for r in history.results} == set(played.values())
    finally:
        await client.close()
        await ch.close()
