"""Reads of a cached aggregate from several threads while it is saved: the harness of the
tests that such reads never fail nor see a state with an event half applied
(tests/unit/test_cached_reads.py, tests/unit/tournament/test_find_concurrent.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


def reads_while_saved(read: Callable[[], Any], torn: Callable[[Any], Any],
                      saves: Iterable[Callable[[], None]],
                      readers: int = 4) -> tuple[list[BaseException], list[Any]]:
    """``readers`` threads call ``read`` over and over while each of ``saves`` runs, one
    after another, in this thread (the saves stop at the first failed read). The reads'
    errors, and what ``torn`` said of each read it found torn (a state that is not its
    version's: anything but None)."""
    errors: list[BaseException] = []
    found: list[Any] = []
    stop = threading.Event()

    def reading() -> None:
        while not stop.is_set():
            try:
                got = read()
            except BaseException as err:  # noqa: BLE001 - what the tests look for
                errors.append(err)
                return
            said = torn(got)
            if said is not None:
                found.append(said)

    threads = [threading.Thread(target=reading) for _ in range(readers)]
    for t in threads:
        t.start()
    try:
        for save in saves:
            if errors:
                break
            save()
    finally:
        stop.set()
        for t in threads:
            t.join()
    return errors, found
