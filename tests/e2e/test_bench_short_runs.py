"""Short runs of the benches that had no test, so they cannot rot between their long runs:
bench/bench_selfplay.py (both trees play the same games), bench/bench_matchmaking.py
(rating-aware grouping against first-come, the service cycle on each store),
bench/bench_rules.py, bench/bench_gateway.py, bench/bench_metrics.py and
bench/bench_tournament.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, timeout: int) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    if os.environ.get("NEON_NAMESPACE"):  # the run's own (tests/conftest.py), which it
        env["NEON_NAMESPACE"] = os.environ["NEON_NAMESPACE"]  # deletes: not NEON_EVENTS
    run = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


@pytest.mark.timeout(240)
def test_bench_selfplay_plays_the_same_games_in_both_trees() -> None:
    out = _run("bench/bench_selfplay.py", "--rounds", "1",
               "--plan", "neon-reign:single:10,neon:rebirth:10", timeout=230)
    for game, mode in (("neon-reign", "single"), ("neon", "rebirth")):
        for tree in ("baseline", "current"):
            row = re.search(rf"{game}\s+{mode}\s+{tree}\s+(\d+) games: ([\d.,]+)", out)
            assert row and float(row.group(2).replace(",", "")) > 0, out
        same = re.search(rf"{game}\s+{mode}\s+current/baseline [\d.]+x; same games in both "
                         r"trees: (\w+)", out)
        assert same and same.group(1) == "yes", out


@pytest.mark.timeout(240)
def test_bench_matchmaking_groups_closer_than_first_come_on_every_store() -> None:
    stores = ["memory", "sqlite"] + (["postgres"] if os.environ.get("DATABASE_URL") else [])
    out = _run("bench/bench_matchmaking.py", "--sizes", "2000", "--repeats", "1",
               "--stores", *stores, timeout=230)
    for scenario in ("neon-reign", "neon"):
        block = out.split(f"\n{scenario} 2000 tickets", 1)[1].split("\n\n", 1)[0]
        aware = re.search(r"rating-aware grouping .* (\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\n", block)
        first = re.search(r"first-come grouping .* (\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\n", block)
        assert aware and first, block
        assert float(aware.group(3)) < float(first.group(3)) / 2, block  # spread far below
        for store in stores:
            assert re.search(rf"service cycle, {store}\b.*tickets per CPU-second", block), block


@pytest.mark.timeout(120)
def test_bench_rules_serves_bot_matches_against_the_pure_engine() -> None:
    """It had rotted: its organiser token could no longer seat ``bot-`` players."""
    out = _run("bench/bench_rules.py", "--matches", "2", timeout=110)
    served = re.search(r"served \(sqlite, gRPC, dice, outbox\): (\d+) actions", out)
    assert served and int(served.group(1)) > 0, out
    assert re.search(r"ratio served/pure: [\d.]+", out), out


@pytest.mark.timeout(120)
def test_bench_gateway_measures_what_the_gateway_adds() -> None:
    out = _run("bench/bench_gateway.py", "--calls", "50", "--rounds", "1", timeout=110)
    for path in ("grpc direct", "gateway json", "gateway proto"):
        assert re.search(rf"{path}\s+p50\s+[\d.]+ ms", out), out
    assert re.search(r"target: gateway json adds at most 2 ms p50: (met|NOT met)", out), out


@pytest.mark.timeout(120)
def test_bench_metrics_measures_metrics_on_against_off() -> None:
    out = _run("bench/bench_metrics.py", "--calls", "100", "--rounds", "1", "--echo-calls", "100",
               "--echo-rounds", "2", timeout=110)
    for side in ("on ", "off"):
        assert re.search(rf"round 1 metrics {side}:\s+[\d.]+ us/call wall", out), out
    assert re.search(r"echo through start_server, 2 rounds of 100 calls: metrics on [\d.]+", out)
    assert re.search(r"interceptor alone: [\d.]+ \(", out), out
    assert re.search(r"rules meter alone: [\d.]+ \(", out), out
    assert "load average at start" in out and "load average at end" in out, out


@pytest.mark.timeout(240)
def test_bench_tournament_prints_each_round_and_the_bundle_verifies() -> None:
    out = _run("bench/bench_tournament.py", "--players", "12", "--rounds", "2",
               "--watchers", "3", timeout=230)
    for number in (1, 2):
        row = re.search(rf"round {number}: NextRound (\d+) ms; 6 results .* GetTournament "
                        r"([\d.]+) ms, GetStandings ([\d.]+) ms, GetRound ([\d.]+) ms, "
                        r"ListTournaments ([\d.]+) ms, MyNextMatch ([\d.]+) ms; watchers' "
                        r"updates (\d+); peak RSS (\d+) MB", out)
        assert row and int(row.group(7)) > 0, out
    assert re.search(r"bundle: [\d,]+ bytes, 12 matches, 2 checkpoints; .*: verified", out), out
    assert "load average at start" in out and "load average at end" in out
