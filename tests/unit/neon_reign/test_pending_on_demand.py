"""A turn's and a defence's legal list is built when first read, and is the list it was.

``pending`` answers turn and defend decisions as :class:`Owed`, whose ``legal`` tuple is
made the first time it is read (verify asks ``pending`` about every state for the seat, kind
and hidden flag only). Here, over the states of seeded games of every mode: each decision is
the one the engine made before (every Attack then Recover, pass then every defence; the
default the first Attack or the Recover that draws), it equals that plain ``Decision`` both
ways, it copies, pickles and prints as one, and ``pending`` then ``validate`` of an action
parsed from JSON (verify's way) build no list at all.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games import frozen
from services.rules.games.contract import Decision, MatchConfig
from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign import turns as turn_rules
from services.rules.games.neon_reign.content import hero
from services.rules.games.neon_reign.engine import Owed
from services.rules.games.neon_reign.legality import attack_options, can_attack, defense_options
from services.rules.games.neon_reign.state import DEFEND, TURN, State

_RECOVER = {"type": "recover"}
_PASS = {"type": "pass"}


def _plain(state: State) -> Decision:
    """The decision as the engine built it before (the whole list at once)."""
    if state.phase == TURN:
        side = state.sides[state.active]
        legal: list[Any] = [{"type": "attack", "cards": [*c]} for c in attack_options(side.hand)]
        recover = turn_rules.may_recover(state, side)
        if recover:
            legal.append(_RECOVER)
        useful = turn_rules.recover_draws(side) or not can_attack(side.hand)
        default = _RECOVER if useful and recover else legal[0]
        return Decision(state.active, "turn", tuple(legal), "Attack with 1-3 cards, or Recover",
                        default=default)
    assert state.phase == DEFEND
    seat = 1 - state.active
    side = state.sides[seat]
    options = defense_options(side.hand, hero(side.hero), state.in_play,
                              state.rules.strict_combo_breaker, state.rules.combos_as_played)
    return Decision(seat, "defend", (_PASS, *options), "Defend with up to 2 cards, or pass",
                    optional=True, default=_PASS)


def _states(mode: str, seed: int, options: dict[str, Any] | None = None) -> list[State]:
    """The states of one game, each action drawn from the decision's list by a seeded rng."""
    rng = SeededRandomness(f"owed:{mode}:{seed}")
    pick = SeededRandomness(f"owed-pick:{mode}:{seed}")
    seats = 1 if mode == "solo" else 2
    state = ENGINE.setup(MatchConfig(mode, seats, options or {}), rng)
    seen = [state]
    for _ in range(400):
        pending = ENGINE.pending(state)
        if not pending:
            break
        decision = pending[0]
        action = decision.legal[pick.randbelow(len(decision.legal))]
        assert ENGINE.validate(state, decision.seat, action) is None
        state = ENGINE.apply(state, decision.seat, action, rng).state
        seen.append(state)
    return seen


GAMES = [("single", s, None) for s in range(4)] + [
    ("best-of-three", 0, None), ("hero-match", 0, None), ("solo", 0, None),
    ("solo", 1, {"difficulty": "training"}),
]


@pytest.mark.parametrize(("mode", "seed", "options"), GAMES)
def test_each_decision_is_the_one_built_before(mode: str, seed: int,
                                               options: dict[str, Any] | None) -> None:
    checked = 0
    for state in _states(mode, seed, options):
        if state.phase not in (TURN, DEFEND):
            continue
        (decision,) = ENGINE.pending(state)
        want = _plain(state)
        assert type(decision) is Owed
        assert "legal" not in vars(decision)  # nothing built yet
        assert decision == want and want == decision  # equal both ways, the list read
        assert decision.legal is decision.legal  # built once, then kept
        assert repr(decision) == repr(want).replace("Decision(", "Owed(", 1)
        assert json.dumps(decision.legal) == json.dumps(want.legal)  # the same order
        if decision.default["type"] == "attack":
            assert decision.default is decision.legal[0]  # the clock's Attack is listed first
        checked += 1
    assert checked > 10


def test_verify_s_questions_build_no_list() -> None:
    """``pending``, then ``validate`` of an equal action parsed from JSON (not the listed
    object): the decision's seat and kind are read, its list is never built."""
    built = 0
    for state in _states("single", 7):
        if state.phase not in (TURN, DEFEND):
            continue
        fresh = dataclasses.replace(state)  # a new state: no remembered pending
        (decision,) = ENGINE.pending(fresh)
        action = json.loads(json.dumps(_plain(state).legal[-1]))
        assert ENGINE.validate(fresh, decision.seat, action) is None
        assert ENGINE.validate(fresh, 1 - decision.seat, action) is not None
        built += "legal" in vars(decision)
    assert built == 0


def test_a_listed_action_is_still_accepted_by_identity() -> None:
    state = next(s for s in _states("single", 3) if s.phase == DEFEND)
    fresh = dataclasses.replace(state)
    (decision,) = ENGINE.pending(fresh)
    for action in decision.legal:
        assert ENGINE.validate(fresh, decision.seat, action) is None


def test_it_copies_pickles_and_replaces_as_a_decision() -> None:
    state = next(s for s in _states("single", 1) if s.phase == TURN)
    (decision,) = ENGINE.pending(dataclasses.replace(state))
    want = _plain(state)
    moved = frozen.replace(decision, prompt="another prompt")  # its list not built yet
    assert "legal" not in vars(moved)
    assert moved == dataclasses.replace(want, prompt="another prompt")
    assert dataclasses.replace(decision, seat=1) == dataclasses.replace(want, seat=1)
    assert pickle.loads(pickle.dumps(decision)) == want
    assert dataclasses.asdict(decision) == dataclasses.asdict(want)
    assert decision != dataclasses.replace(want, kind="defend")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.seat = 1  # type: ignore[misc]
