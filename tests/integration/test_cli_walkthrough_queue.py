"""`neon queue` as a newcomer meets it: a match is found, `accept? [Y/n]` is asked, and nobody
answers (the player walked away, or the answers piped in are not y or n). The question ends
with the proposal: when the time to accept runs out the command says so and exits 1, rather
than waiting at the prompt for ever (and refusing a late "y" with a raw FAILED_PRECONDITION).
The command runs as its own process against real services (matchmaking with a short accept
time, the toy game, bots backfilling)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_queue_token import toy_queue_backend

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def served(tmp_path: Path, nats_url: str,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Any, dict[str, str]]]:
    async with toy_queue_backend(tmp_path, nats_url, monkeypatch, accept_timeout=2.0) as served:
        yield served


def queue_unanswered(env: dict[str, str], stdin: Any) -> tuple[int | None, str]:
    """`neon queue toy` with ``stdin`` as its input (kept open: nobody types); its exit code
    within 30 s (None: still running, then killed) and what it printed."""
    proc = subprocess.Popen([sys.executable, "-m", "services.cli.main", "queue", "toy",
                             "--timeout", "60"], env=env, cwd=ROOT, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=30)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        return None, out


async def test_the_accept_question_ends_when_the_time_to_accept_runs_out(served: Any) -> None:
    b, env = served
    token = b.issuer.issue("player", "*", player="ann", ttl=600)
    env = {**env, "NEON_TOKEN": token}
    read, write = os.pipe()  # a terminal nobody types at: open, and silent
    try:
        code, out = await asyncio.to_thread(queue_unanswered, env, read)
    finally:
        os.close(read)
        os.close(write)
    said = " ".join(out.split())
    assert code == 1, f"exit {code}: {said}"
    assert "match found" in said and "accept? [Y/n]" in said, said
    assert "no answer to the proposed match in time" in said, said
    assert "expired" in said, said
    assert "Traceback" not in said and "unexpected error" not in said, said
