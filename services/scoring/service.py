"""ScoringService (neon.scoring.v1): decodes requests, asks ScoringApplication, encodes replies.

Every query is public: ratings, leaderboards and results are public information (the
MatchEnded events they come from are public too), and matchmaking reads ratings on every
cycle. No query takes a token; one that is sent must still be valid (the kernel
interceptor answers a bad one UNAUTHENTICATED).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc

from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.errors import InvalidArgument
from services.scoring.app import ScoringApplication
from services.scoring.board import LEADERBOARD_ROWS
from services.scoring.domain import Standing
from services.scoring.results import MAX_PLAYER_ID
from services.scoring.skill import Skill

SERVICE_NAME = scoring_pb2.DESCRIPTOR.services_by_name["ScoringService"].full_name
MAX_PLAYERS = 1000
LEADERBOARD = (100, LEADERBOARD_ROWS)
HISTORY = (50, 500)


def _limit(value: int, limits: tuple[int, int]) -> int:
    default, most = limits
    if value < 0 or value > most:
        raise InvalidArgument(f"limit must be 0..{most} (0 means {default}), not {value}")
    return value or default


def _mode(value: str) -> str:
    if len(value) > 64:
        raise InvalidArgument("mode is at most 64 characters")
    return value


def _player(value: str) -> str:
    if not value or len(value) > MAX_PLAYER_ID:
        raise InvalidArgument(f"player must be 1-{MAX_PLAYER_ID} characters")
    return value


def rating_message(s: Standing) -> scoring_pb2.Rating:
    return scoring_pb2.Rating(
        player=s.player, game=s.game, mode=s.mode, mu=s.mu, sigma=s.sigma,
        ordinal=s.skill.ordinal, matches=s.matches, wins=s.wins, draws=s.draws,
        losses=s.losses, rated_matches=s.rated_matches, best_score=s.best_score or 0,
    )


def _skill_message(player: str, game: str, mode: str, value: list[float]) -> scoring_pb2.Rating:
    skill = Skill.from_json(value)
    return scoring_pb2.Rating(player=player, game=game, mode=mode, mu=skill.mu,
                              sigma=skill.sigma, ordinal=skill.ordinal)


def result_message(data: dict[str, Any]) -> scoring_pb2.MatchResult:
    game_ratings = [r for r in data["ratings"] if r["mode"] == ""]
    return scoring_pb2.MatchResult(
        match_id=data["match_id"], game=data["game"], mode=data["mode"],
        players=data["players"], placements=data["placements"], scores=data["scores"],
        draw=data["draw"], reason=data["reason"],
        breakdown_json=json.dumps(data["breakdown"], sort_keys=True, separators=(",", ":")),
        before=[_skill_message(r["player"], data["game"], "", r["before"]) for r in game_ratings],
        after=[_skill_message(r["player"], data["game"], "", r["after"]) for r in game_ratings],
        sequence=data["sequence"], teams=[scoring_pb2.Team(seats=t) for t in data["teams"]],
        bots=data["bots"], rated=data["rated"], unrated_reason=data["unrated_reason"],
        created_by=_creator_message(data.get("created_by")),
    )


def _creator_message(created_by: dict[str, Any] | None) -> scoring_pb2.MatchCreator | None:
    """Unset for results stored before matches recorded their creator; ``via`` and ``names``
    empty for results stored before scoring kept them (and for matches not made on
    organisers' behalf)."""
    if created_by is None:
        return None
    return scoring_pb2.MatchCreator(role=created_by["role"], name=created_by["name"],
                                    via=str(created_by.get("via", "")),
                                    names=list(created_by.get("names", [])))


class ScoringServicer(scoring_pb2_grpc.ScoringServiceServicer):
    def __init__(self, app: ScoringApplication) -> None:
        self.app = app

    async def GetRatings(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if len(request.players) > MAX_PLAYERS:
            raise InvalidArgument(f"at most {MAX_PLAYERS} players per call")
        players = [_player(p) for p in request.players]
        mode = _mode(request.mode)

        def standings() -> list[Standing]:  # the board's lock may wait on the store
            self.app.check_game(request.game)
            return [self.app.standing(request.game, mode, p) for p in players]

        found = await asyncio.to_thread(standings)
        return scoring_pb2.GetRatingsResponse(ratings=[rating_message(s) for s in found])

    async def GetLeaderboard(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        limit = _limit(request.limit, LEADERBOARD)
        by_score = {
            scoring_pb2.RANKED_BY_UNSPECIFIED: None, scoring_pb2.RANKED_BY_ORDINAL: False,
            scoring_pb2.RANKED_BY_BEST_SCORE: True,
        }.get(request.ranked_by, "bad")
        if by_score == "bad":
            raise InvalidArgument(f"unknown ranked_by {request.ranked_by}")
        if request.offset < 0:
            raise InvalidArgument("offset must not be negative")
        first = request.offset
        rows, total, scored = await asyncio.to_thread(
            self.app.leaderboard_page, request.game, _mode(request.mode), by_score, first, limit
        )
        return scoring_pb2.GetLeaderboardResponse(
            entries=[scoring_pb2.LeaderboardEntry(rank=i, rating=rating_message(r))
                     for i, r in enumerate(rows, start=first + 1)],
            ranked_by=scoring_pb2.RANKED_BY_BEST_SCORE if scored else scoring_pb2.RANKED_BY_ORDINAL,
            total=total,
        )

    async def GetPlayerHistory(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        limit = _limit(request.limit, HISTORY)
        if request.before_sequence < 0:
            raise InvalidArgument("before_sequence must not be negative")
        found = await asyncio.to_thread(
            self.app.history, request.game, _player(request.player), request.before_sequence
        )
        return scoring_pb2.GetPlayerHistoryResponse(results=[result_message(r) for r in found[:limit]])

    async def GetMatchResult(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        data = await asyncio.to_thread(self.app.result, request.match_id, request.game)
        return scoring_pb2.GetMatchResultResponse(result=result_message(data))


def register(server: grpc.aio.Server, app: ScoringApplication) -> None:
    scoring_pb2_grpc.add_ScoringServiceServicer_to_server(ScoringServicer(app), server)
