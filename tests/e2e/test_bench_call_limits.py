"""A short run of bench/bench_call_limits.py, so that it cannot rot between its long runs."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_bench_short_runs import _run


@pytest.mark.timeout(120)
def test_bench_call_limits_measures_the_bucket_and_the_interceptor() -> None:
    out = _run("bench/bench_call_limits.py", "--calls", "5000", "--rounds", "2",
               "--echo-calls", "100", timeout=110)
    assert re.search(r"bucket alone, one caller: [\d.]+ .* us per take", out), out
    assert re.search(r"distinct callers past the cap \(65,536\): [\d.]+", out), out
    assert re.search(r"kernel interceptor alone, .*: rates on [\d.]+ .* off [\d.]+ .* on - off "
                     r"-?[\d.]+", out), out
    assert re.search(r"echo through start_server, seat token, 2 rounds of 100 calls: rates on "
                     r"[\d.]+", out), out
