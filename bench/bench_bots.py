"""Rule-based bots against each other: how every mode of every game ends, how long, how fast.

Usage: python bench/bench_bots.py [--games 1000] [--game neon] [--mode coalition]

For each game this build serves and each of its modes, plays ``--games`` games between the
game's rule-based bots (``BOTS["rule"]`` of its package) on the pure engine, in process, with
seeded randomness (``SeededRandomness``), so a run is reproducible. A mode's games cycle through
the seat counts and team layouts its ``ModeInfo`` declares, with the options
``match_options`` gives them. Bots see what a client sees: their seat's view, as JSON.

Prints, per game and mode: how the games ended (``Outcome.reason``, grouped with seat numbers
taken out), their length in
actions (mean, median, max), and games/s and actions/s per core (CPU time of this process,
bots included). Exits 1 when any game raised, a bot's answer was refused, or a game reached
no ending of its own within ``--limit`` actions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.rules.selfplay import ACTION_LIMIT, report, run_mode, targets  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per mode (default 1000)")
    parser.add_argument("--game", help="only this game (default: every game served)")
    parser.add_argument("--mode", help="only this mode")
    parser.add_argument("--limit", type=int, default=ACTION_LIMIT,
                        help=f"actions after which a game counts as unfinished ({ACTION_LIMIT})")
    args = parser.parse_args(argv)
    failed = False
    for game, mode in targets(args.game, args.mode):
        tally = run_mode(game, mode, args.games, args.limit)
        print(report(tally), flush=True)
        failed = failed or bool(tally.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
