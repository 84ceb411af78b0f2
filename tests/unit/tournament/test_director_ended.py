"""The Director on an in-memory store with a stand-in rules service: once a tournament has
ended (finished or force-ended, final standings published) its log takes no more results,
neither an organiser's correction nor a signed result that arrives late."""

from __future__ import annotations

import asyncio
import contextlib
import json
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.errors import FailedPrecondition
from services.platform.tokens import Claims
from services.tournament.app import TournamentApplication
from services.tournament.director import Director, Options

ORG = Claims("organiser", "*", player="org")
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


class StandInRules:
    """Creates matches that never start; their export is never sealed. An abandon (of a
    match a correction decided) is answered as a rules service does: abandoned."""

    def address(self, game: str) -> str:
        return "127.0.0.1:1"

    async def game_info(self, game: str) -> Any:
        mode = types.SimpleNamespace(name="single", min_seats=2, max_seats=2)
        return types.SimpleNamespace(modes=[mode])

    async def check_config(self, game: str, mode: str, seats: int, options: str) -> bool:
        return True

    async def create_match(self, game: str, match_id: str, mode: str, seats: list[str],
                           options: str, clock: Any,
                           on_behalf_of_organiser: str | None = None) -> tuple[dict[int, str], str]:
        return {i: f"seat-{i}" for i in range(len(seats))}, "commitment"

    async def start_match(self, game: str, match_id: str) -> None:
        return None

    async def export_match(self, game: str, match_id: str) -> Any:
        return types.SimpleNamespace(export_jsonl=b"{}\n", final_hash="", event_count=0)

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        return types.SimpleNamespace(already_abandoned=False, outcome_json=json.dumps(
            {"abandoned": True, "reason": reason, "by": "tournament", "placements": []}))


@contextlib.asynccontextmanager
async def director_on(rules: Any) -> AsyncIterator[Director]:
    """A Director on an in-memory store with the stand-in ``rules``, polling every 20 ms;
    closed afterwards (the tournament unit tests' fixtures)."""
    app = TournamentApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    director = Director(app, rules, None, KEY, Options(poll=0.02))
    try:
        yield director
    finally:
        await director.close()


@pytest.fixture
async def d() -> AsyncIterator[Director]:
    async with director_on(StandInRules()) as director:
        yield director


async def _running(d: Director, tid: str, rounds: int) -> None:
    await d.create(ORG, tid, {"game": "g", "mode": "single",
                              "format_json": json.dumps({"format": "swiss", "rounds": rounds})})
    await d.open_registration(ORG, tid)
    for p in ("p0", "p1", "p2", "p3"):
        await d.register(ORG, tid, p)
    await d.start(ORG, tid)


async def _play_round_on_paper(d: Director, tid: str, number: int) -> None:
    view = await d.next_round(ORG, tid, 0)
    for k in view["tables"]:
        if not k["bye"]:
            await d.correct_result(ORG, tid, number, k["number"], [1, 2], False, "paper")
    for _ in range(250):
        if (await d.get(tid)).round(number)["checkpoint"] is not None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"round {number} got no checkpoint")


async def test_a_finished_tournament_takes_no_correction(d: Director) -> None:
    await _running(d, "fin", 1)
    await _play_round_on_paper(d, "fin", 1)
    _, final, _ = await d.finish(ORG, "fin")
    length = len(await d.records("fin"))
    with pytest.raises(FailedPrecondition):
        await d.correct_result(ORG, "fin", 1, 1, [2, 1], False, "changed my mind")
    assert len(await d.records("fin")) == length
    rows, is_final = await d.standings("fin")
    assert is_final and rows == final


async def test_a_withdrawal_says_the_tournament_is_over_not_to_drop(d: Director) -> None:
    """Withdrawing from a running tournament is refused with "drop the player instead"; from
    an ended one (where a drop is refused too) the refusal says it is over."""
    await _running(d, "over", 1)
    with pytest.raises(FailedPrecondition, match="has started: drop the player instead"):
        await d.withdraw(ORG, "over", "p1")
    await _play_round_on_paper(d, "over", 1)
    await d.finish(ORG, "over")
    with pytest.raises(FailedPrecondition) as refused:
        await d.withdraw(ORG, "over", "p1")
    assert str(refused.value) == "the tournament is finished"
    await _running(d, "called", 2)
    await d.force_end(ORG, "called", "venue closed")
    with pytest.raises(FailedPrecondition) as refused:
        await d.withdraw(ORG, "called", "p2")
    assert str(refused.value) == "the tournament is force-ended"


async def test_a_result_arriving_after_a_force_end_is_not_recorded(d: Director) -> None:
    await _running(d, "forced", 2)
    view = await d.next_round(ORG, "forced", 0)
    await d.force_end(ORG, "forced", "venue closed")
    length = len(await d.records("forced"))
    table = view["tables"][0]
    outcome = await d.record_signed_result(
        {"match_id": "forced-r1-t1", "game": "g", "players": list(table["seats"]),
         "outcome": {"placements": [1, 2]}}, {})
    assert outcome == "ignored"
    assert len(await d.records("forced")) == length


async def test_late_entries_keep_distinct_registration_orders(d: Director) -> None:
    """A player who withdrew before the start and comes back as a late entry, then another
    late entry: each late entrant gets its own registration order (seed order ties are
    broken by it, README "Formats" / core standings), not the same number twice."""
    await d.create(ORG, "late", {"game": "g", "mode": "single", "format_json": json.dumps(
        {"format": "swiss", "rounds": 2, "late_entry_until": 1})})
    await d.open_registration(ORG, "late")
    for p in ("p0", "p1", "p2", "zed"):
        await d.register(ORG, "late", p)
    await d.withdraw(ORG, "late", "zed")
    await d.start(ORG, "late")
    await d.add_late(ORG, "late", "zed")
    await d.add_late(ORG, "late", "amy")
    orders = [e["registered"] for e in (await d.get("late")).entrants]
    assert len(set(orders)) == len(orders), orders
    replayed = await d.replayed("late")
    seeds = [e.player_id for e in sorted(replayed.entrants, key=lambda e: e.registered)]
    assert seeds[-2:] == ["zed", "amy"]


async def test_the_results_a_driven_round_waits_for(d: Director) -> None:
    """Director.awaiting_results: the match of each table of a driven round with no result
    (what the results consumer looks for on the stream), none once a result is recorded."""
    await _running(d, "wait", 2)
    view = await d.next_round(ORG, "wait", 0)
    tables = [k["number"] for k in view["tables"] if not k["bye"]]
    assert len(tables) == 2
    for _ in range(250):  # the driver creates the round's matches
        t = await d.get("wait")
        if len(t.round(1)["matches"]) == 2:
            break
        await asyncio.sleep(0.02)
    awaiting = await d.awaiting_results()
    assert sorted(awaiting) == [("g", f"wait-r1-t{k}") for k in sorted(tables)]
    await d.correct_result(ORG, "wait", 1, tables[0], [1, 2], False, "paper")
    assert await d.awaiting_results() == [("g", f"wait-r1-t{tables[1]}")]
