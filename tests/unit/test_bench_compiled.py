"""bench/bench_compiled.py compiles only where mypyc is (the suite has none): these keep its
module list from rotting as modules are renamed, and its refusal without mypyc clear."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_compiled  # noqa: E402


def test_every_listed_and_left_out_module_exists() -> None:
    assert bench_compiled.MODULES, "nothing to compile"
    for path in bench_compiled.MODULES:
        assert (ROOT / path).is_file(), path
    for game, out in bench_compiled.LEFT_OUT.items():
        for stem in out:
            assert (bench_compiled.GAMES / game / f"{stem}.py").is_file(), (game, stem)
    # the engines' state modules stay interpreted (module docstring, step 2)
    assert not any(p.endswith(("/state.py", "/attack.py")) for p in bench_compiled.MODULES)
    assert "services/rules/games/neon/engine.py" in bench_compiled.MODULES


def test_without_mypyc_it_says_how_to_get_it() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_compiled.py"),
                           "--mypyc", ""], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "no mypyc" in done.stderr
