"""CorrectResult on a table whose match has no result (started, or still waiting for its
seats) abandons that match on a stand-in rules service, with the correction's reason, also
when the start and the correction cross; an answer that shows it abandoned is recorded
(MatchAbandoned); the round's checkpoint waits until the log shows a started match stopped,
not one that never started; a ForceEnd abandons such a match again while the log does not
show it stopped, and FinishTournament abandons (and records) what is left, or is refused
UNAVAILABLE while its rules service does not answer."""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.platform.errors import Unavailable
from services.tournament.director import Director, Options, _stopping
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
    # a table whose match never started: decided, its match abandoned where it waits
    # (not started)
    await d.correct_result(ORG, "cs", 1, 2, [1, 2], False, "on paper")
    assert rules.abandoned == [("g", first, STOP), ("g", second, STOP)]
    await asyncio.sleep(0.2)  # the driver's passes: the started match is not sealed yet
    assert (await d.get("cs")).round(1)["checkpoint"] is None
    assert ("MatchStarted", 2) not in await _kinds(d, "cs")
    # a ready call or a driver pass that looked before the correction starts nothing
    assert await d._start("cs", 1, 2, second) is False
    assert rules.started == [first]
    # the stand-in's answers show no abandoned outcome: the log never showed either match
    # stopped, so a ForceEnd abandons both (again)
    await d.force_end(ORG, "cs", "the venue closed")
    assert sorted(rules.abandoned[2:]) == [("g", first, "the venue closed"),
                                           ("g", second, "the venue closed")]


async def test_a_correction_that_crosses_the_matchs_start_stops_it(setup: Any) -> None:
    d, rules = setup
    await _round_one(d, "cx")
    first, _ = await _matches(d, "cx")
    rules.gate.clear()
    rules.starting.clear()
    starting = asyncio.create_task(d._start("cx", 1, 1, first))
    await asyncio.wait_for(rules.starting.wait(), 5)
    await d.correct_result(ORG, "cx", 1, 1, [1, 2], False, "on paper")
    # waiting for its seats as far as the log knows: abandoned where it waits
    assert rules.abandoned == [("g", first, STOP)]
    rules.gate.set()
    assert await starting is False
    # the stand-in started it all the same (a rules service refuses to start an abandoned
    # match): the start, recorded, stops it again
    assert rules.abandoned == [("g", first, STOP)] * 2
    kinds = await _kinds(d, "cx")
    assert kinds.index(("ResultCorrected", 1)) < kinds.index(("MatchStarted", 1))


class AnsweringRules(AbandoningRules):
    """Answers an abandon as a rules service does: with the match's abandoned outcome."""

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        await super().abandon_match(game, match_id, reason)
        return types.SimpleNamespace(already_abandoned=False, outcome_json=json.dumps(
            {"abandoned": True, "reason": reason, "by": "tournament", "placements": []}))


def _abandon_of(tid: str, table: int, seats: list[str]) -> dict[str, Any]:
    """The signed end of the table's abandoned match, as the results consumer hands it."""
    return {"match_id": f"{tid}-r1-t{table}", "game": "g", "players": seats,
            "outcome": {"abandoned": True, "reason": STOP, "by": "tournament",
                        "placements": [], "scores": []}}


async def _one_round(d: Director, tid: str) -> None:
    """A Swiss of one round, its round paired."""
    await _round_one(d, tid, rounds=1)


async def _checkpointed(d: Director, tid: str) -> None:
    for _ in range(250):
        if (await d.get(tid)).round(1)["checkpoint"] is not None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("round 1 got no checkpoint")


