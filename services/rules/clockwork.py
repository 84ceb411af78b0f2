"""The rules host's clock scheduler: one asyncio timer per match, fired once.

The host keeps each match's :class:`services.rules.clocks.Clocks` and arms the match's
earliest deadline here (``arm``); re-arming replaces the timer, so a match never has two.
When the deadline passes the scheduler calls ``on_expire(match_id, token)`` exactly once
for that arm; the host then checks the match's clocks (``Clocks.expired(now)``), applies
the default actions due and arms the next deadline. The ``token`` is the host's own
(say, the match version and seat), handed back so it can tell a stale expiry from a live one.

Deadlines are wall-clock Unix milliseconds, as stored in match records; they are turned
into event-loop time when armed. A timer that wakes before the wall clock reaches its
deadline (the wall clock was stepped back) waits again rather than firing early. After a
restart, ``rearm_all`` arms every stored deadline; those already past fire at once, once.

Not thread-safe: call it from a coroutine or callback of the event loop that runs the
host (``arm`` needs the running loop).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from services.platform.logs import bind_contextvars, get_logger

OnExpire = Callable[[str, object], Awaitable[None]]

log = get_logger("rules")

_MIN_WAIT_S = 0.001


def wall_now_ms() -> int:
    """Wall-clock Unix time in milliseconds."""
    return time.time_ns() // 1_000_000


@dataclass
class _Arm:
    number: int
    deadline_ms: int
    token: object
    handle: asyncio.TimerHandle


class ClockScheduler:
    """Timers for match clock deadlines; see the module docstring."""

    def __init__(self, on_expire: OnExpire, *, now_ms: Callable[[], int] = wall_now_ms) -> None:
        self._on_expire = on_expire
        self._now_ms = now_ms
        self._arms: dict[str, _Arm] = {}
        self._numbers = itertools.count(1)
        self._running: set[asyncio.Task[None]] = set()
        self._closed = False

    # -- arming --------------------------------------------------------------------

    def arm(self, match_id: str, deadline_ms: int, token: object) -> None:
        """Fire ``on_expire(match_id, token)`` once when ``deadline_ms`` (Unix ms) passes,
        replacing any timer the match had."""
        if self._closed:
            log.debug("clock not armed: scheduler closed", match_id=match_id)
            return
        self.cancel(match_id)
        number = next(self._numbers)
        handle = self._schedule(match_id, number, deadline_ms)
        self._arms[match_id] = _Arm(number, deadline_ms, token, handle)

    def rearm_all(self, items: Iterable[tuple[str, int, object]]) -> None:
        """Arm ``(match_id, deadline_ms, token)`` items after a restart; each as ``arm``."""
        for match_id, deadline_ms, token in items:
            self.arm(match_id, deadline_ms, token)

    def cancel(self, match_id: str) -> None:
        """Drop the match's timer, if any; it will not fire."""
        arm = self._arms.pop(match_id, None)
        if arm is not None:
            arm.handle.cancel()

    def armed(self, match_id: str) -> tuple[int, object] | None:
        """``(deadline_ms, token)`` of the match's pending timer, or ``None``."""
        arm = self._arms.get(match_id)
        return None if arm is None else (arm.deadline_ms, arm.token)

    def __len__(self) -> int:
        return len(self._arms)

    async def close(self, grace_s: float = 5.0) -> None:
        """Cancel every timer, refuse new ones, and let expiries already running finish
        (cancelled after ``grace_s``). Stored deadlines re-arm on the next start."""
        self._closed = True
        for match_id in list(self._arms):
            self.cancel(match_id)
        if not self._running:
            return
        _, pending = await asyncio.wait(set(self._running), timeout=grace_s)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    # -- firing --------------------------------------------------------------------

    def _schedule(self, match_id: str, number: int, deadline_ms: int) -> asyncio.TimerHandle:
        loop = asyncio.get_running_loop()
        wait_s = max(0, deadline_ms - self._now_ms()) / 1000
        return loop.call_at(loop.time() + wait_s, self._wake, match_id, number)

    def _wake(self, match_id: str, number: int) -> None:
        arm = self._arms.get(match_id)
        if arm is None or arm.number != number:
            return  # replaced or cancelled after this timer was due
        early_ms = arm.deadline_ms - self._now_ms()
        if early_ms > 0:
            loop = asyncio.get_running_loop()
            wait_s = max(_MIN_WAIT_S, early_ms / 1000)
            arm.handle = loop.call_at(loop.time() + wait_s, self._wake, match_id, number)
            return
        del self._arms[match_id]
        # A Context of its own: not the one of the call that armed the clock (its request id
        # and method would be bound to every later expiry's log lines).
        task = asyncio.get_running_loop().create_task(self._expire(match_id, arm),
                                                      context=contextvars.Context())
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _expire(self, match_id: str, arm: _Arm) -> None:
        # Bound in the task's own Context and never unbound: nothing may set a context
        # variable from a finaliser (see services/platform/grpc_kit.py, _CallScope).
        bind_contextvars(match_id=match_id)
        try:
            await self._on_expire(match_id, arm.token)
        except Exception:
            log.exception("clock expiry failed", deadline_ms=arm.deadline_ms)
