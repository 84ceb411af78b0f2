"""Thousands of random-bot games of Neon Knights: 2086 on the pure engine (issue 12).

Usage: python bench/fuzz_neon_knights.py [--games 100] [--seats 2,3,4,5,6] [--modes ...]
                                         [--leaks-every 10]

``--games`` games per mode and player count, with the checks of
tests/unit/neon_knights/test_fuzz.py after every action: the invariants (armour 1..Max AP,
speed 2-10, chips 0-60, fans within the track, reputation, slots, no implant equipped twice),
every default among its decision's legal answers, standing options for every seat, pure
``pending``/``standing``/``view``, and, every ``--leaks-every``-th game, that no view or event
shows a viewer another seat's Fan Bets, hand of parts or implants, or any deck order.
Options alternate: hidden starting speeds on odd seeds, the house rule on every third.
Exits 1 if any game fails, naming its mode, seats and seed. (The suite plays 30 of these.)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.unit.neon_knights.test_fuzz import MODES, play  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per mode and player count")
    parser.add_argument("--seats", default="2,3,4,5,6")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--leaks-every", type=int, default=10, help="check leaks every n-th game (0: never)"
    )
    parser.add_argument("--first-seed", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    failures, total, actions = [], 0, 0
    started = time.perf_counter()
    for mode in args.modes.split(","):
        for seats in (int(s) for s in args.seats.split(",")):
            t = time.perf_counter()
            n = 0
            for g in range(args.games):
                seed = args.first_seed + g
                leaks = bool(args.leaks_every) and g % args.leaks_every == 0
                try:
                    steps, _ = play(
                        mode,
                        seats,
                        seed,
                        leaks=leaks,
                        hidden_speeds=seed % 2 == 1,
                        house=seed % 3 == 0,
                    )
                    n += steps
                except Exception:  # noqa: BLE001 - a benchmark reports every failure
                    failures.append((mode, seats, seed, traceback.format_exc(limit=3)))
                total += 1
            actions += n
            print(
                f"{mode:>14} {seats} seats: {args.games} games, {n} actions, "
                f"{time.perf_counter() - t:.1f} s",
                flush=True,
            )
    elapsed = time.perf_counter() - started
    print(
        f"{total} games, {actions} actions in {elapsed:.0f} s, {len(failures)} failed; "
        f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    for mode, seats, seed, trace in failures[:5]:
        print(f"FAILED {mode} {seats} seats seed {seed}:\n{trace}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
