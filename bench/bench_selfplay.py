"""Self-play throughput per core, today's engines against the engines before issue 18.

Usage: python bench/bench_selfplay.py [--rounds 5] [--baseline af9380f] [--bot rule]
       [--plan neon-reign:single:300,neon:rebirth:20]

For each game mode of ``--plan`` (game:mode:games), round after round, alternating the two
code trees, a child process imports ``services.rules.selfplay`` from one tree, plays one
game to warm up (imports, caches), then ``games`` seeded games between the bots
(``run_mode``: the same games in both trees, bots seeing their seat's view as JSON; the
current tree plays each game at the rules version the baseline tree has, which every engine
keeps for old exports, so a later rules change does not change the games compared) and
reports its CPU time (``time.process_time``) and wall time. "baseline" is ``git archive``
of ``--baseline``'s ``services/``; "current" is this worktree. Prints games/s and
actions/s per core (per CPU second), median (min-max) over the rounds, the ratio, whether
both trees played the same games (lengths and endings), and the load average at start and
end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))
from bench_verify import VERSIONS, baseline_tree, run_child  # noqa: E402

from bench.bench_served import fmt_load, spread  # noqa: E402

CHILD = r"""
import json, sys, time
from services.rules import selfplay
from services.rules.selfplay import run_mode
game, mode, games, bot = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
version = sys.argv[5] if len(sys.argv) > 5 else ""
plain_bot = len(sys.argv) > 6 and sys.argv[6] == "plain-bot"
if version:  # the current tree plays the baseline's rules (kept by for_version): the same games
    from services.rules.verify import engine_at
    latest = selfplay.load_engine
    selfplay.load_engine = lambda g: engine_at(latest(g), version)
if plain_bot:  # and the baseline's NEON rule bot, from before hidden answers were drawn
    try:  # (games/neon/bots.py HIDDEN_DRAWN)
        from services.rules.games.neon import bots as neon_bots
        neon_bots.HIDDEN_DRAWN = False
    except (ImportError, AttributeError):
        pass
run_mode(game, mode, 1, bot=bot)
wall = time.perf_counter()
tally = run_mode(game, mode, games, bot=bot)
print(json.dumps({"cpu": tally.cpu, "wall": time.perf_counter() - wall, "games": tally.games,
                  "actions": sum(tally.lengths), "lengths": tally.lengths,
                  "endings": sorted(tally.endings.items()), "failures": tally.failures[:3]}))
"""

DEFAULT_PLAN = "neon-reign:single:300,neon-reign:solo:300,neon:rebirth:20,neon:battle-royale:10"


def run(tree: Path, game: str, mode: str, games: int, bot: str, version: str = "",
        plain_bot: bool = False) -> dict:
    return run_child(tree, CHILD, game, mode, str(games), bot, version,
                     "plain-bot" if plain_bot else "")


def draws_hidden_answers(tree: Path) -> bool:
    """Whether the tree's NEON rule bot draws its hidden answers (HIDDEN_DRAWN, since
    11c93e9): the current tree plays a baseline's plain bot only when it does not."""
    bots = tree / "services" / "rules" / "games" / "neon" / "bots.py"
    return bots.is_file() and "HIDDEN_DRAWN" in bots.read_text()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default="af9380f")
    parser.add_argument("--bot", default="rule")
    parser.add_argument("--plan", default=DEFAULT_PLAN,
                        help=f"game:mode:games, comma-separated (default {DEFAULT_PLAN})")
    args = parser.parse_args(argv)
    plan = [(g, m, int(n)) for g, m, n in (item.split(":") for item in args.plan.split(","))]
    print(
        f"load average at start: {fmt_load()}  "
        f"({os.cpu_count()} cpus)",
        flush=True,
    )
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": baseline_tree(args.baseline, Path(tmp)), "current": ROOT}
        # the rules version each game has in the baseline tree: the current tree plays those
        # (an engine keeps every earlier version's rules), so both trees play the same games
        # even after a rules change; the games of the current version are pinned by
        # tests/unit/test_selfplay_fixtures.py
        versions = run_child(trees["baseline"], VERSIONS)
        plain_bot = not draws_hidden_answers(trees["baseline"])
        print("rules versions played (the baseline's): "
              + ", ".join(f"{g} {v}" for g, v in versions.items()), flush=True)
        rows: dict[tuple[str, str, str], list[dict]] = {}
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", flush=True)
            for game, mode, games in plan:
                for name, tree in trees.items():
                    rows.setdefault((game, mode, name), []).append(run(
                        tree, game, mode, games, args.bot,
                        versions.get(game, "") if name == "current" else "",
                        plain_bot and name == "current"))
        print(f"\nself-play, {args.bot} bots (per core = per CPU second of the child process)")
        for game, mode, games in plan:
            rates = {}
            for name in trees:
                runs = rows[(game, mode, name)]
                per_core = [run["games"] / run["cpu"] for run in runs]
                actions = [run["actions"] / run["cpu"] for run in runs]
                rates[name] = statistics.median(per_core)
                problems = [f for run in runs for f in run["failures"]]
                failed = failed or bool(problems)
                print(
                    f"  {game:10s} {mode:13s} {name:8s} {games:4d} games: "
                    f"{statistics.median(per_core):,.1f} ({min(per_core):,.1f}-{max(per_core):,.1f}) games/s, "
                    f"{spread(actions)} actions/s per core"
                    + (f"  FAILED {problems[:1]}" if problems else "")
                )
            base, cur = rows[(game, mode, "baseline")][0], rows[(game, mode, "current")][0]
            same = base["lengths"] == cur["lengths"] and base["endings"] == cur["endings"]
            failed = failed or not same
            print(
                f"  {game:10s} {mode:13s} current/baseline {rates['current'] / rates['baseline']:.1f}x; "
                f"same games in both trees: {'yes' if same else 'NO'}"
            )
    print(f"load average at end: {fmt_load()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
