"""Games between rule bots end by the rulebook's ending in every mode."""

from __future__ import annotations

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import BOTS, ENGINE


@pytest.mark.parametrize("mode", ["normal", "campaign", "epic-campaign"])
@pytest.mark.parametrize("seats", [2, 5])
def test_rule_bots_finish_a_game(mode: str, seats: int) -> None:
    rng = SeededRandomness(f"rule:{mode}:{seats}")
    state = ENGINE.setup(MatchConfig(mode, seats, {}), rng)
    bots = [BOTS["rule"](seat) for seat in range(seats)]
    for _ in range(5000):
        if ENGINE.outcome(state) is not None:
            break
        decision = ENGINE.pending(state)[0]
        action = bots[decision.seat].choose(ENGINE.view(state, decision.seat), decision)
        assert ENGINE.validate(state, decision.seat, action) is None
        state = ENGINE.apply(state, decision.seat, action, rng).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason.startswith("the last race")
    assert state.doc["race"] == state.doc["races"]


def test_rule_bot_clears_danger_lines_it_can_see() -> None:
    """At speed 10 before an orange line across the road it prefers a speed that passes free."""
    from .support import decision_of, edit, racing

    state = racing(2)
    seat = state.doc["racing"]["order"][0]

    def place(doc: dict) -> None:
        doc["track"] = ["t01", "t07", "t02", "t03", "t05", "t06", "t09", "t12"]  # orange line on row 4
        p = doc["players"][seat]
        p.update(row=0, lane=1, speed=6, car={**p["car"], "yellow": "y08", "green": "g08"})

    state = edit(state, place)
    decision = decision_of(state)
    action = BOTS["rule"](1).choose(ENGINE.view(state, seat), decision)
    assert action["to"] == 5  # the fastest speed in the orange zone passes the orange line free
