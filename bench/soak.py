"""Soak (issue 17): a long paced load at 80% of the measured maximum, memory and p99 over time.

Usage: python bench/soak.py [--seconds 600] [--measure 15] [--matches 64] [--game neon-reign]
                            [--share 0.8] [--samples 10]

1. Starts NATS, ``neon serve dice`` and ``neon serve rules-<game>`` as separate processes
   (bench/bench_served.py's ``Stack``, SQLite in a fresh var dir);
2. measures the maximum served throughput: ``--matches`` concurrent matches of random bots,
   as fast as they go, for ``--measure`` seconds (bench_served's ``measure_served``);
3. drives a paced load at ``--share`` of that maximum for ``--seconds``, with the same
   number of matches (each a loop of create, then play to the end), and takes ``--samples``
   samples (each a tenth of the run by default; one a minute for 600 s): actions/s,
   SubmitAction p50 and p99, and VmRSS of the rules and dice processes;
4. prints the table and a verdict: memory is flat when each process's RSS grew by at most
   ``MEMORY_BOUND`` between the second sample and the last (the first is warm-up), and p99 is
   stable when the last sample's p99 is at most ``P99_FACTOR`` times the first's.

Exits 1 when the verdict fails. The CI test (tests/e2e/test_soak.py) runs it for ~30 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_served import (  # noqa: E402
    SECRET,
    Sample,
    Seats,
    Stack,
    create,
    fmt_load,
    measure_served,
    rss_kib,
)
from services.cli.client import RulesClient  # noqa: E402
from services.platform.tokens import TokenIssuer  # noqa: E402

MEMORY_BOUND_SHARE = 0.10  # RSS growth, second sample to last, as a share of the second ...
MEMORY_BOUND_MIB = 16.0  # ... or this many MiB, whichever is larger
P99_FACTOR = 2.0  # the last sample's p99 against the first's
WATCHED = ("rules", "dice")


@dataclass
class Window:
    """One sample of the soak: what finished inside it, and the RSS at its end."""

    index: int
    sample: Sample
    rss_kib: dict[str, int]


class Pacer:
    """Hands out action slots at ``rate`` per second; a late caller does not earn a burst."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next = time.perf_counter()

    async def slot(self) -> None:
        now = time.perf_counter()
        self.next = max(self.next + self.interval, now - self.interval)
        if self.next > now:
            await asyncio.sleep(self.next - now)


async def paced(stack: Stack, game: str, matches: int, rate: float, seconds: float,
                samples: int, on_window: object = None) -> list[Window]:
    """``matches`` concurrent matches paced to ``rate`` actions/s for ``seconds``, sampled."""
    client = RulesClient(stack.address(f"rules-{game}"), timeout=30)
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    pacer = Pacer(rate)
    pids = {"rules": stack.pid(f"rules-{game}"), "dice": stack.pid("dice")}
    current = Sample()
    windows: list[Window] = []
    start = time.perf_counter()
    end = start + seconds

    async def worker(w: int) -> None:
        m = 0
        while time.perf_counter() < end:
            match_id, tokens = await create(client, organiser, game, f"soak-{w}-{m}")
            seats = Seats(client, match_id, tokens, f"soak-{w}-{m}", Sample(), "answer")
            while not seats.over and time.perf_counter() < end:
                await pacer.slot()
                seats.sample = step = Sample()
                await seats.step()
                # counted in the window in which the action finished
                current.actions += step.actions
                current.calls += step.calls
                current.latencies += step.latencies
            m += 1

    async def sampler() -> None:
        nonlocal current
        width = seconds / samples
        for i in range(samples):
            await asyncio.sleep(max(0.0, start + (i + 1) * width - time.perf_counter()))
            done, current = current, Sample()
            done.elapsed = width
            window = Window(i + 1, done, {name: rss_kib(pid) for name, pid in pids.items()})
            windows.append(window)
            if callable(on_window):
                on_window(window)

    await asyncio.gather(sampler(), *(worker(w) for w in range(matches)))
    await client.close()
    return windows


