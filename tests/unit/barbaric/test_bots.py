"""Games between rule bots end by a rulebook ending in every mode and player count."""

from __future__ import annotations

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric.bots import RuleBot
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.contract import MatchConfig

ENGINE = BarbaricEngine()


def _bot_game(mode: str, seats: int, seed: int) -> tuple[str, int]:
    rng = SeededRandomness(seed)
    bots = [RuleBot(seed * 10 + s) for s in range(seats)]
    state = ENGINE.setup(MatchConfig(mode, seats), rng)
    for n in range(4000):
        outcome = ENGINE.outcome(state)
        if outcome is not None:
            return outcome.reason, n
        (d,) = ENGINE.pending(state)
        action = bots[d.seat].choose(ENGINE.view(state, d.seat), d)
        assert ENGINE.validate(state, d.seat, action) is None
        state = ENGINE.apply(state, d.seat, action, rng).state
    raise AssertionError("no ending in 4000 actions")


@pytest.mark.parametrize(("mode", "seats"), [("solo", 1), ("competitive", 2),
                                             ("competitive", 4), ("competitive", 6)])
def test_rule_bots_finish(mode: str, seats: int) -> None:
    reason, _ = _bot_game(mode, seats, 7)
    assert reason != ""


def test_the_bot_answers_only_with_legal_actions_and_goes_for_the_core() -> None:
    from .support import A, act, owed, table, turn_of

    t = table(2, positions=[(2, -1), (2, 2)])
    t.minions = []
    state = act(turn_of(t, A).freeze(), A, {"type": "pass"})
    (d,) = ENGINE.pending(state)
    choice = RuleBot(1).choose(ENGINE.view(state, A), d)
    assert choice == {"type": "move", "to": [1, -1]}  # one space nearer the Atomic Core
    assert owed(state)[0] == A
