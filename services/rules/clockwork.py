"""The rules host's clock scheduler: one asyncio timer per match, fired once.

The host keeps each match's :class:`services.rules.clocks.Clocks` and arms the match's
earliest deadline here (``arm``); re-arming replaces the timer, so a match never has two.
When the deadline passes the scheduler calls ``on_expire(match_id, token)`` exactly once
for that arm; the host then checks the match's clocks (``Clocks.expired(now)``), applies
the default actions due and arms the next deadline. The ``token`` is the host's own
(say, the match version and seat), handed back so it can tell a stale expiry from a live one.

Deadlines are Unix milliseconds, as stored in match records, of the host's clock
(:func:`wall_now_ms`: the wall clock at the process's start, moved on by the monotonic
clock, so a step of the system clock moves no deadline); they are turned into event-loop
time when armed. A timer that wakes before the host's clock reaches its deadline (an
injected clock that was stepped back) waits again rather than firing early. After a
restart, ``rearm_all`` arms every stored deadline; those already past fire at once, once.

Not thread-safe: call it from a coroutine or callback of the event loop that runs the
host (``arm`` needs the running loop).

Heartbeat (:class:`Heartbeat`): so that a clock that ran while its match had no rules
service is paused for that downtime (``Clocks.resume``), each rules process writes a beat to
its match store every ``NEON_CLOCK_HEARTBEAT_MS`` (default 5 s) and a last one at a clean
stop, in the row of its serving place (:func:`replica_slot`: the lone service, or one
ordinal of one replica list; only that place's process serves its matches). At its start,
before it serves anything, a process reads the row its predecessor left
(:func:`served_until`): the latest time the predecessor may have served a match, which is
the stop beat after a clean stop, and the last beat plus two intervals after a crash (its
next beat was due within one interval; one more for a late one). Where that predecessor
cannot be known for sure the answer is None and a take-up gives the grace alone, as before
heartbeats: no row for the place (a first start, a new replica list, a store of an earlier
release), a predecessor that did not beat (``NEON_CLOCK_HEARTBEAT_MS=0``), or a process of
another replica list that may have served after it (a rollout that changed the replica count,
when another list's owner of the match may have served it later).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from services.platform.logs import bind_contextvars, get_logger
from services.rules.matchlog import Beat

if TYPE_CHECKING:
    from services.platform.replicas import Replicas

OnExpire = Callable[[str, object], Awaitable[None]]

log = get_logger("rules")

_MIN_WAIT_S = 0.001


_WALL_AT_START_NS = time.time_ns()
_MONOTONIC_AT_START_NS = time.monotonic_ns()


def wall_now_ms() -> int:
    """Unix time in milliseconds as this process keeps it: the wall clock read once, when
    the process started, moved on by the monotonic clock. The clocks' times are stored as
    Unix ms (they outlive the process), but a turn clock runs on the seconds that pass: a
    step of the system clock while the process runs (NTP correcting a wrong clock, an
    operator setting it) neither times a seat out early (a step forward) nor gives it the
    step as free time (a step back). The monotonic clock stands still while the machine is
    suspended, as the service does. A stepped clock is taken at the next start, where the
    heartbeat's pause (``Clocks.resume``) is counted in each process's own times."""
    return (_WALL_AT_START_NS + time.monotonic_ns() - _MONOTONIC_AT_START_NS) // 1_000_000


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


# -- heartbeat -----------------------------------------------------------------------

SINGLE = "single"
"""The serving place (and replica list) of a rules service that runs alone."""
NEVER_MS = 1 << 62
"""``until_ms`` of a process that does not beat: it may have served until any time."""
MARGIN_INTERVALS = 2
"""A running process may have served until this many intervals after its last beat."""


class BeatStore(Protocol):
    def heartbeats(self) -> list[Beat]: ...

    def beat(self, beat: Beat) -> None: ...


def replica_slot(replicas: Replicas | None) -> tuple[str, str]:
    """``(slot, replica list)`` of this process: ``single`` for a lone rules service; for a
    replica its list's fingerprint and ordinal, the place that owns its matches
    (services/platform/replicas.py), so its predecessor there served the same matches."""
    if replicas is None:
        return SINGLE, SINGLE
    return f"{replicas.fingerprint}/{replicas.me}", replicas.fingerprint


def served_until(beats: Iterable[Beat], slot: str, replicas: str) -> tuple[int | None, str]:
    """The latest time the previous process of ``slot`` may have served its matches, read
    before this process beats, with the basis; ``(None, reason)`` when it is not known for
    sure (then a take-up credits the grace alone):

    - no row for the slot: a first start, a new replica list, a store of an earlier release;
    - the row of a process that did not beat (heartbeats off): it may have served any time;
    - a process of another replica list (or a lone service where replicas are now, or the
      other way round) that may have served after it: during a rollout that changed the list
      another process may have owned and served the match later.
    """
    beats = list(beats)
    mine = next((b for b in beats if b.slot == slot), None)
    if mine is None:
        return None, "no heartbeat of a previous process in this place"
    if mine.until_ms >= NEVER_MS:
        return None, "the previous process wrote no heartbeats"
    if any(b.replicas != replicas and b.until_ms > mine.until_ms for b in beats):
        return None, "a process of another replica list may have served after it"
    return mine.until_ms, "stopped" if mine.stopped else "crashed or killed"


class Heartbeat:
    """The beats of one rules process (see the module docstring). ``start`` before the
    process serves anything: it learns ``served_until_ms`` (None: not known for sure, with
    the reason in ``basis``), writes the first beat and beats every ``interval_ms`` on;
    ``stop`` after it stopped serving (the server stopped, the clock scheduler closed)
    writes the last beat. A beat that cannot be written is logged and tried again at the
    next one: the store being down never stops the service. ``interval_ms`` 0: no beats
    and no pause; the row says its process did not beat, so that its successor does not
    credit the time it served either."""

    def __init__(self, store: BeatStore, slot: str = SINGLE, replicas: str = SINGLE,
                 interval_ms: int = 5_000, *, now_ms: Callable[[], int] = wall_now_ms,
                 call_timeout_s: float = 10.0) -> None:
        if interval_ms < 0:
            raise ValueError(f"the heartbeat interval must not be negative (got {interval_ms} ms)")
        self.store, self.slot, self.replicas = store, slot, replicas
        self.interval_ms = interval_ms
        self.now_ms = now_ms
        self.call_timeout_s = call_timeout_s
        self.process = uuid.uuid4().hex
        self.started_ms = now_ms()
        self.served_until_ms: int | None = None
        """The latest time the previous process of this place may have served a match; None
        until ``start`` learnt it for sure."""
        self.basis = "not started"
        self.beats = 0
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    async def start(self) -> None:
        self.started_ms = self.now_ms()
        if self.interval_ms == 0:
            self.basis = "heartbeats off"
        else:
            try:
                beats = await self._call(self.store.heartbeats)
            except Exception as err:
                self.basis = "heartbeats unreadable"
                log.warning("heartbeats unreadable: clocks get the grace alone", slot=self.slot,
                            error=str(err) or type(err).__name__)
            else:
                self.served_until_ms, self.basis = served_until(beats, self.slot, self.replicas)
        await self._beat(stopped=False)
        if self.interval_ms:
            self._task = asyncio.create_task(self._run(), name=f"heartbeat-{self.slot}")
        log.info("heartbeat started", slot=self.slot, interval_ms=self.interval_ms,
                 previous_served_until_ms=self.served_until_ms, basis=self.basis)

    async def stop(self) -> None:
        """The last beat, once this process serves no match any more."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
            await self._beat(stopped=True)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_ms / 1000)
            await self._beat(stopped=False)

    async def _beat(self, *, stopped: bool) -> None:
        now = self.now_ms()
        if not self.interval_ms:
            until = NEVER_MS
        else:
            until = now if stopped else now + MARGIN_INTERVALS * self.interval_ms
        beat = Beat(self.slot, self.replicas, self.process, self.started_ms, now, until, stopped)
        try:
            await self._call(self.store.beat, beat)
        except Exception as err:
            if not self._failing:
                log.warning("heartbeat not written", slot=self.slot,
                            error=str(err) or type(err).__name__)
            self._failing = True
            return
        if self._failing:
            log.info("heartbeat written again", slot=self.slot)
        self._failing = False
        self.beats += 1

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        async with asyncio.timeout(self.call_timeout_s):
            return await asyncio.to_thread(fn, *args)
