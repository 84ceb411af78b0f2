"""The gateway's per-client token buckets (pure: a given clock)."""

from __future__ import annotations

import random

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


def test_a_bucket_unseen_for_burst_over_rate_seconds_is_forgotten_at_the_next_take() -> None:
    """At any take, not once a period: the bucket of ``a`` (last used 1.1 periods ago) goes
    at the take of ``c``, though a sweep ran 0.6 periods before (at ``b``'s take)."""
    clock = Clock()
    buckets = TokenBuckets(rate=1, burst=2, clock=clock)  # full again after 2 s
    buckets.take("a")
    buckets.take("a")  # drained
    clock.now += 1.0
    buckets.take("b")
    clock.now += 1.0  # a: 2 s unseen
    buckets.take("c")
    assert len(buckets) == 2, "a is forgotten: b and c are kept"
    clock.now += 1.2  # b: 2.2 s, c: 1.2 s
    buckets.take("d")
    assert len(buckets) == 2, "b is forgotten: c and d are kept"
    assert buckets.take("a") == 0.0 and buckets.take("a") == 0.0, "a starts full"


def test_fresh_buckets_are_kept_whatever_is_forgotten_before_them() -> None:
    """Stale buckets in front, drained ones behind: the sweep drops the stale ones and
    stops at the first fresh one; the drained clients stay limited."""
    clock = Clock()
    buckets = TokenBuckets(rate=1, burst=3, clock=clock)  # full again after 3 s
    for n in range(1000):
        buckets.take(("old", n))
    clock.now += 2.0
    for n in range(10):
        for _ in range(3):
            buckets.take(("busy", n))  # drained
    clock.now += 1.5  # the old ones: 3.5 s unseen; the busy ones: 1.5 s
    assert buckets.take("new") == 0.0
    assert len(buckets) == 11, "the old forgotten, the busy and the new kept"
    for n in range(10):
        assert buckets.take(("busy", n)) == 0.0  # 1.5 tokens back
        assert buckets.take(("busy", n)) == pytest.approx(0.5), "still limited"


def test_forgetting_never_changes_an_answer() -> None:
    """Against buckets that are never dropped (a model with no sweep), any sequence of
    takes from a few clients, at random times, gets the same answers; the buckets kept are
    exactly those of the keys seen within ``burst / rate`` seconds."""
    rng = random.Random(7)
    for rate, burst in ((1.0, 1), (2.0, 3), (0.5, 5), (10.0, 20)):
        clock = Clock()
        buckets = TokenBuckets(rate=rate, burst=burst, clock=clock)
        model: dict[int, tuple[float, float]] = {}
        seen: dict[int, float] = {}
        for _ in range(3000):
            clock.now += rng.choice((0.0, 0.01, 0.1, 0.5, burst / rate, 3 * burst / rate))
            key = rng.randrange(12)
            tokens, then = model.get(key, (float(burst), clock.now))
            tokens = min(float(burst), tokens + (clock.now - then) * rate)
            expected = 0.0 if tokens >= 1.0 else (1.0 - tokens) / rate
            model[key] = (tokens - 1.0 if tokens >= 1.0 else tokens, clock.now)
            seen[key] = clock.now
            assert buckets.take(key) == pytest.approx(expected, abs=1e-9)
            assert len(buckets) == sum(1 for t in seen.values()
                                       if clock.now - t < burst / rate), (rate, burst)


def test_max_clients_holds_between_sweeps() -> None:
    """Many clients within one period: never more buckets than max_clients, the least
    recently used out first (such a client starts again full)."""
    clock = Clock()
    buckets = TokenBuckets(rate=1, burst=2, clock=clock, max_clients=50)
    for n in range(400):
        clock.now += 0.001
        buckets.take(n)
        buckets.take(n)  # drained
        assert len(buckets) <= 50
    assert len(buckets) == 50
    assert buckets.take(399) > 0, "the most recent kept, still limited"
    assert buckets.take(0) == 0.0, "the least recent went first: full again"


def test_retry_after_is_whole_seconds_at_least_one() -> None:
    assert [retry_after(w) for w in (0.01, 0.5, 1.0, 1.2, 7.9)] == ["1", "1", "1", "2", "8"]


def test_a_bucket_needs_a_rate_and_a_size() -> None:
    for rate, burst in ((0, 1), (1, 0), (-1, 5)):
        with pytest.raises(ValueError):
            TokenBuckets(rate, burst)
