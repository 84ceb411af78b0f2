"""Neon Knights: 2086 as a hostile client sees it, over the real services (gRPC, NATS,
PostgreSQL): twin matches that differ only in one seat's hidden answer (a starting speed chosen
with ``hidden_speeds``, which Fan Bet is discarded) give every other seat and the public the
same views, legal actions and their words, refusals, answers and WatchMatch streams, until
the rules reveal the answer (tests/support/served_twins.py). A leak planted in the view is found.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.rules.games.neon_knights import views
from tests.support.served_twins import Action, create_twins, play_twins, served

pytestmark = pytest.mark.postgres
GAME = "neon-knights-2086"
SPEED_PROBES: list[Action] = [
    {"type": "start_speed", "speed": 5}, {"type": "speed", "change": 1},
    {"type": "step", "dir": 0}, {"type": "discard_bet", "bet": "b01"}, {"type": "keep_bets"},
]
BET_PROBES: list[Action] = [
    {"type": "discard_bet", "bet": "b01"}, {"type": "discard_bet", "bet": "b15"},
    {"type": "keep_bets"}, {"type": "draw_bet"}, {"type": "install", "part": "r01"},
]


@pytest.fixture
async def knights(tmp_path: Path, nats_url: str, postgres_url: str,
                  postgres_schema: str) -> AsyncIterator[tuple[Backend, RulesClient]]:
    async with served(GAME, tmp_path, nats_url, postgres_url, postgres_schema) as both:
        yield both


def other_speed(decision: Any, action: Action, legal_b: list[Action]) -> Action | None:
    """B's seat 0 chooses another starting speed than A's."""
    if decision.kind != "start_speed":
        return None
    return next(a for a in legal_b if a != action and a["speed"] in (3, 9))


async def test_a_hidden_starting_speed_reaches_nobody_else_before_the_reveal(
        knights: tuple[Backend, RulesClient]) -> None:
    backend, client = knights
    a, b = await create_twins(client, backend.organiser_token(), mode="normal", seats=3,
                              options={"hidden_speeds": True}, seed="leaks-speeds")
    report = await play_twins(a, b, secret_seat=0, divert=other_speed,
                              probes=lambda viewer: SPEED_PROBES, seed="speeds",
                              reveals=frozenset({"start_speeds_revealed", "race_started"}))
    assert report.diverted, "seat 0 chose a hidden starting speed"
    assert report.compared >= 3, report.parted  # the others chose theirs meanwhile
    assert not report.differences, "\n".join(report.differences)
    assert "start_speeds_revealed" in report.parted  # the reveal is where the twins part


def discard_another(decision: Any, action: Action, legal_b: list[Action]) -> Action | None:
    """When A's seat 0 discards a Fan Bet, B's discards another (both public as a discard)."""
    if decision.kind != "fan_bet" or action["type"] != "discard_bet":
        return None
    return next((a for a in legal_b if a["type"] == "discard_bet" and a != action), None)


def draw_and_discard(decision: Any, legal_a: list[Action]) -> Action | None:
    """A's seat 0 draws a Fan Bet when it may, and discards one when asked (a random game
    may never have it do either)."""
    for kind in ("discard_bet", "draw_bet"):
        chosen = next((a for a in legal_a if a["type"] == kind), None)
        if chosen is not None:
            return chosen
    return None


async def test_which_fan_bet_a_seat_discarded_reaches_nobody_else(
        knights: tuple[Backend, RulesClient]) -> None:
    backend, client = knights
    a, b = await create_twins(client, backend.organiser_token(), mode="normal", seats=3,
                              options={}, seed="leaks-bets")
    report = await play_twins(a, b, secret_seat=0, divert=discard_another,
                              probes=lambda viewer: BET_PROBES, seed="bets", after_divert=40,
                              steer=draw_and_discard,
                              reveals=frozenset({"fan_bet_face_up", "fan_bet_won"}))
    assert report.diverted, "seat 0 discarded a Fan Bet"
    assert report.compared >= 40, report.parted
    assert not report.differences, "\n".join(report.differences)


async def test_a_planted_leak_of_the_hidden_speeds_is_found(
        knights: tuple[Backend, RulesClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a view that shows the speeds chosen is caught."""
    backend, client = knights
    original = views.view_of

    def leaky(state: Any, viewer: int | None) -> dict[str, Any]:
        out = original(state, viewer)
        if state.doc["speeds"] is not None:
            out["speeds"] = state.doc["speeds"]
        return out

    monkeypatch.setattr("services.rules.games.neon_knights.engine.view_of", leaky)
    a, b = await create_twins(client, backend.organiser_token(), mode="normal", seats=3,
                              options={"hidden_speeds": True}, seed="leaks-planted")
    report = await play_twins(a, b, secret_seat=0, divert=other_speed,
                              probes=lambda viewer: SPEED_PROBES, seed="speeds",
                              reveals=frozenset({"start_speeds_revealed", "race_started"}))
    assert report.diverted
    assert any("receives another view" in d for d in report.differences), report
