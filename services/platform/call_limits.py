"""Call rate limits: how many calls a second one caller may make on one service process (the
kernel interceptor, grpc_kit.py), as a token bucket per caller.

Open streams are limited by number (stream_limits.py); a caller's calls by rate. Without it
one client, buggy or hostile, with one seat token or from one host, could send thousands of
calls (or Play actions) a second and starve every other match of the process.

What counts as one call: a unary call, the opening of a server stream (WatchMatch, ...), and
each message a client sends on a bidirectional stream (each Play message). Health checking
and reflection (``/grpc.*``) never count.

Who the caller is: :func:`stream_limits.caller_of`, as for the streams. A seat token (its
match and seat) or a player token (its player) has ``calls_per_second``; so has each client a
trusted gateway names; a host calling without a token ``anonymous_calls_per_second`` (a
gateway or a NAT carries many people); organiser and service tokens are not limited. Each
bucket holds up to twice its rate (:data:`BURST_SECONDS`), so a caller idle for two seconds
may send that many at once. A rate of 0 is no limit.

A call over its caller's rate is refused RESOURCE_EXHAUSTED before it runs (nothing applied,
nothing recorded), with the reason in words (:meth:`Throttled.reason`) and how long to wait
in trailing metadata :data:`RETRY_AFTER_METADATA` (whole milliseconds).

Memory: a bucket unseen for ``burst / rate`` seconds is full again and is dropped; past
:data:`MAX_CALLERS` buckets in one table the least recently used go first (such a caller
starts again with a full bucket), so a flood of distinct callers (addresses) grows nothing
without bound.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from services.platform.stream_limits import (  # noqa: F401 (the defaults, from here too)
    DEFAULT_ANONYMOUS_CALLS_PER_SECOND,
    DEFAULT_CALLS_PER_SECOND,
    Caller,
)

BURST_SECONDS = 2
"""A bucket holds this many seconds of its rate: the burst of an idle caller."""
MAX_CALLERS = 65_536
"""Buckets one table keeps at most (least recently used out first)."""
RETRY_AFTER_METADATA = "retry-after-ms"
"""The trailing metadata of a refusal: milliseconds until the caller's next call is taken."""

WHO = {
    "seat": "this seat",
    "player": "this player",
    "anonymous": "this address without a token",
    "client": "this client address without a token",
}
"""The words of a refusal for each caller: never the caller's id (a match, a player, a host)."""


def asked_wait_ms(err: Any) -> int | None:
    """The whole milliseconds a refused call's :data:`RETRY_AFTER_METADATA` trailer asks a
    client to wait (``err`` a ``grpc.aio.AioRpcError``); None when it holds no such number."""
    try:
        for key, value in err.trailing_metadata() or ():
            if key == RETRY_AFTER_METADATA:
                wait = int(value)
                return wait if wait >= 0 else None
    except (TypeError, ValueError):
        pass
    return None


class CallBuckets:
    """``rate`` tokens a second for each key, up to ``burst`` held; a call takes one.

    Pure (the clock is given). Cost per :meth:`take`: amortised O(1) whatever the number of
    keys: the buckets are kept in last-use order, so the ones unseen for ``burst / rate``
    seconds (full again: dropped) are at the front, and each take drops those from there,
    stopping at the first bucket used since."""

    __slots__ = ("rate", "burst", "clock", "max_keys", "full_after", "_buckets")

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = MAX_CALLERS) -> None:
        if rate <= 0 or burst < 1 or max_keys < 1:
            raise ValueError("a token bucket needs a rate above 0, a burst of 1 or more and "
                             "room for one key")
        self.rate, self.burst, self.clock, self.max_keys = float(rate), float(burst), clock, max_keys
        self.full_after = self.burst / self.rate
        self._buckets: OrderedDict[Hashable, list[float]] = OrderedDict()
        """key -> [tokens, when counted], least recently used first."""

    def take(self, key: Hashable) -> float:
        """Take a token for ``key``: 0.0 when there was one, else the seconds until there will
        be (nothing taken: a refused call costs the caller nothing more)."""
        now = self.clock()
        buckets = self._buckets
        if buckets:
            first = next(iter(buckets.values()))
            if now - first[1] >= self.full_after:
                self._sweep(now)
        bucket = buckets.get(key)
        if bucket is None:
            buckets[key] = [self.burst - 1.0, now]
            if len(buckets) > self.max_keys:
                buckets.popitem(last=False)
            return 0.0
        buckets.move_to_end(key)
        tokens = bucket[0] + (now - bucket[1]) * self.rate
        if tokens > self.burst:
            tokens = self.burst
        bucket[1] = now
        if tokens >= 1.0 - 1e-9:  # a token due now, give or take the float's rounding
            bucket[0] = max(0.0, tokens - 1.0)
            return 0.0
        bucket[0] = tokens
        return (1.0 - tokens) / self.rate

    def __len__(self) -> int:
        return len(self._buckets)

    def _sweep(self, now: float) -> None:
        buckets, oldest = self._buckets, now - self.full_after
        while buckets:
            key, bucket = next(iter(buckets.items()))
            if bucket[1] > oldest:
                return
            del buckets[key]


