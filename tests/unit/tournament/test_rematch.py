"""RematchTable on an in-memory store with a stand-in rules service: only an abandoned and
sealed match of a round still in play is replaced, the table's next match has its own id
("-g2"), a late word of the replaced match changes nothing, and the log keeps the replaced
match with its final hash."""

from __future__ import annotations

import asyncio
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from services.platform.tokens import Claims
from services.tournament import log as tlog
from services.tournament.director import Director
from services.tournament.domain import MAX_REMATCHES
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on
from tests.unit.tournament.test_force_end_abandons import _matches, _round_one


class SealingRules(StandInRules):
    """Exports end sealed (with a final hash per match) once ``sealed`` holds the match."""

    def __init__(self) -> None:
        self.sealed: set[str] = set()
        self.created: list[str] = []

    async def create_match(self, game: str, match_id: str, *args: Any, **kw: Any) -> Any:
        self.created.append(match_id)
        return await super().create_match(game, match_id, *args, **kw)

    async def export_match(self, game: str, match_id: str) -> Any:
        if match_id not in self.sealed:
            return types.SimpleNamespace(export_jsonl=b'{"type":"MatchEnded"}\n', final_hash="",
                                         event_count=1)
        data = b'{"type":"MatchEnded"}\n{"type":"MatchSealed"}\n{"type":"Checkpoint"}\n'
        return types.SimpleNamespace(export_jsonl=data, final_hash=f"hash-of-{match_id}",
                                     event_count=2)


@pytest.fixture
async def setup() -> AsyncIterator[tuple[Director, SealingRules]]:
    rules = SealingRules()
    async with director_on(rules) as director:
        yield director, rules


def _ended(match_id: str, seats: list[str], outcome: dict[str, Any]) -> dict[str, Any]:
    return {"match_id": match_id, "game": "g", "players": seats, "outcome": outcome}


ABANDONED = {"abandoned": True, "reason": "the table's screen broke", "by": "org",
             "placements": [], "scores": []}


async def _table(d: Director, tid: str, number: int) -> dict[str, Any]:
    view = await d.round_view(await d.get(tid), 1)
    return next(t for t in view["tables"] if t["number"] == number)


async def _current_match(d: Director, tid: str, number: int, match_id: str) -> None:
    for _ in range(250):  # the driver creates the table's next match
        match = (await d.get(tid)).round(1)["matches"].get(str(number))
        if match is not None and match["match_id"] == match_id:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{match_id} was not created")


async def test_an_abandoned_sealed_table_plays_again_under_a_new_match_id(setup: Any) -> None:
    d, rules = setup
    view = await _round_one(d, "rm")
    await _matches(d, "rm")
    table = view["tables"][0]
    number, seats = table["number"], list(table["seats"])
    first = f"rm-r1-t{number}"
    with pytest.raises(FailedPrecondition, match="has no abandoned match: abandon its match"):
        await d.rematch(ORG, "rm", 1, number, "again")
    assert await d.record_signed_result(_ended(first, seats, ABANDONED), {}) == "recorded"
    with pytest.raises(InvalidArgument, match="needs a reason"):
        await d.rematch(ORG, "rm", 1, number, "   ")
    with pytest.raises(PermissionDenied):
        await d.rematch(Claims("player", "*", player=seats[0]), "rm", 1, number, "again")
    with pytest.raises(FailedPrecondition, match="not sealed yet"):
        await d.rematch(ORG, "rm", 1, number, "again")
    rules.sealed.add(first)
    shown = await d.rematch(ORG, "rm", 1, number, "  a spare screen  ")
    mine = next(t for t in shown["tables"] if t["number"] == number)
    assert mine["earlier"] == [{"match_id": first, "final_hash": f"hash-of-{first}",
                                "event_count": 2, "abandoned": "the table's screen broke",
                                "reason": "a spare screen"}]
    assert mine["status"] == "awaiting" and mine["abandoned"] is None
    second = f"rm-r1-t{number}-g2"
    assert mine["match"]["match_id"] == second  # the answer names it
    await _current_match(d, "rm", number, second)
    assert second in rules.created  # (CreateMatch is idempotent per match id: maybe twice)
    created = [r for r in await d.records("rm") if r["type"] == "MatchCreated"]
    assert [r["match_id"] for r in created].count(second) == 1
    # the replaced match is done with: its late word, and a seat's check-in, change nothing
    assert await d.record_signed_result(_ended(first, seats, ABANDONED), {}) == "ignored"
    played = {"placements": [2, 1], "scores": [3, 5]}
    assert await d.record_signed_result(_ended(first, seats, played), {}) == "ignored"
    with pytest.raises(FailedPrecondition, match="is not the table's match"):
        await d.ready(Claims("player", "*", player=seats[0]), "rm", first)
    assert (await d.ready(Claims("player", "*", player=seats[0]), "rm", second))[0] == 1
    assert await d.record_signed_result(_ended(second, seats, played), {}) == "recorded"
    assert (await _table(d, "rm", number))["result"]["placements"] == [2, 1]
    with pytest.raises(FailedPrecondition, match="has its result"):
        await d.rematch(ORG, "rm", 1, number, "again")
    # the public log says the same
    replayed = tlog.replay_log(await d.records("rm"))
    rnd = replayed.rounds[0]
    assert rnd["matches"][number] == second
    assert rnd["earlier"][number] == [{"match_id": first, "final_hash": f"hash-of-{first}",
                                       "abandoned": "the table's screen broke",
                                       "reason": "a spare screen"}]


