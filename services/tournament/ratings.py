"""Ratings to seed by, from the scoring service (its openskill ordinal)."""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.errors import Unavailable
from services.platform.grpc_kit import call_metadata, channel


class ScoringRatings:
    def __init__(self, address: str, timeout: float = 2.0, token: str = "") -> None:
        self.address, self.timeout, self.token = address, timeout, token
        self._channel = channel(address)
        self._stub = scoring_pb2_grpc.ScoringServiceStub(self._channel)

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, float]:
        """Ordinal per rated player (others are left out and seed as 0). UNAVAILABLE when
        scoring does not answer: a bracket is never seeded from missing ratings."""
        found: dict[str, float] = {}
        wanted = list(players)
        for start in range(0, len(wanted), 500):
            try:
                reply = await self._stub.GetRatings(
                    scoring_pb2.GetRatingsRequest(game=game, players=wanted[start : start + 500]),
                    metadata=call_metadata(self.token or None),
                    timeout=self.timeout,
                )
            except grpc.aio.AioRpcError as err:
                raise Unavailable(
                    f"the scoring service does not answer ({err.code().name}); "
                    "seeding needs its ratings"
                ) from None
            found.update((r.player, float(r.ordinal)) for r in reply.ratings if r.matches)
        return found

    async def close(self) -> None:
        await self._channel.close()
