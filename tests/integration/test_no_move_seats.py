"""A match a seat never moved in is not rated, over real gRPC, a real rules service (its
clocks), real NATS JetStream and the scoring service (PostgreSQL when DATABASE_URL is set).

The rules host names the seats that never made a move of their own in MatchEnded
(``no_move_seats``, services/rules/noshow.py); the signed result carries it to scoring,
which records the result with the reason and rates nobody; verify recomputes the field from
the export. A match both seats moved in is rated as before. Engine: Counter Duel
(tests/support/duel.py); matches are created with a service token, as matchmaking's are, and
without a dev seed (scoring rates no dev-seeded match), so only the no-move rule keeps them
from being rated."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.platform import bus
from services.platform.signing import public_key_hex
from services.rules.verify import verify_export
from tests.integration.test_scoring import Scoring, delete_consumers, scoring_settings
from tests.integration.test_scoring_backend import _result
from tests.support import duel

pytestmark = pytest.mark.timeout(180)
REASON = "made no move: a forfeit, or a game a player made no move in, is not rated"


def forfeit_clock(ms: int, policy: int = rules_pb2.TIMEOUT_POLICY_FORFEIT) -> rules_pb2.ClockConfig:
    """Each decision gets ``ms``; the first timeout forfeits the seat (or hands it to a bot)."""
    return rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=ms,
                                 max_timeouts=1, policy=policy)


async def create(b: Backend, client: RulesClient, match_id: str, players: list[str],
                 clock: rules_pb2.ClockConfig | None = None) -> dict[int, str]:
    service = b.issuer.issue("service", "*", player="neon-cli", ttl=600)
    created = await client.create(service, match_id=match_id, mode="duel", seats=2,
                                  players=players,
                                  **({"clock": clock} if clock is not None else {}))
    return {t.seat: t.token for t in created.seat_tokens}


async def owing(client: RulesClient, match_id: str) -> int | None:
    """The seat the match waits for (None once it has ended)."""
    view = await client.view(match_id)
    if view.status == rules_pb2.MATCH_STATUS_ENDED or not view.pending:
        return None
    return int(view.pending[0].seat)


async def until(client: RulesClient, match_id: str, seat: int | None, timeout: float = 30) -> None:
    """Wait until ``match_id`` waits for ``seat`` (None: until it has ended)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while await owing(client, match_id) != seat:
        assert loop.time() < deadline, f"{match_id} never came to {seat}"
        await asyncio.sleep(0.05)


async def ended_record(b: Backend, client: RulesClient, match_id: str) -> dict[str, Any]:
    """The match's MatchEnded, from its export, which verifies."""
    data = (await client.export(b.organiser_token(), match_id)).export_jsonl
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    records = [json.loads(line) for line in data.splitlines()[:-1]]
    return next(r for r in records if r["type"] == "MatchEnded")


@contextlib.asynccontextmanager
async def duel_scoring(b: Backend, tmp_path: Path, nats_url: str,
                       request: pytest.FixtureRequest) -> AsyncIterator[Scoring]:
    """A scoring service reading the duel results of ``b`` from now on (trusting its rules
    key); stopped, and its consumers deleted, at the end."""
    settings = scoring_settings(tmp_path / "scoring", nats_url, request)
    scoring = await Scoring(
        settings, "duel", deliver_new=True, filter_subject=f"{bus.subject_prefix()}.results.duel.>",
        trusted_keys=(public_key_hex(b.keys.signing_key),)).start()
    try:
        yield scoring
    finally:
        await scoring.stop()
        await delete_consumers(nats_url, scoring.durables)


