"""A wait bounded in time that never drops a cancellation of its caller.

Python 3.11's ``asyncio.wait_for`` returns the answer of what it awaits when that answer came
in the same loop turn as a cancellation of its caller, and drops the cancellation (CPython
gh-86296; 3.12's wait_for is built on ``asyncio.timeout`` and keeps it). A loop or a stream
waiting in it then went on after its stop: the matchmaking cycle for ever, a match's or a
tournament's watch until its next change, and whatever waited for their end with them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(aw: Awaitable[T], timeout: float | None) -> T:
    """``await aw``, TimeoutError once ``timeout`` seconds have passed (None: no bound): as
    ``asyncio.wait_for``, and at once, ``aw`` not awaited, when ``timeout`` is not above 0
    (a watch whose token expired sends nothing more, even what is ready); but awaited in the
    caller's task (``asyncio.timeout``), so a cancellation of the caller always ends it."""
    if timeout is not None and timeout <= 0:
        if asyncio.isfuture(aw):
            if aw.done():
                return aw.result()
            aw.cancel()
        else:
            close = getattr(aw, "close", None)  # a coroutine never started: no warning
            if close is not None:
                close()
        raise TimeoutError
    async with asyncio.timeout(timeout):
        return await aw
