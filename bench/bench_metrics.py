"""The cost of the gRPC metrics interceptor per call, measured in one process.

Usage: python bench/bench_metrics.py [--calls 3000] [--rounds 3]

Starts dice and the toy game's rules service in this process (tests/support/toy.py; NATS from
NATS_URL, else the bundled nats-server), creates a match, then times ``--calls`` unary
GetView calls, one at a time, over a real socket, with the metrics interceptor in the server
(on) and without it (off), interleaved in ``--rounds`` rounds. Prints each round, then the
medians: wall and CPU microseconds per call (client and server share this process, so CPU
per call counts both sides) and the difference, the interceptor's cost per call.

On a shared machine the served figures move by more than the interceptor costs, so the run
ends with the interceptor alone: ``intercept_service`` and the wrapped handler of one unary
call, against a handler that answers at once, 100,000 times (the added work, no socket).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc  # noqa: E402

from services.cli.backend import start_backend  # noqa: E402
from services.platform import metrics  # noqa: E402
from services.platform.settings import DEFAULT_PORTS, Settings  # noqa: E402
from tests.support import toy  # noqa: E402
from tests.support.client import RulesClient  # noqa: E402


@contextlib.contextmanager
def interceptor(on: bool) -> Iterator[None]:
    """Servers started inside have the metrics interceptor (on) or not (off)."""
    real = grpc.aio.server

    def server(*args: Any, interceptors: Any = None, **kw: Any) -> Any:
        kept = [i for i in interceptors or [] if on or not isinstance(i, metrics.GrpcMetrics)]
        return real(*args, interceptors=kept, **kw)

    grpc.aio.server = server  # type: ignore[assignment]
    try:
        yield
    finally:
        grpc.aio.server = real  # type: ignore[assignment]


async def one_round(on: bool, calls: int, workdir: Path) -> tuple[float, float]:
    settings = dataclasses.replace(
        Settings(), var_dir=workdir / ("on" if on else "off") / str(time.monotonic_ns()),
        ports={name: 0 for name in DEFAULT_PORTS}, log_level="warning",
        nats_url=os.environ.get("NATS_URL", "nats://127.0.0.1:4222"),
        nats_configured=bool(os.environ.get("NATS_URL")))
    with interceptor(on):
        backend = await start_backend(settings, games=[], engines={"toy": toy.ENGINE})
    try:
        client = RulesClient(backend.address("rules-toy"))
        await client.create(backend.organiser_token(), match_id="bench", mode="race", seats=2)
        for _ in range(200):  # warm up
            await client.view("bench")
        wall0, cpu0 = time.perf_counter(), time.process_time()
        for _ in range(calls):
            await client.view("bench")
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        await client.close()
    finally:
        await backend.stop(1)
    return wall / calls * 1e6, cpu / calls * 1e6


class _Context:
    def code(self) -> None:
        return None


async def micro(n: int = 100_000) -> tuple[float, float]:
    """Microseconds per call: the bare handler, and intercept_service plus the wrapped one."""
    async def answer(request: Any, context: Any) -> bytes:
        return b""

    handler = grpc.unary_unary_rpc_method_handler(answer)

    class Details:
        method = "/neon.rules.v1.RulesService/GetView"
        invocation_metadata = ()

    async def continuation(d: Any) -> Any:
        return handler

    meter = metrics.GrpcMetrics(["neon.bench.v1.Bench"])
    context = _Context()
    t0 = time.perf_counter()
    for _ in range(n):
        h = await continuation(Details)
        await h.unary_unary(b"", context)
    bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n):
        h = await meter.intercept_service(continuation, Details)
        await h.unary_unary(b"", context)
    metered = time.perf_counter() - t0
    return bare / n * 1e6, metered / n * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                wall, cpu = await one_round(on, args.calls, Path(tmp))
                results[on].append((wall, cpu))
                print(f"round {r + 1} metrics {'on ' if on else 'off'}: {wall:7.1f} us/call wall,"
                      f" {cpu:7.1f} us/call CPU", flush=True)
    med = {on: (statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs))
           for on, rs in results.items()}
    print(f"median on : {med[True][0]:7.1f} us wall, {med[True][1]:7.1f} us CPU per call")
    print(f"median off: {med[False][0]:7.1f} us wall, {med[False][1]:7.1f} us CPU per call")
    print(f"interceptor: {med[True][0] - med[False][0]:+.1f} us wall, "
          f"{med[True][1] - med[False][1]:+.1f} us CPU per call "
          f"({(med[True][0] / med[False][0] - 1) * 100:+.1f}% wall)")
    alone = [await micro() for _ in range(3)]
    bare = statistics.median(b for b, _ in alone)
    metered = statistics.median(m for _, m in alone)
    print(f"interceptor alone: {metered - bare:.2f} us per unary call "
          f"(bare handler {bare:.2f} us, with the interceptor {metered:.2f} us)")


if __name__ == "__main__":
    asyncio.run(main())
