"""A player who never came to their table (not ready when the check-in window ran out, then
forfeited by the no-show policy) is withdrawn from the next rounds, as a player absent
without notice is in over-the-board practice (FIDE: withdrawn from the pairings; never
given the pairing bye): ``FormatConfig.drop_no_shows``, on for new Swiss and multiplayer
events. The Director on an in-memory store with a stand-in rules service; a present
player who lost on time, or whom the organiser forfeited by hand, keeps playing; a log of an
earlier release (no such setting) pairs the no-show again, as it was published."""

from __future__ import annotations

import asyncio
import hashlib
import json
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.platform.tokens import Claims
from services.tournament.director import Director
from services.tournament.service import tournament_message
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on


class SeatedRules(StandInRules):
    """Tables of ``seats`` (min, max); every match's export ends sealed."""

    def __init__(self, seats: tuple[int, int] = (2, 2)) -> None:
        self.seats = seats

    async def game_info(self, game: str) -> Any:
        mode = types.SimpleNamespace(name="single", min_seats=self.seats[0],
                                     max_seats=self.seats[1])
        return types.SimpleNamespace(modes=[mode])

    async def export_match(self, game: str, match_id: str) -> Any:
        data = b'{"type":"MatchEnded"}\n{"type":"MatchSealed"}\n{"type":"Checkpoint"}\n'
        final = hashlib.sha256(match_id.encode()).hexdigest()
        return types.SimpleNamespace(export_jsonl=data, final_hash=final, event_count=2)


@pytest.fixture
async def d() -> AsyncIterator[Director]:
    async with director_on(SeatedRules()) as director:
        yield director


@pytest.fixture
async def d4() -> AsyncIterator[Director]:
    async with director_on(SeatedRules((3, 4))) as director:
        yield director


async def _event(d: Director, tid: str, n: int, fmt: dict[str, Any]) -> list[str]:
    players = [f"p{i}" for i in range(n)]
    await d.create(ORG, tid, {"game": "g", "mode": "single", "check_in_seconds": 1,
                              "format_json": json.dumps(fmt)})
    await d.open_registration(ORG, tid)
    for p in players:
        await d.register(ORG, tid, p)
    await d.start(ORG, tid)
    return players


async def _until(check: Any, what: str) -> None:
    for _ in range(300):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(what)


async def play_round(d: Director, tid: str, absent: set[str], losers: set[str] = frozenset(),
                     ) -> dict[str, Any]:
    """Pair the next round; every seat not in ``absent`` says it is ready, the absent ones
    never come (the match starts when the 1 s check-in window runs out); each match ends
    with the absent seats and ``losers`` placed last (a present loser: lost on time, say),
    signed result, sealed, checkpoint. The round's view."""
    view = await d.next_round(ORG, tid, 0)
    number = view["number"]
    played = [k for k in view["tables"] if not k["bye"]]
    for k in played:
        for p in k["seats"]:
            if p not in absent:
                await d.ready(Claims("player", "*", player=p), tid, k["match"]["match_id"])

    async def started() -> bool:
        return len((await d.get(tid)).round(number)["started"]) == len(played)

    await _until(started, f"round {number}'s matches did not start")
    for k in played:
        last = absent | losers
        first = [p for p in k["seats"] if p not in last]
        placements = [len(k["seats"]) if p in last else 1 + first.index(p) for p in k["seats"]]
        outcome = {"placements": placements, "scores": [0] * len(k["seats"])}
        assert await d.record_signed_result(
            {"match_id": k["match"]["match_id"], "game": "g", "players": k["seats"],
             "outcome": outcome}, {}) == "recorded"

    async def signed() -> bool:
        return (await d.get(tid)).round(number)["checkpoint"] is not None

    await _until(signed, f"round {number} got no checkpoint")
    return await d.round_view(await d.get(tid), number)


def seated(view: dict[str, Any]) -> set[str]:
    return {p for k in view["tables"] for p in k["seats"]}


