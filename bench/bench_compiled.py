"""A trial, not a build: the engines' logic compiled with mypyc, against the same code
interpreted, in one run.

Usage: python bench/bench_compiled.py --mypyc /path/to/mypyc [--rounds 3] [--games 5]

Issue 18 asks for ``neon verify`` at 50,000 events/s per core; bench/README.md's
figures say no trim of the Python engines gets there and that it needs "a compiled engine"
or another state design. This measures the first answer with the tools at hand, without
changing how the project is built or installed:

1. ``git archive HEAD`` of this repository (services/, bench/, tests/) into a temporary
   folder;
2. ``mypyc`` compiles ``MODULES`` there (the NEON and Neon Reign rules and encoders, and the
   platform's canonical JSON) into C extensions for this interpreter. The modules left out
   hold the frozen dataclasses the engines copy with ``object.__new__`` (mypyc's native
   classes refuse that, and a dataclass with a ``ClassVar`` fails to build), and
   ``neon_reign/engine.py`` (its ``Owed`` decisions are made the same way);
3. the compiled copy must replay the recorded self-play games to the same steps, state
   hashes and outcomes (``tests/unit/test_selfplay_fixtures.py``), or the trial stops;
4. ``bench_verify.py`` and ``bench_selfplay.py`` run from the compiled copy with
   ``--baseline HEAD``: their "baseline" is the same commit interpreted, their "current"
   the compiled one, interleaved round by round, so the ratios are compiled/interpreted.

mypyc comes from mypy, which the project does not depend on: install it beside, for the
same Python (``python -m venv /tmp/mypyc && /tmp/mypyc/bin/pip install mypy setuptools``).
It refuses to compile a module with a type error, so the listed modules are kept free of
them; mypyc also checks declared types at run time, so an annotation that lies raises
``TypeError`` in the compiled copy where the interpreted code ran on (step 3 catches those
the recorded games reach).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GAMES = ROOT / "services" / "rules" / "games"
LEFT_OUT = {
    "neon": {"__init__", "attack", "content", "ruleset", "state"},
    "neon_reign": {"__init__", "cards", "combos", "content", "engine", "modes", "rulesets",
                   "state"},
}
"""Per game: the modules mypyc cannot compile as they are (module docstring, step 2)."""


def modules() -> list[str]:
    found = [str(p.relative_to(ROOT)) for game, out in LEFT_OUT.items()
             for p in sorted((GAMES / game).glob("*.py")) if p.stem not in out]
    return [*found, "services/platform/canonical.py"]


MODULES = modules()


def copy_of_head(into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD", "services", "bench",
                              "tests", "pyproject.toml"],
                             check=True, capture_output=True).stdout
    tree = into / "compiled"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    print("$", " ".join(args), flush=True)
    done = subprocess.run(args, cwd=cwd, env=env)
    if done.returncode:
        sys.exit(f"bench_compiled: {args[0]} exited with {done.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mypyc", default=shutil.which("mypyc"),
                        help="the mypyc command (from mypy, installed for this Python)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=5, help="exports per game mode")
    args = parser.parse_args()
    if not args.mypyc:
        sys.exit("bench_compiled: no mypyc: pass --mypyc (module docstring says how to get it)")
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "services"],
                           capture_output=True, text=True, check=True).stdout
    if dirty:
        print("note: services/ has uncommitted changes; the trial compares HEAD's code")
    with tempfile.TemporaryDirectory(prefix="neon-compiled-") as tmp:
        tree = copy_of_head(Path(tmp))
        run([args.mypyc, "--ignore-missing-imports", *MODULES], tree)
        built = sorted(tree.glob("services/**/*.so"))
        print(f"compiled {len(built)} extension modules of {len(MODULES)} listed")
        env = {**os.environ, "PYTHONPATH": str(tree), "GIT_DIR": str(ROOT / ".git")}
        run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "tests/unit/test_selfplay_fixtures.py"], tree, env)
        run([sys.executable, "bench/bench_verify.py", "--baseline", "HEAD", "--no-command",
             "--games", str(args.games), "--rounds", str(args.rounds)], tree, env)
        run([sys.executable, "bench/bench_selfplay.py", "--baseline", "HEAD",
             "--rounds", str(args.rounds)], tree, env)


if __name__ == "__main__":
    main()
