"""The scoring service over real NATS JetStream and real gRPC (PostgreSQL when DATABASE_URL is set,
SQLite otherwise): results in, ratings, leaderboards and histories out; once each; crash-safe."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats import errors as nats_errors
from nats.js import JetStreamContext
from openskill.models import PlackettLuce

from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform import bus
from services.platform.keys import load_keys
from services.platform.running import RunningService
from services.platform.settings import Settings
from services.platform.signing import public_key_hex
from services.rules.results import sign_result
from services.scoring import main as scoring_main
from services.scoring.consumer import ConsumerOptions
from tests.integration.conftest import make_settings
from tests.support.logcapture import captured_logs

OS = PlackettLuce()
RULES_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
"""The rules services' signing key in these tests; every Scoring here trusts only it."""
RULES_PUBLIC = public_key_hex(RULES_KEY)


class Crash(Exception):
    """Raised by a test hook between saving a result and acking it: the consumer dies there."""


@pytest.fixture
def settings(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> Settings:
    return scoring_settings(tmp_path, nats_url, request)


def scoring_settings(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> Settings:
    """PostgreSQL (a fresh schema) when DATABASE_URL is set, else SQLite under tmp_path."""
    if os.environ.get("DATABASE_URL"):
        schema = request.getfixturevalue("postgres_schema")
        return make_settings(tmp_path, nats_url, "postgres",
                             database_url=os.environ["DATABASE_URL"], postgres_schema=schema)
    return make_settings(tmp_path, nats_url)


class Scoring:
    """One scoring service with its own NATS connection, so that it can be killed alone."""

    def __init__(self, settings: Settings, game: str, **options: Any) -> None:
        self.settings, self.game, self.options = settings, game, options
        self.running: RunningService | None = None
        self.nc: Any = None
        self.channel: Any = None
        self.stub: Any = None
        self.durables: set[str] = set()
        self.dead_apps: list[Any] = []

    async def start(self, on_scored: Any = None) -> Scoring:
        self.nc = await bus.connect(self.settings.nats_url, "scoring-test")
        options = ConsumerOptions(**{
            "filter_subject": f"{bus.subject_prefix()}.rules.{self.game}.>", "inactive_threshold": 300,
            "trusted_keys": (RULES_PUBLIC,), **self.options})
        self.running = await scoring_main.start(self.settings, load_keys(self.settings), self.nc,
                                                consumer=options, on_scored=on_scored)
        self.durables.add(self.consumer.durable)
        self.channel = grpc.aio.insecure_channel(self.running.address)
        self.stub = scoring_pb2_grpc.ScoringServiceStub(self.channel)
        return self

    @property
    def consumer(self) -> Any:
        assert self.running is not None
        return self.running.extra["consumer"]

    @property
    def app(self) -> Any:
        assert self.running is not None
        return self.running.extra["app"]

    async def kill(self) -> None:
        """Die abruptly: no graceful stop, no drain, unacked messages stay unacked."""
        task = self.consumer.task
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.wait_for(self.nc.close(), 5)
        assert self.running is not None
        await self.running.handle.server.stop(0)
        # A dead process closes nothing; its store is closed at teardown, once its last
        # worker thread (a save the cancelled task left running) is surely done.
        self.dead_apps.append(self.app)
        await self.channel.close()
        self.running = None

    async def stop(self) -> None:
        if self.running is not None:
            await self.channel.close()
            await self.running.stop(1)
            await self.nc.drain()
            self.running = None
        await asyncio.sleep(0.2 if self.dead_apps else 0)
        for app in self.dead_apps:
            app.close()
        self.dead_apps.clear()

    async def wait_for(self, count: int, timeout: float = 30) -> None:
        """Until ``count`` results of the game are recorded."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            self.app.board.catch_up()
            if sum(1 for r in self.app.board.results.values() if r["game"] == self.game) >= count:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"only {len(self.app.board.results)} results after {timeout}s")

    async def ratings(self, players: list[str], mode: str = "") -> dict[str, tuple[float, float]]:
        reply = await self.stub.GetRatings(
            scoring_pb2.GetRatingsRequest(game=self.game, players=players, mode=mode), timeout=5)
        return {r.player: (r.mu, r.sigma) for r in reply.ratings}


async def delete_consumers(nats_url: str, durables: set[str]) -> None:
    nc = await bus.connect(nats_url, "scoring-test-cleanup")
    js = nc.jetstream()
    for durable in durables:
        try:
            await js.delete_consumer(bus.stream_name(), durable)
        except Exception:  # already gone
            pass
    await nc.close()


@pytest.fixture
async def scorings(settings: Settings, nats_url: str) -> AsyncIterator[list[Scoring]]:
    # the tests publish before a scoring service (which makes the stream) starts: the stream
    # is made here, not left to whichever test ran before on this worker (one deletes it)
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


def new_game() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def ended(game: str, match_id: str, players: list[str], placements: list[int], *,
          draw: bool = False, teams: list[list[int]] | None = None, mode: str = "duel",
          scores: list[int] | None = None) -> dict[str, Any]:
    """A public MatchEnded payload exactly as the rules host's relay publishes it."""
    return {
        "game": game, "type": "MatchEnded", "match_id": match_id, "n": 12, "hash": "0" * 64,
        "players": players, "mode": mode,
        "outcome": {"placements": placements, "scores": scores or [10 * (5 - p) for p in placements],
                    "reason": "draw" if draw else "last one standing", "draw": draw,
                    "breakdown": {"kills": list(range(len(players)))}, "teams": teams or []},
    }


async def publish(js: Any, payload: dict[str, Any], msg_id: str | None = None,
                  key: Ed25519PrivateKey | None = RULES_KEY) -> None:
    """On the match's subject; a MatchEnded signed as the rules host signs it (unless key=None)."""
    game = payload["game"]
    subject = f"{bus.subject_prefix()}.rules.{game}.{payload['match_id']}"
    if payload.get("type") == "MatchEnded" and key is not None:
        payload = sign_result(payload, key)
    await js.publish(subject, json.dumps(payload).encode(), stream=bus.stream_name(),
                     headers={"Nats-Msg-Id": msg_id or f"rules-{game}:s:{uuid.uuid4().hex}"})


async def publish_noise(js: Any, game: str, match_id: str) -> None:
    """Other match events share the subjects; scoring skips them."""
    for kind in ("MatchCreated", "MatchStarted", "ActionAccepted"):
        await publish(js, {"game": game, "type": kind, "match_id": match_id, "n": 1, "hash": "x"})


async def test_results_become_ratings_leaderboards_and_histories(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    results = [
        ended(game, "duel-1", ["ann", "bob"], [1, 2]),
        ended(game, "ffa-1", ["ann", "bob", "cid", "dee"], [4, 2, 1, 3], mode="royale"),
        ended(game, "team-1", ["ann", "bob", "cid", "dee"], [1, 2, 1, 2], teams=[[0, 2], [1, 3]],
              mode="coalition"),
        ended(game, "draw-1", ["bob", "cid"], [1, 1], draw=True),
        ended(game, "bots-1", ["ann", "bot-random-1", "dee"], [3, 1, 2], mode="royale"),
        ended(game, "solo-1", ["eve"], [1], mode="solo", scores=[77]),
    ]
    for payload in results:
        await publish_noise(js, game, payload["match_id"])
        await publish(js, payload)
    await scoring.wait_for(len(results))

    expected: dict[str, Any] = {}
    for teams, ranks in [
        ([["ann"], ["bob"]], [1, 2]),
        ([["ann"], ["bob"], ["cid"], ["dee"]], [4, 2, 1, 3]),
        ([["ann", "cid"], ["bob", "dee"]], [1, 2]),
        ([["bob"], ["cid"]], [1, 1]),
        ([["ann"], ["dee"]], [3, 2]),
    ]:
        rated = OS.rate([[expected.get(p) or OS.rating(name=p) for p in t] for t in teams], ranks=ranks)
        expected.update({r.name: r for t in rated for r in t})
    got = await scoring.ratings(["ann", "bob", "cid", "dee", "eve", "nobody"])
    for player, rating in expected.items():
        assert got[player] == (rating.mu, rating.sigma)
    assert got["eve"] == got["nobody"] == (OS.mu, OS.sigma)
    replayed = scoring.app.replay_ratings(game)
    assert {p: (s.mu, s.sigma) for p, s in replayed.items()} == {p: got[p] for p in replayed}

    board = await scoring.stub.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(game=game), timeout=5)
    assert board.ranked_by == scoring_pb2.RANKED_BY_ORDINAL
    ordinals = [e.rating.ordinal for e in board.entries]
    assert ordinals == sorted(ordinals, reverse=True) and [e.rank for e in board.entries] == [1, 2, 3, 4]
    assert {e.rating.player for e in board.entries} == {"ann", "bob", "cid", "dee"}  # no bot, no solo
    assert board.total == 4
    pages = [await scoring.stub.GetLeaderboard(
        scoring_pb2.GetLeaderboardRequest(game=game, limit=3, offset=offset), timeout=5)
        for offset in (0, 3, 4, 99)]  # paged: the same entries, ranks going on
    assert [[(e.rank, e.rating.player) for e in p.entries] for p in pages] == [
        [(e.rank, e.rating.player) for e in board.entries[:3]],
        [(4, board.entries[3].rating.player)], [], []]
    assert [p.total for p in pages] == [4, 4, 4, 4]
    royale = await scoring.stub.GetLeaderboard(
        scoring_pb2.GetLeaderboardRequest(game=game, mode="royale", limit=2), timeout=5)
    assert len(royale.entries) == 2 and all(e.rating.mode == "royale" for e in royale.entries)
    solo = await scoring.stub.GetLeaderboard(
        scoring_pb2.GetLeaderboardRequest(game=game, mode="solo"), timeout=5)
    assert solo.ranked_by == scoring_pb2.RANKED_BY_BEST_SCORE
    assert [(e.rating.player, e.rating.best_score) for e in solo.entries] == [("eve", 77)]

    history = await scoring.stub.GetPlayerHistory(
        scoring_pb2.GetPlayerHistoryRequest(game=game, player="ann"), timeout=5)
    assert [r.match_id for r in history.results] == ["bots-1", "team-1", "ffa-1", "duel-1"]
    bots = history.results[0]
    assert list(bots.bots) == [False, True, False] and bots.rated
    assert [r.player for r in bots.after] == ["ann", "dee"]
    assert json.loads(bots.breakdown_json) == {"kills": [0, 1, 2]}
    team = history.results[1]
    assert [list(t.seats) for t in team.teams] == [[0, 2], [1, 3]]
    page = await scoring.stub.GetPlayerHistory(scoring_pb2.GetPlayerHistoryRequest(
        game=game, player="ann", limit=1, before_sequence=team.sequence), timeout=5)
    assert [r.match_id for r in page.results] == ["ffa-1"]

    solo_result = (await scoring.stub.GetMatchResult(
        scoring_pb2.GetMatchResultRequest(match_id="solo-1"), timeout=5)).result
    assert not solo_result.rated and solo_result.unrated_reason == "a solo match"
    duel = (await scoring.stub.GetMatchResult(
        scoring_pb2.GetMatchResultRequest(match_id="duel-1"), timeout=5)).result
    assert duel.sequence == 1 and [r.mu for r in duel.before] == [OS.mu, OS.mu]
    assert scoring.consumer.stats.skipped == 3 * len(results)


async def test_the_same_result_twice_changes_nothing(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    first = ended(game, "twice", ["ann", "bob"], [1, 2])
    await publish(js, first, msg_id=f"rules-{game}:s:1")
    await scoring.wait_for(1)
    before = await scoring.ratings(["ann", "bob"])
    await publish(js, first, msg_id=f"rules-{game}:s:1")  # NATS drops this one (same msg id)
    await publish(js, first, msg_id=f"rules-{game}:other-store:7")  # this one reaches scoring
    await publish(js, ended(game, "twice", ["ann", "bob"], [2, 1]))  # even a changed copy
    await publish(js, ended(game, "after", ["cid", "dee"], [1, 2]))
    await scoring.wait_for(2)
    assert scoring.consumer.stats.duplicates == 2
    assert await scoring.ratings(["ann", "bob"]) == before
    again = (await scoring.stub.GetMatchResult(
        scoring_pb2.GetMatchResultRequest(match_id="twice"), timeout=5)).result
    assert again.sequence == 1 and list(again.placements) == [1, 2]
    history = await scoring.stub.GetPlayerHistory(
        scoring_pb2.GetPlayerHistoryRequest(game=game, player="ann"), timeout=5)
    assert len(history.results) == 1
    rating = (await scoring.stub.GetRatings(
        scoring_pb2.GetRatingsRequest(game=game, players=["ann"]), timeout=5)).ratings[0]
    assert (rating.matches, rating.wins, rating.losses) == (1, 1, 0)


def season(game: str, count: int) -> list[dict[str, Any]]:
    """Deterministic mixed results among six players: duels, free-for-alls and team games."""
    players = ["p1", "p2", "p3", "p4", "p5", "p6"]
    out = []
    for i in range(count):
        rot = players[i % 6:] + players[:i % 6]
        if i % 3 == 0:
            out.append(ended(game, f"m{i}", rot[:2], [1, 2] if i % 4 else [1, 1], draw=i % 4 == 0))
        elif i % 3 == 1:
            out.append(ended(game, f"m{i}", rot[:4], [(i + k) % 4 + 1 for k in range(4)], mode="royale"))
        else:
            out.append(ended(game, f"m{i}", rot[:4], [1, 2, 1, 2] if i % 2 else [2, 1, 2, 1],
                             teams=[[0, 2], [1, 3]], mode="coalition"))
    return out


@pytest.mark.serial  # on PostgreSQL, 37 connections (tests/conftest.py)
async def test_killed_mid_stream_ends_with_the_ratings_of_an_unbroken_run(
        scorings: list[Scoring], settings: Settings, tmp_path: Path, nats_client: Any) -> None:
    game = new_game()
    js = nats_client.jetstream()
    results = season(game, 60)
    for payload in results:
        await publish_noise(js, game, payload["match_id"])
        await publish(js, payload)
    players = [f"p{i}" for i in range(1, 7)]

    unbroken = await Scoring(dataclass_replace(settings, tmp_path / "a"), game).start()
    scorings.append(unbroken)
    await unbroken.wait_for(len(results))
    reference = await unbroken.ratings(players)
    reference_royale = await unbroken.ratings(players, "royale")

    crashy_settings = dataclass_replace(settings, tmp_path / "b")
    crash_at = {7, 23, 41}

    async def die_between_save_and_ack(scored: Any) -> None:
        if scored.new and scored.data["sequence"] in crash_at:
            crash_at.discard(scored.data["sequence"])
            raise Crash(scored.data["match_id"])

    # a crashed instance's deliveries come back after ack_wait: short, so that a loaded
    # machine still finishes inside wait_for's window
    crashy = Scoring(crashy_settings, game, batch=16, ack_wait=5.0)
    scorings.append(crashy)
    starts = 0
    while True:
        await crashy.start(on_scored=die_between_save_and_ack)
        starts += 1
        task = crashy.consumer.task
        # until this instance crashes or has scored the whole season, whichever comes first
        scored = asyncio.create_task(crashy.wait_for(len(results), timeout=60))
        await asyncio.wait({task, scored}, return_when=asyncio.FIRST_COMPLETED)
        if task.done() and isinstance(task.exception(), Crash):
            scored.cancel()
            await asyncio.gather(scored, return_exceptions=True)
            await crashy.kill()
            continue
        await scored
        break
    assert starts == 4 and crashy.consumer.stats.recovered >= 1
    assert await crashy.ratings(players) == reference
    assert await crashy.ratings(players, "royale") == reference_royale
    sequences = {k: r["sequence"] for k, r in crashy.app.board.results.items()}
    assert sequences == {k: r["sequence"] for k, r in unbroken.app.board.results.items()}

    # And once more, stopped abruptly at a random moment while results flow in.
    more = season(game, 90)[60:]
    publisher = asyncio.create_task(_publish_slowly(js, more))
    await asyncio.sleep(0.2)
    await crashy.kill()
    await crashy.start()
    await publisher
    await crashy.wait_for(len(results) + len(more))
    await unbroken.wait_for(len(results) + len(more))
    assert await crashy.ratings(players) == await unbroken.ratings(players)


async def _publish_slowly(js: Any, payloads: list[dict[str, Any]]) -> None:
    for payload in payloads:
        await publish(js, payload)
        await asyncio.sleep(0.01)


def dataclass_replace(settings: Settings, var_dir: Path) -> Settings:
    import dataclasses

    schema = settings.postgres_schema
    if settings.persistence == "postgres":
        schema = _new_schema(settings.database_url)
    return dataclasses.replace(settings, var_dir=var_dir, postgres_schema=schema)


_schemas: list[str] = []


def _new_schema(url: str) -> str:
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    _schemas.append(schema)
    return schema


@pytest.fixture(autouse=True)
def _drop_schemas() -> Any:
    yield
    if _schemas and os.environ.get("DATABASE_URL"):
        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            for schema in _schemas:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        _schemas.clear()


async def test_bad_input_is_answered_with_clear_status_codes(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    await publish(js, {"game": game, "type": "MatchEnded", "match_id": "broken", "outcome": "?"})
    await js.publish(f"{bus.subject_prefix()}.rules.{game}.junk", b"not json", stream=bus.stream_name())
    await publish(js, ended(game, "fine", ["ann", "bob"], [1, 2]))
    await scoring.wait_for(1)
    assert scoring.consumer.stats.rejected == 2
    s = scoring.stub
    cases = [
        (s.GetRatings(scoring_pb2.GetRatingsRequest(game="no-such-game", players=["a"])),
         grpc.StatusCode.NOT_FOUND, "unknown game"),
        (s.GetRatings(scoring_pb2.GetRatingsRequest(game="", players=["a"])),
         grpc.StatusCode.INVALID_ARGUMENT, "game"),
        (s.GetRatings(scoring_pb2.GetRatingsRequest(game=game, players=[""])),
         grpc.StatusCode.INVALID_ARGUMENT, "player"),
        (s.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(game="Bad Game!")),
         grpc.StatusCode.INVALID_ARGUMENT, "game"),
        (s.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(game=game, limit=-1)),
         grpc.StatusCode.INVALID_ARGUMENT, "limit"),
        (s.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(game=game, ranked_by=9)),
         grpc.StatusCode.INVALID_ARGUMENT, "ranked_by"),
        (s.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(game=game, offset=-1)),
         grpc.StatusCode.INVALID_ARGUMENT, "offset"),
        (s.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id="never-played")),
         grpc.StatusCode.NOT_FOUND, "no result"),
        (s.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id="broken")),
         grpc.StatusCode.NOT_FOUND, "no result"),
        (s.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id="")),
         grpc.StatusCode.INVALID_ARGUMENT, "match_id"),
        (s.GetPlayerHistory(scoring_pb2.GetPlayerHistoryRequest(game=game)),
         grpc.StatusCode.INVALID_ARGUMENT, "player"),
        (s.GetPlayerHistory(scoring_pb2.GetPlayerHistoryRequest(game="nope", player="ann")),
         grpc.StatusCode.NOT_FOUND, "unknown game"),
        (s.GetRatings(scoring_pb2.GetRatingsRequest(game=game), metadata=(("authorization", "Bearer x"),)),
         grpc.StatusCode.UNAUTHENTICATED, "token"),
    ]
    for call, code, words in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
        assert info.value.code() == code, info.value.details()
        assert words in info.value.details()
    garbage = scoring.channel.unary_unary("/neon.scoring.v1.ScoringService/GetRatings")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await garbage(b"\xff\xff\xff")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # The service is still fine and known games answer even before their first result.
    reply = await s.GetRatings(scoring_pb2.GetRatingsRequest(game="neon-reign", players=["ann"]))
    assert reply.ratings[0].mu == OS.mu


