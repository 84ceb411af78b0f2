"""The gateway's per-client token buckets (pure: a given clock)."""

from __future__ import annotations

import pytest

from services.gateway.ratelimit import TokenBuckets, retry_after


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(rate=2, burst=3, clock=clock)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("a") == pytest.approx(0.5), "a refused call takes nothing"
    assert buckets.take("b") == 0.0, "each key has its own bucket"
    clock.now += 0.5
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(0.5)
    clock.now += 60
    assert [buckets.take("a") for _ in range(4)][-1] > 0, "refilled to the burst, no more"


def test_full_buckets_are_dropped_and_memory_is_bounded() -> None:
    clock = Clock()
    buckets = TokenBuckets(rate=1, burst=2, clock=clock, max_clients=100)
    for n in range(500):
        buckets.take(n)
    assert len(buckets) == 100, "least recently used out past max_clients"
    clock.now += 2.0  # every bucket full again: dropped at the next sweep
    buckets.take("x")
    assert len(buckets) == 1


def test_retry_after_is_whole_seconds_at_least_one() -> None:
    assert [retry_after(w) for w in (0.01, 0.5, 1.0, 1.2, 7.9)] == ["1", "1", "1", "2", "8"]


def test_a_bucket_needs_a_rate_and_a_size() -> None:
    for rate, burst in ((0, 1), (1, 0), (-1, 5)):
        with pytest.raises(ValueError):
            TokenBuckets(rate, burst)
