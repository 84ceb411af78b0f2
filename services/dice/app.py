"""The dice Application: commands over DiceSession aggregates."""

from __future__ import annotations

import threading
from typing import Any

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError

from services.dice.domain import DiceSession, session_id
from services.platform.draws import OPS, DrawRecord
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound

MAX_CLIENT_SEED = 256


class DiceApplication(Application):
    name = "dice"

    def __init__(self, env: dict[str, str] | None = None, allow_dev_seeds: bool = True) -> None:
        super().__init__(env)
        self.allow_dev_seeds = allow_dev_seeds
        self._lock = threading.Lock()

    def _get(self, match_id: str) -> DiceSession:
        try:
            return self.repository.get(session_id(match_id))
        except AggregateNotFoundError:
            raise NotFound(f"no dice session for match {match_id!r}") from None

    def open(self, match_id: str, dev_seed: str = "") -> DiceSession:
        if not match_id:
            raise InvalidArgument("match_id is required")
        if dev_seed and not self.allow_dev_seeds:
            raise FailedPrecondition("dev seeds are refused in tournament mode")
        with self._lock:
            try:
                existing = self._get(match_id)
            except NotFound:
                session = DiceSession.open(match_id, dev_seed)
                try:
                    self.save(session)
                except IntegrityError:
                    return self._get(match_id)
                return session
            return existing

    def add_client_seed(self, match_id: str, seat: int, seed: str) -> DiceSession:
        if not seed or len(seed) > MAX_CLIENT_SEED:
            raise InvalidArgument(f"client seed must be 1..{MAX_CLIENT_SEED} characters")
        with self._lock:
            session = self._get(match_id)
            if session.closed:
                raise FailedPrecondition("dice session is closed")
            if session.counter > 0:
                raise FailedPrecondition("client seeds must be added before the first draw")
            session.add_client_seed(seat, seed)
            self.save(session)
            return session

    def draw(self, match_id: str, request_id: str, op: str, n: int, count: int) -> DrawRecord:
        if op not in OPS:
            raise InvalidArgument(f"unknown draw op {op!r}")
        if not request_id:
            raise InvalidArgument("request_id is required")
        limits = {"randbelow": (1, 1 << 32), "shuffle": (0, 10_000), "roll": (1, 1 << 16)}
        low, high = limits[op]
        if not low <= n <= high:
            raise InvalidArgument(f"{op} needs n in {low}..{high}, got {n}")
        if op == "roll" and not 1 <= count <= 100:
            raise InvalidArgument(f"roll needs count in 1..100, got {count}")
        with self._lock:
            session = self._get(match_id)
            previous = session.draws.get(request_id)
            if previous is not None:
                record = DrawRecord.from_json(previous)
                if (record.op, record.n) != (op, n) or (op == "roll" and record.count != count):
                    raise InvalidArgument(f"request id {request_id!r} was used for another draw")
                return record
            if session.closed:
                raise FailedPrecondition("dice session is closed")
            record = session.draw(request_id, op, n, count)
            self.save(session)
            return record

    def close_session(self, match_id: str) -> DiceSession:
        with self._lock:
            session = self._get(match_id)
            if not session.closed:
                session.close()
                self.save(session)
            return session

    def session(self, match_id: str) -> DiceSession:
        return self._get(match_id)


def session_summary(session: DiceSession) -> dict[str, Any]:
    return {
        "match_id": session.match_id,
        "stream_id": session.stream_id,
        "commitment": session.commitment,
        "client_seeds": [list(c) for c in session.client_seeds],
        "counter": session.counter,
        "closed": session.closed,
        "dev": session.dev,
    }
