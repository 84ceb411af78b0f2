"""A resolution paused for a Shield decision goes on from where it paused
(``resolution.resume``): the same state, the same events and the same state bytes as
resolving it again from the start with every answer, which is what the engine did before."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE, turns
from services.rules.games.neon_reign.canon import canonical_state
from services.rules.games.neon_reign.state import SHIELDS
from services.rules.selfplay import setups


def _paused(mode: str, seeds: range, bot: str = "rule") -> list:
    found = []
    for seed in seeds:
        rng = SeededRandomness(f"resume:{mode}:{seed}:{bot}")
        plans = setups(ENGINE, mode)
        plan = plans[seed % len(plans)]
        state = ENGINE.setup(MatchConfig(mode, plan.seats, dict(plan.options)), rng)
        bots = [make_bot(bot, f"resume-{seed}-{s}", "neon-reign") for s in range(plan.seats)]
        for _ in range(500):
            pending = ENGINE.pending(state)
            if not pending:
                break
            if state.phase == SHIELDS:
                found.append(state)
            decision = pending[0]
            action = bots[decision.seat].choose(decision, ENGINE.view(state, decision.seat))
            state = ENGINE.apply(state, decision.seat, action, rng).state
    return found


def _from_the_start(state, spend):
    resolving = dataclasses.replace(state.resolving, shields=state.resolving.shields + (spend,),
                                    ask=None)
    return turns._resolve(state, resolving, SeededRandomness("same"))


@pytest.mark.parametrize(("mode", "bot"), list(itertools.product(
    ["single", "best-of-three", "hero-match", "solo"], ["rule", "random"])))
def test_every_answer_to_every_pause_gives_what_resolving_again_gives(mode, bot):
    paused = _paused(mode, range(8), bot)
    assert paused, "no Shield decision in these games"
    for state in paused:
        for spend in range(state.resolving.ask.most, -1, -1):
            resumed, events = turns.spend_shields(state, spend, SeededRandomness("same"))
            again, again_events = _from_the_start(state, spend)
            assert resumed == again
            assert events == again_events
            assert canonical_state(resumed) == canonical_state(again)


def test_a_pause_of_an_unknown_source_resolves_again_from_the_start():
    state = _paused("single", range(8))[0]
    odd = dataclasses.replace(state, resolving=dataclasses.replace(
        state.resolving, ask=dataclasses.replace(state.resolving.ask, source="elsewhere")))
    spend = 0
    got, events = turns.spend_shields(odd, spend, SeededRandomness("same"))
    want, want_events = _from_the_start(odd, spend)
    assert got == want and events == want_events


def test_the_paused_state_is_left_as_it_was():
    for state in _paused("best-of-three", range(4)):
        copy = dataclasses.replace(state, sides=tuple(dataclasses.replace(s) for s in state.sides))
        before = canonical_state(copy)
        turns.spend_shields(state, state.resolving.ask.most, SeededRandomness("x"))
        assert state == copy and canonical_state(copy) == before
        assert dataclasses.astuple(state) == dataclasses.astuple(copy)
