"""services/platform/waiting.py: ``within`` is ``asyncio.wait_for`` (answer, TimeoutError,
nothing awaited once the time is up) that never drops a cancellation of its caller, which
Python 3.11's wait_for did when the answer came in the same loop turn (CPython gh-86296)."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from services.platform.waiting import within


async def test_the_answer_or_timeout_error() -> None:
    event = asyncio.Event()
    with pytest.raises(TimeoutError):
        await within(event.wait(), 0.01)
    event.set()
    assert await within(event.wait(), 5) is True
    assert await within(event.wait(), None) is True
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(0.01, future.set_result, 7)
    assert await within(future, 5) == 7


async def test_no_time_left_is_timeout_error_even_when_an_answer_is_ready() -> None:
    """A watch whose token expired sends nothing more, not even what waits in its queue."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    queue.put_nowait("a match found")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the coroutine never awaited is closed, unsaid
        for timeout in (0, -1.5):
            with pytest.raises(TimeoutError):
                await within(queue.get(), timeout)
        gc.collect()
    assert queue.qsize() == 1
    pending: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        await within(pending, 0)
    assert pending.cancelled()


async def test_a_cancellation_in_the_turn_of_the_answer_is_kept() -> None:
    event, answered = asyncio.Event(), []

    async def waiter() -> None:
        answered.append(await within(event.wait(), 60))

    task = asyncio.create_task(waiter())
    for _ in range(3):
        await asyncio.sleep(0)
    event.set()  # the answer ...
    task.cancel()  # ... and the cancellation, before the task runs again
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled() and answered == []


async def test_a_condition_wait_holds_its_lock_again_after_the_bound_or_a_cancellation() -> None:
    cond = asyncio.Condition()
    async with cond:
        with pytest.raises(TimeoutError):
            await within(cond.wait(), 0.01)
        assert cond.locked()
    assert not cond.locked()

    async def wait() -> None:
        async with cond:
            await within(cond.wait(), 60)

    task = asyncio.create_task(wait())
    for _ in range(3):
        await asyncio.sleep(0)
    async with cond:
        cond.notify_all()  # the answer, under the lock ...
        task.cancel()  # ... and the cancellation
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not cond.locked()
