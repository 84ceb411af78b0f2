"""Shared fixtures: real NATS, real PostgreSQL, and in-process services over real gRPC.

Where they come from, in order (ARCHITECTURE.md, Running it):
NATS_URL / DATABASE_URL when set; else testcontainers when a Docker engine answers;
else the bundled nats-server, and PostgreSQL tests are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from services.platform.natsrv import EmbeddedNats
from tests.support import namespaces

RULEBOOKS = Path(__file__).resolve().parents[2] / "shared" / "rulebooks"

# The suite starts several hundred Python processes (services as processes, `neon` commands),
# each importing about 1,500 modules. Where bytecode is not written (PYTHONDONTWRITEBYTECODE,
# set in some containers and images), each of them compiled the project's modules from
# source again: 0.2-0.3 s of CPU a process. Those this run starts write it to, and read it
# from, a cache of the run's own, out of the source tree (PYTHONPYCACHEPREFIX: the bytecode
# of a file is used only while the file is unchanged). Set here, in the run's first process,
# so xdist's workers and every process they start inherit it; a PYTHONPYCACHEPREFIX given
# to the run is kept.
PYCACHE = Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache"
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(PYCACHE))


def _forget_temporary_bytecode() -> None:
    """The run's bytecode of modules under the temporary folder (tests' own plug-ins and
    sitecustomize files, a bench's baseline tree): their paths are new each run, so kept they
    would only pile up."""
    if os.environ.get("PYTHONPYCACHEPREFIX") == str(PYCACHE):
        shutil.rmtree(PYCACHE / Path(tempfile.gettempdir()).resolve().relative_to("/"),
                      ignore_errors=True)


# ``./dev test`` runs the suite on several pytest-xdist workers at once, all on one NATS and
# one database, and other runs (a developer's and CI's, two worktrees) may share them too.
# Each run is a deployment namespace of its own (README, Isolated deployments: NEON_NAMESPACE
# prefixes the stream, subjects, durables, outbox bucket, SQLite folder and PostgreSQL
# schema), and each worker of it one more: ``[<given>-]t<run id>[-gw<n>]``, after any
# namespace the run was given (tests/support/namespaces.py). A worker's backends run one
# after another as in a sequential run, and never see another worker's or run's. Settings
# built by the tests (make_settings), the bus's names and services started as processes all
# take it from here. The run id is made once, by the first process of the run (xdist's
# controller, whose environment its workers inherit), so one run's workers share it.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
RUN_ID = os.environ.setdefault("NEON_TEST_RUN_ID", namespaces.new_run_id())
os.environ.setdefault("NEON_TEST_GIVEN_NAMESPACE", os.environ.get("NEON_NAMESPACE", ""))
RUN_NAMESPACE = os.environ["NEON_NAMESPACE"] = namespaces.run_namespace(
    RUN_ID, os.environ["NEON_TEST_GIVEN_NAMESPACE"], XDIST_WORKER)
CLEANUP_TIMEOUT = 60.0
"""Seconds a session's sweep or clean-up may take before the run goes on without it."""


def _best_effort(what: str, work: Coroutine[Any, Any, Any]) -> bool:
    """Run a clean-up (outside any event loop), logging what it did or why it failed: it
    never fails the run. True when it ran to its end."""
    logger = namespaces.log.bind(namespace=RUN_NAMESPACE, cleanup=what)
    try:
        done = asyncio.run(asyncio.wait_for(work, CLEANUP_TIMEOUT))
    except Exception as err:  # a NATS or database that is down, slow or refuses
        work.close()  # when it never started
        logger.warning("test namespaces not cleaned", error=f"{type(err).__name__}: {err}")
        return False
    if done:  # nothing to say when there was nothing to delete
        logger.info("test namespaces cleaned", done=done)
    return True


_LIVE = contextlib.ExitStack()
"""Holds the run's liveness lock (namespaces.alive) from its start to its end (xdist's
controller, or the one process of a sequential run): no other run's sweep takes this one's
namespaces while it goes, however long it runs or however wrong a sweeping clock is."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """Mark this run live on the shared database, and sweep what earlier runs that died
    before their end left on the shared NATS and database (once per run: not in xdist's
    workers)."""
    if not XDIST_WORKER:
        _LIVE.enter_context(namespaces.alive(RUN_ID, os.environ.get("DATABASE_URL")))
        _best_effort("sweep", namespaces.sweep(os.environ.get("NATS_URL"),
                                               os.environ.get("DATABASE_URL")))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Delete what this run's namespace made on the shared NATS and database: a worker its
    own, xdist's controller (after every worker ended) the whole run's, which is what a
    worker that crashed left. NATS and PostgreSQL of the fixtures (bundled, containers) go
    with their process."""
    _best_effort("forget", namespaces.forget(RUN_NAMESPACE, os.environ.get("NATS_URL"),
                                             os.environ.get("DATABASE_URL")))
    _LIVE.close()
    if not XDIST_WORKER:
        _forget_temporary_bytecode()


