"""The clock scheduler: one timer per match, fired once, never early, across restarts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from services.rules.clockwork import ClockScheduler, wall_now_ms

T0 = 1_700_000_000_000


class Wall:
    """A wall clock the test moves by hand."""

    def __init__(self, now: int = T0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    async def __call__(self, match_id: str, token: object) -> None:
        self.calls.append((match_id, token))


async def until(condition: Callable[[], bool], timeout: float = 3.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


async def settle() -> None:
    """Long enough for any timer armed for up to ~50 ms to have fired."""
    await asyncio.sleep(0.15)


async def test_fires_once_when_the_deadline_passes() -> None:
    wall, seen = Wall(), Recorder()
    scheduler = ClockScheduler(seen, now_ms=wall)
    scheduler.arm("m1", T0 + 30, token=("v7", 1))
    assert scheduler.armed("m1") == (T0 + 30, ("v7", 1))
    wall.now = T0 + 30
    await until(lambda: bool(seen.calls))
    await settle()
    assert seen.calls == [("m1", ("v7", 1))]
    assert scheduler.armed("m1") is None and len(scheduler) == 0


async def test_never_fires_before_the_wall_clock_reaches_the_deadline() -> None:
    wall, seen = Wall(), Recorder()
    scheduler = ClockScheduler(seen, now_ms=wall)
    scheduler.arm("m1", T0 + 20, token=1)
    await settle()  # the loop timer woke, but the wall clock still says T0
    assert seen.calls == []
    wall.now = T0 + 20
    await until(lambda: bool(seen.calls))
    await settle()
    assert seen.calls == [("m1", 1)]


async def test_cancel_stops_the_timer() -> None:
    wall, seen = Wall(), Recorder()
    scheduler = ClockScheduler(seen, now_ms=wall)
    scheduler.arm("m1", T0 + 10, token=1)
    scheduler.arm("m2", T0 + 10, token=2)
    scheduler.cancel("m1")
    scheduler.cancel("unknown")
    wall.now = T0 + 10
    await until(lambda: bool(seen.calls))
    await settle()
    assert seen.calls == [("m2", 2)]


@pytest.mark.parametrize("second_deadline", [T0 + 5, T0 + 40])
async def test_rearming_replaces_the_timer(second_deadline: int) -> None:
    wall, seen = Wall(), Recorder()
    scheduler = ClockScheduler(seen, now_ms=wall)
    scheduler.arm("m1", T0 + 20, token="first")
    scheduler.arm("m1", second_deadline, token="second")
    assert len(scheduler) == 1
    wall.now = T0 + 40
    await until(lambda: bool(seen.calls))
    await settle()
    assert seen.calls == [("m1", "second")]


async def test_deadlines_past_at_restart_fire_at_once_and_once() -> None:
    wall, seen = Wall(T0 + 60_000), Recorder()
    scheduler = ClockScheduler(seen, now_ms=wall)
    scheduler.rearm_all([("a", T0, "a1"), ("b", T0 + 59_999, "b1"), ("c", T0 + 120_000, "c1")])
    await until(lambda: len(seen.calls) >= 2, timeout=1.0)
    await settle()
    assert sorted(seen.calls) == [("a", "a1"), ("b", "b1")]
    assert scheduler.armed("c") == (T0 + 120_000, "c1")


async def test_a_callback_may_arm_the_next_deadline_of_its_match() -> None:
    wall = Wall()
    calls: list[object] = []

    async def on_expire(match_id: str, token: object) -> None:
        calls.append(token)
        if token == 1:
            scheduler.arm(match_id, T0 + 10, token=2)

    scheduler = ClockScheduler(on_expire, now_ms=wall)
    scheduler.arm("m1", T0, token=1)
    wall.now = T0 + 10
    await until(lambda: len(calls) >= 2)
    await settle()
    assert calls == [1, 2]


async def test_a_failing_callback_is_logged_and_the_scheduler_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from services.platform import logs

    logs.configure("info")  # to stderr, whatever an earlier test (the CLI's log file) set
    wall = Wall(T0 + 1)
    done: list[str] = []

    async def on_expire(match_id: str, token: object) -> None:
        if match_id == "bad":
            raise RuntimeError("engine exploded")
        done.append(match_id)

    scheduler = ClockScheduler(on_expire, now_ms=wall)
    scheduler.arm("bad", T0, token=None)
    scheduler.arm("good", T0, token=None)
    await until(lambda: done == ["good"])
    scheduler.arm("later", T0 + 1, token=None)
    await until(lambda: done == ["good", "later"])
    err = capsys.readouterr().err
    assert "clock expiry failed" in err and "engine exploded" in err and '"bad"' in err


async def test_close_cancels_timers_waits_for_running_expiries_and_refuses_new_ones() -> None:
    wall = Wall()
    started, finished = asyncio.Event(), []

    async def on_expire(match_id: str, token: object) -> None:
        started.set()
        await asyncio.sleep(0.05)
        finished.append(match_id)

    scheduler = ClockScheduler(on_expire, now_ms=wall)
    scheduler.arm("running", T0, token=None)
    scheduler.arm("waiting", T0 + 10_000, token=None)
    await asyncio.wait_for(started.wait(), 3)
    await scheduler.close()
    assert finished == ["running"]
    scheduler.arm("after", T0, token=None)
    wall.now = T0 + 20_000
    await settle()
    assert finished == ["running"] and len(scheduler) == 0


def test_the_hosts_clock_is_unix_time_that_a_step_of_the_system_clock_does_not_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``wall_now_ms``: Unix ms that run with the monotonic clock, not with the system
    clock, which may be stepped (the served clocks, tests/integration/test_clock_review_fixes.py)."""
    real_time_ns, real_monotonic_ns = time.time_ns, time.monotonic_ns
    before = wall_now_ms()
    assert abs(before - real_time_ns() // 1_000_000) < 1_000
    monkeypatch.setattr(time, "time_ns", lambda: real_time_ns() - 3_600 * 10**9)
    assert 0 <= wall_now_ms() - before < 1_000, "stepped back with the system clock"
    monkeypatch.setattr(time, "time_ns", lambda: real_time_ns() + 3_600 * 10**9)
    assert 0 <= wall_now_ms() - before < 1_000, "stepped forward with the system clock"
    monkeypatch.setattr(time, "monotonic_ns", lambda: real_monotonic_ns() + 5_000 * 10**6)
    assert 5_000 <= wall_now_ms() - before < 6_000, "5 s passed"
