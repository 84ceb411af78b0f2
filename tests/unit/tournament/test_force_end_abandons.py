"""ForceEnd abandons the tournament's matches that have no result, on a stand-in rules service:
with the tournament's reason, never a table that has its result (only a match a correction
decided that the log does not show stopped), and a rules service that does not answer
neither fails the ForceEnd nor goes unlogged; a repeat tries again."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from structlog.contextvars import get_contextvars

from services.tournament import director as director_module
from services.tournament.app import TournamentApplication
from services.tournament.director import Director, Options
from services.tournament.domain import tournament_uuid
from tests.unit.tournament.test_director_ended import KEY, ORG, StandInRules, director_on


class AbandoningRules(StandInRules):
    def __init__(self) -> None:
        self.abandoned: list[tuple[str, str, str]] = []
        self.down = False

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        if self.down:
            raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                       grpc.aio.Metadata(), "connection refused")
        self.abandoned.append((game, match_id, reason))

        class Reply:
            already_abandoned = False

        return Reply()


class Logged:
    """Stands in for the director's logger: each call with the context bound at the time."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        def emit(event: str, **kw: Any) -> None:
            self.lines.append((level, event, {**get_contextvars(), **kw}))
        return emit


@pytest.fixture
async def setup() -> AsyncIterator[tuple[Director, AbandoningRules]]:
    rules = AbandoningRules()
    async with director_on(rules) as director:
        yield director, rules


async def _round_one(d: Director, tid: str, rounds: int = 2) -> dict[str, Any]:
    """A Swiss of ``rounds`` rounds for p0-p3, started, its round 1 paired (its view)."""
    await d.create(ORG, tid, {"game": "g", "mode": "single",
                              "format_json": json.dumps({"format": "swiss", "rounds": rounds})})
    await d.open_registration(ORG, tid)
    for p in ("p0", "p1", "p2", "p3"):
        await d.register(ORG, tid, p)
    await d.start(ORG, tid)
    return await d.next_round(ORG, tid, 0)


async def _matches(d: Director, tid: str) -> list[str]:
    import asyncio

    for _ in range(250):  # the driver creates the round's matches
        rnd = (await d.get(tid)).round(1)
        if len(rnd["matches"]) == 2:
            return sorted(m["match_id"] for m in rnd["matches"].values())
        await asyncio.sleep(0.02)
    raise AssertionError("the round's matches were not created")


async def test_force_end_abandons_the_matches_without_a_result(setup: Any) -> None:
    d, rules = setup
    view = await _round_one(d, "fe")
    matches = await _matches(d, "fe")
    decided = view["tables"][0]["number"]
    await d.correct_result(ORG, "fe", 1, decided, [1, 2], False, "played on paper")
    t = await d.force_end(ORG, "fe", "  the venue closed  ")
    assert t.status == "force-ended"
    open_match = next(m for m in matches if not m.endswith(f"-t{decided}"))
    decided_match = next(m for m in matches if m != open_match)
    # the decided table's match, waiting for its seats, was abandoned by the correction;
    # the stand-in's answer shows no abandoned outcome, so the log never showed it stopped,
    # and the ForceEnd abandons it again
    assert rules.abandoned[0] == ("g", decided_match,
                                  "the organiser set the table's result: played on paper")
    assert sorted(rules.abandoned[1:]) == [("g", m, "the venue closed") for m in matches]
    shown = {k["number"]: (k["status"], k["abandoned"])
             for k in (await d.round_view(t, 1))["tables"]}
    undecided = next(n for n in shown if n != decided)
    assert shown == {decided: ("done", None), undecided: ("abandoned", "the venue closed")}
    # every abandon was answered: the log says so, once, and a start leaves the tournament be
    assert await _confirmed(d, "fe") == [[open_match, decided_match]]
    assert d.app.force_ended_ids() == []
    await d.force_end(ORG, "fe", "again")
    assert await _confirmed(d, "fe") == [[open_match, decided_match]]


async def _confirmed(d: Director, tid: str) -> list[list[str]]:
    """The matches of each AbandonsConfirmed record of the tournament's log."""
    return [r["matches"] for r in await d.records(tid) if r["type"] == "AbandonsConfirmed"]


