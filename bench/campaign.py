"""The reliability and security campaign of issue 17, long: one command, one line of figures.

Usage: python bench/campaign.py [--leak-games 10000] [--fuzz-requests 100000]
                                [--fault-cycles 5] [--fault-players 24] [--only leaks,fuzz,faults]

- leaks: random-bot games of every engine, in-process; every view and every projected record,
  for every seat and the spectator, against the secrets of the encoded state.
- fuzz: hypothesis against a running rules service (Neon Reign) and dice service over gRPC:
  INTERNAL answers, and stored actions against accepted ones.
- faults: every service and NATS as processes, SIGKILLed in turn while matches are played:
  acknowledged against stored actions, exports verified, every result scored once.

Prints ``requests, kills, games, leaks, lost, doubled`` (and the detail of each part) and
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


def run_faults(cycles: int, players: int, folder: Path) -> faults.FaultReport:
    campaign = faults.Campaign(folder)
    campaign.start()
    try:
        report = asyncio.run(campaign.run(players=players, pause=1.5, cycles=cycles))
    finally:
        campaign.stop()
    print("  faults:", report.summary(), flush=True)
    for line in (report.unexpected + report.unverified)[:10]:
        print("  FAULT", line)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leak-games", type=int, default=10000, help="bot games per game")
    parser.add_argument("--fuzz-requests", type=int, default=100000)
    parser.add_argument("--fault-cycles", type=int, default=5, help="kills of each service")
    parser.add_argument("--fault-players", type=int, default=24, help="concurrent matches")
    parser.add_argument("--only", default="leaks,fuzz,faults")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    folder = Path(tempfile.mkdtemp(prefix="neon-campaign-"))
    requests = kills = games = leaked = lost = doubled = internal = other = 0
    if "leaks" in parts:
        report = run_leaks(args.leak_games)
        games, leaked = report.games, len(report.leaks)
    if "fuzz" in parts:
        fz = run_fuzz(args.fuzz_requests, folder / "fuzz")
        requests += fz.requests
        internal = len(fz.internal)
        other += len(fz.stored_mismatch)
    if "faults" in parts:
        ft = run_faults(args.fault_cycles, args.fault_players, folder / "faults")
        requests += ft.requests
        kills = sum(ft.kills.values())
        games += ft.matches
        lost, doubled = ft.lost, ft.doubled
        other += len(ft.unexpected) + len(ft.unverified) + (ft.matches - ft.scored)
    print(f"requests {requests}, kills {kills}, games {games}, leaks {leaked}, lost {lost}, "
          f"doubled {doubled}, INTERNAL {internal}, other findings {other}")
    return 1 if leaked or lost or doubled or internal or other else 0


if __name__ == "__main__":
    sys.exit(main())