SERIAL_LOCK = Path(tempfile.gettempdir()) / "neon-arena-tests-serial.lock"
"""Held by a test marked ``serial`` from its set-up to its teardown: such tests must never run
at the same time as each other, whichever worker (or run on this machine) they are in. They
are those that may bind a port at its default (DEFAULT_PORTS, 9464 for metrics, the gateway's
8080, NATS's 4222 when free: ports of the machine) and those that hold more than a third of
PostgreSQL's 100 connections (max_connections of CI's server; each store opens a pool of 5):
two of them at once (62 each at most, measured) would run out, one of them beside any other
test (21 at most) does not, hence ``./dev test``'s two workers at most. A file lock, not pytest-xdist's ``xdist_group``: that one silently
stopped grouping with pytest 9.2's node ids (pytest-xdist issue 1386)."""


@pytest.fixture(autouse=True)
def _serial(request: pytest.FixtureRequest) -> Iterator[None]:
    """Autouse, so it is set up before the test's other function fixtures and torn down after
    them: a ``serial`` test holds SERIAL_LOCK for all of its run."""
    if request.node.get_closest_marker("serial") is None:
        yield
        return
    fd = os.open(SERIAL_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits while a test of another worker holds it
        yield
    finally:
        os.close(fd)  # closing the file releases the lock


@pytest.fixture(autouse=True)
def _default_logs() -> None:
    """Each test starts with the process's default log set-up (info and up, JSON lines to
    the current stderr). An in-process ``neon`` command of an earlier test (typer's runner)
    leaves its own (warnings only, or a log file), and a later test that reads its backend's
    lines (capfd) then read none, or not, depending on which modules ran before it on its
    worker (three such failures in one run)."""
    from services.platform import logs

    logs.configure()


# In CI (``.ci/run`` sets CI) property tests draw the same examples on every run, so a run
# fails only for a change of the code, never for a newly drawn example; anywhere else they
# explore afresh each time.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def docker_available() -> tuple[bool, str]:
    try:
        import docker

        docker.from_env(timeout=2).ping()
    except Exception as err:  # any failure means: no engine to use
        return False, f"no Docker engine answers ({type(err).__name__})"
    return True, ""


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port nobody listens on for the test's length: bound here and never
    listened on (a connection to it is refused), so no other test's server can take it
    meanwhile. A port merely free when picked (``free_port``) was taken by another test's
    server in a full run, and a command meant to meet nobody met its "Method not found"."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("NATS_URL"):
        yield os.environ["NATS_URL"]
        return
    ok, _ = docker_available()
    if ok:
        from testcontainers.nats import NatsContainer

        with NatsContainer("nats:2.10-alpine").with_command("-js") as container:
            yield container.nats_uri()
        return
    server = EmbeddedNats(tmp_path_factory.mktemp("nats")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"]
        return
    ok, why = docker_available()
    if not ok:
        pytest.skip(f"PostgreSQL: DATABASE_URL is not set and {why}")
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer("postgres:16-alpine", driver=None) as container:
        yield container.get_connection_url()


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[str]:
    """A fresh schema per test, dropped afterwards; named after the run's namespace, so that
    a sweep finds it when the run died before its teardown."""
    import psycopg

    schema = f"{namespaces.schema_of(RUN_NAMESPACE)}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield schema
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def rulebook() -> object:
    def read(name: str) -> str:
        path = RULEBOOKS / name
        if not path.exists():
            pytest.skip(f"rulebook {name} is not beside the project")
        return path.read_text()

    return read


@pytest.fixture
async def nats_client(nats_url: str) -> AsyncIterator[object]:
    from services.platform.bus import connect

    nc = await connect(nats_url, "tests")
    yield nc
    await nc.drain()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long fuzz and soak runs (``@pytest.mark.slow``) run only when asked: ``-m slow``
    (or NEON_SLOW=1); CI runs their short versions, which are ordinary tests."""
    if "slow" in (config.getoption("-m") or "") or os.environ.get("NEON_SLOW"):
        return
    skip = pytest.mark.skip(reason="long run: use -m slow or NEON_SLOW=1 (bench/ has the command)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
