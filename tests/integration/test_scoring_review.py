"""A hostile review of scoring over real NATS JetStream and real gRPC (PostgreSQL when
DATABASE_URL is set): a signed result the store cannot read back, and a leaderboard
paged past its first 1,000 entries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.scoring.v1 import scoring_pb2
from services.platform import bus
from services.platform.grpc_kit import call_metadata
from services.platform.keys import load_keys
from services.platform.settings import Settings
from services.platform.tokens import TokenIssuer
from tests.integration.test_scoring import (
    Scoring,
    delete_consumers,
    ended,
    new_game,
    publish,
    scoring_settings,
)


@pytest.fixture
def settings(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> Settings:
    return scoring_settings(tmp_path, nats_url, request)


@pytest.fixture
async def scorings(nats_url: str) -> AsyncIterator[list[Scoring]]:
    """As test_scoring's: the stream made first, every service stopped and its consumer
    deleted after."""
    nc = await bus.connect(nats_url, "tests-stream")
    try:
        await bus.ensure_stream(nc.jetstream())
    finally:
        await nc.close()
    made: list[Scoring] = []
    yield made
    for s in made:
        await s.stop()
    await delete_consumers(nats_url, {d for s in made for d in s.durables})


async def test_a_breakdown_the_store_would_read_back_as_another_type_is_refused_and_later_results_score(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """The store encodes a stored event as JSON and reads any object of exactly the keys
    ``_type_`` and ``_data_`` back as a value of a registered type. A signed result whose
    breakdown held one (an engine's own names as keys: a plug-in engine, a breakdown keyed by
    player) was saved, and then could not be read back: the board raised on it, every later
    result was retried for ever behind it (the consumer's save retries until it succeeds) and
    every query failed, at every restart too. It is refused as malformed (logged, never
    retried), and the results after it are scored."""
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    poison = ended(game, "odd-breakdown", ["ann", "bob"], [1, 2])
    poison["outcome"]["breakdown"] = {"per_player": {"_type_": "ann", "_data_": 3}}
    changed = ended(game, "odd-decimal", ["ann", "bob"], [1, 2])
    changed["outcome"]["breakdown"] = {"_type_": "decimal_str", "_data_": "1"}
    await publish(js, poison)
    await publish(js, changed)
    await publish(js, ended(game, "after-it", ["ann", "bob"], [2, 1]))
    await scoring.wait_for(1, timeout=20)
    reply = await scoring.stub.GetMatchResult(
        scoring_pb2.GetMatchResultRequest(match_id="after-it", game=game), timeout=5)
    assert list(reply.result.placements) == [2, 1]
    for match_id in ("odd-breakdown", "odd-decimal"):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await scoring.stub.GetMatchResult(
                scoring_pb2.GetMatchResultRequest(match_id=match_id, game=game), timeout=5)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
    for _ in range(100):
        if scoring.consumer.stats.rejected >= 2:
            break
        await asyncio.sleep(0.05)
    assert scoring.consumer.stats.rejected == 2 and scoring.consumer.stats.errors == 0
    ratings = await scoring.ratings(["ann", "bob"])
    assert ratings["bob"][0] > ratings["ann"][0]


async def test_a_leaderboard_pages_past_its_first_thousand_entries(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """GetLeaderboard's ``offset`` pages past the first 1,000 entries and ``total`` counts
    the whole board (API-CHANGES). The board kept only its first 1,000 rows: an offset of
    1,000 answered nothing and ``total`` said 1,000, so a board of 1,008 players could not be
    read whole, and its last eight seemed not to be on it."""
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    tables = 63  # sixteen seats each: 1,008 players
    for t in range(tables):
        players = [f"p{t:02d}-{s:02d}" for s in range(16)]
        await publish(js, ended(game, f"ffa-{t}", players, list(range(1, 17)), mode="royale",
                                scores=[1000 - 16 * t - s for s in range(16)]))
    await scoring.wait_for(tables, timeout=120)
    for ranked_by in (scoring_pb2.RANKED_BY_ORDINAL, scoring_pb2.RANKED_BY_BEST_SCORE):
        seen: list[tuple[int, str]] = []
        totals = set()
        for offset in (0, 1000, 2000):
            page = await scoring.stub.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(
                game=game, limit=1000, offset=offset, ranked_by=ranked_by), timeout=10)
            seen += [(e.rank, e.rating.player) for e in page.entries]
            totals.add(page.total)
        assert totals == {16 * tables}, (ranked_by, totals)
        assert [rank for rank, _ in seen] == list(range(1, 16 * tables + 1)), ranked_by
        assert len({player for _, player in seen}) == 16 * tables
        if ranked_by == scoring_pb2.RANKED_BY_BEST_SCORE:  # scores fall table by table
            assert seen[-1][1] == f"p{tables - 1:02d}-15"
        top = await scoring.stub.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(
            game=game, limit=5, ranked_by=ranked_by), timeout=10)
        assert [(e.rank, e.rating.player) for e in top.entries] == seen[:5]
    # a change of the board re-orders the whole of it, deep pages too
    players = [f"late-{s:02d}" for s in range(16)]
    await publish(js, ended(game, "ffa-late", players, list(range(1, 17)), mode="royale",
                            scores=[1 + s for s in range(16)]))
    await scoring.wait_for(tables + 1, timeout=30)
    page = await scoring.stub.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(
        game=game, limit=1000, offset=1000, ranked_by=scoring_pb2.RANKED_BY_BEST_SCORE),
        timeout=10)
    assert page.total == 16 * (tables + 1) and len(page.entries) == 24
    # the 24 lowest scores: the last table's 8..-7, and the late table's 1..8
    assert {e.rating.player for e in page.entries} == \
        {f"p{tables - 1:02d}-{s:02d}" for s in range(16)} | {f"late-{s:02d}" for s in range(8)}
    assert page.entries[-1].rating.player == f"p{tables - 1:02d}-15"  # the lowest score


async def test_odd_ids_far_pages_and_tokens_get_clear_answers(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """Player ids of odd characters, pages far past the end, an expired token, another
    deployment's token and a seat token on every scoring query: an answer or a clear status,
    never INTERNAL, and the consumer goes on."""
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    await publish(js, ended(game, "m-1", ["ann", "bob"], [1, 2]))
    await scoring.wait_for(1)
    s = scoring.stub
    odd = ["\u202eevil", "bob\x00", "a" * 128, "💥", "bot-random-1", "../ann", "ann "]
    got = await s.GetRatings(scoring_pb2.GetRatingsRequest(game=game, players=odd), timeout=5)
    assert [r.player for r in got.ratings] == odd and all(r.matches == 0 for r in got.ratings)
    for player in odd:
        history = await s.GetPlayerHistory(scoring_pb2.GetPlayerHistoryRequest(
            player=player, before_sequence=2**63 - 1, limit=500), timeout=5)
        assert list(history.results) == []
    far = await s.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(
        game=game, offset=2**31 - 1, limit=1000), timeout=5)
    assert list(far.entries) == [] and far.total == 2
    for request, code in (
            (scoring_pb2.GetRatingsRequest(game=game, players=["a" * 129]),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetRatingsRequest(game=game, players=["x"] * 1001),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetLeaderboardRequest(game=game, limit=1001),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetPlayerHistoryRequest(player="ann", limit=501),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetPlayerHistoryRequest(player="ann", before_sequence=-1),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetMatchResultRequest(match_id="m-1", game="Bad!"),
             grpc.StatusCode.INVALID_ARGUMENT),
            (scoring_pb2.GetMatchResultRequest(match_id="m 1"), grpc.StatusCode.INVALID_ARGUMENT)):
        method = getattr(s, type(request).__name__.replace("Request", ""))
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await method(request, timeout=5)
        assert info.value.code() == code, (request, info.value.details())
    keys = load_keys(settings)
    expired = TokenIssuer(keys.token_secret).issue("service", "*", ttl=-120)
    foreign = TokenIssuer(b"another deployment's secret!!!!!").issue("service", "*", ttl=600)
    seat = TokenIssuer(keys.token_secret).issue("seat", "m-1", seat=0, player="ann", ttl=600)
    requests = [scoring_pb2.GetRatingsRequest(game=game, players=["ann"]),
                scoring_pb2.GetLeaderboardRequest(game=game),
                scoring_pb2.GetPlayerHistoryRequest(player="ann"),
                scoring_pb2.GetMatchResultRequest(match_id="m-1", game=game)]
    for request in requests:
        method = getattr(s, type(request).__name__.replace("Request", ""))
        for token in (expired, foreign):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await method(request, metadata=call_metadata(token), timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED, info.value.details()
        await method(request, metadata=call_metadata(seat), timeout=5)  # public: any valid token
    await publish(js, ended(game, "m-2", ["ann", "bob"], [2, 1]))
    await scoring.wait_for(2)
