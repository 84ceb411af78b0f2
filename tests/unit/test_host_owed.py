"""The rules host's ``_owed``: the seats owing a decision (what clocks and bots ask), the
seats of ``pending`` while the match runs and none once it has an outcome, on every state of
seeded self-play of each game. An engine with its own decision labels is not asked for its
pending decisions (their legal lists are what the labels spare)."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games import available, load_engine
from services.rules.games.contract import MatchConfig
from services.rules.host import MatchHost
from services.rules.selfplay import client_view, setups


def _states(engine: Any, game: str, games: int = 2, limit: int = 600) -> list[Any]:
    """The states of ``games`` seeded games of every mode (its first seat count), random
    bots, each game to its end or ``limit`` actions; the seats answer in turn."""
    out = []
    client = client_view(engine)
    for mode in sorted(engine.modes()):
        plan = setups(engine, mode)[0]
        for seed in range(games):
            rng = SeededRandomness(f"owed:{game}:{mode}:{seed}")
            state = engine.setup(MatchConfig(mode, plan.seats, plan.options), rng)
            bots = [make_bot("random", f"{seed}-{s}", game) for s in range(plan.seats)]
            out.append(state)
            for n in range(limit):
                pending = engine.pending(state)
                if not pending:
                    break
                d = pending[n % len(pending)]
                action = bots[d.seat].choose(d, client(engine.view(state, d.seat)))
                state = engine.apply(state, d.seat, action, rng).state
                out.append(state)
    return out


class _NoPending:
    """An engine whose ``pending`` may not be asked (everything else is the engine's)."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def pending(self, state: Any) -> Any:
        raise AssertionError("pending was built where the labels do")


@pytest.mark.parametrize("game", sorted(available()))
def test_owed_is_the_seats_of_pending_on_every_state(game: str) -> None:
    engine = load_engine(game)
    states = _states(engine, game)
    ended = 0
    for state in states:
        running = engine.outcome(state) is None
        want = {d.seat for d in engine.pending(state)} if running else set()
        assert MatchHost._owed(engine, state) == want
        if hasattr(engine, "decision_labels"):
            assert MatchHost._owed(_NoPending(engine), state) == want  # type: ignore[arg-type]
        ended += not running
    assert ended, "no game reached its end: the outcome's case is not checked"
    assert any(len(MatchHost._owed(engine, s)) > 1 for s in states) or game != "neon", \
        "NEON's simultaneous card choice (several seats owing) was not met"
