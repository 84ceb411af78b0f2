"""SubmitAction latency over whole served games, from the first action to the last.

Usage: python bench/bench_whole_game.py GAME [--mode MODE] [--seats N] [--games 3]
                                         [--bot rule] [--db sqlite|postgres] [--echo-calls 2000]
                                         [--warmup 1] [--pause 1.0]

Starts NATS, `neon serve dice` and `neon serve rules-GAME` as separate processes (fresh
storage, as bench/bench_served.py does), then plays ``--games`` whole games one after the
other between the game's bots (``--bot``, default the rule-based ``BOTS["rule"]`` of the
game's bots.py) through services/platform/playing.py's ``play_table`` (GetView,
ListLegalActions, SubmitAction with the expected version, as ``neon play`` does). Every
SubmitAction is timed on the client. Prints, in the same run:

- the echo baseline: bare grpc.aio unary echo to a separate process, one call at a time,
  measured before every game (p50 and p99);
- served SubmitAction p50 and p99 over each whole game (median and range over the games),
  as ratios of echo;
- p50 and p99 per tenth of the game (the actions of each game cut into ten equal parts, the
  same tenth of every game pooled), with the last tenth against the first: a served path that
  slowed down as the game grows shows here;
- CPU milliseconds per action of the rules and dice processes and of the client (the figure
  a busy, shared machine disturbs least), against the echo server's CPU per call;
- the load average before and after, and whether p99 is under the target (``--target-ms``,
  default 20).

``--warmup`` whole games (default 1) are played first and not measured (the rules process's
first match fills its caches and connections), and each game is followed by ``--pause``
seconds (default 1) so that sealing and publishing the ended match does not overlap the
first actions of the next.

The exit code is 0 even when the target is missed (a benchmark reports; tests decide).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_served import (  # noqa: E402
    SECRET,
    CpuMeter,
    Sample,
    Stack,
    fmt_load,
    measure_echo,
    start_echo,
)
from services.cli.client import RulesClient  # noqa: E402
from services.cli.play import contract_decision  # noqa: E402
from services.platform.playing import SeatTurn, play_table  # noqa: E402
from services.platform.tokens import BOT_PREFIX, TokenIssuer  # noqa: E402
from services.rules.bots import make_bot  # noqa: E402
from services.rules.games import load_engine  # noqa: E402

TENTHS = 10


class TimedStub:
    """The rules stub with every SubmitAction timed (wall time on the client, in order)."""

    def __init__(self, stub: Any, latencies: list[float]) -> None:
        self._stub, self._latencies = stub, latencies

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._stub, name)
        if name != "SubmitAction":
            return method

        async def timed(request: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            answer = await method(request, **kw)
            self._latencies.append(time.perf_counter() - t)
            return answer

        return timed


async def echo_calls(address: str, calls: int) -> tuple[list[float], float]:
    """``calls`` echo calls one at a time (measure_echo runs for a time; here a count), and
    the echo server's CPU ms per call."""
    sample = Sample()
    cpu = 0.0
    while len(sample.latencies) < calls:
        part = await measure_echo(address, 0.2, 1)
        sample.latencies += part.latencies
        cpu += part.cpu.get("server", 0.0)
    return sample.latencies[:calls], 1000 * cpu / max(1, len(sample.latencies))


