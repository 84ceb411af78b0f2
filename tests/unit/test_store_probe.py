"""The store probe (services/platform/storehealth.py) ends when it is cancelled, whenever the
cancellation comes: a probe that went on after its cancellation kept a service's stop (and
a test's event loop teardown) waiting for ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.platform import storehealth
from services.platform.storehealth import StoreProbe


class Checks:
    """Stands in for the thread each check runs in: every check waits on a future of its
    own (``pending``) until the test answers it, or for ever; ``seen`` records the health
    the probe sets."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pending: list[asyncio.Future[None]] = []
        self.seen: list[bool] = []
        monkeypatch.setattr(storehealth.asyncio, "to_thread", self.to_thread)

    async def to_thread(self, check: Any) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        await future

    async def set_serving(self, up: bool) -> None:
        self.seen.append(up)


async def test_a_probe_cancelled_as_its_check_answers_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check's thread answers and the probe is cancelled before the probe's task runs
    again: ``asyncio.wait_for`` of Python 3.11 then returned the answer and dropped the
    cancellation (CPython gh-86296), and the probe went on probing every second."""
    checks = Checks(monkeypatch)
    answered = checks.pending
    probe = StoreProbe(lambda: None, checks.set_serving, interval=0.01, name="test").start()
    assert probe.task is not None
    while not answered:
        await asyncio.sleep(0)
    await asyncio.sleep(0)  # the probe waits on its check
    answered[0].set_result(None)  # the check answers ...
    probe.task.cancel()  # ... and the stop comes before the probe's task runs again
    done, _ = await asyncio.wait({probe.task}, timeout=2)
    assert done, f"the probe went on after its cancellation ({len(answered)} checks)"
    assert probe.task.cancelled()
    assert len(answered) == 1 and checks.seen == []


async def test_a_probe_whose_check_hangs_says_down_and_stops_when_cancelled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that does not answer within its bound is the store down (NOT_SERVING); the
    probe still stops at once when cancelled while a check hangs."""
    monkeypatch.setattr(storehealth, "CONNECT_TIMEOUT", -0.95)  # a bound of 0.05 s
    checks = Checks(monkeypatch)  # no check is ever answered
    seen = checks.seen
    probe = StoreProbe(lambda: None, checks.set_serving, interval=0.01, name="test").start()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not seen and loop.time() < deadline:
        await asyncio.sleep(0.01)
    assert seen == [False]
    await probe.stop()
    assert probe.task is None