async def _publish_on_results(js: Any, message: dict[str, Any], game: str, match_id: str) -> None:
    await js.publish(f"{bus.subject_prefix()}.results.{game}.{match_id}", json.dumps(message).encode(),
                     stream=bus.stream_name(), headers={"Nats-Msg-Id": f"forger:{uuid.uuid4().hex}"})


async def test_forged_results_are_refused_and_the_real_one_stands(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """Defect 3: results published by hand (unsigned, tampered, signed by another key) are
    acked, logged and never rated; a forgery published before the real result cannot stand."""
    game = new_game()
    scoring = await Scoring(settings, game, filter_subject=f"{bus.subject_prefix()}.results.{game}.>").start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    # A match never played, and a forgery of "real" published before the real result.
    await _publish_on_results(js, ended(game, "never-played", ["mallory", "ann"], [1, 2]),
                              game, "never-played")
    await _publish_on_results(js, ended(game, "real", ["mallory", "ann"], [1, 2]), game, "real")
    tampered = sign_result(ended(game, "real", ["ann", "mallory"], [1, 2]), RULES_KEY)
    tampered["result"]["outcome"]["placements"] = [2, 1]
    await _publish_on_results(js, tampered, game, "real")
    stranger = Ed25519PrivateKey.generate()
    await _publish_on_results(js, sign_result(ended(game, "real", ["mallory", "ann"], [1, 2]), stranger),
                              game, "real")
    not_a_result = sign_result(ended(game, "real", ["mallory", "ann"], [1, 2]), RULES_KEY)
    not_a_result["result"]["type"] = "MatchCreated"
    not_a_result["signature"] = sign_result(ended(game, "x", ["a", "b"], [1, 2]), RULES_KEY)["signature"]
    await _publish_on_results(js, not_a_result, game, "real")
    await _publish_on_results(js, sign_result(ended(game, "real", ["ann", "mallory"], [1, 2]), RULES_KEY),
                              game, "real")
    await scoring.wait_for(1)
    # The board shows the result once it is saved; the consumer counts it a moment later,
    # when the save returns to its loop.
    for _ in range(100):
        if scoring.consumer.stats.scored:
            break
        await asyncio.sleep(0.05)
    assert scoring.consumer.stats.refused == 5 and scoring.consumer.stats.scored == 1
    assert scoring.consumer.stats.duplicates == 0
    real = (await scoring.stub.GetMatchResult(
        scoring_pb2.GetMatchResultRequest(match_id="real", game=game), timeout=5)).result
    assert list(real.players) == ["ann", "mallory"] and list(real.placements) == [1, 2]
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await scoring.stub.GetMatchResult(
            scoring_pb2.GetMatchResultRequest(match_id="never-played"), timeout=5)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    ratings = await scoring.ratings(["ann", "mallory"])
    assert ratings["ann"][0] > OS.mu > ratings["mallory"][0]


async def test_the_same_match_id_in_two_games_is_scored_twice(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """Defect 7: match ids are per game, so a result is keyed by game and match id."""
    first, second = new_game(), new_game()
    scoring = await Scoring(settings, first, filter_subject=f"{bus.subject_prefix()}.results.>",
                            deliver_new=True).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    await _publish_on_results(js, sign_result(ended(first, "m-1", ["ann", "bob"], [1, 2]), RULES_KEY),
                              first, "m-1")
    await _publish_on_results(js, sign_result(ended(second, "m-1", ["ann", "bob"], [2, 1]), RULES_KEY),
                              second, "m-1")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    for game in (first, second):  # each result is found under its own game
        while True:
            try:
                await scoring.stub.GetMatchResult(
                    scoring_pb2.GetMatchResultRequest(match_id="m-1", game=game), timeout=5)
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.NOT_FOUND and loop.time() < deadline, \
                    scoring.consumer.stats
                await asyncio.sleep(0.05)
    assert scoring.consumer.stats.duplicates == 0
    for game, placements in ((first, [1, 2]), (second, [2, 1])):
        got = (await scoring.stub.GetMatchResult(
            scoring_pb2.GetMatchResultRequest(match_id="m-1", game=game), timeout=5)).result
        assert (got.game, list(got.placements)) == (game, placements)
        board = await scoring.stub.GetRatings(
            scoring_pb2.GetRatingsRequest(game=game, players=["ann"]), timeout=5)
        assert board.ratings[0].matches == 1
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await scoring.stub.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id="m-1"), timeout=5)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "name the game" in info.value.details()


