"""One backend per folder: ``neon up`` and ``neon play --embedded`` hold an exclusive lock on
``<folder>/backend.lock`` for as long as their backend runs.

Two backends started on one folder (a second ``./dev up --port-offset 100`` in the same
checkout) each ran their own nats-server on the one JetStream store under ``nats/`` and their
services on the one set of SQLite stores, each believing itself their only writer: matches,
tickets and tournaments of one showed up half-made in the other. The second now stops
before it starts anything, naming the first (its process id and ports) and the way to run
beside it: a folder of its own (``NEON_VAR_DIR``).

The kernel releases the lock when its process ends, however it ends (a crash, SIGKILL): a
stale lock file never blocks the next start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from services.cli.errors import FAILED, CliError

LOCK_NAME = "backend.lock"


@contextlib.contextmanager
def only_backend(folder: Path, describe: str, elsewhere: str) -> Iterator[None]:
    """Hold ``folder``'s backend lock for the body; a CliError (exit 1) when another
    process holds it. ``describe``: what this backend is, written into the lock file for the
    next one's message (say its ports); ``elsewhere``: how to run this one beside it (the
    folder ``{folder}`` filled in)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 500).decode("utf-8", "replace").strip() or "another process"
        os.close(fd)
        raise CliError(
            f"a backend already runs from {folder} ({holder}). Two backends on one folder "
            "would share its event stores and its NATS store; stop that one (Ctrl-C in its "
            "terminal), or run this one from a folder of its own: "
            + elsewhere.format(folder=folder), FAILED) from None
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}, {describe}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the lock