async def test_a_table_plays_again_at_most_five_times(setup: Any) -> None:
    d, rules = setup
    view = await _round_one(d, "five")
    await _matches(d, "five")
    number, seats = view["tables"][0]["number"], list(view["tables"][0]["seats"])
    for attempt in range(1, MAX_REMATCHES + 2):
        match_id = f"five-r1-t{number}" + (f"-g{attempt}" if attempt > 1 else "")
        await _current_match(d, "five", number, match_id)
        assert await d.record_signed_result(_ended(match_id, seats, ABANDONED), {}) == "recorded"
        rules.sealed.add(match_id)
        if attempt <= MAX_REMATCHES:
            await d.rematch(ORG, "five", 1, number, f"try {attempt + 1}")
    with pytest.raises(FailedPrecondition, match="rematched 5 times already"):
        await d.rematch(ORG, "five", 1, number, "once more")
    assert len((await _table(d, "five", number))["earlier"]) == MAX_REMATCHES


async def test_no_rematch_of_an_unknown_table_or_once_the_tournament_ended(setup: Any) -> None:
    d, rules = setup
    view = await _round_one(d, "end")
    await _matches(d, "end")
    number, seats = view["tables"][0]["number"], list(view["tables"][0]["seats"])
    assert await d.record_signed_result(_ended(f"end-r1-t{number}", seats, ABANDONED), {}) \
        == "recorded"
    rules.sealed.add(f"end-r1-t{number}")
    with pytest.raises(NotFound, match="no round 2"):
        await d.rematch(ORG, "end", 2, number, "again")
    with pytest.raises(NotFound, match="round 1 has no table 9"):
        await d.rematch(ORG, "end", 1, 9, "again")
    await d.force_end(ORG, "end", "the venue closed")
    with pytest.raises(FailedPrecondition, match="force-ended"):
        await d.rematch(ORG, "end", 1, number, "again")


class SlowRules(SealingRules):
    """StartMatch and CreateMatch of the matches named in ``hold`` wait for ``go``."""

    def __init__(self) -> None:
        super().__init__()
        self.hold: set[str] = set()
        self.go = asyncio.Event()
        self.waiting: set[str] = set()
        self.started: list[str] = []
        self.abandoned: list[str] = []

    async def _wait(self, match_id: str) -> None:
        if match_id in self.hold:
            self.waiting.add(match_id)
            await self.go.wait()

    async def start_match(self, game: str, match_id: str) -> None:
        await self._wait(match_id)
        self.started.append(match_id)

    async def create_match(self, game: str, match_id: str, *args: Any, **kw: Any) -> Any:
        await self._wait(match_id)
        return await super().create_match(game, match_id, *args, **kw)

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        self.abandoned.append(match_id)
        return types.SimpleNamespace(already_abandoned=False)


async def _until(check: Any) -> None:
    for _ in range(250):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("waited in vain")


@pytest.fixture
async def slow() -> AsyncIterator[tuple[Director, SlowRules]]:
    rules = SlowRules()
    async with director_on(rules) as director:
        yield director, rules


async def test_a_start_of_the_replaced_match_does_not_start_the_rematch(slow: Any) -> None:
    """The table's seats are ready and its match is being started on the rules service when
    it is abandoned and the table rematched: the start, once answered, is not recorded as
    the start of the new match (which nobody started, and whose seats are not ready)."""
    d, rules = slow
    view = await _round_one(d, "rs")
    await _matches(d, "rs")
    table = view["tables"][0]
    number, seats = table["number"], list(table["seats"])
    first, second = f"rs-r1-t{number}", f"rs-r1-t{number}-g2"
    rules.hold.add(first)
    await d.ready(Claims("player", "*", player=seats[0]), "rs", first)
    starting = asyncio.create_task(d.ready(Claims("player", "*", player=seats[1]), "rs", first))
    await _until(lambda: first in rules.waiting)
    assert await d.record_signed_result(_ended(first, seats, ABANDONED), {}) == "recorded"
    rules.sealed.add(first)
    await d.rematch(ORG, "rs", 1, number, "again")
    await _current_match(d, "rs", number, second)
    rules.go.set()
    await starting
    await asyncio.sleep(0.1)  # the driver looks again
    mine = await _table(d, "rs", number)
    assert mine["match"]["match_id"] == second
    assert mine["status"] == "awaiting", mine
    assert second not in rules.started
    replayed = tlog.replay_log(await d.records("rs"))
    assert number not in replayed.rounds[0]["absent"]


