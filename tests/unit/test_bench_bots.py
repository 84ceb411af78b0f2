"""The rule-bot bench runs in CI with a few games: every mode of every game ends by its rules
(two games of each mode; ``-m slow`` or NEON_SLOW=1 five).
The subprocess timeout is a hang guard, not a speed check (about 6 CPU-seconds, 17 s wall on
a loaded 2-core machine): speed is bench/'s business."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from services.rules.games import available, load_engine

ROOT = Path(__file__).resolve().parents[2]


def _plays_every_mode_to_an_ending(games: int) -> None:
    done = subprocess.run([sys.executable, "bench/bench_bots.py", "--games", str(games)],
                          cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for game in available():
        for mode in load_engine(game).modes():
            header = next(line for line in done.stdout.splitlines()
                          if line.startswith(f"{game} / {mode}: "))
            assert f"{games} games" in header and "games/s" in header \
                and "actions/s per core" in header
    assert "FAILED" not in done.stdout


def test_bench_bots_plays_every_mode_of_every_game_to_an_ending() -> None:
    """Two games of each mode (its first two seat counts or layouts)."""
    _plays_every_mode_to_an_ending(2)


@pytest.mark.slow
def test_bench_bots_plays_five_games_of_every_mode_to_an_ending() -> None:
    """The longer short run (-m slow): five games of each mode, NEON's every seat count."""
    _plays_every_mode_to_an_ending(5)


def test_bench_bots_exits_1_when_a_game_reaches_no_ending() -> None:
    done = subprocess.run([sys.executable, "bench/bench_bots.py", "--games", "2", "--game", "neon",
                           "--mode", "rebirth", "--limit", "10"], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 1
    assert "FAILED" in done.stdout and "no ending after 10 actions" in done.stdout
