"""The rules services of the games, as matchmaking uses them: game info, match creation,
and the stub the bots of backfilled matches play through."""

from __future__ import annotations

from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2
from services.matchmaking.catalogue import ModeSpec
from services.platform.grpc_kit import call_metadata
from services.platform.logs import get_logger
from services.platform.rules_channels import RulesChannels

log = get_logger("matchmaking")
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED,
             grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


class RulesGateway(RulesChannels):
    """gRPC client of every game's rules service, one channel per address (grpc_kit.channel:
    a restarted rules service is reached again within a second, not after gRPC's default
    reconnect backoff, during which an accepted match's CreateMatch tries were used up)."""

    async def modes(self, game: str) -> list[ModeSpec] | None:
        """The modes the game's rules service reports, None when unreachable."""
        try:
            info = await self.stub(game).GetGameInfo(
                rules_pb2.GetGameInfoRequest(), metadata=call_metadata(), timeout=self.timeout)
        except (LookupError, grpc.aio.AioRpcError) as err:
            log.info("rules service gives no game info", game=game, error=_why(err))
            return None
        return modes_of(info)

    async def create_match(self, game: str, match_id: str, mode: str, players: list[str],
                           teams: list[list[int]],
                           on_behalf_of_organiser: str | None = None,
                           await_client_seeds: bool = False) -> dict[int, str]:
        """Seat tokens by seat. Idempotent on the rules side per match id. ``teams`` lists
        the seats of each team (empty: every seat plays alone); the rules service turns
        seats and teams into whatever options the mode needs. ``on_behalf_of_organiser``:
        the organisers who acted for its players (matchmaker.py, "Organisers"), recorded as
        the match's creators. ``await_client_seeds``: the match waits for its seats' client
        seeds until :meth:`start_match` (matchmaker.py, "Client seeds")."""
        reply = await self.stub(game).CreateMatch(
            rules_pb2.CreateMatchRequest(
                match_id=match_id, mode=mode, seats=len(players), players=players,
                teams=[rules_pb2.TeamSeats(seats=t) for t in teams],
                on_behalf_of_organiser=on_behalf_of_organiser,
                await_client_seeds=await_client_seeds),
            metadata=call_metadata(self.token), timeout=self.timeout,
        )
        return {t.seat: t.token for t in reply.seat_tokens}

    async def abandon_match(self, game: str, match_id: str, reason: str) -> None:
        """End a match matchmaking created (or may have) and will never hand out, with no
        result (AbandonMatch, the service token). A match that was never created is
        NOT_FOUND, raised as any other refusal (Matchmaker._abandon)."""
        await self.stub(game).AbandonMatch(
            rules_pb2.AbandonMatchRequest(match_id=match_id, reason=reason),
            metadata=call_metadata(self.token), timeout=self.timeout)

    async def start_match(self, game: str, match_id: str) -> None:
        """Start a match that waits for client seeds (StartMatch, with the service token);
        one the rules service says has already started is fine (a retry, or a restart
        between starting it and storing that it started). A rules service of 6 December
        2026 or later answers a repeat as the first start (``already_started``); an older one
        refuses it FAILED_PRECONDITION "the match has already started", taken as the same."""
        try:
            await self.stub(game).StartMatch(
                rules_pb2.StartMatchRequest(match_id=match_id),
                metadata=call_metadata(self.token), timeout=self.timeout)
        except grpc.aio.AioRpcError as err:
            if err.code() == grpc.StatusCode.FAILED_PRECONDITION \
                    and "already started" in (err.details() or ""):
                return
            raise


def modes_of(info: Any) -> list[ModeSpec]:
    """A GetGameInfoResponse's modes as matchmaking keeps them."""
    return [ModeSpec(m.name, m.min_seats, m.max_seats,
                     team_layouts=tuple((t.seats, t.team_size) for t in m.team_layouts),
                     ai_participants=tuple(m.ai_participants))
            for m in info.modes]


def _why(err: BaseException) -> str:
    if isinstance(err, grpc.aio.AioRpcError):
        return f"{err.code().name}: {err.details()}"
    return str(err)
