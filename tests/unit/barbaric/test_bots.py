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


def test_the_bot_draws_its_hidden_starting_hand_with_its_seed() -> None:
    """The starting-hand choice is hidden (RULES.md, "Bots on hidden decisions"): the bot
    draws each card among the legal ones with its seed (the rules host keys the seed with the
    match's secret state key), so which it takes follows from no rule the table could rerun;
    over seeds it takes several cards, each legal."""
    from services.platform.draws import SeededRandomness as Rng

    rng = Rng("hand")
    state = ENGINE.setup(MatchConfig("competitive", 3), rng)
    for _ in range(100):  # the set-up's picks, answered with their defaults
        (d,) = ENGINE.pending(state)
        if d.kind == "choose_card":
            break
        state = ENGINE.apply(state, d.seat, d.default, rng).state
    assert d.kind == "choose_card" and d.hidden and len(d.legal) > 2
    view = ENGINE.view(state, d.seat)
    picks = set()
    for seed in range(60):
        action = RuleBot(f"hand-{seed}").choose(view, d)
        assert action in d.legal
        picks.add(str(action))
    assert len(picks) > 2
