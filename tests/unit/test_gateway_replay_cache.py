"""The gateway's replay cache on its own (services/gateway/replay_cache.py): least recently
used out first, a hit counts as a use, errors shared by the requests of their moment and not
kept, a request that goes away does not cancel the others' computation.
tests/integration/test_gateway_replay_cache.py drives it through the gateway."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.replay_cache import Answer, ReplayCache


def answer(body: bytes, final: bool = True) -> Answer:
    return Answer(body, final)


async def computed(body: bytes, final: bool = True) -> Answer:
    return answer(body, final)


async def test_least_recently_used_out_first_a_hit_is_a_use() -> None:
    cache = ReplayCache(max_bytes=20)
    for key in ("a", "b"):
        assert await cache.answer(("g", key), lambda k=key: computed(k.encode() * 10)) == \
            key.encode() * 10
    assert await cache.answer(("g", "a"), lambda: computed(b"not asked")) == b"a" * 10  # a hit
    await cache.answer(("g", "c"), lambda: computed(b"c" * 10))  # b, the least recent, goes
    assert ("g", "a") in cache and ("g", "b") not in cache and ("g", "c") in cache
    assert cache.bytes == 20 and cache.hits == 1 and cache.computed == 3


async def test_only_final_answers_within_the_budget_are_kept() -> None:
    cache = ReplayCache(max_bytes=10)
    await cache.answer(("g", "m"), lambda: computed(b"x", final=False))
    await cache.answer(("g", "big"), lambda: computed(b"y" * 11))
    assert len(cache) == 0 and cache.bytes == 0
    off = ReplayCache(max_bytes=0)
    await off.answer(("g", "m"), lambda: computed(b"z"))
    assert len(off) == 0


async def test_an_error_goes_to_the_requests_of_its_moment_and_is_not_kept() -> None:
    cache = ReplayCache(max_bytes=100)
    gate = asyncio.Event()
    calls = []

    async def failing() -> Answer:
        calls.append(1)
        await gate.wait()
        raise LookupError("no such match")

    waiting = [asyncio.create_task(cache.answer(("g", "m"), failing)) for _ in range(3)]
    await asyncio.sleep(0)
    gate.set()
    for task in waiting:
        with pytest.raises(LookupError):
            await task
    assert calls == [1]
    assert await cache.answer(("g", "m"), lambda: computed(b"now")) == b"now"  # asked again


async def test_a_request_that_goes_away_does_not_cancel_the_others() -> None:
    cache = ReplayCache(max_bytes=100)
    gate = asyncio.Event()

    async def slow() -> Answer:
        await gate.wait()
        return answer(b"done")

    first = asyncio.create_task(cache.answer(("g", "m"), slow))
    second = asyncio.create_task(cache.answer(("g", "m"), slow))
    await asyncio.sleep(0)
    first.cancel()
    gate.set()
    assert await second == b"done"
    assert first.cancelled() and ("g", "m") in cache and cache.computed == 1