@dataclass(frozen=True)
class Throttled:
    """A call refused over its caller's rate."""

    who: str
    """Whose rate (a key of :data:`WHO`)."""
    rate: int
    burst: int
    wait: float
    """Seconds until the caller's next call is taken."""

    @property
    def retry_after_ms(self) -> int:
        return max(1, math.ceil(self.wait * 1000))

    @property
    def limit(self) -> str:
        """The setting's name as the log says it."""
        return "anonymous_calls_per_second" if self.who == "anonymous" else "calls_per_second"

    @property
    def reason(self) -> str:
        return (f"too many calls from {WHO[self.who]}: at most {self.rate} a second "
                f"(burst {self.burst}); try again in {self.retry_after_ms} ms")

    @property
    def trailers(self) -> tuple[tuple[str, str], ...]:
        return ((RETRY_AFTER_METADATA, str(self.retry_after_ms)),)


class CallLimiter:
    """The kernel interceptor's call rates: one :class:`CallBuckets` per kind of caller
    (``calls_per_second`` for tokens and gateway clients, ``anonymous_calls_per_second`` for
    hosts; 0: none), applied to a :class:`Caller`."""

    def __init__(self, calls_per_second: int, anonymous_calls_per_second: int,
                 clock: Callable[[], float] = time.monotonic, max_keys: int = MAX_CALLERS) -> None:
        if calls_per_second < 0 or anonymous_calls_per_second < 0:
            raise ValueError("a call rate must be 0 (no limit) or more")
        self.rates = {"token": calls_per_second, "client": calls_per_second,
                      "anonymous": anonymous_calls_per_second}
        self.tables: dict[str, CallBuckets] = {
            kind: CallBuckets(rate, rate * BURST_SECONDS, clock, max_keys)
            for kind, rate in self.rates.items() if rate > 0}
        self.enabled = bool(self.tables)

    def limits(self, caller: Caller) -> bool:
        """Whether ``caller``'s calls are counted at all."""
        return caller.kind in self.tables

    def take(self, caller: Caller) -> Throttled | None:
        """Count one call of ``caller``: None when it is taken, else why not."""
        table = self.tables.get(caller.kind)
        if table is None:
            return None
        wait = table.take(caller.key)
        if not wait:
            return None
        who = caller.kind if caller.kind != "token" else (
            "seat" if caller.key[0] == "seat" else "player")
        rate = self.rates[caller.kind]
        return Throttled(who, rate, rate * BURST_SECONDS, wait)

    def __len__(self) -> int:
        return sum(len(t) for t in self.tables.values())


class PlayAnswers:
    """How the rules service's Play stream answers a message refused over the rate: as it
    answers a refused action, an ActionResult with the code and the reason, the stream left
    open. Every message after the first (``open``) is answered by exactly one result, in
    order; a refusal is sent after the results of the messages before it."""

    @staticmethod
    def answer(request: Any, reason: str) -> Any:
        """The answer to a refused message, or None (the ``open`` message: the stream ends
        RESOURCE_EXHAUSTED)."""
        from services.genproto.neon.rules.v1 import rules_pb2

        if request.WhichOneof("kind") != "action":
            return None
        return rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
            command_id=request.action.command_id, code="RESOURCE_EXHAUSTED", message=reason))

    @staticmethod
    def is_answer(response: Any) -> bool:
        return bool(response.WhichOneof("kind") == "result")


MESSAGE_ANSWERS: dict[str, Any] = {"/neon.rules.v1.RulesService/Play": PlayAnswers}
"""Bidirectional methods that answer a message refused over the rate in their own terms;
on any other the stream ends RESOURCE_EXHAUSTED."""
