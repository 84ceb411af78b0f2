"""The rules services of the games, as the tournament service uses them: game info, match
creation (with client seeds, never a dev seed), starting a match, abandoning one (a
force-ended tournament's), and its audit export."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.errors import Unavailable
from services.platform.export_chunks import BrokenExport, check_closing, read_export_chunks
from services.platform.grpc_kit import call_metadata
from services.platform.rules_channels import RulesChannels

EXPORT_TIMEOUT = 120.0
"""The deadline of one export, however long (its chunks stream within it)."""


@dataclass(frozen=True)
class MatchExport:
    """A match's audit export (the fields of an ExportMatch answer the director reads)."""

    export_jsonl: bytes
    final_hash: str
    event_count: int


POLICIES = {
    "default": rules_pb2.TIMEOUT_POLICY_DEFAULT_ACTION,
    "bot": rules_pb2.TIMEOUT_POLICY_BOT,
    "forfeit": rules_pb2.TIMEOUT_POLICY_FORFEIT,
}


def clock_message(clock: dict[str, Any]) -> rules_pb2.ClockConfig | None:
    kind = clock.get("kind", "none")
    if kind == "none":
        return None
    return rules_pb2.ClockConfig(
        kind=rules_pb2.CLOCK_KIND_PER_DECISION
        if kind == "per_decision"
        else rules_pb2.CLOCK_KIND_FISCHER,
        per_decision_ms=int(clock.get("per_decision_ms", 0)),
        bank_ms=int(clock.get("bank_ms", 0)),
        increment_ms=int(clock.get("increment_ms", 0)),
        max_timeouts=int(clock.get("max_timeouts", 0)),
        policy=POLICIES[clock.get("policy", "default")],
    )


class RulesGateway(RulesChannels):
    """gRPC client of every game's rules service, one channel per address."""

    async def game_info(self, game: str) -> Any:
        return await self.stub(game).GetGameInfo(
            rules_pb2.GetGameInfoRequest(), metadata=call_metadata(), timeout=self.timeout
        )

    async def create_match(
        self,
        game: str,
        match_id: str,
        mode: str,
        players: list[str],
        options_json: str,
        clock: dict[str, Any],
        on_behalf_of_organiser: str | None = None,
    ) -> tuple[dict[int, str], str]:
        """Seat tokens by seat and the dice commitment. Idempotent per match id: the same
        request after a restart answers the existing match and its tokens. Tournament
        matches wait for the seats' client seeds and never carry a dev seed.
        ``on_behalf_of_organiser``: an unrated tournament's organiser, for whom the match is
        recorded as made (``created_by`` organiser, via "tournament"): scoring rates none."""
        message = clock_message(clock)
        request = rules_pb2.CreateMatchRequest(
            match_id=match_id,
            mode=mode,
            seats=len(players),
            players=players,
            options_json=options_json or "",
            await_client_seeds=True,
        )
        if on_behalf_of_organiser is not None:
            request.on_behalf_of_organiser = on_behalf_of_organiser
        if message is not None:
            request.clock.CopyFrom(message)
        reply = await self.stub(game).CreateMatch(
            request, metadata=call_metadata(self.token), timeout=self.timeout
        )
        return {t.seat: t.token for t in reply.seat_tokens}, reply.dice_commitment

    async def start_match(self, game: str, match_id: str) -> bool:
        """Start a match that waits for client seeds; whether it had started already.
        StartMatch is idempotent: a repeat (a retry after a lost answer, a restart between
        starting it and storing that it did) is answered like the first call, with
        ``already_started``; any other error is the caller's to handle. A rules service from
        before 6 December 2026 refuses a repeat FAILED_PRECONDITION "the match has already
        started", taken as the same (as matchmaking does), so the services can be upgraded
        in any order."""
        try:
            reply = await self.stub(game).StartMatch(
                rules_pb2.StartMatchRequest(match_id=match_id),
                metadata=call_metadata(self.token),
                timeout=self.timeout,
            )
        except grpc.aio.AioRpcError as err:
            if err.code() == grpc.StatusCode.FAILED_PRECONDITION and (
                "already started" in (err.details() or "")
            ):
                return True
            raise
        return bool(reply.already_started)

    async def export_match(self, game: str, match_id: str) -> MatchExport:
        """The match's export, streamed in chunks (ExportMatchChunks), so a long match's
        export of any size arrives, where one ExportMatch message stops at gRPC's limit.
        A rules service of an earlier release (UNIMPLEMENTED) is asked ExportMatch. A stream
        whose chunks do not make up what it announced, or whose announced hash is not the
        export's own, is :class:`Unavailable` (the round driver asks again later); any other
        error of the calls reaches the caller."""
        stub = self.stub(game)
        call = stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id=match_id),
            metadata=call_metadata(self.token), timeout=max(self.timeout, EXPORT_TIMEOUT))
        parts: list[bytes] = []
        try:
            head = await read_export_chunks(call, parts.append)
            data = b"".join(parts)
            check_closing(data, head)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            reply = await stub.ExportMatch(
                rules_pb2.ExportMatchRequest(match_id=match_id),
                metadata=call_metadata(self.token), timeout=max(self.timeout, 10.0))
            return MatchExport(bytes(reply.export_jsonl), reply.final_hash, int(reply.event_count))
        except BrokenExport as err:
            raise Unavailable(f"the export of {match_id} from the rules service of {game} "
                              f"arrived broken ({err}); try again shortly") from None
        return MatchExport(data, head.final_hash, head.event_count)

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        """End a match with no result (AbandonMatch). One already abandoned answers as it is;
        one that ended with a result is FAILED_PRECONDITION (the caller decides)."""
        return await self.stub(game).AbandonMatch(
            rules_pb2.AbandonMatchRequest(match_id=match_id, reason=reason),
            metadata=call_metadata(self.token),
            timeout=self.timeout,
        )
