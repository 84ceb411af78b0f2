"""bench/bench_whole_game.py plays a whole served game and prints every figure it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(120)
def test_bench_whole_game_prints_whole_game_and_per_tenth_figures() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    run = subprocess.run(
        [
            sys.executable,
            "bench/bench_whole_game.py",
            "neon-knights-2086",
            "--games",
            "1",
            "--warmup",
            "0",
            "--pause",
            "0",
            "--echo-calls",
            "100",
            "--seats",
            "2",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    game = re.search(r"game 1: (\d+) actions, p50 ([\d.]+) ms, p99 ([\d.]+) ms", out)
    assert game and int(game.group(1)) > 100, out  # a whole 3-race game, every action timed
    assert float(game.group(2)) <= float(game.group(3))
    assert re.search(r"echo, one call at a time .* p50 [\d.]+ .*p99 [\d.]+", out)
    tenths = re.search(r"p50 ms\s+((?:[\d.]+\s+){9}[\d.]+)\n", out)
    assert tenths and len(tenths.group(1).split()) == 10, out
    assert re.search(r"last tenth / first tenth: p50 [\d.]+x, p99 [\d.]+x", out)
    assert re.search(
        r"all actions pooled: p50 [\d.]+ ms, p99 [\d.]+ ms: (under|OVER) the 20 ms", out
    )
    assert re.search(r"CPU ms per action .*rules [\d.]+ .*dice [\d.]+ .*client [\d.]+", out)
    assert "load average before" in out and "load average after" in out
