"""The soak benchmark (bench/soak.py) runs end to end in a short form and prints its table and verdict.

It asserts that the figures are printed, not that the machine is fast: a shared CI machine
may fail the verdict itself, so the exit code is only required to be the verdict's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(90)
def test_soak_prints_the_maximum_the_samples_and_a_verdict() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    run = subprocess.run(
        [sys.executable, "bench/soak.py", "--seconds", "5", "--measure", "2", "--matches", "16",
         "--samples", "5"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=85,
    )
    out = run.stdout
    assert run.returncode in (0, 1), run.stderr[-3000:]
    assert re.search(r"^maximum: [\d,]+ actions/s \(neon-reign, 16 matches", out, re.M), out
    assert re.search(r"^soak: 5 s at 80% = [\d,]+ actions/s, 5 samples of 1 s", out, re.M), out
    samples = re.findall(r"^\s+(\d)\s+(\d+)\s+([\d,]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.M)
    assert [int(s[0]) for s in samples] == [1, 2, 3, 4, 5], out
    assert all(int(s[2].replace(",", "")) > 0 for s in samples), "a sample with no action played"
    assert re.search(r"^memory rules: [\d.]+ -> [\d.]+ MiB \(sample 2 to 5\).*: (flat|GROWING)$", out, re.M)
    assert re.search(r"^memory dice: .*: (flat|GROWING)$", out, re.M)
    assert re.search(r"^p99: first [\d.]+ ms, last [\d.]+ ms, [\d.]+x, bound 2\.0x: (stable|UNSTABLE)$",
                     out, re.M)
    verdict = re.search(r"^verdict: (PASS|FAIL)$", out, re.M)
    assert verdict, out
    assert run.returncode == (0 if verdict.group(1) == "PASS" else 1)
    assert "load average at start" in out and "load average at end" in out