async def play_game(
    address: str, game: str, mode: str, seats: int, bot: str, seed: str
) -> tuple[list[float], Any]:
    client = RulesClient(address, timeout=30)
    service = TokenIssuer(SECRET.encode()).issue("service", "*", player="bench", ttl=3600)
    latencies: list[float] = []
    try:
        created = await client.create(
            service,
            mode=mode,
            seats=seats,
            dev_seed=seed,
            players=[f"{BOT_PREFIX}{bot}-{i}" for i in range(seats)],
        )
        tokens = {t.seat: t.token for t in created.seat_tokens}
        bots = {seat: make_bot(bot, f"{seed}:{seat}", game) for seat in tokens}

        def choose(turn: SeatTurn) -> dict[str, Any]:
            decisions = [contract_decision(d) for d in turn.decisions + turn.standing]
            return dict(bots[turn.seat].choose(decisions[0], turn.view))

        outcome = await play_table(
            TimedStub(client.stub, latencies), created.match_id, tokens, choose, command_prefix="b-"
        )
        return latencies, outcome
    finally:
        await client.close()


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def tenths(latencies: list[float]) -> list[list[float]]:
    n = len(latencies)
    return [latencies[k * n // TENTHS : (k + 1) * n // TENTHS] for k in range(TENTHS)]


def run(args: argparse.Namespace) -> int:
    from services.platform import logs

    logs.configure("warning")
    engine = load_engine(args.game)
    modes = engine.modes()
    mode = args.mode or next(iter(modes))
    if mode not in modes:
        sys.exit(f"unknown mode {mode!r}; modes: {', '.join(modes)}")
    seats = args.seats or modes[mode].min_seats
    print(
        f"whole served games: {args.game} {mode}, {seats} seats, {args.bot} bots, {args.games} games "
        f"after {args.warmup} unmeasured, "
        f"{args.db}; engine {engine.engine_version}"
    )
    print(f"load average before: {fmt_load()}  (cpus: {os.cpu_count()})")
    workdir = Path(tempfile.mkdtemp(prefix="bench-whole-"))
    echo_proc, echo_address = start_echo(workdir)
    stack = Stack(args.db, [args.game], workdir).start()
    games: list[list[float]] = []
    echoes: list[list[float]] = []
    cpu: list[dict[str, float]] = []
    echo_cpu: list[float] = []
    started = time.perf_counter()
    try:
        address = stack.address(f"rules-{args.game}")
        for w in range(args.warmup):  # the rules process's first match: caches, connections
            asyncio.run(
                play_game(address, args.game, mode, seats, args.bot, f"{args.seed}-warmup-{w}")
            )
            time.sleep(args.pause)
        for g in range(args.games):
            latencies_echo, per_call = asyncio.run(echo_calls(echo_address, args.echo_calls))
            echoes.append(latencies_echo)
            echo_cpu.append(per_call)
            pids = {"rules": stack.pid(f"rules-{args.game}"), "dice": stack.pid("dice")}
            with CpuMeter(pids) as meter:
                latencies, outcome = asyncio.run(
                    play_game(address, args.game, mode, seats, args.bot, f"{args.seed}-{g}")
                )
            cpu.append({who: 1000 * used / len(latencies) for who, used in meter.used.items()})
            if outcome is None:
                raise RuntimeError("a game did not end")
            games.append(latencies)
            time.sleep(args.pause)  # the ended match is sealed and published before the next
            print(
                f"  game {g + 1}: {len(latencies)} actions, p50 {pct(latencies, 0.5):.2f} ms, "
                f"p99 {pct(latencies, 0.99):.2f} ms, max {max(latencies) * 1000:.2f} ms",
                flush=True,
            )
    finally:
        stack.stop()
        echo_proc.terminate()
        echo_proc.wait(10)
    elapsed = time.perf_counter() - started
    echo50 = [pct(e, 0.5) for e in echoes]
    echo99 = [pct(e, 0.99) for e in echoes]
    p50 = [pct(g, 0.5) for g in games]
    p99 = [pct(g, 0.99) for g in games]
    print(
        f"echo, one call at a time ({args.echo_calls} calls before each game): "
        f"p50 {spread(echo50, 3)} ms, p99 {spread(echo99, 3)} ms"
    )
    print(
        f"SubmitAction over whole games (median (min-max) over {len(games)} games, "
        f"{statistics.median(len(g) for g in games):.0f} actions each):"
    )
    print(
        f"  p50 {spread(p50)} ms = {statistics.median(p50) / statistics.median(echo50):.1f}x echo p50"
    )
    print(
        f"  p99 {spread(p99)} ms = {statistics.median(p99) / statistics.median(echo99):.1f}x echo p99"
    )
    pooled = [sum((tenths(g)[k] for g in games), []) for k in range(TENTHS)]
    print(
        "  per tenth of the game (all games pooled):  "
        + "  ".join(f"{k + 1:>6}" for k in range(TENTHS))
    )
    print(
        "    p50 ms                                   "
        + "  ".join(f"{pct(t, 0.5):6.2f}" for t in pooled)
    )
    print(
        "    p99 ms                                   "
        + "  ".join(f"{pct(t, 0.99):6.2f}" for t in pooled)
    )
    first, last = pooled[0], pooled[-1]
    print(
        f"  last tenth / first tenth: p50 {pct(last, 0.5) / pct(first, 0.5):.2f}x, "
        f"p99 {pct(last, 0.99) / pct(first, 0.99):.2f}x"
    )
    everything = sum(games, [])
    overall = pct(everything, 0.99)
    verdict = "under" if overall < args.target_ms else "OVER"
    print(
        f"  all actions pooled: p50 {pct(everything, 0.5):.2f} ms, p99 {overall:.2f} ms: "
        f"{verdict} the {args.target_ms:g} ms target"
    )
    per = {who: [c[who] for c in cpu] for who in ("client", "rules", "dice")}
    print(
        f"CPU ms per action (median (min-max) over the games; the figure a shared machine "
        f"disturbs least): rules {spread(per['rules'], 3)}, dice {spread(per['dice'], 3)}, "
        f"client {spread(per['client'], 3)}; echo server per call {spread(echo_cpu, 3)}"
    )
    print(f"load average after: {fmt_load()}  ({elapsed:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--mode", default="", help="the game's mode (default: its first)")
    parser.add_argument("--seats", type=int, default=0, help="seats (default: the mode's minimum)")
    parser.add_argument("--games", type=int, default=3, help="whole games, one after the other")
    parser.add_argument("--bot", default="rule", help="the bots at every seat (default: rule)")
    parser.add_argument(
        "--db",
        default="sqlite",
        choices=("sqlite", "postgres"),
        help="the rules service's store (postgres needs DATABASE_URL)",
    )
    parser.add_argument("--echo-calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured whole games played first")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between games")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--target-ms", type=float, default=20.0)
    args = parser.parse_args(argv)
    if args.db == "postgres" and not os.environ.get("DATABASE_URL"):
        parser.error("--db postgres needs DATABASE_URL")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
