"""services/platform/tasks.py: a held task runs to its end whoever awaited it."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from services.platform.tasks import held_task, run_to_end

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
