"""Where ratings come from: the scoring service, or anything else with the same method."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

import grpc

from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from services.platform.logs import get_logger

DEFAULT_ORDINAL = 0.0
log = get_logger("matchmaking")


class RatingSource(Protocol):
    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        """Ordinal per known player; players left out get :data:`DEFAULT_ORDINAL`."""
        ...


class StaticRatings:
    """Fixed ratings (tests, benchmarks, simulations)."""

    def __init__(self, table: Mapping[str, float] | None = None) -> None:
        self.table = dict(table or {})

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        return {p: self.table[p] for p in players if p in self.table}


class ScoringRatings:
    """``ScoringService.GetRatings`` with a deadline, in batches; players whose batch went
    unanswered get the default rating, and a warning is logged (at most every 30 s)."""

    WARN_EVERY = 30.0
    BATCH = 500

    def __init__(self, address: str, timeout: float = 1.0, token: str = "") -> None:
        self.address, self.timeout, self.token = address, timeout, token
        self._channel = channel(address)
        self._stub = scoring_pb2_grpc.ScoringServiceStub(self._channel)
        self._warned = -math.inf

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        wanted = list(players)
        for start in range(0, len(wanted), self.BATCH):
            batch = wanted[start:start + self.BATCH]
            try:
                reply = await self._stub.GetRatings(
                    scoring_pb2.GetRatingsRequest(game=game, players=batch),
                    metadata=call_metadata(self.token or None), timeout=self.timeout,
                )
            except grpc.aio.AioRpcError as err:
                self._warn(f"{err.code().name}: {err.details()}")
                return found
            found.update((r.player, float(r.ordinal)) for r in reply.ratings)
        return found

    def _warn(self, why: str) -> None:
        now = time.monotonic()
        if now - self._warned > self.WARN_EVERY:
            self._warned = now
            log.warning("scoring unavailable, using default ratings", address=self.address,
                        error=why)

    async def close(self) -> None:
        await self._channel.close()
