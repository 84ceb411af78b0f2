"""A Hero Match's secret starting-hero pick stays secret on a timeout (engine 1.4.0; RULES.md,
"2-Player Game Modes", the default of the pick).

Each seat picks its starting hero in secret (a hidden decision), and the picks are revealed
together. A turn clock applies the decision's default when the seat runs out of time, and a
timeout is public (the seat's clock shows its timeouts and the deadline that passed). Up to
1.3.0 the default was the seat's first hero as dealt, which is the first one the match's
``heroes`` option lists when the heroes were chosen (a drafted Hero Match): the options are
public, so a timeout told the table, and the opponent still picking, the hidden pick. From
1.4.0 the default follows from the seat's starting hand, which only the seat sees.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.rulesets import CURRENT, RULESETS
from services.rules.games.neon_reign.state import State
from services.rules.replay import ReplayError, _check_timeout

HEROES = [["volt", "kira"], ["rex", "lux"]]
V1_3 = ENGINE.for_version("1.3.0")


def _drafted(engine: object = ENGINE) -> State:
    config = MatchConfig("hero-match", 2, {"heroes": HEROES})
    return engine.setup(config, SeededRandomness("drafted"))  # type: ignore[attr-defined]


def _other_hand(state: State, seat: int, seed: int) -> State:
    """The same table but for another starting hand of ``seat`` from its own cards (what a
    deal could have given it): nobody else can tell the two apart."""
    side = state.sides[seat]
    pool = SeededRandomness(f"hand:{seed}").shuffle(side.hand + side.deck)
    sides = list(state.sides)
    sides[seat] = replace(side, hand=tuple(pool[:len(side.hand)]),
                          deck=tuple(pool[len(side.hand):]))
    return replace(state, sides=(sides[0], sides[1]))


def _default(engine: object, state: State, seat: int) -> str:
    (d,) = [d for d in engine.pending(state) if d.seat == seat]  # type: ignore[attr-defined]
    assert d.kind == "pick_hero" and d.hidden and d.default in d.legal
    return str(d.default["hero"])


@pytest.mark.parametrize("seat", [0, 1])
def test_a_timeout_on_the_secret_pick_does_not_name_the_hero(seat: int) -> None:
    tables = [_other_hand(_drafted(), seat, i) for i in range(16)]
    # the public and the opponent see the same table every time ...
    for viewer in (None, 1 - seat):
        assert len({repr(ENGINE.view(t, viewer)) for t in tables}) == 1
    assert len({repr([(d.seat, d.kind, d.legal) for d in ENGINE.pending(t)
                      if d.seat != seat]) for t in tables}) == 1
    # ... but what a clock would pick for the seat is either of its heroes
    assert {_default(ENGINE, t, seat) for t in tables} == set(HEROES[seat])


def test_the_default_depends_only_on_the_seats_own_hand() -> None:
    state = _drafted()
    for seed in range(6):
        other = _other_hand(state, 1, seed)  # the opponent's cards change, not seat 0's
        assert _default(ENGINE, other, 0) == _default(ENGINE, state, 0)
        shuffled = replace(state, sides=(replace(state.sides[0], hand=state.sides[0].hand[::-1],
                                                 deck=state.sides[0].deck[::-1]),
                                         state.sides[1]))
        assert _default(ENGINE, shuffled, 0) == _default(ENGINE, state, 0)  # order: no matter


def test_engine_1_3_0_keeps_the_first_dealt_hero_as_its_default() -> None:
    assert CURRENT.secret_pick_default and not RULESETS["1.3.0"].secret_pick_default
    for seed in range(4):
        state = _other_hand(_drafted(V1_3), 0, seed)
        assert _default(V1_3, state, 0) == HEROES[0][0]
        assert _default(V1_3, state, 1) == HEROES[1][0]


def test_a_timeout_that_applied_the_default_verifies() -> None:
    state = _drafted()
    default = _default(ENGINE, state, 0)
    record = {"n": 3, "timeout": True}
    _check_timeout(ENGINE, state, 0, {"type": "pick_hero", "hero": default}, record)
    other = next(h for h in HEROES[0] if h != default)
    with pytest.raises(ReplayError):
        _check_timeout(ENGINE, state, 0, {"type": "pick_hero", "hero": other}, record)