async def _rematch_held(d: Director, rules: SlowRules, tid: str) -> tuple[int, str, Any]:
    """Round 1 of ``tid``, its first table's match abandoned and sealed, and a rematch under
    way whose new match the rules service is creating (held): the table, the new match's
    id, and the rematch's task."""
    view = await _round_one(d, tid)
    await _matches(d, tid)
    table = view["tables"][0]
    number, seats = table["number"], list(table["seats"])
    first, second = f"{tid}-r1-t{number}", f"{tid}-r1-t{number}-g2"
    assert await d.record_signed_result(_ended(first, seats, ABANDONED), {}) == "recorded"
    rules.sealed.add(first)
    rules.hold.add(second)
    rematching = asyncio.create_task(d.rematch(ORG, tid, 1, number, "again"))
    await _until(lambda: second in rules.waiting)
    return number, second, rematching


async def test_a_rematch_created_while_the_tournament_is_force_ended_is_not_logged(
        slow: Any) -> None:
    """The rematch's match is being created on the rules service when the organiser
    force-ends the tournament: no MatchCreated follows the ForceEnded (the log is closed,
    and its AbandonsConfirmed did not know the match), and the match is abandoned. ForceEnd,
    once saved, waits for the creation under way (since 6 December 2026) before its
    abandons."""
    d, rules = slow
    number, second, rematching = await _rematch_held(d, rules, "rf")
    ending = asyncio.create_task(d.force_end(ORG, "rf", "the venue closed"))
    await _until(lambda: d.app.find("rf").status == "force-ended")
    assert not ending.done()  # waiting for the rematch's match, held on the rules service
    rules.go.set()
    await ending
    await rematching
    await asyncio.sleep(0.1)
    kinds = [r["type"] for r in await d.records("rf")]
    assert kinds.index("ForceEnded") > max(i for i, k in enumerate(kinds) if k == "MatchCreated")
    assert "AbandonsConfirmed" in kinds
    assert second in rules.abandoned


async def test_a_start_answered_after_a_force_end_is_not_logged_and_is_abandoned(
        slow: Any) -> None:
    """Every seat is ready and the match is being started on the rules service when the
    organiser force-ends the tournament: no MatchStarted follows the ForceEnded, and the
    match, which the start may have set going after the force-end's abandon, is abandoned
    again once the start is answered."""
    d, rules = slow
    view = await _round_one(d, "sf")
    await _matches(d, "sf")
    table = view["tables"][0]
    number, seats = table["number"], list(table["seats"])
    first = f"sf-r1-t{number}"
    rules.hold.add(first)
    await d.ready(Claims("player", "*", player=seats[0]), "sf", first)
    starting = asyncio.create_task(d.ready(Claims("player", "*", player=seats[1]), "sf", first))
    await _until(lambda: first in rules.waiting)
    await d.force_end(ORG, "sf", "the venue closed")
    assert rules.abandoned.count(first) == 1  # the force-end's
    rules.go.set()
    await starting
    kinds = [r["type"] for r in await d.records("sf")]
    assert "MatchStarted" not in kinds[kinds.index("ForceEnded"):]
    assert rules.started == [first] and rules.abandoned.count(first) == 2


async def test_a_rematched_table_decided_before_its_match_exists_gets_none(slow: Any) -> None:
    """The rules service does not create the rematch's match yet, and the organiser sets
    the table's result meanwhile: the table's next match is not logged, and it is abandoned
    on the rules service."""
    d, rules = slow
    number, second, rematching = await _rematch_held(d, rules, "rc")
    await d.correct_result(ORG, "rc", 1, number, [1, 2], False, "decided on paper")
    rules.hold.clear()
    rules.go.set()
    await rematching
    await asyncio.sleep(0.2)  # the driver looks again
    kinds = [(r["type"], r.get("match_id")) for r in await d.records("rc")]
    assert ("MatchCreated", second) not in kinds
    assert (await _table(d, "rc", number))["status"] == "done"
    assert set(rules.abandoned) == {second}  # created on the rules service, abandoned there
