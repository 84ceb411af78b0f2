"""The served benchmark runs end to end in its short CI form and prints its table."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(120)
def test_bench_served_quick_prints_the_table() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.pop("DATABASE_URL", None)  # the CI form measures SQLite only
    # its own process group, so a timeout takes the services it started down with it
    proc = subprocess.Popen(
        [sys.executable, "bench/bench_served.py", "--quick", "--seconds", "0.6", "--games", "neon-reign"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=115)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"bench_served --quick did not finish in 115 s:\n{out[-3000:]}")
    assert proc.returncode == 0, err[-3000:]
    assert re.search(r"grpc\.aio echo, 32 in flight: [\d,]+ .*calls/s", out)
    assert re.search(r"grpc\.aio echo,  8 in flight: [\d,]+ .*calls/s, p50 .* p99 ", out), out
    assert re.search(r"pure engine neon-reign .*: [\d,]+ .*actions/s", out)
    assert "served play" in out
    served, _, cpu = out.partition("CPU per call or action")
    row = r"^\s+sqlite\s+neon-reign\s+(1|8)\s+(answer|legal|play)\s+[\d,.]+"
    assert len(re.findall(row, served, re.M)) == 6, out
    # the Play-stream client finished actions (pushed decisions, answered results)
    played = re.findall(r"^\s+sqlite\s+\S+\s+\d+\s+play\s+([\d,]+)", served, re.M)
    assert len(played) == 2 and all(int(a.replace(",", "")) > 0 for a in played), out
    assert re.search(r"echo 32 in flight: client [\d.]+, server [\d.]+", cpu), out
    assert len(re.findall(row, cpu, re.M)) == 6, out  # CPU ms per action of client, rules, dice
    assert re.search(r"long match sqlite: \d+ of 120 actions.*last/first [\d.]+x", out)
    assert re.search(r"live matches sqlite \(neon-reign\): \d+ of 64.*KiB per live match", out)
    # killed and restarted: the live matches answer again, each timed from its first request
    restart = re.search(r"restart sqlite \(neon-reign\): (\d+) live matches .* p50 [\d.]+ ms, p99 [\d.]+ ms", out)
    assert restart and int(restart.group(1)) > 0, out
    assert "load average at start" in out and "load average at end" in out