async def test_a_seat_that_never_moved_is_named_and_its_match_recorded_unrated(
        duel_backend: Backend, tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> None:
    """Three matches: the seat to move first never acts and its clock forfeits it; the same
    under the bot policy (a bot plays the absent seat, the other seat resigns and the bot's
    seat wins); and one both seats moved in. Only the last is rated."""
    async with duel_scoring(duel_backend, tmp_path, nats_url, request) as scoring:
        client = RulesClient(duel_backend.address("rules-duel"))
        tag = uuid.uuid4().hex[:6]
        players = [f"ann-{tag}", f"bob-{tag}"]
        forfeited, botted, played = (f"{n}-{tag}" for n in ("forfeited", "botted", "played"))
        try:
            await create(duel_backend, client, forfeited, players, forfeit_clock(800))
            absent = await owing(client, forfeited)
            assert absent is not None
            await until(client, forfeited, None)
            end = await ended_record(duel_backend, client, forfeited)
            assert end["no_move_seats"] == [absent]
            assert end["outcome"]["placements"][absent] == 2

            tokens = await create(duel_backend, client, botted, players,
                                  forfeit_clock(800, rules_pb2.TIMEOUT_POLICY_BOT))
            absent_too = await owing(client, botted)
            assert absent_too is not None
            present = 1 - absent_too
            await until(client, botted, present)  # the absent seat's turn timed out
            await client.submit(tokens[present], botted, "gg", {"type": "resign"})
            end = await ended_record(duel_backend, client, botted)
            assert end["no_move_seats"] == [absent_too]
            assert end["outcome"]["placements"][absent_too] == 1  # the bot's seat won

            tokens = await create(duel_backend, client, played, players)
            first = await owing(client, played)
            assert first is not None
            await client.submit(tokens[first], played, "s", duel.STRIKE)
            await client.submit(tokens[1 - first], played, "p", duel.PASS)
            await client.submit(tokens[first], played, "r", {"type": "resign"})
            assert (await ended_record(duel_backend, client, played))["no_move_seats"] == []

            for match_id, seat in ((forfeited, absent), (botted, absent_too)):
                result = await _result(scoring, match_id)
                assert not result.rated and not result.after
                assert result.unrated_reason == f"seat {seat} ({players[seat]}) {REASON}"
            rated = await _result(scoring, played)
            assert rated.rated and rated.unrated_reason == "" and len(rated.after) == 2
            history = await scoring.stub.GetPlayerHistory(
                scoring_pb2.GetPlayerHistoryRequest(game="duel", player=players[0]), timeout=5)
            assert {r.match_id for r in history.results} == {forfeited, botted, played}
            ann = scoring.app.standing("duel", "", players[0])
            assert (ann.matches, ann.rated_matches) == (1, 1)  # the no-shows count nowhere
            replayed = scoring.app.replay_ratings("duel")
            assert (replayed[players[0]].mu, replayed[players[0]].sigma) == (ann.mu, ann.sigma)
        finally:
            await client.close()


async def test_a_move_made_before_the_match_left_memory_still_counts(duel_backend: Backend) -> None:
    """The seat to move first makes one move of its own (a standing exchange, which leaves
    its turn owed), then the match leaves the service's memory (as at a restart or an
    eviction); its clock then forfeits the seat from the match rebuilt from the store. The
    seat moved: the tally, rebuilt from the records, names no one (a tally kept only from
    the records since the rebuild would name it)."""
    host = duel_backend.services["rules-duel"].extra["host"]
    client = RulesClient(duel_backend.address("rules-duel"))
    match_id = f"rebuilt-{uuid.uuid4().hex[:6]}"
    try:
        tokens = await create(duel_backend, client, match_id, ["cat", "dan"], forfeit_clock(1500))
        seat = await owing(client, match_id)
        assert seat is not None
        await client.submit(tokens[seat], match_id, "x", duel.EXCHANGE)
        before = host.live.get(match_id)
        assert before is not None and before.moves.moved == {seat}
        host.live.drop(match_id)
        await until(client, match_id, None)
        assert host.live.get(match_id) is not before  # rebuilt from the store
        end = await ended_record(duel_backend, client, match_id)
        assert end["no_move_seats"] == []
        assert end["outcome"]["placements"][seat] == 2  # forfeited all the same
    finally:
        await client.close()


async def test_a_seat_whose_only_action_was_to_resign_moved_and_its_match_is_rated(
        duel_backend: Backend, tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> None:
    """The ruling (services/scoring/__init__.py, "A seat that made no move"): a resignation
    the seat sent itself is a move, even its only one. The seat to move first resigns at
    once, under a forfeit clock that never got to act: MatchEnded names no no-move seat,
    verify agrees, and scoring rates the match, the resigning seat the loser. (Were it a
    no-move seat, a player could resign any pairing they disliked before moving and keep
    their rating, taking their opponent's win away with it.)"""
    async with duel_scoring(duel_backend, tmp_path, nats_url, request) as scoring:
        client = RulesClient(duel_backend.address("rules-duel"))
        tag = uuid.uuid4().hex[:6]
        players = [f"eve-{tag}", f"fay-{tag}"]
        match_id = f"resigned-{tag}"
        try:
            tokens = await create(duel_backend, client, match_id, players, forfeit_clock(60_000))
            first = await owing(client, match_id)
            assert first is not None
            await client.submit(tokens[first], match_id, "gg", {"type": "resign"})
            end = await ended_record(duel_backend, client, match_id)
            assert end["no_move_seats"] == []
            assert end["outcome"]["placements"][first] == 2
            result = await _result(scoring, match_id)
            assert result.rated and result.unrated_reason == "" and len(result.after) == 2
            resigner = scoring.app.standing("duel", "", players[first])
            winner = scoring.app.standing("duel", "", players[1 - first])
            assert (resigner.losses, resigner.rated_matches) == (1, 1)
            assert (winner.wins, winner.rated_matches) == (1, 1)
            assert winner.mu > 25 > resigner.mu
        finally:
            await client.close()
