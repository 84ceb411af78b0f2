"""The rules services of the games, as matchmaking uses them: game info, match creation,
and the seat calls the bots of backfilled matches make."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.matchmaking.catalogue import ModeSpec
from services.platform.grpc_kit import call_metadata, channel
from services.platform.logs import get_logger

log = get_logger("matchmaking")
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED,
             grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


class RulesGateway:
    """gRPC client of every game's rules service, one channel per address."""

    def __init__(self, address_of: Callable[[str], str | None], token: str, timeout: float) -> None:
        self.address_of, self.token, self.timeout = address_of, token, timeout
        self._stubs: dict[str, tuple[grpc.aio.Channel, Any]] = {}
        self.schemas: dict[str, dict[str, Any]] = {}

    def address(self, game: str) -> str:
        return self.address_of(game) or ""

    def _stub(self, game: str) -> Any:
        address = self.address(game)
        if not address:
            raise LookupError(f"no rules service address for game {game!r}")
        if address not in self._stubs:
            ch = channel(address)
            self._stubs[address] = (ch, rules_pb2_grpc.RulesServiceStub(ch))
        return self._stubs[address][1]

    async def modes(self, game: str) -> list[ModeSpec] | None:
        """The modes and seat limits the game's rules service reports, None when unreachable."""
        try:
            info = await self._stub(game).GetGameInfo(
                rules_pb2.GetGameInfoRequest(), metadata=call_metadata(), timeout=self.timeout)
        except (LookupError, grpc.aio.AioRpcError) as err:
            log.info("rules service gives no game info", game=game, error=_why(err))
            return None
        try:
            self.schemas[game] = json.loads(info.config_schema_json or "{}")
        except ValueError:
            self.schemas[game] = {}
        return [ModeSpec(m.name, m.min_seats, m.max_seats) for m in info.modes]

    def takes_option(self, game: str, name: str) -> bool:
        props = self.schemas.get(game, {}).get("properties", {})
        return isinstance(props, dict) and name in props

    async def create_match(self, game: str, match_id: str, mode: str, players: list[str],
                           options: dict[str, Any]) -> dict[int, str]:
        """Seat tokens by seat. Idempotent on the rules side per match id."""
        reply = await self._stub(game).CreateMatch(
            rules_pb2.CreateMatchRequest(match_id=match_id, mode=mode, seats=len(players),
                                         players=players, options_json=json.dumps(options)),
            metadata=call_metadata(self.token), timeout=self.timeout,
        )
        return {t.seat: t.token for t in reply.seat_tokens}

    async def legal(self, game: str, token: str, match_id: str) -> Any:
        return await self._stub(game).ListLegalActions(
            rules_pb2.ListLegalActionsRequest(match_id=match_id),
            metadata=call_metadata(token), timeout=self.timeout)

    async def submit(self, game: str, token: str, match_id: str, command_id: str,
                     action: Any) -> Any:
        return await self._stub(game).SubmitAction(
            rules_pb2.SubmitActionRequest(match_id=match_id, command_id=command_id,
                                          action_json=json.dumps(action)),
            metadata=call_metadata(token), timeout=self.timeout)

    async def view(self, game: str, match_id: str) -> Any:
        """The spectator view: status, version and who owes an answer."""
        return await self._stub(game).GetView(
            rules_pb2.GetViewRequest(match_id=match_id), metadata=call_metadata(),
            timeout=self.timeout)

    async def wait_change(self, game: str, match_id: str, version: int, timeout: float) -> bool:
        """Wait until the match moves past ``version``; False when ``timeout`` passed first."""
        call = self._stub(game).WatchMatch(
            rules_pb2.WatchMatchRequest(match_id=match_id, from_version=version),
            metadata=call_metadata(), timeout=timeout)
        try:
            async for _ in call:
                return True
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                raise
        finally:
            call.cancel()
        return False

    async def close(self) -> None:
        for ch, _ in self._stubs.values():
            await ch.close()
        self._stubs.clear()


def _why(err: BaseException) -> str:
    if isinstance(err, grpc.aio.AioRpcError):
        return f"{err.code().name}: {err.details()}"
    return str(err)
