"""What metrics cost a served call, measured in one process: metrics on against off.

Usage: python bench/bench_metrics.py [--calls 3000] [--rounds 3]

Starts dice and the toy game's rules service in this process (tests/support/toy.py; NATS from
NATS_URL, else the bundled nats-server), creates a match, then times ``--calls`` unary
GetView calls, one at a time, over a real socket, with metrics on (a metrics port set: what
every process paid before metrics were gated, the gRPC interceptor, the rules meter and the
gauge refreshes, plus the idle ``/metrics`` endpoint) and off (no metrics port: none of it),
interleaved in ``--rounds`` rounds. Prints each round, then per side the median and the range
of wall and CPU microseconds per call (client and server share this process, so CPU per call
counts both sides) and the difference, with the load average before and after.

On a shared machine the served figures move by more than the interceptor costs, so the run
goes on with unary echo calls through ``start_server`` (metrics on and off, both servers up,
timed in alternating blocks: ``--echo-rounds`` of ``--echo-calls``), and ends with the
interceptor alone: ``intercept_service`` and the wrapped handler of one unary
call, against a handler that answers at once, 100,000 times (the added work, no socket), and
the rules meter's count of one stored action, each repeated ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc  # noqa: E402

from services.cli.backend import start_backend  # noqa: E402
from services.platform import metrics  # noqa: E402
from services.platform.natsrv import free_port  # noqa: E402
from services.platform.settings import DEFAULT_PORTS, Settings, check_namespace  # noqa: E402
from tests.support import toy  # noqa: E402
from tests.support.client import RulesClient  # noqa: E402


async def one_round(on: bool, calls: int, workdir: Path) -> tuple[float, float]:
    settings = dataclasses.replace(
        Settings(), var_dir=workdir / ("on" if on else "off") / str(time.monotonic_ns()),
        ports={name: 0 for name in DEFAULT_PORTS}, log_level="warning",
        nats_url=os.environ.get("NATS_URL", "nats://127.0.0.1:4222"),
        nats_configured=bool(os.environ.get("NATS_URL")),
        # the caller's namespace (a test run's own, which it deletes at its end), not the
        # default stream, where each round's scoring consumer would stay for 14 days
        namespace=check_namespace(os.environ.get("NEON_NAMESPACE", "").strip()),
        metrics_port=free_port() if on else None)
    backend = await start_backend(settings, games=[], engines={"toy": toy.ENGINE})
    try:
        assert (backend.services["rules-toy"].handle.metrics is not None) is on
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


ECHO = "neon.bench.v1.Echo"


async def echo_rounds(calls: int, rounds: int) -> dict[bool, list[float]]:
    """Unary echo calls through ``start_server`` (the kernel interceptor and, when on, the
    metrics one), one server each way, up together, timed in alternating blocks of ``calls``:
    wall microseconds per call, by side."""
    from services.platform.tokens import TokenIssuer

    issuer = TokenIssuer(b"bench-metrics-secret-0123456789abcdef")
    return await echo_sides(calls, rounds, issuer, {on: {"metrics": on} for on in (True, False)})


async def echo_sides(calls: int, rounds: int, issuer: Any, servers: dict[bool, dict[str, Any]],
                     metadata: Any = (), warmup: int = 500) -> dict[bool, list[float]]:
    """Unary echo calls through two ``start_server`` servers, up together, each started with
    its side's ``servers`` options (True, False), timed in alternating blocks of ``calls``
    after ``warmup`` calls each: wall microseconds per call, by side."""
    from services.platform.grpc_kit import start_server

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    def register(server: Any) -> None:
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            ECHO, {"Say": grpc.unary_unary_rpc_method_handler(echo)})])

    handles = {on: await start_server("127.0.0.1:0", register, [ECHO], issuer, **servers[on])
               for on in (True, False)}
    channels = {on: grpc.aio.insecure_channel(f"127.0.0.1:{h.port}") for on, h in handles.items()}
    say = {on: ch.unary_unary(f"/{ECHO}/Say") for on, ch in channels.items()}
    out: dict[bool, list[float]] = {True: [], False: []}
    try:
        for on in (True, False):  # warm up
            for _ in range(warmup):
                await say[on](b"x" * 64, metadata=metadata)
        for r in range(rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                t0 = time.perf_counter()
                for _ in range(calls):
                    await say[on](b"x" * 64, metadata=metadata)
                out[on].append((time.perf_counter() - t0) / calls * 1e6)
    finally:
        for ch in channels.values():
            await ch.close()
        for h in handles.values():
            await h.stop(0)
    return out


class _Context:
    def code(self) -> None:
        return None


def bare_unary() -> tuple[Any, Any]:
    """An interceptor's inputs for a unary call that does nothing: the call's details
    (GetView, no metadata) and the continuation giving its handler."""
    async def answer(request: Any, context: Any) -> bytes:
        return b""

    handler = grpc.unary_unary_rpc_method_handler(answer)

    class Details:
        method = "/neon.rules.v1.RulesService/GetView"
        invocation_metadata = ()

    async def continuation(d: Any) -> Any:
        return handler

    return Details, continuation


async def micro(n: int = 100_000) -> tuple[float, float]:
    """Microseconds per call: the bare handler, and intercept_service plus the wrapped one."""
    Details, continuation = bare_unary()  # noqa: N806 - a class, as gRPC hands it
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


def meter_micro(n: int = 100_000) -> float:
    """Microseconds the rules meter adds to a commit of one accepted action."""
    meter = metrics.RulesMeter("rules-bench", "bench")
    records = [{"type": "ActionAccepted"}]
    t0 = time.perf_counter()
    for _ in range(n):
        meter.stored(records)
        meter.batch_size(1)
    return (time.perf_counter() - t0) / n * 1e6


def spread(values: list[float], digits: int = 1) -> str:
    """The median and the (min to max) range."""
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f} to {max(values):.{digits}f})")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--echo-calls", type=int, default=2000)
    parser.add_argument("--echo-rounds", type=int, default=10)
    args = parser.parse_args()
    print(f"load average at start: {load()}", flush=True)
    results: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                wall, cpu = await one_round(on, args.calls, Path(tmp))
                results[on].append((wall, cpu))
                print(f"round {r + 1} metrics {'on ' if on else 'off'}: {wall:7.1f} us/call wall,"
                      f" {cpu:7.1f} us/call CPU", flush=True)
    for on in (True, False):
        rs = results[on]
        print(f"metrics {'on ' if on else 'off'}: {spread([w for w, _ in rs])} us wall, "
              f"{spread([c for _, c in rs])} us CPU per call (median, range)")
    med = {on: (statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs))
           for on, rs in results.items()}
    print(f"on - off: {med[True][0] - med[False][0]:+.1f} us wall, "
          f"{med[True][1] - med[False][1]:+.1f} us CPU per call "
          f"({(med[True][0] / med[False][0] - 1) * 100:+.1f}% wall, "
          f"{(med[True][1] / med[False][1] - 1) * 100:+.1f}% CPU)")
    echo = await echo_rounds(args.echo_calls, args.echo_rounds)
    diffs = [on - off for on, off in zip(echo[True], echo[False])]
    print(f"echo through start_server, {args.echo_rounds} rounds of {args.echo_calls} calls: "
          f"metrics on {spread(echo[True])} us, off {spread(echo[False])} us per call; on - off "
          f"(paired by round) {spread(diffs)} us, "
          f"{statistics.median(diffs) / statistics.median(echo[False]) * 100:+.1f}%")
    alone = [await micro() for _ in range(args.rounds)]
    print(f"interceptor alone: {spread([m - b for b, m in alone], 2)} us per unary call "
          f"(bare handler {spread([b for b, _ in alone], 2)} us, with the interceptor "
          f"{spread([m for _, m in alone], 2)} us)")
    print(f"rules meter alone: {spread([meter_micro() for _ in range(args.rounds)], 2)} us per "
          "commit of one action")
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    asyncio.run(main())
