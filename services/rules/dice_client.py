"""The rules host's client of the dice service: deadlines, auth and error mapping."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from services.genproto.neon.dice.v1 import dice_pb2, dice_pb2_grpc
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound, Unavailable
from services.platform.grpc_kit import call_metadata, channel
from services.platform.logs import get_logger

log = get_logger("rules")


@dataclass(frozen=True)
class OpenedSession:
    stream_id: str
    commitment: str
    dev: bool
    state_key: str
    """Hex key of the match's hiding state hashes (empty from an older dice service)."""


class DiceClient:
    def __init__(self, address: str, token: str, timeout: float = 5.0) -> None:
        self._channel = channel(address)
        self._stub = dice_pb2_grpc.DiceServiceStub(self._channel)
        self._token = token
        self._timeout = timeout

    async def close(self) -> None:
        await self._channel.close()

    async def _call(self, method: Callable[..., Awaitable[Any]], request: Any) -> Any:
        try:
            return await method(request, timeout=self._timeout, metadata=call_metadata(self._token))
        except grpc.aio.AioRpcError as err:
            code, details = err.code(), err.details() or ""
            if code == grpc.StatusCode.NOT_FOUND:
                raise NotFound(f"dice: {details}") from None
            if code == grpc.StatusCode.FAILED_PRECONDITION:
                raise FailedPrecondition(f"dice: {details}") from None
            if code == grpc.StatusCode.INVALID_ARGUMENT:
                raise InvalidArgument(f"dice: {details}") from None
            # gRPC's words name the dice service's address: the log keeps them, the caller
            # (a seat, through the rules service) is told the code only
            log.warning("the dice service failed a call", code=code.name, details=details)
            raise Unavailable(f"the dice service is unavailable ({code.name}); try again "
                              "shortly") from None

    async def open(self, match_id: str, dev_seed: str = "") -> OpenedSession:
        response = await self._call(
            self._stub.OpenSession, dice_pb2.OpenSessionRequest(match_id=match_id, dev_seed=dev_seed)
        )
        s = response.session
        return OpenedSession(s.stream_id, s.commitment, s.dev, response.state_key)

    async def add_client_seed(self, match_id: str, seat: int, seed: str) -> Any:
        response = await self._call(
            self._stub.AddClientSeed,
            dice_pb2.AddClientSeedRequest(match_id=match_id, seat=seat, seed=seed),
        )
        return response.session

    async def reserve_blocks(self, match_key: str, first: int, count: int) -> list[int]:
        response = await self._call(
            self._stub.ReserveBlocks,
            dice_pb2.ReserveBlocksRequest(match_id=match_key, first=first, count=count),
        )
        if response.first != first or not 0 < len(response.words) <= count:
            raise Unavailable("dice: ReserveBlocks answered another range than asked")
        return list(response.words)

    async def client_seeds(self, match_id: str) -> list[list[Any]]:
        response = await self._call(
            self._stub.GetCommitment, dice_pb2.GetCommitmentRequest(match_id=match_id)
        )
        return [[c.seat, c.seed] for c in response.session.client_seeds]

    async def close_session(self, match_id: str) -> tuple[Any, str]:
        response = await self._call(
            self._stub.CloseSession, dice_pb2.CloseSessionRequest(match_id=match_id)
        )
        return response.session, response.seed
