"""Tasks that run to their end whoever awaited them."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def held_task(held: set[asyncio.Task[T]], work: Coroutine[Any, Any, T], *,
              name: str | None = None,
              context: contextvars.Context | None = None) -> asyncio.Task[T]:
    """``work`` as a task of its own, held in ``held`` until it is done: the event loop keeps
    only weak references to tasks, and what closes or drains the owner finds it there.
    ``context``: the task's Context (None: a copy of the caller's)."""
    task = asyncio.get_running_loop().create_task(work, name=name, context=context)
    held.add(task)
    task.add_done_callback(held.discard)
    return task


async def run_to_end(held: set[asyncio.Task[T]], work: Coroutine[Any, Any, T], *,
                     name: str | None = None,
                     context: contextvars.Context | None = None) -> T:
    """:func:`held_task`, awaited shielded: a caller that is cancelled (its client gave up,
    its deadline passed, its own task was cancelled) stops waiting, and ``work`` runs to its
    end (a save and what must follow it are never cut between them); its answer or error
    otherwise."""
    return await asyncio.shield(held_task(held, work, name=name, context=context))


async def outlast(task: asyncio.Task[T]) -> T:
    """``task``'s answer or error, awaited shielded, like :func:`run_to_end`; but a caller
    cancelled meanwhile does not stop waiting: it waits for the task's end, and only then is
    cancelled in turn, so what it holds (a lock the work runs under) is let go after the work,
    not during it. The task's error is then taken, not raised (it was logged where it
    happened, and the caller has given up)."""
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        while not task.done():
            try:
                await asyncio.wait({task})
            except asyncio.CancelledError:  # cancelled again: still the task's end first
                continue
        if not task.cancelled():
            task.exception()
        raise
