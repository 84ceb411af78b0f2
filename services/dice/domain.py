"""The dice session aggregate: one per match, holding the secret seed and every draw."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from services.platform.draws import DrawRecord, DrawStream, commitment, perform

NAMESPACE = uuid.UUID("6c2f3a0e-2b0b-4d59-9a57-6a2c1f1c7d11")
DEV_SEED_DOMAIN = b"neon-arena/dev-seed/v1:"


def session_id(match_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"dice:{match_id}")


def new_seed(dev_seed: str) -> bytes:
    if dev_seed:
        return hashlib.sha256(DEV_SEED_DOMAIN + dev_seed.encode()).digest()
    return secrets.token_bytes(32)


class DiceSession(Aggregate):
    @event("Opened")
    def __init__(self, match_id: str, stream_id: str, seed_hex: str, commitment: str, dev: bool):
        self.match_id = match_id
        self.stream_id = stream_id
        self.seed_hex = seed_hex
        self.commitment = commitment
        self.dev = dev
        self.client_seeds: list[list[Any]] = []
        self.counter = 0
        self.draws: dict[str, dict[str, Any]] = {}
        self.closed = False

    @staticmethod
    def create_id(match_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return session_id(match_id)

    @classmethod
    def open(cls, match_id: str, dev_seed: str = "") -> DiceSession:
        seed = new_seed(dev_seed)
        stream_id = f"dev:{dev_seed}" if dev_seed else match_id
        return cls(match_id, stream_id, seed.hex(), commitment(seed), bool(dev_seed))

    @event("ClientSeedAdded")
    def add_client_seed(self, seat: int, seed: str) -> None:
        self.client_seeds = [c for c in self.client_seeds if c[0] != seat] + [[seat, seed]]
        self.client_seeds.sort()

    def draw(self, request_id: str, op: str, n: int, count: int) -> DrawRecord:
        stream = DrawStream(
            bytes.fromhex(self.seed_hex), self.stream_id,
            [(s, c) for s, c in self.client_seeds], counter=self.counter,
        )
        record = perform(stream, op, n, count)
        self._record_draw(request_id, record.to_json())
        return record

    @event("Drawn")
    def _record_draw(self, request_id: str, draw: dict[str, Any]) -> None:
        self.counter = int(draw["next"])
        self.draws[request_id] = draw

    @event("Closed")
    def close(self) -> None:
        self.closed = True
