"""bench/bench_verify.py: a short run prints every figure it promises (the long run is a bench
command; its figures are in bench/README.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(240)
def test_bench_verify_prints_both_trees_the_ratio_and_the_engine_floor() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    run = subprocess.run(
        [sys.executable, "bench/bench_verify.py", "--games", "1", "--rounds", "1", "--no-command"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=230,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "FAILED" not in out, out
    for what in ("neon-reign", "neon", "all"):
        for tree in ("baseline", "current"):
            row = re.search(rf"{what}\s+{tree}\s+\d+ files\s+([\d,]+) events: ([\d,]+)", out)
            assert row and int(row.group(1).replace(",", "")) > 0, out
        assert re.search(rf"{what}\s+current/baseline: [\d.]+x", out), out
        for part in ("apply", "apply\\+canonical"):
            floor = re.search(rf"{what}\s+floor, the engines' {part} alone .*: ([\d,]+)"
                              r"(?: \([\d,]+-[\d,]+\))? events/s per core; verify is ([\d.]+)x of it", out)
            assert floor and int(floor.group(1).replace(",", "")) > 0, out
    assert "load average at start" in out and "load average at end" in out
