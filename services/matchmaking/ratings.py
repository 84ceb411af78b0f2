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


class RatingsUnavailable(Exception):
    """The ratings could not be looked up (the source warned already): the matchmaker waits
    a few seconds before it takes the default for every player asked about."""


class RatingSource(Protocol):
    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        """Ordinal per known player; players left out get :data:`DEFAULT_ORDINAL`. Raises
        (e.g. :class:`RatingsUnavailable`) when it cannot tell."""
        ...


class StaticRatings:
    """Fixed ratings (tests, benchmarks, simulations)."""

    def __init__(self, table: Mapping[str, float] | None = None) -> None:
        self.table = dict(table or {})

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        return {p: self.table[p] for p in players if p in self.table}


class ScoringRatings:
    """``ScoringService.GetRatings`` with a deadline, in batches; a batch unanswered raises
    :class:`RatingsUnavailable` (a player left out of an answer is a new one, an unanswered
    one is not), and a warning is logged (at most every 30 s). Its channel (grpc_kit.channel)
    reconnects within a second of scoring's return, not after gRPC's growing backoff."""

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
                raise RatingsUnavailable(f"{err.code().name}: {err.details()}") from None
            found.update((r.player, float(r.ordinal)) for r in reply.ratings)
        return found

    def _warn(self, why: str) -> None:
        now = time.monotonic()
        if now - self._warned > self.WARN_EVERY:
            self._warned = now
            log.warning("scoring unavailable: new tickets wait a few seconds unrated, then "
                        "take default ratings", address=self.address,
                        error=why)

    async def close(self) -> None:
        await self._channel.close()
