"""The rules host's draws from reserved blocks (services/rules/chance.py)."""

from __future__ import annotations

import asyncio

from services.platform.draws import DrawStream, word
from services.rules.chance import MatchBlocks, run_with_blocks

SEED = bytes(range(32))


def test_a_call_that_needs_many_blocks_reserves_more_each_time_not_256_again() -> None:
    """Each shortfall runs the engine call again from the start: reserving 256 blocks every
    time ran a call of 10,000 blocks 40 times (a round trip and a stored event each), and one
    past 64 * 256 blocks failed. The reservation grows with what the call has used."""
    reserved: list[tuple[int, int]] = []

    async def reserve(first: int, count: int) -> list[int]:
        reserved.append((first, count))
        return [word(SEED, "g/m", [], n) for n in range(first, first + count)]

    blocks = MatchBlocks()
    result, rng = asyncio.run(run_with_blocks(blocks, reserve, lambda r: r.shuffle(range(10_000))))
    assert list(result) == DrawStream(SEED, "g/m").permutation(10_000)  # the same draws
    assert rng.records[0].first == 0
    assert len(reserved) <= 8, reserved
    assert all(count <= 4096 for _, count in reserved)
    assert [first for first, _ in reserved] == [sum(c for _, c in reserved[:i]) for i in range(len(reserved))]
