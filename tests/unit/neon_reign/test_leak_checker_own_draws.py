"""The campaign's leak checker (tests/support/campaign/leaks.py) and a Neon Reign seat's own
draws: an attack that draws for its joysticks and knocks the defender out ends a game of a
Best of Three, and the next game deals from fresh decks, in one action. The attacker's
``drew`` event (sent to it alone) names cards that, after the action, lie in a deck nobody
sees; the checker counted that as a leak (`bench/campaign.py --only leaks --leak-games 1000`
reported 12 in 1,000 Neon Reign games, every one of them such a draw). A seat knows what it
drew; another seat's draw sent to it is still a leak."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from services.rules.games import load_engine
from services.rules.games.contract import EngineEvent
from tests.support.campaign.leaks import play_one

ENGINE = load_engine("neon-reign")

# Seeds of Best of Three games the campaign's run reported "leaks" in: the last action of a
# game draws for the attacker, then the next game is dealt.
SEEDS = (1765122446, 1765122466, 1765122494)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seats_own_draw_before_the_next_game_is_dealt_is_no_leak(seed: int) -> None:
    report = play_one("neon-reign", "best-of-three", 2, seed)
    assert report.actions > 10
    assert report.leaks == []


class _DrawsShownToBoth:
    """Neon Reign with a planted leak: every ``drew`` event is sent to both seats."""

    def __getattr__(self, name: str) -> Any:
        return getattr(ENGINE, name)

    def apply(self, state: Any, seat: int, action: Any, rng: Any) -> Any:
        transition = ENGINE.apply(state, seat, action, rng)
        events = tuple(EngineEvent(e.kind, e.data, frozenset({0, 1}))
                       if e.kind == "drew" else e for e in transition.events)
        return replace(transition, events=events)


@pytest.mark.parametrize("seed", SEEDS)
def test_another_seats_draw_sent_to_a_seat_is_still_a_leak(seed: int) -> None:
    leaks = play_one("neon-reign", "best-of-three", 2, seed, engine=_DrawsShownToBoth()).leaks
    assert leaks and all(": record of seat " in leak for leak in leaks)
