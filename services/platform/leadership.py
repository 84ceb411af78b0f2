"""One active worker among replicas: who may run a store's outbox relay right now.

With two or more replicas of a service on one store, each runs an outbox relay, and without
this both would read and publish the whole log (JetStream's duplicate window drops the
second copy, at twice the work). A relay acts only while it holds its store's lock:

- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a connection of
  its own. The server releases it when that connection ends, so a crashed or partitioned
  holder gives it up without any clock or lease time; a holder checks its connection before
  each batch and stops when it is gone.
- SQLite: an exclusive ``flock`` on a file beside the database, which the kernel releases
  when the holding process exits.
- In memory (tests): always held.

Correctness never rests on the lock: a batch published twice in a hand-over is still
dropped by JetStream's message ids. The lock only keeps the steady state to one publisher.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import os
from pathlib import Path
from typing import Any, Protocol

from services.platform.logs import get_logger
from services.platform.settings import Settings
from services.platform.waiting import within

log = get_logger("leadership")


class Leadership(Protocol):
    async def lead(self) -> bool:
        """True while this process holds the lock (taking it when it is free)."""

    async def close(self) -> None:
        """Give the lock up."""


class AlwaysLead:
    async def lead(self) -> bool:
        return True

    async def close(self) -> None:
        return None


def lock_key(text: str) -> int:
    """A signed 64-bit advisory lock key from a name."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big", signed=True)


class PostgresLead:
    def __init__(self, dsn: str, name: str, connect_timeout: float = 3.0, recheck: float = 1.0) -> None:
        self.dsn, self.name, self.key = dsn, name, lock_key(name)
        self.connect_timeout, self.recheck = connect_timeout, recheck
        self._conn: Any = None
        self._held = False
        self._checked = 0.0

    async def lead(self) -> bool:
        import psycopg

        try:
            if self._conn is None or self._conn.closed:
                self._held = False
                self._conn = await within(
                    psycopg.AsyncConnection.connect(self.dsn, autocommit=True), self.connect_timeout)
            if self._held:
                now = asyncio.get_running_loop().time()
                if now - self._checked >= self.recheck:  # the connection still holds the lock
                    await within(self._conn.execute("SELECT 1"), self.connect_timeout)
                    self._checked = now
                return True
            cursor = await within(
                self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)), self.connect_timeout)
            row = await cursor.fetchone()
            self._held = bool(row and row[0])
            if self._held:
                log.info("lock taken", lock=self.name)
            return self._held
        except (psycopg.Error, OSError, TimeoutError) as err:
            if self._held:
                log.warning("lock lost", lock=self.name, error=repr(err))
            await self._drop()
            return False

    async def _drop(self) -> None:
        self._held = False
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.close()
            except Exception:  # already broken: nothing to give back
                pass

    async def close(self) -> None:
        await self._drop()


class FileLead:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    async def lead(self) -> bool:
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        log.info("lock taken", lock=str(self.path))
        return True

    async def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None


def relay_leadership(settings: Settings, service: str) -> Leadership:
    """The lock that elects one outbox relay among the replicas of ``service``."""
    if settings.persistence == "postgres" and settings.database_url:
        schema = settings.database_schema or "public"
        return PostgresLead(settings.database_url, f"neon-outbox:{schema}:{service}")
    if settings.persistence == "sqlite":
        path = settings.sqlite_path(service)
        return FileLead(path.with_name(path.name + ".relay.lock"))
    return AlwaysLead()
