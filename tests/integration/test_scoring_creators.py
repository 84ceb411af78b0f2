"""Over real gRPC, a real rules service and real NATS JetStream: scoring rates a match by who
created it. An organiser holds every seat token of a match it creates (it could play "victim
against me"), so by default the result of such a match is recorded, with the reason in words,
but not rated; a match created with a service token (matchmaking, a tournament, the server's
own ``neon`` tools) is rated; NEON_SCORING_RATE_ORGANISER_MATCHES=1 rates both, as before."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.platform import bus
from services.platform.signing import public_key_hex
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import Scoring, delete_consumers, scoring_settings
from tests.integration.test_scoring_backend import _result

pytestmark = pytest.mark.timeout(120)


async def _played(client: RulesClient, creator: str, players: list[str]) -> str:
    match_id = f"cr-{uuid.uuid4().hex[:8]}"
    created = await client.create(creator, match_id=match_id, mode="race", seats=2, players=players)
    await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
    return match_id


@pytest.mark.parametrize("rate_organiser_matches", [False, True], ids=["default", "setting-on"])
async def test_an_organisers_match_is_rated_only_with_the_setting(
        toy_backend: Backend, tmp_path: Path, nats_url: str, request: pytest.FixtureRequest,
        rate_organiser_matches: bool) -> None:
    settings = scoring_settings(tmp_path / "scoring", nats_url, request)
    scoring = await Scoring(
        settings, "toy", deliver_new=True, filter_subject=f"{bus.subject_prefix()}.results.toy.>",
        trusted_keys=(public_key_hex(toy_backend.keys.signing_key),),
        rate_organiser_matches=rate_organiser_matches).start()
    client = RulesClient(toy_backend.address("rules-toy"))
    tag = uuid.uuid4().hex[:6]
    victim, mallory, ann, bob = (f"{n}-{tag}" for n in ("victim", "mallory", "ann", "bob"))
    organiser = toy_backend.issuer.issue("organiser", "*", player="mallory", ttl=600)
    service = toy_backend.issuer.issue("service", "*", player="neon-cli", ttl=600)
    try:
        by_organiser = await _played(client, organiser, [victim, mallory])
        by_service = await _played(client, service, [ann, bob])

        theirs = await _result(scoring, by_organiser)
        assert theirs.HasField("created_by")
        assert (theirs.created_by.role, theirs.created_by.name) == ("organiser", "mallory")
        ours = await _result(scoring, by_service)
        assert (ours.created_by.role, ours.created_by.name) == ("service", "neon-cli")
        assert ours.rated and ours.unrated_reason == "" and len(ours.after) == 2

        ratings = {r.player: r for r in (await scoring.stub.GetRatings(scoring_pb2.GetRatingsRequest(
            game="toy", players=[victim, mallory, ann, bob, f"never-{tag}"]), timeout=5)).ratings}
        assert ratings[ann].rated_matches == ratings[bob].rated_matches == 1
        history = await scoring.stub.GetPlayerHistory(
            scoring_pb2.GetPlayerHistoryRequest(game="toy", player=victim), timeout=5)
        assert [r.match_id for r in history.results] == [by_organiser]
        assert history.results[0].created_by.name == "mallory"
        if rate_organiser_matches:
            assert theirs.rated and theirs.unrated_reason == "" and len(theirs.after) == 2
            assert ratings[victim].rated_matches == ratings[mallory].rated_matches == 1
        else:
            assert not theirs.rated and not theirs.after
            assert theirs.unrated_reason == (
                "created by an organiser (mallory): only matches made by matchmaking, a "
                "tournament or the server's own tools are rated; "
                "NEON_SCORING_RATE_ORGANISER_MATCHES=1 rates them")
            fresh = ratings[f"never-{tag}"]
            for player in (victim, mallory):  # as if never played: no rating, no win or loss
                got = ratings[player]
                assert (got.mu, got.sigma, got.matches, got.wins, got.losses) == \
                    (fresh.mu, fresh.sigma, 0, 0, 0)
            board = await scoring.stub.GetLeaderboard(scoring_pb2.GetLeaderboardRequest(
                game="toy", limit=1000, ranked_by=scoring_pb2.RANKED_BY_BEST_SCORE), timeout=5)
            assert not {victim, mallory} & {e.rating.player for e in board.entries}
        # the audit recomputes exactly what was rated, whatever the setting is now
        replayed = scoring.app.replay_ratings("toy")
        for player in (victim, mallory, ann, bob):
            got = ratings[player]
            if got.rated_matches:
                assert (replayed[player].mu, replayed[player].sigma) == (got.mu, got.sigma)
            else:
                assert player not in replayed
    finally:
        await client.close()
        await scoring.stop()
        await delete_consumers(nats_url, scoring.durables)

