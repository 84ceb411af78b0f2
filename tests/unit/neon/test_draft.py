"""The draft: one ``apply`` changes a copy of its own in place, and every state handed out
stays as it was (before the apply, after it, and whatever the next apply does)."""

from __future__ import annotations

import pytest

from services.platform.canonical import canonical_json
from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import ENGINE
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.combat import attack_legal
from services.rules.games.neon.state import Draft
from tests.unit.neon.helpers import Rng, new_game


def test_states_handed_out_never_change():
    engine = ENGINE
    for mode, seats in (("rebirth", 2), ("battle-royale", 4), ("coalition", 4)):
        rng = SeededRandomness(f"draft:{mode}")
        config = MatchConfig(mode, seats, engine.match_options(mode, seats))
        state = engine.setup(config, rng)
        bots = [make_bot("rule", f"draft-{seat}", "neon") for seat in range(seats)]
        seen = [(state, canonical_json(engine.encode(state)))]
        while pending := engine.pending(state):
            decision = pending[0]
            action = bots[decision.seat].choose(decision, engine.view(state, decision.seat))
            after = engine.apply(state, decision.seat, action, rng).state
            assert after is not state
            state = after
            seen.append((state, canonical_json(engine.encode(state))))
        assert all(canonical_json(engine.encode(s)) == data for s, data in seen)


def test_a_draft_changes_its_own_copy_and_nothing_once_finished():
    state = new_game("rebirth", 3)
    before = canonical_json(ENGINE.encode(state))
    w = Draft(state, Rng(0), serial=state.serial + 1)
    w.set(round=2)
    w.update(0, energy=7)
    assert w.s is not state and w.s.round == 2 and w.f(0).energy == 7
    assert canonical_json(ENGINE.encode(state)) == before
    done = w.finish()
    assert done is w.s
    with pytest.raises((TypeError, AttributeError)):
        w.set(round=3)
    assert done.round == 2


def test_a_change_of_the_draft_forgets_the_attack_answers_it_kept():
    """``attack_legal`` keeps its last answer by (state, frame): a draft's state is the
    same object before and after a change, so each change must forget it."""
    engine = ENGINE
    rng = SeededRandomness("draft-legal")
    state = engine.setup(MatchConfig("rebirth", 2, {"automa": True}), rng)
    bots = [make_bot("rule", f"legal-{seat}", "neon") for seat in range(2)]
    checked = 0
    while (pending := engine.pending(state)) and checked < 20:
        top = state.stack[-1] if state.stack else None
        if isinstance(top, Attack):
            w = Draft(state, rng)
            first = attack_legal(w.s, top)
            assert attack_legal(w.s, top) is first  # kept while nothing changes
            w.update(top.owner, energy=w.f(top.owner).energy + 1)
            again = attack_legal(w.s, top)
            assert again is not first and again == attack_legal(w.finish(), top)
            checked += 1
        decision = pending[0]
        action = bots[decision.seat].choose(decision, engine.view(state, decision.seat))
        state = engine.apply(state, decision.seat, action, rng).state
    assert checked


def test_a_drafts_events_are_the_events_their_constructor_makes():
    """``Draft.emit`` sets an event's fields in one step: equal to ``EngineEvent(...)``,
    the same fields in the same order, as frozen."""
    import dataclasses

    from services.rules.games.contract import EngineEvent

    state = ENGINE.setup(MatchConfig("rebirth", 3, ENGINE.match_options("rebirth", 3)),
                         SeededRandomness("events"))
    w = Draft(state, SeededRandomness("events-draft"))
    w.emit("public", {"a": 1})
    w.emit("private", {"b": [2]}, frozenset({1}))
    made = [EngineEvent("public", {"a": 1}), EngineEvent("private", {"b": [2]}, frozenset({1}))]
    assert w.events == made
    for event, other in zip(w.events, made, strict=True):
        assert type(event) is EngineEvent
        assert vars(event) == vars(other) and list(vars(event)) == list(vars(other))
        assert dataclasses.astuple(event) == dataclasses.astuple(other)
        assert repr(event) == repr(other)
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.kind = "changed"  # type: ignore[misc]


def test_a_drafts_update_is_frozen_but():
    """``Draft.update`` writes ``frozen.but`` out: the fighter with the changes, a new
    frozen object in the draft's fighters, and a name that is no field refused."""
    import dataclasses

    state = ENGINE.setup(MatchConfig("rebirth", 3, ENGINE.match_options("rebirth", 3)),
                         SeededRandomness("updates"))
    w = Draft(state, SeededRandomness("updates-draft"))
    before = state.fighters[1]
    made = w.update(1, energy=before.energy + 2, shields=1)
    assert made == dataclasses.replace(before, energy=before.energy + 2, shields=1)
    assert list(vars(made)) == list(vars(before))
    assert w.s.fighters[1] is made and state.fighters[1] is before
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.energy = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        w.update(1, not_a_field=1)
    assert w.s.fighters[1] is made
