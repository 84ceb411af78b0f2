"""StartTournament and the registered players who did not check in, on the Director with an
in-memory store: the refusal names them (sorted by id, a long list cut short), the flag
starts without them and the Started event records them, and a Started stored before the
event named them (an older release's log) still says whom its start left out."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator

import pytest

from services.platform.errors import FailedPrecondition, PermissionDenied, Unauthenticated
from services.platform.tokens import Claims
from services.tournament.app import TournamentApplication
from services.tournament.director import NAMED, Director
from services.tournament.domain import Tournament
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on


@pytest.fixture
async def d() -> AsyncIterator[Director]:
    async with director_on(StandInRules()) as director:
        yield director


async def _registration(d: Director, tid: str, players: list[str], checked_in: list[str]) -> None:
    await d.create(ORG, tid, {"game": "g", "mode": "single",
                              "format_json": json.dumps({"format": "swiss", "rounds": 1})})
    await d.open_registration(ORG, tid)
    for p in players:
        await d.register(ORG, tid, p)
    for p in checked_in:
        await d.check_in(ORG, tid, p)


async def test_one_player_left_out_is_named_in_the_singular(d: Director) -> None:
    await _registration(d, "one", ["zoe", "amy", "bob"], ["zoe", "amy"])
    with pytest.raises(FailedPrecondition) as refused:
        await d.start(ORG, "one")
    assert refused.value.reason.startswith("1 registered player did not check in: bob. ")
    assert (await d.get("one")).status == "registration"


async def test_a_long_list_is_cut_short_and_sorted_by_id(d: Director) -> None:
    late = [f"p{i:03d}" for i in range(NAMED + 5)]
    await _registration(d, "many", ["here1", *reversed(late), "here2"], ["here1", "here2"])
    with pytest.raises(FailedPrecondition) as refused:
        await d.start(ORG, "many")
    why = refused.value.reason
    assert why.startswith(f"{NAMED + 5} registered players did not check in: p000, p001, ")
    assert f"p{NAMED - 1:03d} and 5 more." in why and f"p{NAMED:03d}" not in why
    t = await d.start(ORG, "many", checked_in_only=True)
    assert t.left_out == late  # the answer names them all
    assert [e["player_id"] for e in t.entrants] == ["here1", "here2"]


async def test_organiser_only_before_anything_else(d: Director) -> None:
    await _registration(d, "who", ["amy", "bob", "cy"], ["amy"])
    with pytest.raises(Unauthenticated):
        await d.start(None, "who", checked_in_only=True)
    with pytest.raises(PermissionDenied):
        await d.start(Claims("player", "*", player="amy"), "who", checked_in_only=True)
    assert (await d.get("who")).status == "registration"


def test_a_started_stored_without_left_out_still_names_them() -> None:
    """An older release's Started has no ``left_out``: replayed, the tournament still knows
    whom that start left out (the registered players who are not entrants)."""
    app = TournamentApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    t = Tournament("old", {"format": {}}, "org")
    t.open_registration()
    for p in ("cy", "amy", "bob", "dee"):
        t.register(p, "org")
    t.check_in("amy", "org")
    t.check_in("dee", "org")
    t.start([{"player_id": "amy", "rating": 0.0, "registered": 1},
             {"player_id": "dee", "rating": 0.0, "registered": 3}], [])
    app.save(t)
    stored = app.recorder._stored_events  # type: ignore[attr-defined]
    index = next(i for i, e in enumerate(stored) if e.topic.endswith(".Started"))
    state = json.loads(stored[index].state)
    del state["left_out"]
    stored[index] = dataclasses.replace(stored[index], state=json.dumps(state).encode())
    again = app.repository.get(t.id)
    assert again.left_out == ["bob", "cy"]
    assert again.players["bob"]["status"] == "registered"
    assert "left_out" not in app.records("old")[-1]
