"""`neon up --processes` and its children: a child asks for the parent-death signal itself
(no preexec_fn, which can deadlock a fork in a process with threads), and a child that does
not start in time is asked for its threads' stacks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from services.cli.processes import SUPERVISOR_PID, Child, die_with_supervisor
from services.platform.natsrv import free_port
from tests.e2e.procs import ROOT, service_env


def test_die_with_supervisor_reads_its_variable() -> None:
    assert die_with_supervisor({}) is False
    assert die_with_supervisor({SUPERVISOR_PID: str(os.getppid())}) is True
    with pytest.raises(SystemExit, match="supervisor"):
        die_with_supervisor({SUPERVISOR_PID: "1" if os.getppid() != 1 else "2"})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_supervised_child_stops_when_its_supervisor_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    supervisor = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c",
            "import os, time; from services.cli.processes import die_with_supervisor; "
            "die_with_supervisor(); open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
            "time.sleep(60)"],
            env={{**os.environ, {SUPERVISOR_PID!r}: str(os.getpid())}})
        time.sleep(60)
    """)], env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 20
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        supervisor.kill()
        supervisor.wait(5)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the child outlived its supervisor"
    finally:
        supervisor.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_a_child_is_asked_for_its_stacks(tmp_path: Path) -> None:
    port = free_port()
    env = service_env({"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_DICE_PORT": str(port),
                       "NEON_PERSISTENCE": "sqlite", "NEON_LOG_LEVEL": "warning"})
    child = Child("dice", f"127.0.0.1:{port}", env, tmp_path / "dice.log")
    child.spawn()
    try:
        child.wait_serving(30)
        out = child.stacks(wait=1.0)
        assert "dice serving on" in out
        assert "most recent call first" in out and "File " in out, out
        assert child.running()  # the stacks are written, the service goes on
    finally:
        child.terminate()
        assert child.proc is not None
        child.proc.wait(20)
