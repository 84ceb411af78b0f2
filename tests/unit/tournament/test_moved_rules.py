"""A round's matches are handed out at the address the game's rules service has now, not the
one MatchCreated recorded: after a restart on other ports or hosts (an upgrade, a move; found
by tests/integration/test_store_upgrade.py on the stores of 33f18b3), players of a round in
flight were sent to a dead address. The log of an earlier release keeps the address of its
day; since 6 December 2026 MatchCreated records none (the log is published in the audit
bundle, and the address is internal infrastructure nothing checks)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from services.platform.tokens import Claims
from services.tournament.director import Director
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on


class MovingRules(StandInRules):
    def __init__(self) -> None:
        self.where = "127.0.0.1:1111"

    def address(self, game: str) -> str:
        return self.where


@pytest.fixture
async def d() -> AsyncIterator[Director]:
    async with director_on(MovingRules()) as director:
        yield director


async def test_a_moved_rules_service_is_where_players_are_sent(d: Director) -> None:
    await d.create(ORG, "moved", {"game": "g", "mode": "single",
                                  "format_json": json.dumps({"format": "swiss", "rounds": 1})})
    await d.open_registration(ORG, "moved")
    for p in ("p0", "p1"):
        await d.register(ORG, "moved", p)
    await d.start(ORG, "moved")
    await d.next_round(ORG, "moved", 0)
    for _ in range(250):
        if (await d.get("moved")).round(1)["matches"]:
            break
        await asyncio.sleep(0.02)
    p0 = Claims("player", "*", player="p0")
    assert (await d.my_match(p0, "moved"))[0]["rules_address"] == "127.0.0.1:1111"

    d.rules.where = "10.0.0.7:50061"  # the rules service moved (a restart on another port)
    mine, _ = await d.my_match(p0, "moved")
    assert mine["rules_address"] == "10.0.0.7:50061"
    view = await d.round_view(await d.get("moved"), 1)
    assert [k["match"]["rules_address"] for k in view["tables"]] == ["10.0.0.7:50061"]
    created = [r for r in await d.records("moved") if r["type"] == "MatchCreated"]
    assert [r["rules_address"] for r in created] == [""]
