"""Barbaric: After the Apocalypse as a hostile client sees it, over the real services (gRPC,
NATS, PostgreSQL): twin matches in which one seat chooses another starting hand (the hidden
``choose_card``) give every other seat and the public the same views, legal actions and their
words, refusals of Counter, Ultimate and hand-choice probes, answers and WatchMatch streams,
through the choice and the turns after it, as long as that seat's public moves are the same in
both (tests/support/served_twins.py). A leak planted in the view is found.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.rules.games.barbaric import views
from services.rules.games.barbaric.content import GEARS, RIDERS, card_ids, skill_of
from tests.support.served_twins import Action, create_twins, play_twins, served

pytestmark = pytest.mark.postgres
GAME = "barbaric"


def probes_of_every_board() -> list[Action]:
    """For each board, its first Counter and Ultimate card played as such and its first card
    chosen for a starting hand (any seat's hand or deck may hold them): refused, and in the
    same words whatever the hands hold."""
    out: list[Action] = []
    for board in sorted((*RIDERS.values(), *GEARS.values()), key=lambda b: b.id):
        cards = card_ids(board)
        out.append({"type": "choose_card", "card": cards[0]})
        for kind in ("counter", "ultimate"):
            out += [{"type": kind, "card": c} for c in cards if skill_of(c).kind == kind][:1]
    return out


PROBES = probes_of_every_board()


@pytest.fixture
async def barbaric(tmp_path: Path, nats_url: str, postgres_url: str,
                   postgres_schema: str) -> AsyncIterator[tuple[Backend, RulesClient]]:
    async with served(GAME, tmp_path, nats_url, postgres_url, postgres_schema) as both:
        yield both


def another_card(decision: Any, action: Action, legal_b: list[Action]) -> Action | None:
    """B's seat 0 chooses another card for its starting hand than A's, where it can."""
    return next((a for a in reversed(legal_b) if a != action), None)


async def test_a_starting_hand_reaches_nobody_else(
        barbaric: tuple[Backend, RulesClient]) -> None:
    backend, client = barbaric
    a, b = await create_twins(client, backend.organiser_token(), mode="competitive", seats=3,
                              options={}, seed="leaks-hand")
    report = await play_twins(a, b, secret_seat=0, divert=another_card,
                              probes=lambda viewer: PROBES, seed="hand", after_divert=40)
    assert len(report.diverted) >= 3, "seat 0 chose other cards"
    assert report.compared >= 30, report.parted  # the choices, then turns of play
    assert not report.differences, "\n".join(report.differences)


async def test_a_planted_leak_of_a_hand_is_found(
        barbaric: tuple[Backend, RulesClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a view that shows every hand's first card is caught."""
    backend, client = barbaric
    original = views.view

    def leaky(state: Any, viewer: int | None) -> dict[str, Any]:
        out = original(state, viewer)
        for shown, player in zip(out["players"], state.data["players"], strict=True):
            shown["first_card"] = player["hand"][:1]
        return out

    monkeypatch.setattr(views, "view", leaky)
    a, b = await create_twins(client, backend.organiser_token(), mode="competitive", seats=3,
                              options={}, seed="leaks-planted")
    report = await play_twins(a, b, secret_seat=0, divert=another_card,
                              probes=lambda viewer: PROBES, seed="hand", after_divert=5)
    assert report.diverted
    assert any("receives another view" in d for d in report.differences), report
