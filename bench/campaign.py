"""The reliability and security campaign of issue 17, long: one command, one line of figures.

Usage: python bench/campaign.py [--leak-games 10000] [--fuzz-requests 100000]
                                [--fault-cycles 5] [--fault-players 24] [--only leaks,fuzz,faults]
                                [--store postgres|sqlite] [--freeze 10-20] [--pg-stop 3-6]

- leaks: random-bot games of every engine, in-process; every view and every projected record,
  for every seat and the spectator, against the secrets of the encoded state.
- fuzz: hypothesis against a running rules service (Neon Reign) and dice service over gRPC:
  INTERNAL answers, and stored actions against accepted ones.
- faults: every service and NATS as processes, SIGKILLed in turn while matches are played,
  NATS frozen (SIGSTOP for --freeze seconds, then SIGCONT), and the services' PostgreSQL
  cluster (one the campaign starts itself under /tmp, never the machine's shared one)
  stopped for --pg-stop seconds and started again: acknowledged against stored actions,
  exports verified, every result scored once. ``--store sqlite`` (the default when the
  PostgreSQL binaries are missing) leaves the PostgreSQL stop out.

Prints ``requests, kills, outages, games, leaks, lost, doubled`` (and the detail of each part) and
exits 1 when anything was found. The short versions run in CI: tests/e2e/test_campaign.py.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.platform.natsrv import EmbeddedNats  # noqa: E402
from tests.support.campaign import faults, fuzz, leaks  # noqa: E402
from tests.support.pgcluster import binaries  # noqa: E402


def run_leaks(games: int) -> leaks.LeakReport:
    started = time.monotonic()

    def progress(report: leaks.LeakReport) -> None:
        if report.games % 100 == 0:
            print(f"  leaks: {report.games} games, {len(report.leaks)} leaks "
                  f"({time.monotonic() - started:.0f}s)", flush=True)

    report = leaks.run(games, seed=int(time.time()), progress=progress)
    for line in report.leaks[:10]:
        print("  LEAK", line)
    return report


def run_fuzz(requests: int, folder: Path) -> fuzz.FuzzReport:
    nats = EmbeddedNats(folder / "nats").start()
    total = fuzz.FuzzReport()
    try:
        with fuzz.served(folder, nats.url) as (rules, dice, issuer):
            batch = 0
            while total.requests < requests:
                target = fuzz.new_target(rules, dice, issuer)
                report = fuzz.run(target, max(50, min(2000, requests - total.requests)), seed=batch)
                target.close()
                total.requests += report.requests
                total.codes.update(report.codes)
                total.internal += report.internal
                total.accepted += report.accepted
                total.stored_mismatch += report.stored_mismatch
                batch += 1
                print(f"  fuzz: {total.requests} requests, {len(total.internal)} INTERNAL", flush=True)
    finally:
        nats.stop()
    for line in sorted({i.split("(request id")[0] + i.split("<- ")[-1][:120] for i in total.internal})[:10]:
        print("  INTERNAL", line.replace("\n", " "))
    return total


def run_faults(cycles: int, players: int, folder: Path, store: str,
               freeze: tuple[float, float], pg_stop: tuple[float, float]) -> faults.FaultReport:
    campaign = faults.Campaign(folder, store=store, freeze=freeze, pg_stop=pg_stop,
                               seed=int(time.time()))
    campaign.start()
    chosen = faults.FAULTS if store == "postgres" else tuple(
        f for f in faults.FAULTS if f != "postgres")
    print(f"  faults on {store}: {', '.join(chosen)} in turn, {cycles} cycles, "
          f"{players} players", flush=True)
    try:
        report = asyncio.run(campaign.run(players=players, pause=1.5, cycles=cycles,
                                          faults=chosen))
    finally:
        campaign.stop()
    for line in report.log:
        print("   ", line)
    print("  faults:", report.summary(), flush=True)
    for line in (report.unexpected + report.unverified)[:10]:
        print("  FAULT", line)
    return report


def span(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    return float(low), float(high or low)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leak-games", type=int, default=10000, help="bot games per game")
    parser.add_argument("--fuzz-requests", type=int, default=100000)
    parser.add_argument("--fault-cycles", type=int, default=5, help="kills of each service")
    parser.add_argument("--fault-players", type=int, default=24, help="concurrent matches")
    parser.add_argument("--only", default="leaks,fuzz,faults")
    parser.add_argument("--store", choices=("postgres", "sqlite"),
                        default="postgres" if binaries() else "sqlite",
                        help="the fault run's store (postgres: a cluster of its own, stopped mid-run)")
    parser.add_argument("--freeze", type=span, default=(10.0, 20.0),
                        help="seconds NATS is frozen, MIN-MAX")
    parser.add_argument("--pg-stop", type=span, default=(3.0, 6.0),
                        help="seconds PostgreSQL is stopped, MIN-MAX")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    folder = Path(tempfile.mkdtemp(prefix="neon-campaign-"))
    requests = kills = outages = games = leaked = lost = doubled = internal = other = 0
    if "leaks" in parts:
        report = run_leaks(args.leak_games)
        games, leaked = report.games, len(report.leaks)
    if "fuzz" in parts:
        fz = run_fuzz(args.fuzz_requests, folder / "fuzz")
        requests += fz.requests
        internal = len(fz.internal)
        other += len(fz.stored_mismatch)
    if "faults" in parts:
        ft = run_faults(args.fault_cycles, args.fault_players, folder / "faults", args.store,
                        args.freeze, args.pg_stop)
        requests += ft.requests
        kills, outages = sum(ft.kills.values()), sum(ft.outages.values())
        games += ft.matches
        lost, doubled = ft.lost, ft.doubled
        other += len(ft.unexpected) + len(ft.unverified) + (ft.matches - ft.scored)
    print(f"requests {requests}, kills {kills}, outages {outages}, games {games}, leaks {leaked}, lost {lost}, "
          f"doubled {doubled}, INTERNAL {internal}, other findings {other}")
    return 1 if leaked or lost or doubled or internal or other else 0


if __name__ == "__main__":
    sys.exit(main())
