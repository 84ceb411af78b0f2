"""One backend per folder (services/cli/varlock.py): the lock, and `neon up` and `neon play
--embedded` refusing a folder another backend holds before they start anything."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from services.cli.errors import CliError
from services.cli.varlock import LOCK_NAME, only_backend
from tests.e2e.procs import ROOT, service_env


def test_a_second_holder_of_a_folder_is_refused_naming_the_first(tmp_path: Path) -> None:
    with only_backend(tmp_path, "neon up, NEON_PORT_OFFSET=300", "elsewhere"):
        with pytest.raises(CliError) as refused, \
                only_backend(tmp_path, "neon up, NEON_PORT_OFFSET=400", "{folder}-2 please"):
            pytest.fail("two holders of one folder")
        message = refused.value.message
        assert f"a backend already runs from {tmp_path} (pid {os.getpid()}, neon up, " \
               "NEON_PORT_OFFSET=300)" in message
        assert message.endswith(f"or run this one from a folder of its own: {tmp_path}-2 please")
        assert refused.value.code == 1
    with only_backend(tmp_path, "again", ""):  # released with its holder
        assert (tmp_path / LOCK_NAME).read_text() == f"pid {os.getpid()}, again\n"


def test_a_lock_file_left_by_a_dead_process_does_not_block(tmp_path: Path) -> None:
    """The kernel lets go of the lock with its process, whatever the file still says."""
    (tmp_path / LOCK_NAME).write_text("pid 1, neon up\n")
    with only_backend(tmp_path, "neon up", ""):
        pass


def test_folders_apart_do_not_block_each_other(tmp_path: Path) -> None:
    with only_backend(tmp_path / "a", "one", ""), only_backend(tmp_path / "b", "two", ""):
        pass


@pytest.fixture
def held(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Another process holding ``tmp_path/var`` and ``tmp_path/var/embedded``, as a running
    backend would; its pid."""
    ready = tmp_path / "ready"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import pathlib, time
        from services.cli.varlock import only_backend
        var = pathlib.Path({str(tmp_path / 'var')!r})
        with only_backend(var, "neon up", ""), only_backend(var / "embedded", "neon play", ""):
            pathlib.Path({str(ready)!r}).write_text("1")
            time.sleep(60)
    """)], env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 20
    while not ready.exists():
        assert holder.poll() is None and time.monotonic() < deadline, "the holder did not start"
        time.sleep(0.05)
    yield holder.pid
    holder.kill()
    holder.wait(5)


@pytest.mark.parametrize(("command", "elsewhere"), [
    (["up", "--port-offset", "100"], "NEON_VAR_DIR={var}-2 ./dev up --port-offset 200"),
    (["play", "neon-reign", "--embedded", "--bots", "random,random"],
     "--var-dir {var}/embedded-2")])
def test_neon_up_and_play_embedded_refuse_a_held_folder(tmp_path: Path, held: int,
                                                         command: list[str],
                                                         elsewhere: str) -> None:
    env = service_env({"NEON_VAR_DIR": str(tmp_path / "var")})
    env.pop("NATS_URL", None)
    env.pop("DATABASE_URL", None)
    run = subprocess.run([sys.executable, "-m", "services.cli.main", *command], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    said = run.stdout + run.stderr
    assert run.returncode == 1, said
    assert f"a backend already runs from {tmp_path / 'var'}" in said and f"pid {held}" in said
    assert elsewhere.format(var=tmp_path / "var") in said, said
    assert "is up" not in said and "started" not in said  # nothing was started
    assert not (tmp_path / "var" / "nats").exists()
