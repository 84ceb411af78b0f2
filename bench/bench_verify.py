"""`neon verify` throughput, today's code against the code before issue 18, in one run.

Usage: python bench/bench_verify.py [--games 20] [--rounds 5] [--baseline af9380f]

Makes a folder of signed exports of self-play games (``services.rules.selfplay.export_game``:
Neon Reign single, best-of-three, hero-match and solo; NEON rebirth, battle-royale and
coalition; rule-based bots, keyed state hashes, as a deployment writes them), then, round
after round, alternating the two code paths:

- **in process**: a child process imports ``verify_export`` from one code tree, verifies one
  export of each game to warm up (so that "all" does not count importing the second
  engine), then verifies every export of the folder; it reports its CPU time
  (``time.process_time``), wall time and the events checked. "baseline" is the tree of
  ``--baseline`` (``git archive`` of ``services/`` into a temporary folder), i.e. the code
  path before the shortcuts, run from the same exports in the same run; "current" is this
  worktree.
- **floor** (current tree only): the engines' ``setup``/``apply`` alone over the same
  exports' actions and checked draws, parsed before the clock starts, then again with
  ``canonical_state`` of every state: what any replay in this language must run at the
  least, whatever verify around it does. It is the pure-engine baseline of the figures.
- **whole command**: ``neon verify --jobs J FILE...`` over the folder, as a separate process
  of each tree (start-up, imports, parsing, printing included); wall time, and CPU time of
  the command and its worker processes (``RUSAGE_CHILDREN``).

Prints events/s per core (events / CPU s) and per wall second for each, median (min-max)
over the rounds, the ratio current/baseline, and the load average at start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_served import fmt_load, spread  # noqa: E402

PLAN = [
    ("neon-reign", "single"),
    ("neon-reign", "best-of-three"),
    ("neon-reign", "hero-match"),
    ("neon-reign", "solo"),
    ("neon", "rebirth"),
    ("neon", "battle-royale"),
    ("neon", "coalition"),
]

CHILD = r"""
import json, sys, time
from pathlib import Path
start = time.process_time()
from services.rules.verify import verify_export
files = sorted(Path(sys.argv[1]).glob("*.jsonl"))
only = sys.argv[2]
datas = [(f.name, f.read_bytes()) for f in files if only == "all" or f.name.startswith(only + "--")]
for game in sorted({name.split("--")[0] for name, _ in datas}):  # warm up: each game's engine
    verify_export(next(data for name, data in datas if name.startswith(game + "--")))
imported = time.process_time() - start
cpu, wall = time.process_time(), time.perf_counter()
events = 0
failed = []
for name, data in datas:
    report = verify_export(data)
    events += report.events
    if not report.ok:
        failed.append(f"{name}: {report.failure}")
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "events": events, "files": len(datas), "failed": failed, "startup": imported}))
"""

FLOOR = r"""
import gc, json, sys, time
from pathlib import Path
from services.platform.draws import ReplayRandomness
from services.rules import verify as v
from services.rules.games import load_engine
from services.rules.games.contract import canonical_state
from services.rules.replay import config_of
files = sorted(Path(sys.argv[1]).glob("*.jsonl"))
only = sys.argv[2]
prepared = []  # parsed outside the clock: records, each record's draws, the engine
for f in files:
    if only != "all" and not f.name.startswith(only + "--"):
        continue
    records, _, _ = v._parse(f.read_bytes())
    draws = []
    assert v._check_draws(records, v.Report(), draws) is None
    engine = v.engine_at(load_engine(records[0]["game"]), records[0]["engine_version"])
    steps = [(r["type"], r.get("seat"), r.get("action"), d) for r, d in zip(records, draws)]
    prepared.append((engine, config_of(records[0]), steps, len(records)))

def run(hash_states):
    events = 0
    for engine, config, steps, n in prepared:
        state = None
        for kind, seat, action, draws in steps:
            if kind == "MatchStarted":
                state = engine.setup(config, ReplayRandomness(draws))
            elif kind == "ActionAccepted":
                state = engine.apply(state, seat, action, ReplayRandomness(draws)).state
            else:
                continue
            if hash_states:
                canonical_state(engine, state)
        events += n
    return events

run(True)  # warm up
gc.disable()  # as verify_export runs
out = {}
for name, hashing in (("apply", False), ("apply+canonical", True)):
    cpu = time.process_time()
    events = run(hashing)
    out[name] = events / (time.process_time() - cpu)
print(json.dumps(out))
"""


VERSIONS = r"""
import json
from services.rules.games import load_engine
print(json.dumps({g: load_engine(g).engine_version for g in ("neon-reign", "neon")}))
"""


def make_exports(folder: Path, games: int, versions: dict[str, str] | None = None) -> dict[str, int]:
    """Self-play exports; ``versions``: each game's engine version to play (the baseline
    tree's, which cannot replay a newer one; the current tree replays both)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.rules.games import load_engine
    from services.rules.selfplay import export_game, setups

    key = Ed25519PrivateKey.generate()
    counts: dict[str, int] = {}
    for game, mode in PLAN:
        plans = setups(load_engine(game), mode)
        for n in range(games):
            data = export_game(game, mode, plans[n % len(plans)], n, key,
                               version=(versions or {}).get(game))
            (folder / f"{game}--{mode}-{n:03d}.jsonl").write_bytes(data)
            counts[game] = counts.get(game, 0) + data.count(b"\n") - 1
    return counts


