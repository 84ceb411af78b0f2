"""The kernel's store gate: a call waiting on the store is answered UNAVAILABLE the moment the
store goes down, in the call's own task (no task per call), and only that call is touched."""

from __future__ import annotations

import asyncio

import pytest

from services.platform.errors import Unavailable
from services.platform.grpc_kit import _unless_store_down
from services.platform.storehealth import StoreGate


async def test_a_call_waiting_on_the_store_hears_unavailable_when_it_goes_down() -> None:
    gate = StoreGate()
    started = asyncio.Event()

    async def waits_on_the_store() -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    call = asyncio.create_task(_unless_store_down(gate, waits_on_the_store()))
    await started.wait()
    gate.set_up(False)
    with pytest.raises(Unavailable, match="went down during the call"):
        await asyncio.wait_for(call, 2)
    assert call.cancelling() == 0, "the gate's cancellation was taken back"
    assert not gate._watchers, "the finished call still watches the gate"


async def test_a_call_that_finishes_keeps_its_answer_and_stops_watching() -> None:
    gate = StoreGate()

    async def answers() -> str:
        await asyncio.sleep(0)
        return "answer"

    assert await _unless_store_down(gate, answers()) == "answer"
    assert not gate._watchers
    gate.set_up(False)  # a later outage touches nothing of the finished call


async def test_a_call_while_the_store_is_down_is_refused_without_running() -> None:
    gate = StoreGate()
    gate.set_up(False)
    ran = False

    async def work() -> None:
        nonlocal ran
        ran = True

    with pytest.raises(Unavailable, match="does not answer"):
        await _unless_store_down(gate, work())
    assert not ran


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    gate = StoreGate()
    started = asyncio.Event()

    async def waits() -> None:
        started.set()
        await asyncio.sleep(30)

    call = asyncio.create_task(_unless_store_down(gate, waits()))
    await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert not gate._watchers
