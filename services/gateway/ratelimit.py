"""Per-client token buckets: how many calls one client address may make, at a steady rate
with bursts, before it is answered ``resource_exhausted`` (HTTP 429, ``Retry-After``)."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

MAX_CLIENTS = 100_000
"""Buckets kept at most; past it the least recently used go first (such a client starts
again with a full bucket: memory stays bounded whatever the number of addresses)."""


class TokenBuckets:
    """``rate`` tokens a second for each key, up to ``burst`` held; a call takes one.

    Pure (the clock is given): a key unseen, or unseen for ``burst / rate`` seconds, has a
    full bucket, so such a bucket is dropped rather than kept.

    Cost: amortised O(1) per :meth:`take`, whatever the number of keys. The buckets are kept
    in last-use order, so the ones unseen for ``burst / rate`` seconds are at the front: each
    take drops them from there and stops at the first bucket used since. A bucket is
    dropped at most once per time it is stored."""

    def __init__(
        self,
        rate: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs a rate above 0 and a burst of 1 or more")
        self.rate, self.burst, self.clock = rate, burst, clock
        self.max_clients = max_clients
        self.full_after = burst / rate
        """Seconds after which any bucket, however empty, has filled up again."""
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()
        """key -> (tokens, when counted), least recently used first."""

    def take(self, key: Hashable) -> float:
        """Take a token for ``key``: 0.0 when one was there, else the seconds until one
        will be (nothing taken)."""
        now = self.clock()
        self._sweep(now)
        tokens, then = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens >= 1.0:
            tokens -= 1.0
            wait = 0.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)

    def _sweep(self, now: float) -> None:
        """Drop the buckets unseen for ``burst / rate`` seconds (full again, whatever they
        held), from the least recently used, up to the first one seen since."""
        buckets, oldest = self._buckets, now - self.full_after
        while buckets:
            key = next(iter(buckets))
            if buckets[key][1] > oldest:
                return
            del buckets[key]


def retry_after(wait: float) -> str:
    """``Retry-After``'s value for a wait: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
