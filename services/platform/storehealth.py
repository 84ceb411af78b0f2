"""The event store's health: fail fast while it is down, say so, and recover by itself.

A PostgreSQL outage must not hang calls or end them INTERNAL (issue 17, defect 4):

- :func:`is_store_outage` tells the kernel's error mapping (grpc_kit) which exceptions mean
  "the store cannot be reached", so they are answered UNAVAILABLE with a reason.
- :func:`fail_fast_env` holds the timeouts that make a call fail within its deadline: the
  pool gives up waiting for a connection after ``POOL_WAIT`` seconds, a new connection
  after ``CONNECT_TIMEOUT`` (libpq's PGCONNECT_TIMEOUT), and connections are checked before
  use (pre-ping), so the broken ones of an outage are replaced once the store is back.
- :class:`StoreProbe` (started by each service with :func:`watch`) connects every
  ``interval`` seconds and flips the server's health to NOT_SERVING while the store does
  not answer and back to SERVING when it does. SQLite and memory stores have no probe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError

from services.platform.logs import get_logger
from services.platform.settings import Settings

POOL_WAIT = 2
"""Seconds a call waits for a pooled connection before UNAVAILABLE (below every call deadline)."""
CONNECT_TIMEOUT = 2
PROBE_INTERVAL = 1.0

log = get_logger("storehealth")


def _outage_types() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = [OperationalError, InterfaceError, sqlite3.OperationalError]
    with contextlib.suppress(ImportError):
        import psycopg

        found += [psycopg.OperationalError, psycopg.InterfaceError]
    with contextlib.suppress(ImportError):
        import psycopg_pool

        found.append(psycopg_pool.PoolTimeout)
    return tuple(found)


OUTAGE_TYPES = _outage_types()


def is_store_outage(err: BaseException) -> bool:
    """True when ``err`` (or what it was raised from) says the store cannot be reached."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, OUTAGE_TYPES):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def fail_fast_env(env: dict[str, str]) -> dict[str, str]:
    """The eventsourcing PostgreSQL ``env`` with the timeouts that keep calls short."""
    os.environ.setdefault("PGCONNECT_TIMEOUT", str(CONNECT_TIMEOUT))
    return {**env, "POSTGRES_CONNECT_TIMEOUT": str(POOL_WAIT), "POSTGRES_PRE_PING": "y"}


def postgres_check(settings: Settings) -> Callable[[], None]:
    """A blocking check that raises unless the settings' PostgreSQL answers ``SELECT 1``."""
    from services.platform.store import eventsourcing_env

    env = eventsourcing_env(settings, "probe")

    def check() -> None:
        import psycopg

        with psycopg.connect(
            dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
            user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], autocommit=True,
            connect_timeout=CONNECT_TIMEOUT,
        ) as conn:
            conn.execute("SELECT 1")

    return check


class StoreGate:
    """Whether this server's store answers, as the probe last saw it, for the kernel.

    While the store is down the kernel answers the service's calls UNAVAILABLE at once, and
    calls already waiting on the store are answered UNAVAILABLE when it goes down (the store
    library retries for far longer than any call's deadline).
    """

    def __init__(self) -> None:
        self.up = True
        self.armed = False
        """True once a probe watches the store; unarmed, calls go straight through."""
        self._down: asyncio.Event | None = None
        self._watchers: set[Callable[[], None]] = set()

    def on_down(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the store goes down; returns what stops that."""
        self._watchers.add(callback)
        return lambda: self._watchers.discard(callback)

    def _event(self) -> asyncio.Event:
        if self._down is None:
            self._down = asyncio.Event()
        return self._down

    def set_up(self, up: bool) -> None:
        self.up = up
        if up:
            self._event().clear()
        else:
            self._event().set()
            for callback in list(self._watchers):
                callback()

    async def wait_down(self) -> None:
        await self._event().wait()


class StoreProbe:
    """Checks the store every ``interval`` seconds and sets the health on each change."""

    def __init__(self, check: Callable[[], None], set_serving: Callable[[bool], Awaitable[None]],
                 interval: float = PROBE_INTERVAL, name: str = "") -> None:
        self.check, self.set_serving, self.interval, self.name = check, set_serving, interval, name
        self.up = True
        self.task: asyncio.Task[None] | None = None

    def start(self) -> StoreProbe:
        self.task = asyncio.create_task(self._run(), name=f"store-probe-{self.name}")
        return self

    async def probe_once(self) -> bool:
        try:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns an answer that came
            # in the same turn as a cancellation and drops the cancellation (CPython gh-86296),
            # and the probe then went on for ever after its stop (a service's stop, or an
            # event loop's teardown, waiting on it)
            async with asyncio.timeout(CONNECT_TIMEOUT + 1):
                await asyncio.to_thread(self.check)
            up = True
        except Exception as err:  # any failure to answer is "down"
            up = False
            if self.up:
                log.warning("event store unreachable: NOT_SERVING", service=self.name, error=repr(err))
        if up and not self.up:
            log.info("event store reachable again: SERVING", service=self.name)
        if up != self.up:
            self.up = up
            await self.set_serving(up)
        return up

    async def _run(self) -> None:
        while True:
            await self.probe_once()
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
            self.task = None


def watch(settings: Settings, handle: Any, name: str = "",
          interval: float = PROBE_INTERVAL) -> Callable[[], Awaitable[None]]:
    """Start probing the store of ``settings`` for the server ``handle``; returns the closer.

    Call it after ``start_server`` and put the closer first among the service's closers.
    """
    if settings.persistence != "postgres":
        async def nothing() -> None:
            return None

        return nothing

    async def set_serving(serving: bool) -> None:
        gate = getattr(handle, "store_gate", None)
        if gate is not None:
            gate.set_up(serving)
        if not getattr(handle, "stopping", False):
            await handle.set_serving(serving)

    probe = StoreProbe(postgres_check(settings), set_serving, interval, name).start()
    gate = getattr(handle, "store_gate", None)
    if gate is not None:
        gate.armed = True

    async def stop() -> None:
        await probe.stop()
        if gate is not None:
            gate.armed = False
            gate.set_up(True)

    return stop
