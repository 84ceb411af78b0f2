"""`./dev up` (`neon up`, one process) stopped by a terminal's Ctrl-C: the terminal sends
SIGINT to the whole foreground process group, so the bundled nats-server must not be in it,
or it dies before the services have drained into it and the stop fails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from services.platform.settings import DEFAULT_PORTS
from tests.e2e.procs import ROOT, listen_port, port_env, service_env, wait_for


@pytest.mark.serial  # NATS on 4222 when free; on PostgreSQL, 55 connections
def test_ctrl_c_on_the_terminal_stops_neon_up_cleanly(tmp_path: Path) -> None:
    ports = port_env([*DEFAULT_PORTS, "gateway"])
    metrics_port = listen_port({int(p) for p in ports.values()})
    env = service_env({"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_GRACE_SECONDS": "2",
                       "NEON_METRICS_PORT": str(metrics_port), **ports})
    env.pop("NATS_URL", None)  # the bundled nats-server, as on a fresh clone
    env.pop("NEON_NAMESPACE", None)  # which is this test's alone: no worker's namespace
    out = tmp_path / "up.out"
    with open(out, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli.main", "up"], env=env,
                                cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its own group, like a shell's job
    try:
        wait_for(out, "Ctrl-C stops", proc, timeout=90)
        token_file = tmp_path / "var" / "organiser.token"  # a 30-day organiser token
        assert token_file.stat().st_mode & 0o777 == 0o600
        # the endpoints table shows /metrics, and every service of the process reports there
        url = f"http://127.0.0.1:{metrics_port}/metrics"
        table = out.read_text(errors="replace").splitlines()
        assert any("metrics (Prometheus)" in line and url in line for line in table), table
        with urllib.request.urlopen(url, timeout=10) as answer:
            scraped = answer.read().decode()
        for service in ("dice", "rules-neon", "matchmaking", "tournament"):
            assert f'service="{service}"' in scraped, service
        assert 'neon_matchmaking_tickets_waiting' in scraped or "neon_grpc_calls" in scraped
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        code = proc.wait(60)
        text = out.read_text(errors="replace")
        assert code == 0, text
        assert "unexpected error" not in text and text.rstrip().endswith("stopped"), text
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
