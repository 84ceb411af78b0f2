"""Ctrl-C at `neon play`'s question, with the answers coming from a pipe (the README's
`... | neon play neon-reign`): the command stops with exit 130 and its one line, as the README
says of every `neon` command. It aborted instead ("Fatal Python error: _enter_buffered_busy",
exit 134): the thread waiting for the next line held stdin's lock as the interpreter exited.
The command runs as its own process against real services."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.test_tournament_cli import ROOT, tournament_backend

pytestmark = pytest.mark.timeout(120)


def interrupted_at_the_question(env: dict[str, str], out: Path) -> tuple[int | None, str]:
    """`neon play neon-reign` reading a pipe nobody writes to, sent SIGINT once it asks; its
    exit code (None: still running 20 s later, then killed) and what it printed."""
    read, write = os.pipe()
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli.main", "play",
                                 "neon-reign"], env=env, cwd=ROOT, stdin=read, stdout=sink,
                                stderr=subprocess.STDOUT, text=True)
    os.close(read)
    try:
        deadline = time.monotonic() + 60
        while "choose 1-" not in out.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, out.read_text()
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        try:
            return proc.wait(timeout=20), out.read_text()
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None, out.read_text()
    finally:
        os.close(write)


async def test_ctrl_c_at_a_piped_question_exits_130(tmp_path: Path, nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    try:
        code, said = await asyncio.to_thread(interrupted_at_the_question, env,
                                             tmp_path / "play.out")
    finally:
        await b.stop(1)
    assert "choose 1-" in said, said
    assert "Fatal Python error" not in said, said[-2000:]
    assert code == 130, f"exit {code}: {said[-2000:]}"
    assert said.rstrip().endswith("interrupted"), said[-500:]
