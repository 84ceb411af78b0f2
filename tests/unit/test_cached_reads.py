"""platform/cached_reads.py: reads of a cached aggregate from several threads while it is
saved (as the tournament, scoring and matchmaking read theirs through asyncio.to_thread)
never fail nor hand out a copy with an event half applied. On a real SQLite store with the
aggregate cache on; the same application without the mixin is the check that the test can
fail (the library's reads overlap: a fast-forward mutates the cached aggregate while another
read copies it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from services.platform.cached_reads import SerialReads
from tests.support.concurrent_reads import reads_while_saved

SIZE = 3000


class Ledger(Aggregate):
    @event("Opened")
    def __init__(self) -> None:
        self.entries: dict[str, list[int]] = {f"e{i}": [i] for i in range(SIZE)}
        self.added = 0

    @event("Added")
    def add(self, key: str) -> None:
        self.entries[key] = [len(self.entries)]  # a new key: the dict grows
        self.added += 1


class Plain(Application):
    pass


class Serial(SerialReads, Application):
    pass


def hammer(app: Application, saves: int = 150) -> tuple[list[BaseException], list[Any]]:
    ledger = Ledger()
    app.save(ledger)
    app.repository.get(ledger.id)  # cached from here on

    def torn(got: Any) -> Any:
        if len(got.entries) != SIZE + got.added or got.added != got.version - 1:
            return (got.version, got.added, len(got.entries))
        return None

    def save(n: int) -> None:
        ledger.add(f"k{n}")
        app.save(ledger)

    return reads_while_saved(lambda: app.repository.get(ledger.id), torn,
                             (lambda n=n: save(n) for n in range(saves)))


def _env(path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path),
            "SQLITE_LOCK_TIMEOUT": "10", "AGGREGATE_CACHE_MAXSIZE": "100"}


def test_serial_reads_never_fail_nor_see_half_an_event(tmp_path: Path) -> None:
    app = Serial(env=_env(tmp_path / "serial.sqlite"))
    try:
        errors, torn = hammer(app)
    finally:
        app.close()
    assert not errors, f"{len(errors)} reads failed: {errors[0]!r}"
    assert not torn, f"{len(torn)} reads saw a state that is not their version's: {torn[:3]}"


@pytest.mark.slow
def test_without_it_the_librarys_reads_overlap(tmp_path: Path) -> None:
    """The check that the test above can fail: the same on the library's repository."""
    app = Plain(env=_env(tmp_path / "plain.sqlite"))
    try:
        errors, torn = hammer(app, saves=600)
    finally:
        app.close()
    assert errors or torn, "no overlapping read was seen (the race is timing's: try again)"