async def test_an_unreachable_rules_service_does_not_fail_the_force_end(
        setup: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    d, rules = setup
    logged = Logged()
    monkeypatch.setattr(director_module, "log", logged)
    await _round_one(d, "down")
    matches = await _matches(d, "down")
    rules.down = True
    t = await d.force_end(ORG, "down", "storm")
    assert t.status == "force-ended" and rules.abandoned == []
    warned = [kw for level, _, kw in logged.lines if level == "warning"]
    assert sorted(kw["match_id"] for kw in warned) == matches
    assert all(kw["tournament_id"] == "down" and kw["code"] == "UNAVAILABLE" for kw in warned)
    assert await _confirmed(d, "down") == []  # nothing answered: a start tries again
    assert d.app.force_ended_ids() == [tournament_uuid("down")]
    rules.down = False  # a repeat ForceEnd tries the abandons again, with the stored reason
    again = await d.force_end(ORG, "down", "another reason")
    assert again.status == "force-ended"
    assert sorted(rules.abandoned) == [("g", m, "storm") for m in matches]
    assert [sorted(m) for m in await _confirmed(d, "down")] == [matches]
    assert d.app.force_ended_ids() == []


async def test_a_start_abandons_only_what_no_rules_service_confirmed() -> None:
    """ForceEnd with the rules service down and no retries: the next start abandons the
    matches and records the confirmation; a start after that sends no abandon at all."""
    import asyncio

    app = TournamentApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    down = AbandoningRules()
    down.down = True
    first = Director(app, down, None, KEY, Options(poll=0.02, abandon_retries=()))
    await _round_one(first, "st")
    matches = await _matches(first, "st")
    await first.force_end(ORG, "st", "power cut")
    await first.close()
    assert down.abandoned == [] and await _confirmed(first, "st") == []
    starts = []
    for _ in range(2):
        rules = AbandoningRules()
        d = Director(app, rules, None, KEY, Options(poll=0.02))
        await d.recover()
        assert d._sweep is not None
        await asyncio.wait_for(d._sweep, 5)
        await d.close()
        starts.append(sorted(rules.abandoned))
    assert starts == [[("g", m, "power cut") for m in matches], []]
    assert [sorted(m) for m in await _confirmed(d, "st")] == [matches]


async def test_abandons_retried_in_the_background_are_confirmed_when_all_answer(
        setup: Any) -> None:
    import asyncio

    d, rules = setup
    d.options = Options(poll=0.02, abandon_retries=(0.05, 0.05, 0.05))
    await _round_one(d, "bg")
    matches = await _matches(d, "bg")
    rules.down = True
    await d.force_end(ORG, "bg", "flood")
    assert await _confirmed(d, "bg") == []
    rules.down = False
    for _ in range(100):
        if await _confirmed(d, "bg"):
            break
        await asyncio.sleep(0.02)
    assert [sorted(m) for m in await _confirmed(d, "bg")] == [matches]
    assert sorted(rules.abandoned) == [("g", m, "flood") for m in matches]


async def test_an_abandoned_matchs_end_is_no_result(setup: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    d, _ = setup
    logged = Logged()
    monkeypatch.setattr(director_module, "log", logged)
    view = await _round_one(d, "ab")
    table = view["tables"][0]
    outcome = await d.record_signed_result(
        {"match_id": f"ab-r1-t{table['number']}", "game": "g", "players": list(table["seats"]),
         "outcome": {"abandoned": True, "reason": "cheating report", "by": "org",
                     "placements": [], "scores": []}}, {})
    assert outcome == "recorded"  # as the table's abandon, not as a result
    rnd = (await d.get("ab")).round(1)
    assert str(table["number"]) not in rnd["results"]
    assert rnd["abandoned"] == {str(table["number"]): {"reason": "cheating report", "by": "org"}}
    assert not [line for line in logged.lines if line[0] == "error"]  # no "does not fit" error
    assert any("abandoned" in event for _, event, _ in logged.lines)
    view = await d.round_view(await d.get("ab"), 1)
    shown = next(t for t in view["tables"] if t["number"] == table["number"])
    assert (shown["status"], shown["abandoned"]) == ("abandoned", "cheating report")
    again = await d.record_signed_result(
        {"match_id": f"ab-r1-t{table['number']}", "game": "g", "players": list(table["seats"]),
         "outcome": {"abandoned": True, "reason": "cheating report", "by": "org",
                     "placements": [], "scores": []}}, {})
    assert again == "duplicate"
