"""Games between rule-based bots: every mode ends by one of the rulebook's own endings."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import BOTS, ENGINE
from services.rules.games.neon.state import State
from tests.unit.neon.test_fuzz import check_invariants, check_no_leak

RULEBOOK_ENDINGS = {
    "rebirth": {"the last round has been played", "one fighter remains on the arena",
                "no fighters remain on the arena"},
    "coalition": {"the last round has been played", "one team remains on the arena",
                  "no fighters remain on the arena"},
    "battle-royale": {"one fighter remains on the arena", "no fighters remain on the arena"},
}
SETUPS = [("rebirth", 2, {}), ("rebirth", 4, {}),
          ("battle-royale", 3, {}), ("battle-royale", 4, {}), ("battle-royale", 5, {}),
          ("battle-royale", 6, {}),
          ("coalition", 4, {}), ("coalition", 6, {"teams": 2}), ("coalition", 6, {"teams": 3})]
GAMES = int(os.environ.get("NEON_BOT_GAMES", "50"))  # per mode, shared by its set-ups


def per_setup(mode: str, games: int) -> int:
    return -(-games // sum(1 for m, _, _ in SETUPS if m == mode))


def play(mode: str, seats: int, options: dict, seed: int, leaks: bool = False) -> tuple[State, int]:
    rng = SeededRandomness(f"bots-{mode}-{seats}-{seed}")
    state = ENGINE.setup(MatchConfig(mode, seats, options), rng)
    bots = [BOTS["rule"](f"{seed}-{seat}") for seat in range(seats)]
    actions = 0
    while ENGINE.outcome(state) is None:
        decision = ENGINE.pending(state)[0]
        action = bots[decision.seat].choose(ENGINE.view(state, decision.seat), decision)
        assert ENGINE.validate(state, decision.seat, action) is None, (decision.kind, action)
        transition = ENGINE.apply(state, decision.seat, action, rng)
        state = transition.state
        actions += 1
        if leaks:
            check_invariants(state)
            check_no_leak(state, transition.events)
        assert actions < 20_000, "the game did not end"
    return state, actions


def run(mode: str, seats: int, options: dict, games: int) -> tuple[Counter, list[int]]:
    endings: Counter = Counter()
    lengths = []
    for seed in range(games):
        state, actions = play(mode, seats, options, seed, leaks=seed == 0)
        assert state.ended in RULEBOOK_ENDINGS[mode], state.ended
        endings[state.ended] += 1
        lengths.append(actions)
    return endings, lengths


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_rule_bots_finish_every_mode_by_a_rulebook_ending(mode, seats, options) -> None:
    endings, lengths = run(mode, seats, options, per_setup(mode, GAMES))
    print(f"{mode} {seats} {options}: {dict(endings)}; actions "
          f"min {min(lengths)} mean {sum(lengths) // len(lengths)} max {max(lengths)}")


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_a_thousand_rule_bot_games_per_mode(mode, seats, options) -> None:
    endings, lengths = run(mode, seats, options, per_setup(mode, 1000))
    print(f"{mode} {seats}: {dict(endings)}; mean {sum(lengths) // len(lengths)} actions")


def test_the_bot_is_deterministic_given_its_seed() -> None:
    a, n = play("rebirth", 3, {}, 7)
    b, m = play("rebirth", 3, {}, 7)
    assert n == m and ENGINE.encode(a) == ENGINE.encode(b)