async def test_a_no_show_is_not_paired_again_nor_given_the_bye(d: Director) -> None:
    """The organiser's run-through: five players, p3 never comes to round 1 and is
    forfeited; p0 comes and loses. Round 2 used to give p3 the pairing bye (one forfeit
    loss, 0 points, the lowest without a bye) and p3 finished ahead of p0. Now p3 is dropped
    after round 1 ("no-show in round 1"), recorded in the log, and round 2 pairs the four
    who came, with no bye."""
    await _event(d, "ns", 5, {"format": "swiss", "rounds": 3})
    first = await play_round(d, "ns", absent={"p3"}, losers={"p0"})
    assert next(k for k in first["tables"] if "p3" in k["seats"])["result"]["forfeited"] \
        == ["p3"]
    second = await d.next_round(ORG, "ns", 0)
    assert "p3" not in seated(second)
    assert not any(k["bye"] for k in second["tables"])
    assert seated(second) == {"p0", "p1", "p2", "p4"}  # p0 was there: it plays on
    t = await d.get("ns")
    assert t.players["p3"]["status"] == "dropped"
    shown = {p.player_id: p.status for p in tournament_message(t).players}  # GetTournament
    assert shown["p3"] == "dropped" and shown["p0"] == "playing"
    records = await d.records("ns")
    drops = [r for r in records if r["type"] == "NoShowDropped"]
    assert [(r["player_id"], r["after_round"], r["table"], r["match_id"], r["reason"])
            for r in drops] == [("p3", 1, 2, "ns-r1-t2", "no-show in round 1")]
    paired = [i for i, r in enumerate(records) if r["type"] == "RoundPaired"]
    assert paired[0] < records.index(drops[0]) < paired[1]  # after round 1, before round 2
    again = await d.next_round(ORG, "ns", 2)  # a repeat records nothing more
    assert again["tables"] == second["tables"]
    assert len(await d.records("ns")) == len(records)
    rows, _ = await d.standings("ns")
    assert next(r for r in rows if r["player_id"] == "p3")["dropped"]


async def test_with_the_setting_off_a_no_show_is_paired_as_before(d: Director) -> None:
    """``drop_no_shows: false`` keeps the behaviour of earlier releases: the no-show is
    paired in round 2, here with the bye."""
    await _event(d, "off", 5, {"format": "swiss", "rounds": 3, "drop_no_shows": False})
    await play_round(d, "off", absent={"p3"}, losers={"p0"})
    second = await d.next_round(ORG, "off", 0)
    assert next(k for k in second["tables"] if k["bye"])["seats"] == ["p3"]
    assert (await d.get("off")).players["p3"]["status"] == "playing"
    assert not [r for r in await d.records("off") if r["type"] == "NoShowDropped"]


async def test_present_players_who_lost_or_were_forfeited_by_hand_play_on(d: Director) -> None:
    """Only a seat that never came is a no-show. Round 1 pairs p0-p2 and p1-p3: p0 came,
    and the organiser set its table as a forfeit loss for p0 by hand (CorrectResult, say a
    phone at the board); p3 never came, but the organiser set its table as played before the
    next round (a check-in that went wrong). Nobody is dropped; and a player who came and
    lost on time (p1 in round 2) is no no-show either."""
    await _event(d, "here", 4, {"format": "swiss", "rounds": 3})
    first = await play_round(d, "here", absent={"p3"})
    by_seat = {p: k for k in first["tables"] for p in k["seats"]}
    p0, p3 = by_seat["p0"], by_seat["p3"]
    assert {p0["number"], p3["number"]} == {1, 2}, first["tables"]
    await d.correct_result(ORG, "here", 1, p0["number"],
                           [2 if p == "p0" else 1 for p in p0["seats"]], True, "phone")
    await d.correct_result(ORG, "here", 1, p3["number"],
                           [1 if p == "p3" else 2 for p in p3["seats"]], False, "was there")
    second = await play_round(d, "here", absent=set(), losers={"p1"})
    assert seated(second) == {"p0", "p1", "p2", "p3"}
    third = await d.next_round(ORG, "here", 0)
    assert seated(third) == {"p0", "p1", "p2", "p3"}
    assert not [r for r in await d.records("here") if r["type"] == "NoShowDropped"]


async def test_a_multiplayer_seat_that_never_came_is_dropped(d4: Director) -> None:
    """Four at one table of 4; p2 never comes (a played result that names it forfeited).
    Round 2 seats the three who came, at a table of 3."""
    fmt = {"format": "multiplayer", "rounds": 2, "table_sizes": [3, 4],
           "placement_points": [4, 2, 1, 0]}
    await _event(d4, "mp", 4, fmt)
    first = await play_round(d4, "mp", absent={"p2"})
    assert first["tables"][0]["result"]["forfeited"] == ["p2"]
    second = await d4.next_round(ORG, "mp", 0)
    assert [sorted(k["seats"]) for k in second["tables"]] == [["p0", "p1", "p3"]]
    assert (await d4.get("mp")).players["p2"]["status"] == "dropped"


async def test_both_seats_of_a_table_that_nobody_came_to_are_dropped(d: Director) -> None:
    await _event(d, "both", 6, {"format": "swiss", "rounds": 3})
    first = await play_round(d, "both", absent={"p2", "p5"})
    assert any(set(k["seats"]) == {"p2", "p5"} for k in first["tables"])
    second = await d.next_round(ORG, "both", 0)
    assert seated(second) == {"p0", "p1", "p3", "p4"}
    t = await d.get("both")
    assert {p for p, v in t.players.items() if v["status"] == "dropped"} == {"p2", "p5"}
