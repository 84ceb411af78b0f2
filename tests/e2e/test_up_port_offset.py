"""`./dev up` (`neon up`) as a new user meets it: the endpoint table first, not log lines (they
go to var/logs/up.log; only warnings and errors also reach the terminal); one setting,
`--port-offset N` (NEON_PORT_OFFSET), moves every port, says so in the table, and lets the
client commands find the moved backend, while a NEON_<SERVICE>_PORT set still wins; and a
second backend on the same ports gets our one line, without gRPC's own "Failed to add port"
line beside it."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from services.cli.ports import busy, default_ports, metrics_default, nats_default
from services.platform.settings import DEFAULT_PORTS
from tests.e2e.procs import ROOT, listen_port, service_env, wait_for

GRPC_LINE = re.compile(r"add_port|Failed to add port|\bE\d{4} ")


def free_offset() -> int:
    """An offset whose every moved port (the services', the gateway's, metrics', NATS's) is
    free now, and outside the kernel's ephemeral range when the range leaves room (there,
    any outgoing connection, to NATS or PostgreSQL, may take a port between this check and
    the bind: once seen, "port busy" on a gRPC port moved into the range)."""
    low, high = 32768, 60999
    with contextlib.suppress(OSError, ValueError):
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    pick = random.SystemRandom()
    for tries in range(10_000):
        offset = pick.randrange(1000, 15000, 10)
        ports = [*default_ports(offset).values(), metrics_default(offset), nats_default(offset)]
        ephemeral = any(low <= port <= high for port in ports)
        if (not ephemeral or tries >= 5_000) and not any(busy("127.0.0.1", p) for p in ports):
            return offset
    raise AssertionError("no free port offset")


def neon(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.serial  # on PostgreSQL, 55 connections; fixed ports (the defaults moved)
@pytest.mark.timeout(240)
def test_up_with_a_port_offset_shows_its_table_and_is_found_by_one_variable(
        tmp_path: Path) -> None:
    offset = free_offset()
    dice = listen_port(set())  # set by hand: it wins over the offset
    env = service_env({"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_GRACE_SECONDS": "2",
                       "NEON_DICE_PORT": str(dice)})
    env.pop("NATS_URL", None)  # the bundled nats-server, as on a fresh clone
    env.pop("NEON_NAMESPACE", None)  # which is this test's alone
    out = tmp_path / "up.out"
    with open(out, "wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "up", "--port-offset", str(offset)],
            env=env, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(out, "Ctrl-C stops", proc, timeout=90)
        text = out.read_text(errors="replace")
        # the table, not the services' info lines: those are in the log file
        assert '"level": "info"' not in text, text
        log = (tmp_path / "var" / "logs" / "up.log").read_text()
        assert '"event": "backend up"' in log and '"event": "tournament up"' in log, log[-2000:]
        assert f"Neon Arena is up, every port + {offset} (NEON_PORT_OFFSET={offset})" in text
        rows = dict(re.findall(r"│ (\S+(?: \S+)*)\s+│ (\S+)\s+│", text))
        for name, port in DEFAULT_PORTS.items():
            moved = dice if name == "dice" else port + offset
            assert rows[name] == f"127.0.0.1:{moved}", (name, text)
        assert rows["gateway (HTTP/JSON, viewer)"] == f"http://127.0.0.1:{8080 + offset}", text
        assert rows["metrics (Prometheus)"] == \
            f"http://127.0.0.1:{9464 + offset}/metrics", text
        assert rows["nats"] == f"nats://127.0.0.1:{4222 + offset}", text

        # a client command finds the moved backend with the one variable (the keys: var/)
        client = {**service_env({"NEON_VAR_DIR": str(tmp_path / "var"),
                                 "NEON_PORT_OFFSET": str(offset)}), "NATS_URL": ""}
        client.pop("NEON_NAMESPACE", None)
        played = neon({**client, "NEON_DICE_PORT": str(dice)}, "play", "neon-reign", "--mode",
                      "single", "--bots", "random,random", "--seed", "5")
        assert played.returncode == 0, played.stdout + played.stderr
        assert "ended after" in played.stdout, played.stdout

        # the same ports again: our one line, not gRPC's beside it
        second = {**client, "NEON_VAR_DIR": str(tmp_path / "var2")}
        again = neon(second, "up")
        said = (again.stdout + again.stderr).strip()
        assert again.returncode == 1, said
        assert said.splitlines() == [said], said
        assert said.startswith(f"port busy: rules-neon-reign cannot listen on 127.0.0.1:"
                               f"{50061 + offset}, nor "), said
        assert said.endswith(f"move every port with NEON_PORT_OFFSET={offset + 100} (or "
                             f"`neon up --port-offset {offset + 100}`), or set "
                             "NEON_<SERVICE>_PORT one by one"), said
        alone = neon(second, "serve", "rules-neon-reign")
        said = (alone.stdout + alone.stderr).strip()
        assert alone.returncode == 1, said
        assert said == (f"port busy: rules-neon-reign cannot listen on 127.0.0.1:"
                        f"{50061 + offset} (another `neon up`?); set NEON_RULES_NEON_REIGN_PORT "
                        "to move it"), said
        assert not GRPC_LINE.search(said)

        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        code = proc.wait(60)
        text = out.read_text(errors="replace")
        assert code == 0, text
        assert '"level": "info"' not in text and text.rstrip().endswith("stopped"), text
        assert '"event": "service stopped"' in (tmp_path / "var" / "logs" / "up.log").read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
