"""A client command makes no folder in the directory it is run from: ``neon play`` against a
running backend, from an empty folder with only the deployment's token secret (no var dir
there), plays its match and leaves the folder empty (its log lines: warnings only, to
stderr). Where the var dir is (the server host), its log goes to ``<var>/logs/cli.log`` as
before. The real command, as its own process, against real services."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_tournament_cli import tournament_backend

pytestmark = pytest.mark.timeout(180)
PLAY = ["play", "neon-reign", "--mode", "single", "--bots", "random,random", "--seed", "3"]


def neon(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=150)


async def test_neon_play_leaves_the_folder_it_runs_in_as_it_was(
        tmp_path: Path, nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    try:
        client = {k: v for k, v in env.items() if k != "NEON_VAR_DIR"}
        client["NEON_TOKEN_SECRET"] = b.keys.token_secret.decode()
        here = tmp_path / "somewhere"
        here.mkdir()
        done = await asyncio.to_thread(neon, client, here, *PLAY)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "ended after" in done.stdout, done.stdout
        assert list(here.iterdir()) == [], list(here.rglob("*"))  # no var/logs made here
        assert "{" not in done.stderr, done.stderr  # info lines are not on the terminal

        # on the server host (its var dir there): the log goes where it always went
        server = Path(env["NEON_VAR_DIR"])
        done = await asyncio.to_thread(neon, env, here, *PLAY)
        assert done.returncode == 0, done.stdout + done.stderr
        assert list(here.iterdir()) == []
        assert (server / "logs" / "cli.log").is_file()
    finally:
        await b.stop(1)
