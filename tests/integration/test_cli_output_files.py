"""The ``neon`` commands that write a user's output file write it whole or not at all, through
a ``.part`` beside it that takes its place once complete (services/cli/files.py
``written_whole``): ``neon tournament simulate -o FILE`` and ``neon play --export FILE`` as
``neon export`` and ``neon tournament export`` do. A write that fails half-way (here: the
process's file size limit, as a full disk would) is one line naming the file, and leaves no
half file, no ``.part``, and an earlier file of that name as it was; a folder given as the
output is a usage error said before any work. The real commands, as their own processes,
against a running backend."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_tournament_cli import ROOT, tournament_backend

pytestmark = pytest.mark.timeout(240)
SIMULATE = ["tournament", "simulate", "--game", "neon-reign", "--players", "2", "--mode",
            "single", "--timeout", "120"]
LIMIT = 4 * 1024
"""The file size limit of the runs whose write fails: far below any bundle or export here
(the first runs show theirs are larger), above the command's own log (logs/cli.log)."""
PLAY = ["play", "neon-reign", "--mode", "single", "--bots", "random,random", "--seed", "7"]


LIMITED = ("import os, resource, sys; limit = int(sys.argv[1]); "
           "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
           "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])")
"""Run a command with a file size limit: set in a process of its own, which then becomes the
command (no ``preexec_fn``, unsafe in this test's process, where gRPC's threads run). Python
ignores SIGXFSZ: a write past the limit fails with EFBIG."""


def neon(env: dict[str, str], *args: str, file_limit: int | None = None
         ) -> subprocess.CompletedProcess[str]:
    """A ``neon`` command as its own process; ``file_limit``: the most bytes any file it
    writes may hold (RLIMIT_FSIZE)."""
    limited = [] if file_limit is None else ["-c", LIMITED, str(file_limit)]
    return subprocess.run([sys.executable, *limited, "-m", "services.cli.main", *args],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=180)


def own_var(env: dict[str, str], to: Path) -> dict[str, str]:
    """``env`` with a var folder of its own holding only the deployment's keys (so the
    command's own log, ``logs/cli.log``, starts empty there)."""
    keys = Path(env["NEON_VAR_DIR"]) / env["NEON_NAMESPACE"]
    shutil.copytree(keys, to / env["NEON_NAMESPACE"], dirs_exist_ok=True,
                    ignore=lambda folder, names: [n for n in names if n != "keys.json"])
    return {**env, "NEON_VAR_DIR": str(to)}


async def test_simulate_writes_its_bundle_whole_or_not_at_all(
        tmp_path: Path, nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    out = tmp_path / "out"
    out.mkdir()
    bundle = out / "cup.jsonl"
    try:
        done = await asyncio.to_thread(neon, env, *SIMULATE, "-o", str(bundle))
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        size = int(re.search(r"bundle: (\d+) bytes", said)[1])  # type: ignore[index]
        assert f"bundle written to {bundle}" in said
        assert bundle.stat().st_size == size > 2 * LIMIT
        assert [p.name for p in out.iterdir()] == ["cup.jsonl"]  # no .part left
        verified = await asyncio.to_thread(neon, env, "verify", str(bundle))
        assert verified.returncode == 0, verified.stdout + verified.stderr

        # the write fails half-way through the bundle: no half file, no .part, and the
        # earlier file of that name as it was
        bundle.write_bytes(b"an earlier bundle\n")
        var = tmp_path / "limited"
        var.mkdir()
        done = await asyncio.to_thread(neon, own_var(env, var), *SIMULATE, "-o", str(bundle),
                                       file_limit=LIMIT)
        said = done.stdout + done.stderr
        assert done.returncode == 1, said
        assert done.stderr.strip() == (f"could not write {bundle}: File too large; nothing "
                                       "was written there"), said
        assert "Traceback" not in said and "bundle written to" not in said, said
        assert (var / "logs" / "cli.log").stat().st_size < LIMIT  # the log was not cut
        assert bundle.read_bytes() == b"an earlier bundle\n"
        assert [p.name for p in out.iterdir()] == ["cup.jsonl"]
    finally:
        await b.stop(1)


async def test_play_writes_its_export_whole_or_not_at_all(
        tmp_path: Path, nats_url: str) -> None:
    """``neon play --export FILE`` (bots only): the match's export, checked against its
    announced head, written whole; cut half-way by the file size limit, nothing."""
    b, env = await tournament_backend(tmp_path, nats_url)
    out = tmp_path / "out"
    out.mkdir()
    export = out / "match.jsonl"
    try:
        done = await asyncio.to_thread(neon, env, *PLAY, "--export", str(export))
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        assert f"export written to {export}" in said
        assert [p.name for p in out.iterdir()] == ["match.jsonl"]  # no .part left
        verified = await asyncio.to_thread(neon, env, "verify", str(export))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        size = export.stat().st_size
        assert size > 2 * LIMIT

        export.write_bytes(b"an earlier export\n")
        var = tmp_path / "limited"
        var.mkdir()
        done = await asyncio.to_thread(neon, own_var(env, var), *PLAY, "--export",
                                       str(export), file_limit=LIMIT)
        said = done.stdout + done.stderr
        assert done.returncode == 1, said
        assert done.stderr.strip() == (f"could not write {export}: File too large; nothing "
                                       "was written there"), said
        assert (var / "logs" / "cli.log").stat().st_size < LIMIT  # the log was not cut
        assert export.read_bytes() == b"an earlier export\n"
        assert [p.name for p in out.iterdir()] == ["match.jsonl"]
    finally:
        await b.stop(1)


@pytest.mark.parametrize("where", [".", "folder"])
@pytest.mark.parametrize("command", ["simulate", "play", "export"])
def test_a_folder_as_the_output_is_refused_before_any_work(
        where: str, command: str, tmp_path: Path) -> None:
    """No backend answers: the folder is refused first, exit 2, in one line."""
    (tmp_path / "folder").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(tmp_path / "var"), NATS_URL="",
               NEON_TOURNAMENT_ADDR="127.0.0.1:9", NEON_RULES_NEON_REIGN_ADDR="127.0.0.1:9",
               COLUMNS="200")
    args = {"simulate": [*SIMULATE, "-o", where], "play": [*PLAY, "--export", where],
            "export": ["export", "m1", "--game", "neon-reign", "-o", where]}[command]
    done = subprocess.run([sys.executable, "-m", "services.cli.main", *args],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().startswith(f"cannot use {where}: it is a folder"), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]  # nothing made