def row(window: Window, width: float) -> str:
    s = window.sample
    return (f"  {window.index:>6} {window.index * width:>7.0f} {s.rate:>10,.0f} "
            f"{1000 * s.percentile(0.5):>8.1f} {1000 * s.percentile(0.99):>8.1f} "
            f"{window.rss_kib['rules'] / 1024:>12.1f} {window.rss_kib['dice'] / 1024:>11.1f}")


def verdict(windows: list[Window], target: float) -> tuple[bool, list[str]]:
    """Flat memory (second sample to last) and a stable p99 (last against first)."""
    lines, ok = [], True
    second, last = windows[min(1, len(windows) - 1)], windows[-1]
    for name in WATCHED:
        before, after = second.rss_kib[name] / 1024, last.rss_kib[name] / 1024
        bound = max(MEMORY_BOUND_MIB, MEMORY_BOUND_SHARE * before)
        flat = after - before <= bound
        ok &= flat
        lines.append(f"memory {name}: {before:.1f} -> {after:.1f} MiB (sample {second.index} to "
                     f"{last.index}), growth {after - before:+.1f} MiB, bound {bound:.1f} MiB: "
                     f"{'flat' if flat else 'GROWING'}")
        if not flat:  # a bounded cache filling up levels off; a leak does not
            tail = windows[-max(2, len(windows) // 3):]
            late = (tail[-1].rss_kib[name] - tail[0].rss_kib[name]) / 1024
            lines.append(f"  (not in the verdict) {name} over samples {tail[0].index} to "
                         f"{tail[-1].index}: {late:+.1f} MiB")
    first_p99, last_p99 = windows[0].sample.percentile(0.99), last.sample.percentile(0.99)
    stable = last_p99 <= P99_FACTOR * first_p99
    ok &= stable
    lines.append(f"p99: first {1000 * first_p99:.1f} ms, last {1000 * last_p99:.1f} ms, "
                 f"{last_p99 / first_p99:.2f}x, bound {P99_FACTOR:.1f}x: "
                 f"{'stable' if stable else 'UNSTABLE'}")
    achieved = sum(w.sample.actions for w in windows) / sum(w.sample.elapsed for w in windows)
    lines.append(f"load held: {achieved:,.0f} of {target:,.0f} actions/s target "
                 f"({100 * achieved / target:.0f}%)")
    lines.append(f"verdict: {'PASS' if ok else 'FAIL'}")
    return ok, lines


def run(args: argparse.Namespace) -> bool:
    from services.platform import logs

    logs.configure("error")
    print(f"load average at start: {fmt_load()}  ({os.cpu_count()} cpus)", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    stack = Stack("sqlite", [args.game], workdir).start()
    try:
        top = asyncio.run(measure_served(stack, args.game, args.matches, "answer", args.measure))
        target = args.share * top.rate
        print(f"maximum: {top.rate:,.0f} actions/s ({args.game}, {args.matches} matches, "
              f"{args.measure:.0f} s, p50 {1000 * top.percentile(0.5):.1f} ms, "
              f"p99 {1000 * top.percentile(0.99):.1f} ms)", flush=True)
        print(f"soak: {args.seconds:.0f} s at {100 * args.share:.0f}% = {target:,.0f} actions/s, "
              f"{args.samples} samples of {args.seconds / args.samples:.0f} s", flush=True)
        width = args.seconds / args.samples
        print(f"  {'sample':>6} {'at s':>7} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'rules MiB':>12} {'dice MiB':>11}", flush=True)
        windows = asyncio.run(paced(stack, args.game, args.matches, target, args.seconds,
                                    args.samples, lambda w: print(row(w, width), flush=True)))
    finally:
        stack.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    ok, lines = verdict(windows, target)
    for line in lines:
        print(line)
    print(f"load average at end: {fmt_load()}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="length of the paced load")
    parser.add_argument("--measure", type=float, default=15.0, help="length of the maximum run")
    parser.add_argument("--matches", type=int, default=64, help="concurrent matches")
    parser.add_argument("--game", default="neon-reign")
    parser.add_argument("--share", type=float, default=0.8, help="of the measured maximum")
    parser.add_argument("--samples", type=int, default=10, help="samples over the run")
    args = parser.parse_args(argv)
    if args.samples < 2:
        parser.error("--samples needs at least 2 (the first is warm-up)")
    return 0 if run(args) else 1


if __name__ == "__main__":
    sys.exit(main())
