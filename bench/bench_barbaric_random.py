"""Barbaric: thousands of random-bot games, every player count and Solo, with the invariants.

Usage: python bench/bench_barbaric_random.py [--games 1000] [--seats 1,2,3,4,5,6] [--seed 0]

Each game is played on the pure engine by random bots (a random legal answer to the owed
decision, now and then a random standing option, rarely a resignation) with seeded
randomness, through ``tests/unit/barbaric/fuzz.py``: after every action the invariants
(damage 0-6 on each track, at most 6 Minions, one Atomic Core, no two pieces on a space, no
Character in a Minion Nest), the contract (pending decisions with their defaults, standing
options) and the leak checks (no seat sees another's hand or any deck order) must hold.
Seat count 1 is the Solo mode.

Prints per seat count: games, how they ended, rounds (median, max), actions (median, max),
games/s, and the load average at start and end. Exits 1 when any game raised or broke an
invariant (the seed is printed), or reached no ending within the fuzz's action limit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.unit.barbaric.fuzz import ENGINE, play  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per seat count")
    parser.add_argument("--seats", default="1,2,3,4,5,6", help="seat counts (1: Solo)")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    failed = False
    for seats in (int(s) for s in args.seats.split(",")):
        mode = "solo" if seats == 1 else "competitive"
        endings: Counter[str] = Counter()
        rounds, actions = [], []
        start = time.perf_counter()
        for seed in range(args.seed, args.seed + args.games):
            try:
                state = play(mode, seats, seed)
            except Exception:  # report every failing seed, keep going
                failed = True
                print(f"FAILED {mode} {seats} seats, seed {seed}:\n{traceback.format_exc()}")
                continue
            outcome = ENGINE.outcome(state)
            assert outcome is not None
            endings[outcome.reason] += 1
            rounds.append(state.data["round"])
            actions.append(state.data["turn"]["number"])
        spent = time.perf_counter() - start
        if rounds:
            print(
                f"{mode} {seats}: {len(rounds)}/{args.games} games ended, "
                f"rounds median {statistics.median(rounds)} max {max(rounds)}, "
                f"turns median {statistics.median(actions)} max {max(actions)}, "
                f"{len(rounds) / spent:.1f} games/s"
            )
            for reason, n in endings.most_common():
                print(f"    {n:5}  {reason}")
    print(f"load average at end: {os.getloadavg()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
