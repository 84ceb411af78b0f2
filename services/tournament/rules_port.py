"""The rules services of the games, as the tournament service uses them: game info, match
creation (with client seeds, never a dev seed), starting a match, abandoning one (a
force-ended tournament's), and its audit export."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.errors import InvalidArgument, ServiceError, Unavailable
from services.platform.export_chunks import (
    ENVELOPE_BYTES,
    BrokenExport,
    ExportTooLarge,
    check_answer,
    check_closing,
    read_export_chunks,
    refused_size,
)
from services.platform.grpc_kit import RECONNECT_OPTIONS, call_metadata
from services.platform.rules_channels import RulesChannels

EXPORT_TIMEOUT = 120.0
"""The deadline of one export, however long (its chunks stream within it, or the one
ExportMatch answer of an earlier rules service)."""

MAX_EXPORT_BYTES = 64 * 1024 * 1024
"""The most bytes of one match's export the tournament service takes, by either path: the
size an ExportMatchChunks stream announces, and an ExportMatch answer's (an earlier rules
service's; gRPC's receive limit of that call is this plus ``ENVELOPE_BYTES``). A larger
export is :class:`MatchExportTooLarge`. 64 MiB: what the ExportMatch fallback took before
(the gRPC channel's limit), some 200 times the largest export in tests/fixtures/exports
(291 KB, a Neon Knights: 2086 match); the exports of a tournament's matches are held in
memory together for its audit bundle."""



@dataclass(frozen=True)
class MatchExport:
    """A match's audit export (the fields of an ExportMatch answer the director reads)."""

    export_jsonl: bytes
    final_hash: str
    event_count: int


class MatchExportTooLarge(ServiceError):
    """A match's export is larger than the tournament service takes (``MAX_EXPORT_BYTES``):
    RESOURCE_EXHAUSTED, naming the match, the size and the limit. Not read further."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED

    def __init__(self, game: str, match_id: str, size: int, limit: int,
                 what: str = "") -> None:
        super().__init__(
            f"the export of {match_id} from the rules service of {game} is {what}{size:,} "
            f"bytes, more than the {limit:,} bytes a match's export may be here (the "
            "tournament service's MAX_EXPORT_BYTES): it cannot be sealed or bundled")
        self.size, self.limit = size, limit


def _arrived_broken(game: str, match_id: str, err: BrokenExport) -> Unavailable:
    """A match's export that arrived broken, by either call: UNAVAILABLE with the reason
    (the round driver asks again later; nothing is sealed from it)."""
    return Unavailable(f"the export of {match_id} from the rules service of {game} "
                       f"arrived broken ({err}); try again shortly")


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
    """gRPC client of every game's rules service, one channel per address.
    ``max_export_bytes``: the most bytes of a match's export taken (None:
    ``MAX_EXPORT_BYTES``, read when the gateway is made)."""

    def __init__(self, address_of: Callable[[str], str | None], token: str, timeout: float,
                 max_export_bytes: int | None = None) -> None:
        super().__init__(address_of, token, timeout)
        self.max_export_bytes = MAX_EXPORT_BYTES if max_export_bytes is None else max_export_bytes
        self._whole: dict[str, tuple[grpc.aio.Channel, Any]] = {}

    async def game_info(self, game: str) -> Any:
        return await self.stub(game).GetGameInfo(
            rules_pb2.GetGameInfoRequest(), metadata=call_metadata(), timeout=self.timeout
        )

    async def check_config(self, game: str, mode: str, seats: int, options_json: str) -> bool:
        """Whether the game's rules service takes the config (CheckMatchConfig): True when it
        does; InvalidArgument with its reason when it does not; False when it is a rules
        service from before CheckMatchConfig (UNIMPLEMENTED), which cannot say."""
        try:
            await self.stub(game).CheckMatchConfig(
                rules_pb2.CheckMatchConfigRequest(mode=mode, seats=seats,
                                                  options_json=options_json),
                metadata=call_metadata(), timeout=self.timeout)
        except grpc.aio.AioRpcError as err:
            if err.code() == grpc.StatusCode.UNIMPLEMENTED:
                return False
            if err.code() == grpc.StatusCode.INVALID_ARGUMENT:
                raise InvalidArgument(err.details() or "refused") from None
            raise
        return True

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
        export arrives, where one ExportMatch message stops at gRPC's limit.
        A rules service of an earlier release (UNIMPLEMENTED) is asked ExportMatch. A stream
        whose chunks do not make up what it announced, or whose announced hash is not the
        export's own, and an ExportMatch answer whose export does not close with the hash
        and count it names, are :class:`Unavailable` (the round driver asks again later); an export
        past ``max_export_bytes``, by either call, is :class:`MatchExportTooLarge`; any
        other error of the calls reaches the caller."""
        limit = self.max_export_bytes
        stub = self.stub(game)
        call = stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id=match_id),
            metadata=call_metadata(self.token), timeout=max(self.timeout, EXPORT_TIMEOUT))
        parts: list[bytes] = []
        try:
            head = await read_export_chunks(call, parts.append, limit)
            data = b"".join(parts)
            check_closing(data, head)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            return await self._export_whole(game, match_id)
        except ExportTooLarge as err:
            raise MatchExportTooLarge(game, match_id, err.total, limit) from None
        except BrokenExport as err:
            raise _arrived_broken(game, match_id, err) from None
        return MatchExport(data, head.final_hash, head.event_count)

    async def _export_whole(self, game: str, match_id: str) -> MatchExport:
        """ExportMatch, one answer, within the same limit as the chunks: gRPC refuses an
        answer past ``max_export_bytes + ENVELOPE_BYTES`` (unread), and an export past
        ``max_export_bytes`` that fits is refused here; one whose export does not close with
        the final hash and event count the answer names (cut short, another chain's) is
        :class:`Unavailable`, as a broken stream is."""
        limit = self.max_export_bytes
        try:
            reply = await self._whole_stub(game).ExportMatch(
                rules_pb2.ExportMatchRequest(match_id=match_id),
                metadata=call_metadata(self.token), timeout=max(self.timeout, EXPORT_TIMEOUT))
        except grpc.aio.AioRpcError as err:
            size = refused_size(err.details() or "")
            if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or size is None:
                raise
            raise MatchExportTooLarge(game, match_id, size, limit,
                                      "in an ExportMatch answer of ") from None
        try:
            data, head = check_answer(reply, limit)
        except ExportTooLarge as err:
            raise MatchExportTooLarge(game, match_id, err.total, limit) from None
        except BrokenExport as err:
            raise _arrived_broken(game, match_id, err) from None
        return MatchExport(data, head.final_hash, head.event_count)

    def _whole_stub(self, game: str) -> Any:
        """The RulesService stub for ExportMatch answers: a channel of its own per address
        (opened on first use, for rules services of an earlier release only), whose receive
        limit is ``max_export_bytes`` and the answer's other fields."""
        address = self.address(game)
        if not address:
            raise LookupError(f"no rules service address for game {game!r}")
        if address not in self._whole:
            ch = grpc.aio.insecure_channel(address, options=[
                ("grpc.max_receive_message_length", self.max_export_bytes + ENVELOPE_BYTES),
                *RECONNECT_OPTIONS])
            self._whole[address] = (ch, rules_pb2_grpc.RulesServiceStub(ch))
        return self._whole[address][1]

    async def close(self) -> None:
        for ch, _ in self._whole.values():
            await ch.close()
        self._whole.clear()
        await super().close()

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        """End a match with no result (AbandonMatch). One already abandoned answers as it is;
        one that ended with a result is FAILED_PRECONDITION (the caller decides)."""
        return await self.stub(game).AbandonMatch(
            rules_pb2.AbandonMatchRequest(match_id=match_id, reason=reason),
            metadata=call_metadata(self.token),
            timeout=self.timeout,
        )
