"""services/platform/tasks.py: a held task runs to its end whoever awaited it."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from services.platform.tasks import held_task, outlast, run_to_end

WHO = contextvars.ContextVar("WHO", default="nobody")


async def test_a_cancelled_caller_stops_waiting_and_the_work_runs_to_its_end() -> None:
    held: set[asyncio.Task[str]] = set()
    go_on, finished = asyncio.Event(), []

    async def work() -> str:
        await go_on.wait()
        finished.append("saved")
        return "done"

    caller = asyncio.ensure_future(run_to_end(held, work()))
    await asyncio.sleep(0)
    assert len(held) == 1
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    (task,) = held
    assert not task.done()  # the caller's cancellation did not reach the work
    go_on.set()
    assert await task == "done"
    await asyncio.sleep(0)
    assert finished == ["saved"] and held == set()


async def test_the_answer_and_the_error_reach_a_caller_that_waited() -> None:
    held: set[asyncio.Task[int]] = set()

    async def answer() -> int:
        return 42

    async def fail() -> int:
        raise ValueError("no")

    assert await run_to_end(held, answer()) == 42
    with pytest.raises(ValueError, match="no"):
        await run_to_end(held, fail())
    assert held == set()


async def test_a_held_task_runs_in_the_context_it_is_given() -> None:
    held: set[asyncio.Task[str]] = set()
    WHO.set("caller")

    async def who() -> str:
        return WHO.get()

    assert await held_task(held, who()) == "caller"
    assert await held_task(held, who(), context=contextvars.Context()) == "nobody"


async def test_outlast_keeps_a_cancelled_caller_until_the_work_ends_then_cancels_it() -> None:
    """The caller holds a lock the work runs under: cancelled (even twice), it lets go of the
    lock only after the work's end, and is cancelled then; the work's answer otherwise."""
    held: set[asyncio.Task[str]] = set()
    lock, go_on, order = asyncio.Lock(), asyncio.Event(), []

    async def work() -> str:
        await go_on.wait()
        order.append("work done")
        return "saved"

    async def caller() -> str:
        async with lock:
            try:
                return await outlast(held_task(held, work()))
            finally:
                order.append("lock let go")

    running = asyncio.ensure_future(caller())
    await asyncio.sleep(0)
    running.cancel()
    await asyncio.sleep(0)
    running.cancel()
    await asyncio.sleep(0)
    assert not running.done() and lock.locked() and order == []
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert order == ["work done", "lock let go"] and not lock.locked()

    go_on.clear()
    answered = asyncio.ensure_future(caller())
    await asyncio.sleep(0)
    go_on.set()
    assert await answered == "saved"