async def test_a_deeply_nested_message_is_refused_and_the_consumer_goes_on(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """JSON nested beyond Python's recursion limit (100 kB) raises RecursionError, not
    ValueError: it must be dead-lettered like any other malformed message, not end the
    consumer (and, redelivered, every restart of it)."""
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    subject = f"{bus.subject_prefix()}.rules.{game}"
    await js.publish(f"{subject}.deep", b"[" * 100_000, stream=bus.stream_name())
    await js.publish(f"{subject}.deep2", b'{"type": "SignedResult", "result": ' + b"[" * 100_000 + b"}",
                     stream=bus.stream_name())
    await publish(js, ended(game, "after-the-poison", ["ann", "bob"], [1, 2]))
    await scoring.wait_for(1, timeout=15)
    assert not scoring.consumer.task.done()
    assert scoring.consumer.stats.rejected == 2


async def test_a_nats_error_while_reading_the_stream_does_not_stop_the_consumer(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """The consumer reads skipped ranges straight from the stream (get_msg); a timeout
    there, as in any NATS hiccup, must be retried, not end the consumer for good."""
    game = new_game()
    scoring = await Scoring(settings, game, ack_wait=2.0).start()
    scorings.append(scoring)
    real_get_msg, failures = scoring.consumer.js.get_msg, []

    async def flaky_get_msg(*args: Any, **kwargs: Any) -> Any:
        if not failures:
            failures.append(1)
            raise nats_errors.TimeoutError
        return await real_get_msg(*args, **kwargs)

    scoring.consumer.js.get_msg = flaky_get_msg
    js = nats_client.jetstream()
    await publish(js, ended(game, "first", ["ann", "bob"], [1, 2]))
    await publish(js, ended(game, "second", ["ann", "bob"], [2, 1]))
    await scoring.wait_for(2, timeout=15)
    assert failures and not scoring.consumer.task.done()
    first, second = (scoring.app.board.results[(game, m)]["sequence"] for m in ("first", "second"))
    assert (first, second) == (1, 2)


async def test_get_ratings_waits_for_the_board_off_the_event_loop(
        scorings: list[Scoring], settings: Settings) -> None:
    """The board's lock is held while it reads the store (catch_up), which can take as long
    as a slow or unreachable PostgreSQL does. GetRatings must wait for it in a worker thread,
    as every other query does: waiting on the event loop stops the whole server, health
    checks included."""
    scoring = await Scoring(settings, new_game()).start()
    scorings.append(scoring)
    app, held, release = scoring.app, threading.Event(), threading.Event()
    real_check = app.check_game

    def hold_board() -> None:
        with app.board._lock:  # as a catch_up reading a slow store does
            held.set()
            release.wait(10)

    def check_then_someone_reads_the_store(game: str) -> None:
        real_check(game)
        threading.Thread(target=hold_board, daemon=True).start()
        held.wait(5)

    app.check_game = check_then_someone_reads_the_store
    try:
        ratings = asyncio.ensure_future(scoring.stub.GetRatings(
            scoring_pb2.GetRatingsRequest(game="neon-reign", players=["ann"]), timeout=10))
        await asyncio.to_thread(held.wait, 5)
        health = health_pb2_grpc.HealthStub(scoring.channel)
        reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        release.set()
    assert (await ratings).ratings[0].player == "ann"


def _restore_to(settings: Settings, table: str, notification_id: int) -> None:
    """The scoring store as a backup taken at ``notification_id`` left it (a point-in-time
    restore): every event stored after it is gone. Its store identity was stored before, so
    the restored store keeps its JetStream consumer and that consumer's ack floor."""
    if settings.persistence == "postgres":
        import psycopg

        with psycopg.connect(settings.database_url, autocommit=True) as conn:
            conn.execute(f'DELETE FROM "{settings.database_schema}".{table} '
                         "WHERE notification_id > %s", (notification_id,))
        return
    import sqlite3

    with contextlib.closing(sqlite3.connect(settings.sqlite_path("scoring"))) as conn, conn:
        conn.execute(f"DELETE FROM {table} WHERE rowid > ?", (notification_id,))


async def test_a_store_restored_from_a_backup_scores_again_what_it_lost(
        scorings: list[Scoring], settings: Settings, nats_client: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A store restored from a backup holds fewer results than the JetStream consumer
    acked (its durable name follows the store's identity, which the backup holds). The
    results scored after the backup are still in the stream: a restart reads them again
    from the ledger's position, in order, rather than from the consumer's ack floor, past
    which they were lost for good. That reading is the running consumer's: the service
    serves meanwhile (there can be many messages to read again)."""
    game = new_game()
    js = nats_client.jetstream()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    await publish(js, ended(game, "before", ["ann", "bob"], [1, 2]))
    await scoring.wait_for(1)
    backup = scoring.app.recorder.max_notification_id()
    table = scoring.app.recorder.events_table_name
    for match_id, placements in (("after-1", [2, 1]), ("after-2", [1, 2])):
        await publish_noise(js, game, match_id)
        await publish(js, ended(game, match_id, ["ann", "bob"], placements))
    await scoring.wait_for(3)
    unbroken = await scoring.ratings(["ann", "bob"])
    await scoring.stop()
    scorings.remove(scoring)

    _restore_to(settings, table, backup)
    gate, real_get_msg = asyncio.Event(), JetStreamContext.get_msg

    async def held_get_msg(self: Any, *args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await real_get_msg(self, *args, **kwargs)

    monkeypatch.setattr(JetStreamContext, "get_msg", held_get_msg)
    restored = Scoring(settings, game)
    scorings.append(restored)
    await asyncio.wait_for(restored.start(), 30)  # not held by what it reads again
    restored.durables |= scoring.durables
    assert restored.consumer.durable in scoring.durables  # the same consumer, acked past them
    ann = (await restored.stub.GetRatings(
        scoring_pb2.GetRatingsRequest(game=game, players=["ann"]), timeout=5)).ratings[0]
    assert ann.matches == 1  # serving, the lost results not yet scored again
    gate.set()
    await restored.wait_for(3, timeout=60)
    sequences = {m: restored.app.board.results[(game, m)]["sequence"]
                 for m in ("before", "after-1", "after-2")}
    assert sequences == {"before": 1, "after-1": 2, "after-2": 3}
    assert await restored.ratings(["ann", "bob"]) == unbroken


async def test_another_result_under_a_recorded_match_id_is_told_not_taken(
        scorings: list[Scoring], settings: Settings, nats_client: Any) -> None:
    """A rules store restored from a backup has lost a match whose result scoring recorded;
    a new match created under the same id (a repeated CreateMatch, a tournament's table)
    ends with another result. Scoring keeps the first (a result is per match id) but says
    so as an error, with what differs: before, it logged it as a harmless repeat."""
    game = new_game()
    scoring = await Scoring(settings, game).start()
    scorings.append(scoring)
    js = nats_client.jetstream()
    with captured_logs("info") as lines:
        await publish(js, ended(game, "reused", ["ann", "bob"], [1, 2]))
        await publish(js, ended(game, "reused", ["ann", "bob"], [1, 2]))  # published again
        await publish(js, ended(game, "reused", ["cat", "dan"], [2, 1]))
        await publish(js, ended(game, "after", ["ann", "bob"], [2, 1]))
        await scoring.wait_for(2)
        stats = scoring.consumer.stats
    assert (stats.scored, stats.duplicates, stats.conflicting) == (2, 2, 1)
    told = [json.loads(x) for x in lines.getvalue().splitlines()
            if "another result" in x]
    assert len(told) == 1 and told[0]["level"] == "error"
    assert told[0]["differs"] == ["players", "placements", "scores"]
    recorded = scoring.app.board.results[(game, "reused")]
    assert (recorded["players"], recorded["placements"]) == (["ann", "bob"], [1, 2])
