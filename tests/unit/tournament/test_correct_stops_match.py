"""CorrectResult on a table whose match was started (and has no result) abandons that match on
a stand-in rules service, with the correction's reason, also when the start and the
correction cross; the round's checkpoint waits until the log shows the match stopped; a
ForceEnd abandons such a match again while the log does not show it stopped."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.tournament.director import Director
from tests.unit.tournament.test_director_ended import ORG, director_on
from tests.unit.tournament.test_force_end_abandons import (
    AbandoningRules,
    _matches,
    _round_one,
)

STOP = "the organiser set the table's result: on paper"


class GatedRules(AbandoningRules):
    """Starts a match only once ``gate`` is set (``starting`` says one is asked)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.starting = asyncio.Event()
        self.started: list[str] = []

    async def start_match(self, game: str, match_id: str) -> None:
        self.started.append(match_id)
        self.starting.set()
        await self.gate.wait()


@pytest.fixture
async def setup() -> AsyncIterator[tuple[Director, GatedRules]]:
    rules = GatedRules()
    async with director_on(rules) as director:
        yield director, rules


async def _kinds(d: Director, tid: str) -> list[tuple[str, int]]:
    return [(r["type"], int(r.get("table", 0))) for r in await d.records(tid)]


async def test_correcting_a_started_table_abandons_its_match(setup: Any) -> None:
    d, rules = setup
    await _round_one(d, "cs")
    first, second = await _matches(d, "cs")
    assert await d._start("cs", 1, 1, first)
    await d.correct_result(ORG, "cs", 1, 1, [2, 1], False, "on paper")
    assert rules.abandoned == [("g", first, STOP)]
    # a repeat of the same correction changes nothing and abandons nothing again
    await d.correct_result(ORG, "cs", 1, 1, [2, 1], False, "on paper")
    assert rules.abandoned == [("g", first, STOP)]
    # a table whose match never started: decided, its match left waiting, not started
    await d.correct_result(ORG, "cs", 1, 2, [1, 2], False, "on paper")
    assert rules.abandoned == [("g", first, STOP)]
    await asyncio.sleep(0.2)  # the driver's passes: the stopped match is not sealed yet
    assert (await d.get("cs")).round(1)["checkpoint"] is None
    assert ("MatchStarted", 2) not in await _kinds(d, "cs")
    # a ready call or a driver pass that looked before the correction starts nothing
    assert await d._start("cs", 1, 2, second) is False
    assert rules.started == [first]
    # the log never showed the match stopped: a ForceEnd abandons it (again)
    await d.force_end(ORG, "cs", "the venue closed")
    assert rules.abandoned[1:] == [("g", first, "the venue closed")]


async def test_a_correction_that_crosses_the_matchs_start_stops_it(setup: Any) -> None:
    d, rules = setup
    await _round_one(d, "cx")
    first, _ = await _matches(d, "cx")
    rules.gate.clear()
    rules.starting.clear()
    starting = asyncio.create_task(d._start("cx", 1, 1, first))
    await asyncio.wait_for(rules.starting.wait(), 5)
    await d.correct_result(ORG, "cx", 1, 1, [1, 2], False, "on paper")
    assert rules.abandoned == []  # not started as far as the log knows: nothing to stop
    rules.gate.set()
    assert await starting is False
    assert rules.abandoned == [("g", first, STOP)]
    kinds = await _kinds(d, "cx")
    assert kinds.index(("ResultCorrected", 1)) < kinds.index(("MatchStarted", 1))
