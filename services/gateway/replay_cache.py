"""Replay answers of finished matches kept in memory, and the computations in flight shared.

A replay from the services (``POST /api/games/<game>/matches/<id>/replay``) costs an export
from the rules service, its verification and a rules step plus a spectator view per event,
and its answer is large; anyone may ask for it, as often as they like. Once a match is
sealed (its MatchSealed, the last record, stored: after any end, abandoned ones included)
its export never changes, so neither does the answer: the answer's bytes are kept, by
(game, match id), within a byte budget, the least recently used dropped first.

What is kept is only what cannot change: :class:`Answer` ``final`` says so (the caller sets
it for a sealed match whose export verified). A match that has ended but whose seal waits (the
dice service did not answer) has an export without its seal, and an answer saying so that
will change: not kept. Errors (a running match, an unknown one, a service that did not answer)
are raised, never kept.

Concurrent requests for a match whose answer is not kept share one computation (one export,
one replay): the first starts it as a task of its own, so that a waiter going away does not
cancel it for the others; its answer or its error goes to every waiter of that moment. With a
budget of 0 nothing is kept, and only requests at the same moment share.

Computations of different matches run at most ``at_once`` at a time, the others waiting their
turn holding nothing (no export asked yet): what is computed is bounded too, not only what is
kept. A per-client limit alone did not bound it: clients from many addresses (an IPv6 /48
holds 65,536 /64s) asking for different finished matches each had an export held and a replay
queued for a worker thread, all at once.

One event loop uses it (not thread-safe).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

Key = tuple[str, str]
"""(game, match id)."""


@dataclass(frozen=True)
class Answer:
    body: bytes
    """The answer as sent: the same bytes whether computed now or kept."""
    final: bool
    """Whether the answer can no longer change (then it may be kept)."""


class ReplayCache:
    def __init__(self, max_bytes: int, at_once: int = 4) -> None:
        self.max_bytes = max_bytes
        """The budget: the kept answers' bytes in all (0: nothing kept)."""
        if at_once < 1:
            raise ValueError("at_once must be at least 1")
        self.at_once = at_once
        """Computations (each an export and a replay) running at once; more wait."""
        self._turns = asyncio.Semaphore(at_once)
        self.bytes = 0
        self._kept: OrderedDict[Key, bytes] = OrderedDict()
        self._computing: dict[Key, asyncio.Task[Answer]] = {}
        self.hits = 0
        """Answers served from memory."""
        self.computed = 0
        """Computations started (each one export and one replay)."""

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: Key) -> bool:
        return key in self._kept

    def kept(self, key: Key) -> bytes | None:
        """The kept answer for ``key`` (now the most recently used), or None."""
        body = self._kept.get(key)
        if body is not None:
            self._kept.move_to_end(key)
            self.hits += 1
        return body

    async def answer(self, key: Key, compute: Callable[[], Awaitable[Answer]]) -> bytes:
        """The answer for ``key``: kept, or the one being computed, or ``compute()``'s (kept
        when final and within the budget). ``compute``'s exceptions are raised to every
        request waiting on it, and not kept."""
        body = self.kept(key)
        if body is not None:
            return body
        task = self._computing.get(key)
        if task is None:
            task = asyncio.create_task(self._compute(key, compute), name=f"replay-{key[0]}")
            self._computing[key] = task
            task.add_done_callback(lambda done: self._done(key, done))
        # shielded: a request cancelled while waiting does not cancel the others' answer
        return (await asyncio.shield(task)).body

    async def _compute(self, key: Key, compute: Callable[[], Awaitable[Answer]]) -> Answer:
        async with self._turns:
            self.computed += 1
            answer = await compute()
        if answer.final:
            self._keep(key, answer.body)
        return answer

    def _done(self, key: Key, task: asyncio.Task[Answer]) -> None:
        if self._computing.get(key) is task:
            del self._computing[key]
        if not task.cancelled():
            task.exception()  # retrieved: every waiter got it; none left may be unawaited

    def _keep(self, key: Key, body: bytes) -> None:
        if len(body) > self.max_bytes:  # a budget of 0 keeps nothing; a huge answer neither
            return
        old = self._kept.pop(key, None)
        if old is not None:
            self.bytes -= len(old)
        self._kept[key] = body
        self.bytes += len(body)
        while self.bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self.bytes -= len(dropped)
