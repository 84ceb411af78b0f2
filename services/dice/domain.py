"""The dice session aggregate: one per match key, holding the secret seed and every draw."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from services.platform.draws import (
    DEV_STREAM_ID,
    DrawRecord,
    DrawStream,
    commitment,
    perform,
    state_key,
    word,
)

NAMESPACE = uuid.UUID("6c2f3a0e-2b0b-4d59-9a57-6a2c1f1c7d11")
DEV_SECRET_DOMAIN = b"neon-arena/dev-seed-key/v1"
# A match key: the rules service's "<game>/<match id>", or a bare match id (older callers).
MATCH_KEY = re.compile(r"^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64}){0,2}\Z")


def session_id(match_key: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"dice:{match_key}")


def dev_secret(token_secret: bytes) -> bytes:
    """The deployment's key for dev seeds, derived from its token secret with a domain tag."""
    return hmac.new(token_secret, DEV_SECRET_DOMAIN, hashlib.sha256).digest()


def dev_seed_bytes(secret: bytes, dev_seed: str) -> bytes:
    """The server seed of a dev session: HMAC(deployment secret, dev seed).

    The same dev seed on the same deployment gives the same draws (reproducible bot
    games), but nobody without the deployment's secret can compute the seed from the dev
    seed, so the session is committed and revealed like any other.
    """
    return hmac.new(secret, dev_seed.encode(), hashlib.sha256).digest()


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
        self.reserved = 0
        self.draws: dict[str, dict[str, Any]] = {}
        self.closed = False
        self.for_match = False

    @staticmethod
    def create_id(match_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return session_id(match_id)

    @classmethod
    def open(cls, match_key: str, dev_seed: str = "", secret: bytes = b"") -> DiceSession:
        if dev_seed:
            if not secret:
                raise ValueError("a dev seed needs the deployment's dev secret")
            seed, stream_id = dev_seed_bytes(secret, dev_seed), DEV_STREAM_ID
        else:
            seed, stream_id = secrets.token_bytes(32), match_key
        return cls(match_key, stream_id, seed.hex(), commitment(seed), bool(dev_seed))

    @property
    def seed(self) -> bytes:
        return bytes.fromhex(self.seed_hex)

    @property
    def seeds(self) -> list[tuple[int, str]]:
        return [(int(s), str(c)) for s, c in self.client_seeds]

    @property
    def state_key(self) -> bytes:
        return state_key(self.seed, self.stream_id)

    @property
    def next_block(self) -> int:
        """The first block no one has drawn or reserved."""
        return max(self.counter, self.reserved)

    @event("ClientSeedAdded")
    def add_client_seed(self, seat: int, seed: str) -> None:
        self.client_seeds = [c for c in self.client_seeds if c[0] != seat] + [[seat, seed]]
        self.client_seeds.sort()

    def draw(self, request_id: str, op: str, n: int, count: int) -> DrawRecord:
        stream = DrawStream(self.seed, self.stream_id, self.seeds, counter=self.next_block)
        record = perform(stream, op, n, count)
        self._record_draw(request_id, record.to_json())
        return record

    @event("Drawn")
    def _record_draw(self, request_id: str, draw: dict[str, Any]) -> None:
        self.counter = int(draw["next"])
        self.draws[request_id] = draw

    def words(self, first: int, count: int) -> list[int]:
        """The words of blocks [first, first + count): what ReserveBlocks hands out."""
        seeds = sorted(self.seeds)
        return [word(self.seed, self.stream_id, seeds, n) for n in range(first, first + count)]

    @event("OpenedForMatch")
    def open_for_match(self) -> None:
        """A rules service opened it for its match (OpenSession with a service token): it
        draws only from the blocks that service reserves, from block 0, never by Draw."""
        self.for_match = True

    @event("BlocksReserved")
    def reserve(self, end: int) -> None:
        """Raise the high-water mark of reserved blocks (one event per reservation)."""
        self.reserved = max(self.reserved, end)

    @event("Closed")
    def close(self) -> None:
        self.closed = True
