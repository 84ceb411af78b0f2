"""Draws for live matches from blocks reserved at the dice service.

The dice service hands out raw draw blocks (the first 8 bytes of
``HMAC-SHA256(seed, [domain, stream id, client seeds, n])`` for a range of counters
``n``); the rules host draws from them locally with the one algorithm of
services/platform/draws.py, so an engine never waits on the network. When an engine
runs past the blocks reserved, :class:`NeedBlocks` stops it; the host reserves more and
runs the (pure) engine call again from the same state, with the same counters, so the
retry draws exactly what the first try drew.

Every action still records the draws it used (``DrawRecord``: op, bound, result and
the counters consumed) and ``neon verify`` recomputes each one from the revealed seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from services.platform.draws import BlockStream, NeedBlocks, RecordingRandomness, perform

T = TypeVar("T")
RESERVE = 256
MAX_RESERVE = 4096
MAX_RETRIES = 64


@dataclass
class MatchBlocks:
    """The reserved blocks of one match; ``counter`` is the next block no recorded draw
    has used yet."""

    counter: int = 0
    buffer: BlockStream = field(default_factory=BlockStream)

    def randomness(self) -> RecordingRandomness:
        if not self.buffer.first <= self.counter <= self.buffer.end:
            self.buffer = BlockStream(self.counter)
        self.buffer.counter = self.counter
        return RecordingRandomness(lambda op, n, count: perform(self.buffer, op, n, count))

    def spent(self, rng: RecordingRandomness) -> None:
        """Move the counter past the draws an accepted action used."""
        if rng.records:
            self.counter = rng.records[-1].next
            self.buffer.discard_before(self.counter)


Reserve = Callable[[int, int], Any]
"""``await reserve(first, count) -> list[int]``: words of blocks [first, first + count)."""


async def reserve_ahead(blocks: MatchBlocks, reserve: Reserve, count: int = RESERVE) -> None:
    """Reserve ``count`` blocks from the counter when none past it are held (what the first
    draw would reserve anyway, made before it: StartMatch, whose first reservation fixes the
    session's client seeds, reads them after it)."""
    if blocks.buffer.end <= blocks.counter:
        blocks.buffer = BlockStream(blocks.counter, await reserve(blocks.counter, count))


async def run_with_blocks(blocks: MatchBlocks, reserve: Reserve,
                          call: Callable[[RecordingRandomness], T]) -> tuple[T, RecordingRandomness]:
    """Run a pure engine call with block-backed randomness, reserving blocks as needed."""
    for _ in range(MAX_RETRIES):
        rng = blocks.randomness()
        try:
            return call(rng), rng
        except NeedBlocks as need:
            start = blocks.buffer.end
            # as many as the call has used so far (it runs again from the start; a draw
            # asks for the block at the buffer's end, so ``need.counter - start`` was 0)
            count = min(MAX_RESERVE, max(RESERVE, need.counter - blocks.counter))
            blocks.buffer.add(start, await reserve(start, count))
    raise RuntimeError("the engine kept asking for more draw blocks")
