"""What the call rate limits (services/platform/call_limits.py) cost a call.

Usage: python bench/bench_call_limits.py [--calls 100000] [--rounds 5] [--echo-calls 2000]

Three figures, each repeated ``--rounds`` times (median and range):

1. the bucket alone: ``CallBuckets.take`` for one caller, for 10,000 callers in turn, and
   for a flood of distinct callers past the table's cap (every take a new bucket, the oldest
   dropped);
2. the kernel interceptor alone, as bench_metrics.py measures it: ``intercept_service`` and
   the wrapped handler of one unary call with a seat token, against a handler that answers
   at once, rates on (a rate so high nothing is refused: every call checks its bucket)
   against off (0: no bucket), no socket;
3. unary echo calls with a seat token over a real socket through ``start_server``, rates on
   and off, both servers up, timed in alternating blocks of ``--echo-calls``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench.bench_metrics import bare_unary, echo_sides  # noqa: E402
from services.platform.call_limits import MAX_CALLERS, CallBuckets  # noqa: E402
from services.platform.grpc_kit import KernelInterceptor, call_metadata  # noqa: E402
from services.platform.stream_limits import StreamLimits  # noqa: E402
from services.platform.tokens import TokenIssuer  # noqa: E402

SECRET = b"bench-call-limits-secret-0123456789abcdef"
ON = StreamLimits(calls_per_second=10**9, anonymous_calls_per_second=10**9)
"""Rates on, so high that nothing is refused: every call takes from its bucket."""
OFF = StreamLimits(calls_per_second=0, anonymous_calls_per_second=0)


def spread(values: list[float], digits: int = 3) -> str:
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f} to {max(values):.{digits}f})")


def buckets_alone(n: int) -> tuple[float, float, float]:
    """Microseconds per take: one key, 10,000 keys in turn, distinct keys past the cap."""
    one = CallBuckets(10**9, 2 * 10**9)
    t0 = time.perf_counter()
    for _ in range(n):
        one.take(("seat", "m", "0"))
    single = (time.perf_counter() - t0) / n * 1e6
    many = CallBuckets(10**9, 2 * 10**9)
    keys = [("seat", f"m{i}", "0") for i in range(10_000)]
    t0 = time.perf_counter()
    for i in range(n):
        many.take(keys[i % 10_000])
    spread_keys = (time.perf_counter() - t0) / n * 1e6
    flood = CallBuckets(10**9, 2 * 10**9, max_keys=MAX_CALLERS)
    hosts = [("peer", f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}") for i in range(n)]
    t0 = time.perf_counter()
    for host in hosts:
        flood.take(host)
    distinct = (time.perf_counter() - t0) / n * 1e6
    assert len(flood) <= MAX_CALLERS
    return single, spread_keys, distinct


class _Context:
    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> Any:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"

    async def abort(self, code: Any, details: str = "", trailing_metadata: Any = ()) -> None:
        raise AssertionError(f"refused: {code} {details}")

    def code(self) -> None:
        return None


async def interceptor_alone(n: int, token: str, on_first: bool) -> tuple[float, float]:
    """Microseconds per unary call through the kernel interceptor: rates on, rates off (in
    that order when ``on_first``, else the other way round; each warmed up first)."""
    Details, continuation = bare_unary()  # noqa: N806 - a class, as gRPC hands it

    context = _Context(call_metadata(token, "bench-request"))
    kernels = {limits is ON: KernelInterceptor(TokenIssuer(SECRET), limits) for limits in (ON, OFF)}
    out: dict[bool, float] = {}
    for on in (True, False):  # warm up
        for _ in range(2000):
            h = await kernels[on].intercept_service(continuation, Details)
            await h.unary_unary(b"", context)
    for on in ((True, False) if on_first else (False, True)):
        kernel = kernels[on]
        assert kernel.calls.enabled is on
        t0 = time.perf_counter()
        for _ in range(n):
            h = await kernel.intercept_service(continuation, Details)
            await h.unary_unary(b"", context)
        out[on] = (time.perf_counter() - t0) / n * 1e6
    return out[True], out[False]


async def echo_rounds(calls: int, rounds: int, token: str) -> dict[bool, list[float]]:
    """Echo through ``start_server`` with the call rates on against off (no metrics)."""
    return await echo_sides(calls, rounds, TokenIssuer(SECRET),
                            {on: {"limits": ON if on else OFF, "metrics": False}
                             for on in (True, False)},
                            call_metadata(token, "bench-request"), warmup=300)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--echo-calls", type=int, default=2000)
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    token = TokenIssuer(SECRET).issue("seat", "bench-match", seat=0)
    alone = [buckets_alone(args.calls) for _ in range(args.rounds)]
    print(f"bucket alone, one caller: {spread([a[0] for a in alone])} us per take")
    print(f"bucket alone, 10,000 callers in turn: {spread([a[1] for a in alone])} us per take")
    print(f"bucket alone, distinct callers past the cap ({MAX_CALLERS:,}): "
          f"{spread([a[2] for a in alone])} us per take")
    micro = [await interceptor_alone(args.calls // 5, token, r % 2 == 0) for r in range(args.rounds)]
    diffs = [on - off for on, off in micro]
    print(f"kernel interceptor alone, unary call with a seat token: rates on "
          f"{spread([m[0] for m in micro], 2)} us, off {spread([m[1] for m in micro], 2)} us; "
          f"on - off {spread(diffs, 2)} us per call")
    echo = await echo_rounds(args.echo_calls, args.rounds, token)
    paired = [on - off for on, off in zip(echo[True], echo[False])]
    print(f"echo through start_server, seat token, {args.rounds} rounds of {args.echo_calls} "
          f"calls: rates on {spread(echo[True], 1)} us, off {spread(echo[False], 1)} us per call; "
          f"on - off (paired by round) {spread(paired, 1)} us, "
          f"{statistics.median(paired) / statistics.median(echo[False]) * 100:+.1f}%")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    asyncio.run(main())
