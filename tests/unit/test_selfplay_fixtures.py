"""Seeded self-play games recorded before issue 18's optimisations replay identically.

``tests/fixtures/selfplay/<game>.jsonl`` holds one line per game: its mode, seats, options,
seed and bots, then every step (the seat, its action, the state hash after the action and a
short hash of the seat's view and the pending decisions it answered), and the outcome. The
test plays each game again with the same seeded bots and randomness and compares every step:
an optimisation of an engine (apply, pending, view, encode) that changed a game in any way,
even a view a bot reads or the order of a legal list, fails here. The check plays each
step's recorded action (legal where it was recorded), not the bot's choice again: the bots
are not rules, and a change to a bot (the hidden decisions bots draw since December 2026)
leaves these games, the engines' record, as they were.

Each game plays at the engine version it was recorded with (``recorded_engine``): a rules
change, with its version bump, leaves the file valid. Re-record (only to pin a new version's
games, never to make an optimisation pass):
``PYTHONPATH=. python tests/unit/test_selfplay_fixtures.py``
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from services.platform.canonical import canonical_json, state_hash
from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig
from services.rules.replay import outcome_json
from services.rules.selfplay import setups
from services.rules.verify import engine_at

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "selfplay"

PLAN: dict[str, list[tuple[str, dict[str, Any], str, int]]] = {
    # game: [(mode, extra options, bot, games)]
    "neon-reign": [
        ("single", {}, "rule", 30),
        ("single", {}, "random", 10),
        ("best-of-three", {}, "rule", 30),
        ("hero-match", {}, "rule", 30),
        ("hero-match", {}, "random", 10),
        ("solo", {}, "rule", 20),
        ("solo", {"difficulty": "training"}, "rule", 10),
        ("solo", {"difficulty": "hard"}, "random", 10),
    ],
    "neon": [
        ("rebirth", {}, "rule", 30),
        ("rebirth", {}, "random", 6),
        ("battle-royale", {}, "rule", 15),
        ("coalition", {}, "rule", 12),
    ],
}


def _short(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()[:16]


def _decision_json(decision: Any) -> Any:
    return [decision.seat, decision.kind, list(decision.legal), decision.default]


def play(
    game: str, mode: str, seats: int, options: dict[str, Any], bot: str, seed: int,
    actions: list[Any] | None = None, engine: Any = None,
) -> dict[str, Any]:
    """One seeded game, every step recorded (the same loop as ``services.rules.selfplay.play``).
    ``actions``: play these (a recorded game's, one per step) instead of asking the bots;
    ``engine``: the game's engine at a recorded version (default: today's)."""
    engine = engine or load_engine(game)
    rng = SeededRandomness(f"fixture:{game}:{mode}:{seats}:{bot}:{seed}")
    state = engine.setup(MatchConfig(mode, seats, dict(options)), rng)
    bots = [make_bot(bot, f"{seed}-{seat}", game) for seat in range(seats)]
    steps: list[list[Any]] = [[None, None, state_hash(engine.encode(state)), None]]
    while pending := engine.pending(state):
        assert len(steps) < 5000, "no ending"
        decision = pending[0]
        view = json.loads(json.dumps(engine.view(state, decision.seat)))
        if actions is None:
            action = bots[decision.seat].choose(decision, view)
        else:
            assert len(steps) < len(actions), "the recorded game ended here"
            action = actions[len(steps)]
        assert engine.validate(state, decision.seat, action) is None
        state = engine.apply(state, decision.seat, action, rng).state
        steps.append(
            [
                decision.seat,
                action,
                state_hash(engine.encode(state)),
                _short([view, [_decision_json(d) for d in pending]]),
            ]
        )
    outcome = engine.outcome(state)
    assert outcome is not None
    return {
        "game": game,
        "engine_version": engine.engine_version,
        "mode": mode,
        "seats": seats,
        "options": options,
        "bot": bot,
        "seed": seed,
        "steps": steps,
        "outcome": outcome_json(outcome),
        "spectator_view": _short(engine.view(state, None)),
    }


def games(game: str) -> list[dict[str, Any]]:
    engine = load_engine(game)
    out = []
    for mode, extra, bot, count in PLAN[game]:
        plans = setups(engine, mode)
        for n in range(count):
            setup = plans[n % len(plans)]
            out.append(
                {
                    "mode": mode,
                    "seats": setup.seats,
                    "options": {**setup.options, **extra},
                    "bot": bot,
                    "seed": n,
                }
            )
    return out


def recorded_engine(game: str, want: dict[str, Any]) -> Any:
    """The engine at the version a game was recorded with: each engine keeps the rules of its
    earlier versions, so a rules change (with its version bump) leaves these games as they
    were recorded, and they still pin the code every version shares."""
    return engine_at(load_engine(game), want["engine_version"])


def _recorded(game: str) -> list[dict[str, Any]]:
    path = FIXTURES / f"{game}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("game", sorted(PLAN))
def test_recorded_games_replay_to_the_same_steps_hashes_and_outcomes(game: str):
    recorded = _recorded(game)
    assert len(recorded) == len(games(game)) and len(recorded) >= 40
    modes = {r["mode"] for r in recorded}
    assert modes == {m for m, *_ in PLAN[game]}
    for want in recorded:
        got = play(game, want["mode"], want["seats"], want["options"], want["bot"], want["seed"],
                   [step[1] for step in want["steps"]], recorded_engine(game, want))
        label = f"{game} {want['mode']} {want['bot']} seed {want['seed']}"
        assert got["engine_version"] == want["engine_version"], label
        for i, (a, b) in enumerate(zip(got["steps"], want["steps"], strict=False)):
            assert a == b, f"{label}: step {i} differs"
        assert len(got["steps"]) == len(want["steps"]), label
        assert got["outcome"] == want["outcome"], label
        assert got["spectator_view"] == want["spectator_view"], label


def test_a_changed_step_is_caught():
    want = _recorded("neon-reign")[0]
    actions = [step[1] for step in want["steps"]]
    got = play(
        "neon-reign", want["mode"], want["seats"], want["options"], want["bot"], want["seed"],
        actions, recorded_engine("neon-reign", want),
    )
    assert got["steps"] == want["steps"]
    other = play(
        "neon-reign", want["mode"], want["seats"], want["options"], want["bot"], want["seed"] + 1,
        engine=recorded_engine("neon-reign", want),
    )
    assert other["steps"] != want["steps"]
    with pytest.raises(AssertionError):  # the recorded actions at another seed: not that game
        assert play("neon-reign", want["mode"], want["seats"], want["options"], want["bot"],
                    want["seed"] + 1, actions, recorded_engine("neon-reign", want))["steps"] == want["steps"]


def record() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for game in PLAN:
        lines = [
            json.dumps(
                play(game, g["mode"], g["seats"], g["options"], g["bot"], g["seed"]),
                separators=(",", ":"),
                sort_keys=True,
            )
            for g in games(game)
        ]
        (FIXTURES / f"{game}.jsonl").write_text("\n".join(lines) + "\n")
        print(game, len(lines), "games", sum(len(json.loads(x)["steps"]) for x in lines), "steps")


if __name__ == "__main__":
    sys.exit(record())