async def test_a_waiting_matchs_abandon_is_recorded_and_the_round_goes_on() -> None:
    rules = AnsweringRules()
    async with director_on(rules) as d:
        await _round_one(d, "wr")
        first, second = await _matches(d, "wr")
        await d.correct_result(ORG, "wr", 1, 1, [2, 1], False, "on paper")
        await d.correct_result(ORG, "wr", 1, 2, [1, 2], False, "on paper")
        assert rules.abandoned == [("g", first, STOP), ("g", second, STOP)]
        kinds = await _kinds(d, "wr")
        assert kinds.count(("MatchAbandoned", 1)) == 1
        assert kinds.count(("MatchAbandoned", 2)) == 1
        assert ("MatchStarted", 1) not in kinds and ("MatchStarted", 2) not in kinds
        t = await d.get("wr")
        assert _stopping(t) == []
        assert t.round(1)["abandoned"]["2"] == {"reason": STOP, "by": "tournament"}
        # the organiser's results stand; the round does not wait for the stand-in's seals
        assert t.round(1)["results"]["2"]["placements"] == [1, 2]
        await _checkpointed(d, "wr")
        # the abandons' signed ends come after: duplicates
        seats = list(t.round(1)["tables"][1]["seats"])
        assert await d.record_signed_result(_abandon_of("wr", 2, seats), {}) == "duplicate"
        assert (await _kinds(d, "wr")).count(("MatchAbandoned", 2)) == 1
        # nothing is left to stop: a ForceEnd abandons nothing of them again
        await d.force_end(ORG, "wr", "the venue closed")
        assert len(rules.abandoned) == 2


async def test_finish_stops_what_corrections_left_waiting_or_is_refused() -> None:
    """The rules service is away when the tables are decided (and no retry is left): the
    round's checkpoint comes all the same; FinishTournament abandons the matches and records
    it first, and is refused UNAVAILABLE, naming them, while it does not answer."""
    rules = AnsweringRules()
    async with director_on(rules) as d:
        d.options = Options(poll=0.02, abandon_retries=())
        await _one_round(d, "fw")
        first, second = await _matches(d, "fw")
        rules.down = True
        await d.correct_result(ORG, "fw", 1, 1, [2, 1], False, "on paper")
        await d.correct_result(ORG, "fw", 1, 2, [1, 2], False, "on paper")
        await _checkpointed(d, "fw")
        assert rules.abandoned == []
        assert [m for _, _, m in _stopping(await d.get("fw"))] == [first, second]
        with pytest.raises(Unavailable) as refused:
            await d.finish(ORG, "fw")
        assert f"{first}, {second}" in refused.value.reason
        assert (await d.get("fw")).status == "running"
        rules.down = False
        t, _, _ = await d.finish(ORG, "fw")
        assert t.status == "finished"
        assert rules.abandoned == [("g", first, STOP), ("g", second, STOP)]
        kinds = [k for k, _ in await _kinds(d, "fw")]
        assert kinds[-4:] == ["MatchAbandoned", "MatchAbandoned", "StandingsPublished",
                              "Finished"]
        # their signed ends, after the finish: duplicates, not "a result left out"
        seats = list(t.round(1)["tables"][0]["seats"])
        assert await d.record_signed_result(_abandon_of("fw", 1, seats), {}) == "duplicate"


async def test_finish_is_not_held_by_a_match_its_rules_service_knows_no_more() -> None:
    rules = AnsweringRules()
    async with director_on(rules) as d:
        d.options = Options(poll=0.02, abandon_retries=())
        await _one_round(d, "fg")
        await _matches(d, "fg")
        rules.down = True
        for table in (1, 2):
            await d.correct_result(ORG, "fg", 1, table, [2, 1], False, "on paper")
        await _checkpointed(d, "fg")
        rules.down = False

        async def unknown(game: str, match_id: str, reason: str) -> Any:
            raise grpc.aio.AioRpcError(grpc.StatusCode.NOT_FOUND, grpc.aio.Metadata(),
                                       grpc.aio.Metadata(), f"no match {match_id}")

        rules.abandon_match = unknown  # type: ignore[method-assign]
        t, _, _ = await d.finish(ORG, "fg")
        assert t.status == "finished"
