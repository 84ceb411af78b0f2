"""A tournament's watch (WatchTournament, and WatchMyMatches through it) sends a change saved
while the watcher was away from its wait (its last update being written out to the stream, or
a player's match being looked up), at once: not at the next save, nor at the fallback re-read.

Before, a save notified only the watchers waiting at that moment: one away missed it, and
slept until another save or the re-read 5 s later. A slow consumer on a loaded machine could
so miss a table's DONE before the next round's pairing replaced it, and a `tournament play`
command never told the round's result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from services.tournament import director as director_module
from tests.unit.tournament.test_director_ended import ORG, d  # noqa: F401 (d: the fixture)


async def test_a_change_saved_while_the_watcher_is_away_is_sent_at_once(
        d: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(director_module, "WATCH_RECHECK", 120.0)  # no fallback re-read helps
    await d.create(ORG, "w", {"game": "g", "mode": "single",
                              "format_json": json.dumps({"format": "swiss", "rounds": 1})})
    updates = d.watch("w")
    first = await anext(updates)  # the watcher is away: suspended where it handed this out
    assert first.status == "created"
    await d.open_registration(ORG, "w")  # saved (and notified) meanwhile
    try:
        second = await asyncio.wait_for(anext(updates), 20)
    finally:
        await updates.aclose()
    assert second.status == "registration" and second.version > first.version


async def test_a_watcher_waiting_is_woken_by_a_save(
        d: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(director_module, "WATCH_RECHECK", 120.0)
    await d.create(ORG, "v", {"game": "g", "mode": "single",
                              "format_json": json.dumps({"format": "swiss", "rounds": 1})})
    updates = d.watch("v")
    await anext(updates)
    waiting = asyncio.ensure_future(anext(updates))
    await asyncio.sleep(0.2)  # it reaches its wait (nothing to send yet)
    assert not waiting.done()
    await d.open_registration(ORG, "v")
    try:
        second = await asyncio.wait_for(waiting, 20)
    finally:
        await updates.aclose()
    assert second.status == "registration"
