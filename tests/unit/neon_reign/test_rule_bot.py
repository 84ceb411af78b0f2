"""Games between rule-based bots: every mode ends by one of the rulebook's own endings.

The bots see only their seat's view and their decision (what a client sees). The CI run
plays 100 games per mode; the 1,000-game run is marked slow.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import BOTS, ENGINE, RuleBot
from services.rules.games.neon_reign.state import State

from .test_fuzz import _check_secrets, _check_state

MODES = [
    ("single", 2, {}),
    ("best-of-three", 2, {}),
    ("hero-match", 2, {}),
    ("solo", 1, {"difficulty": "training"}),
    ("solo", 1, {"difficulty": "normal"}),
    ("solo", 1, {"difficulty": "hard"}),
]
IDS = [f"{m}-{o.get('difficulty', '')}".rstrip("-") for m, _, o in MODES]
# The rulebook's own endings: a KO (the Goal), both players out of cards (FAQ), or neither
# able to Attack or draw ever again; in a match of several games, how the match was decided.
KO_REASONS = ("health reduced to 0",)
OUT_REASONS = ("ran out of cards", "ever again")
MATCH_REASONS = ("won 2 games", "Arcade tokens at once", "beat both", "lost their last hero")


def play(mode: str, seats: int, options: dict[str, Any], game: int,
         check: bool = True) -> tuple[State, int]:
    rng = SeededRandomness(f"rule-bots-{mode}-{options}-{game}")
    state = ENGINE.setup(MatchConfig(mode, seats, options), rng)
    bots = [RuleBot(f"{game}-{seat}") for seat in range(seats)]
    actions = 0
    while pending := ENGINE.pending(state):
        decision = pending[0]
        view = ENGINE.view(state, decision.seat)
        action = bots[decision.seat].choose(json.loads(json.dumps(view)), decision)
        assert ENGINE.validate(state, decision.seat, action) is None, action
        transition = ENGINE.apply(state, decision.seat, action, rng)
        state, actions = transition.state, actions + 1
        if check:
            _check_state(state)
            _check_secrets(state, transition.events, seats, views=True)
    return state, actions


def ending(state: State) -> str:
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    reasons = [r.reason for r in state.results]
    assert reasons, "every ending comes from a KO or running out of cards"
    for reason in reasons:
        assert reason.startswith(KO_REASONS) or any(r in reason for r in OUT_REASONS), reason
    assert (outcome.reason in reasons or any(r in outcome.reason for r in MATCH_REASONS)), \
        outcome.reason
    return "KO" if all(r.startswith(KO_REASONS) for r in reasons) else "out of cards"


def run(mode: str, seats: int, options: dict[str, Any], games: int,
        check: bool) -> Counter[str]:
    endings: Counter[str] = Counter()
    for game in range(games):
        state, actions = play(mode, seats, options, game, check)
        assert actions < 400
        endings[ending(state)] += 1
    return endings


def test_the_package_exposes_its_rule_bot() -> None:
    assert BOTS["rule"] is RuleBot and set(BOTS) == {"rule"} and RuleBot.name == "rule"


def test_a_rule_bot_is_deterministic_given_its_seed() -> None:
    first, _ = play("single", 2, {}, 7, check=False)
    again, _ = play("single", 2, {}, 7, check=False)
    assert ENGINE.encode(first) == ENGINE.encode(again)


@pytest.mark.parametrize(("mode", "seats", "options"), MODES, ids=IDS)
def test_rule_bot_games_end_by_the_rulebook_and_mostly_by_a_ko(
        mode: str, seats: int, options: dict[str, Any]) -> None:
    endings = run(mode, seats, options, 100, check=mode != "best-of-three")
    assert endings["KO"] > sum(endings.values()) // 2, endings


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seats", "options"), MODES, ids=IDS)
def test_a_thousand_rule_bot_games_per_mode(mode: str, seats: int,
                                            options: dict[str, Any]) -> None:
    endings = run(mode, seats, options, 1000, check=True)
    assert endings["KO"] > sum(endings.values()) // 2, endings


def test_a_bot_picks_its_secret_starting_hero_by_its_seed_alone() -> None:
    """The Hero Match's secret pick (RULES.md, "Bots on hidden decisions"): the bot's heroes
    are worth the same to it, so it draws one with its seed (the rules host keys the seed with
    the match's secret state key); over seeds it picks each hero of its bench, each legal."""
    state = ENGINE.setup(MatchConfig("hero-match", 2, {}), SeededRandomness("pick"))
    for decision in ENGINE.pending(state):
        assert decision.kind == "pick_hero" and decision.hidden and len(decision.legal) == 2
        view = json.loads(json.dumps(ENGINE.view(state, decision.seat)))
        picks: Counter[str] = Counter()
        for seed in range(200):
            action = RuleBot(f"pick-{seed}").choose(view, decision)
            assert action in decision.legal
            picks[json.dumps(action, sort_keys=True)] += 1
        assert len(picks) == 2 and min(picks.values()) > 60, picks
