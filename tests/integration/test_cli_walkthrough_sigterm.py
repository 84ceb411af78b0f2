"""A command with `--embedded` stopped by SIGTERM (`timeout 60 neon queue ... --embedded`, a
CI job cancelled, `kill`) stops its backend as Ctrl-C does: its bundled nats-server (a
session of its own, so a terminal's Ctrl-C reaches it only through the command) is stopped
and its temporary folder removed, and the command says "interrupted" (exit 130). SIGTERM
killed the command outright before, and the nats-server ran on, orphaned, on its store in
/tmp. The command runs as its own process, with its own bundled NATS (no NATS_URL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(90)
ROOT = Path(__file__).resolve().parents[2]


def servers_under(folder: Path) -> list[int]:
    """The pids of the nats-servers whose store is under ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"nats-server") and str(folder).encode() in b" ".join(args):
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_stops_the_embedded_backend_as_ctrl_c_does(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NEON_") and k not in ("NATS_URL", "DATABASE_URL")}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(temp), NEON_VAR_DIR=str(tmp_path / "var"),
               NEON_ENGINES="toy=tests.support.toy", NEON_LOG_LEVEL="warning", COLUMNS="200")
    out = tmp_path / "queue.out"
    read, write = os.pipe()  # nobody answers: the command waits for its match
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli.main", "queue", "toy",
                                 "--embedded", "--player", "ann", "--timeout", "60"],
                                env=env, cwd=ROOT, stdin=read, stdout=sink,
                                stderr=subprocess.STDOUT)
    os.close(read)
    try:
        deadline = time.monotonic() + 30
        while "queued for toy" not in out.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, out.read_text()
            time.sleep(0.1)
        assert servers_under(temp), "the command runs a bundled nats-server of its own"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        time.sleep(0.5)
        said = out.read_text()
        left = servers_under(temp)
        assert left == [], f"nats-server left running: {left}; {said}"
        assert code == 130 and said.rstrip().endswith("interrupted"), f"exit {code}: {said}"
        assert list(temp.iterdir()) == [], list(temp.iterdir())
    finally:
        os.close(write)
        if proc.poll() is None:
            proc.kill()
        for pid in servers_under(temp):  # what this test started, should it be left
            os.kill(pid, signal.SIGKILL)
