"""A service closes its store only once no thread is using it: eventsourcing's pool close()
also closes connections in use, and closing an SQLite connection under a running statement
crashed the test process (a segfault, seen in the suite)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from eventsourcing.application import Application

from services.platform.store import close_when_idle


def _sqlite_app(tmp_path: Path) -> Application:
    return Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                            "SQLITE_DBNAME": str(tmp_path / "store.sqlite")})


async def test_close_waits_for_the_connection_a_thread_holds(tmp_path: Path) -> None:
    app = _sqlite_app(tmp_path)
    pool = app.recorder.datastore.pool  # type: ignore[attr-defined]
    taken, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def hold() -> None:
        with app.recorder.datastore.get_connection(commit=False) as conn:  # type: ignore[attr-defined]
            taken.set()
            release.wait(5)
            seen.append(conn.closed)  # still open while this thread uses it

    worker = threading.Thread(target=hold)
    worker.start()
    assert taken.wait(5)
    closing = asyncio.create_task(close_when_idle(app))
    await asyncio.sleep(0.2)
    assert not closing.done() and not pool.closed
    release.set()
    await asyncio.wait_for(closing, 5)
    worker.join(5)
    assert seen == [False]
    assert pool.closed


async def test_an_idle_store_closes_at_once(tmp_path: Path) -> None:
    app = _sqlite_app(tmp_path)
    await asyncio.wait_for(close_when_idle(app), 1)
    assert app.recorder.datastore.pool.closed  # type: ignore[attr-defined]