def baseline_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "services"], check=True, capture_output=True
    ).stdout
    tree = into / f"baseline-{ref}"
    tree.mkdir()
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def run_child(tree: Path, code: str, *args: str) -> dict:
    """Run ``code`` in a child process importing the code of ``tree``; its last line of
    output is the JSON answer."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def in_process(tree: Path, folder: Path, only: str) -> dict:
    return run_child(tree, CHILD, str(folder), only)


def whole_command(tree: Path, folder: Path, jobs: int) -> dict:
    files = sorted(str(p) for p in folder.glob("*.jsonl"))
    env = {**os.environ, "PYTHONPATH": str(tree), "NEON_VAR_DIR": str(folder.parent / "var")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from services.cli.main import app; app()",
            "verify",
            "--jobs",
            str(jobs),
            *files,
        ],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"neon verify failed ({tree}):\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="exports per game mode (default 20)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default="af9380f", help="git ref of the code before issue 18")
    parser.add_argument("--jobs", type=int, default=0, help="neon verify --jobs (0: one per core)")
    parser.add_argument("--no-command", action="store_true", help="skip the whole-command runs")
    parser.add_argument("--no-floor", action="store_true",
                        help="skip the floor: the current engines alone over the same exports")
    args = parser.parse_args(argv)
    print(
        f"load average at start: {fmt_load()}  "
        f"({os.cpu_count()} cpus)",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "exports"
        folder.mkdir()
        trees = {"baseline": baseline_tree(args.baseline, Path(tmp)), "current": ROOT}
        versions = run_child(trees["baseline"], VERSIONS)
        counts = make_exports(folder, args.games, versions)
        total = len(list(folder.glob("*.jsonl")))
        print(
            f"exports: {total} files, " + ", ".join(f"{g} {n:,} events" for g, n in counts.items())
            + " (engine versions of the baseline: "
            + ", ".join(f"{g} {v}" for g, v in versions.items()) + ")",
            flush=True,
        )
        rows: dict[tuple[str, str], list[dict]] = {}
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", flush=True)
            for what in ("neon-reign", "neon", "all"):
                for name, tree in trees.items():
                    rows.setdefault((what, name), []).append(in_process(tree, folder, what))
                if not args.no_floor:
                    rows.setdefault((what, "floor"), []).append(
                        run_child(ROOT, FLOOR, str(folder), what))
            if not args.no_command:
                for name, tree in trees.items():
                    rows.setdefault(("command", name), []).append(
                        whole_command(tree, folder, args.jobs)
                    )
        print("\nin process (verify_export over the folder; events/s per core = events / CPU s)")
        per_core: dict[tuple[str, str], float] = {}
        for what in ("neon-reign", "neon", "all"):
            for name in trees:
                runs = rows[(what, name)]
                failed = [f for run in runs for f in run["failed"]]
                rates = [run["events"] / run["cpu"] for run in runs]
                walls = [run["events"] / run["wall"] for run in runs]
                per_core[(what, name)] = statistics.median(rates)
                print(
                    f"  {what:10s} {name:8s} {runs[0]['files']:4d} files {runs[0]['events']:7,d} events: "
                    f"{spread(rates)} events/s per core, {spread(walls)} per wall s, "
                    f"start-up {statistics.median(r['startup'] for r in runs):.2f} s CPU"
                    + (f"  FAILED {failed[:2]}" if failed else "")
                )
            print(
                f"  {what:10s} current/baseline: "
                f"{per_core[(what, 'current')] / per_core[(what, 'baseline')]:.1f}x"
            )
            if not args.no_floor:
                floor = rows[(what, "floor")]
                for part in ("apply", "apply+canonical"):
                    rates = [run[part] for run in floor]
                    print(f"  {what:10s} floor, the engines' {part} alone (no parse, chain, "
                          f"draw check, validate or hash): {spread(rates)} events/s per core; "
                          f"verify is {per_core[(what, 'current')] / statistics.median(rates):.2f}x of it")
        if not args.no_command:
            events = sum(counts.values())
            print(
                f"\nwhole command: neon verify --jobs {args.jobs or os.cpu_count()} over {total} files"
            )
            medians = {}
            for name in trees:
                runs = rows[("command", name)]
                medians[name] = statistics.median(events / run["cpu"] for run in runs)
                print(
                    f"  {name:8s} {spread([events / run['cpu'] for run in runs])} events/s per core "
                    f"(CPU of the command and its workers), {spread([events / run['wall'] for run in runs])} "
                    f"events/s wall, {statistics.median(run['wall'] for run in runs):.2f} s wall"
                )
            print(f"  current/baseline (per core): {medians['current'] / medians['baseline']:.1f}x")
    print(f"load average at end: {fmt_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
