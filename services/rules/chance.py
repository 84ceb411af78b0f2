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

from services.platform.draws import DrawStream, RecordingRandomness, perform

T = TypeVar("T")
RESERVE = 256
MAX_RETRIES = 64


class NeedBlocks(Exception):
    """The engine needs the block at ``counter``, which is not reserved yet."""

    def __init__(self, counter: int) -> None:
        super().__init__(f"draw block {counter} is not reserved")
        self.counter = counter


class _BlockStream(DrawStream):
    """DrawStream whose block words come from a reserved buffer instead of the seed."""

    def __init__(self, blocks: MatchBlocks, counter: int) -> None:
        super().__init__(b"", "", (), counter)
        self._blocks = blocks

    def _next_u64(self) -> int:
        value = self._blocks.word(self.counter)
        self.counter += 1
        return value


@dataclass
class MatchBlocks:
    """The reserved blocks of one match: ``words[i]`` is block ``first + i``.

    ``counter`` is the next block no recorded draw has used yet.
    """

    first: int = 0
    words: list[int] = field(default_factory=list)
    counter: int = 0

    def word(self, counter: int) -> int:
        index = counter - self.first
        if not 0 <= index < len(self.words):
            raise NeedBlocks(counter)
        return self.words[index]

    @property
    def end(self) -> int:
        return self.first + len(self.words)

    def add(self, first: int, words: list[int]) -> None:
        """Keep blocks from the current counter on (older ones are spent)."""
        if first > self.end or not self.words:
            self.first, self.words = first, list(words)
        else:
            self.words = self.words[: first - self.first] + list(words)
        drop = self.counter - self.first
        if drop > 0:
            self.first += drop
            self.words = self.words[drop:]

    def randomness(self) -> RecordingRandomness:
        stream = _BlockStream(self, self.counter)
        return RecordingRandomness(lambda op, n, count: perform(stream, op, n, count))

    def spent(self, rng: RecordingRandomness) -> None:
        """Move the counter past the draws an accepted action used."""
        if rng.records:
            self.counter = rng.records[-1].next


Reserve = Callable[[int, int], Any]
"""``await reserve(first, count) -> list[int]``: words of blocks [first, first + count)."""


async def run_with_blocks(blocks: MatchBlocks, reserve: Reserve,
                          call: Callable[[RecordingRandomness], T]) -> tuple[T, RecordingRandomness]:
    """Run a pure engine call with block-backed randomness, reserving blocks as needed."""
    for _ in range(MAX_RETRIES):
        rng = blocks.randomness()
        try:
            return call(rng), rng
        except NeedBlocks as need:
            want = max(RESERVE, need.counter - blocks.end + RESERVE)
            start = blocks.end if blocks.words and need.counter >= blocks.first else need.counter
            blocks.add(start, await reserve(start, min(want, 4096)))
    raise RuntimeError("the engine kept asking for more draw blocks")
