"""Neon Reign's ``canon.canonical_state``: the bytes of ``canonical_json(encode_state(state))``
for every state, on or off its fast path (instance dicts to orjson, sides remembered by
identity, strings checked by membership in a set of exact strs met before)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from services.platform.canonical import canonical_json
from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE, canon
from services.rules.games.neon_reign.state import encode_state
from services.rules.selfplay import setups


def _reference(state) -> bytes:
    return canonical_json(encode_state(state))


def _game(mode: str, seed: int, limit: int = 400) -> list:
    rng = SeededRandomness(f"canon:{mode}:{seed}")
    plan = setups(ENGINE, mode)[seed % len(setups(ENGINE, mode))]
    state = ENGINE.setup(MatchConfig(mode, plan.seats, dict(plan.options)), rng)
    bots = [make_bot("rule", f"canon-{seed}-{s}", "neon-reign") for s in range(plan.seats)]
    out = [state]
    for _ in range(limit):
        pending = ENGINE.pending(state)
        if not pending:
            break
        decision = pending[0]
        action = bots[decision.seat].choose(decision, ENGINE.view(state, decision.seat))
        state = ENGINE.apply(state, decision.seat, action, rng).state
        out.append(state)
    return out


@pytest.mark.parametrize("mode", ["single", "best-of-three", "hero-match", "solo"])
def test_every_state_of_a_game_has_the_reference_bytes(mode):
    for seed in range(3):
        states = _game(mode, seed)
        assert states[-1].phase == "over"
        for state in states:  # in order, as a replay asks: unchanged sides come remembered
            assert canon.canonical_state(state) == _reference(state)


class _Str(str):
    pass


class _Tuple(tuple):
    pass


def _variants(state):
    """States the engine never makes: each must get the reference bytes (or the error the
    reference raises)."""
    first, second = state.sides
    unseen = "never-seen-card-" + str(id(state))
    yield dataclasses.replace(state, tokens=(1.0, 0))  # RFC 8785 writes 1, orjson 1.0
    yield dataclasses.replace(state, tokens=(0, 1e21))
    yield dataclasses.replace(state, turn=2.0)
    yield dataclasses.replace(state, winner=0.0)
    yield dataclasses.replace(state, reason="caf\u00e9")
    yield dataclasses.replace(state, reason=_Str("a reason"))
    yield dataclasses.replace(state, in_play=(unseen,))
    yield dataclasses.replace(state, in_play=[*state.in_play])
    yield dataclasses.replace(state, in_play=_Tuple(state.in_play))
    yield dataclasses.replace(state, decks=("neon-pulse", 2.5))
    yield dataclasses.replace(state, decks="neon-pulse")  # the reference lists its letters
    yield dataclasses.replace(state, picks="ab")
    yield dataclasses.replace(state, sides=(dataclasses.replace(first, health=3.0), second))
    yield dataclasses.replace(state, sides=(first, dataclasses.replace(second, stars=True)))
    yield dataclasses.replace(state, sides=(first, dataclasses.replace(
        second, hand=(*second.hand, 7.25))))
    yield dataclasses.replace(state, sides=(first, dataclasses.replace(
        second, deck=(*second.deck, _Str(second.deck[0]) if second.deck else "x"))))
    yield dataclasses.replace(state, sides=(dataclasses.replace(first, deck="NP-01"), second))
    yield dataclasses.replace(state, sides=(dataclasses.replace(
        first, discard=(*first.discard, unseen)), second))
    yield dataclasses.replace(state, sides=(dataclasses.replace(first, hero="h\u00e9ro"), second))
    yield dataclasses.replace(state, sides=[first, second])
    extra = dataclasses.replace(first)
    object.__setattr__(extra, "cached", 1)  # an attribute that is not a field: not encoded
    yield dataclasses.replace(state, sides=(extra, second))
    odd_state = dataclasses.replace(state)
    object.__setattr__(odd_state, "note", "x")
    yield odd_state


def test_states_off_the_fast_path_get_the_reference_bytes():
    states = _game("best-of-three", 1)
    for state in states[:: max(1, len(states) // 12)]:
        canon.canonical_state(state)  # its sides remembered
        for changed in _variants(state):
            try:
                want = _reference(changed)
            except Exception as err:  # noqa: BLE001 - the fast path must raise alike
                with pytest.raises(type(err)):
                    canon.canonical_state(changed)
                continue
            assert canon.canonical_state(changed) == want
            assert canon.canonical_state(changed) == want  # again, now remembered
        assert canon.canonical_state(state) == _reference(state)


def test_nan_and_infinity_take_the_reference_path():
    state = _game("single", 2)[5]
    for value in (math.nan, math.inf):
        changed = dataclasses.replace(state, sides=(dataclasses.replace(
            state.sides[0], health=value), state.sides[1]))
        try:
            want = _reference(changed)
        except Exception as err:  # noqa: BLE001
            with pytest.raises(type(err)):
                canon.canonical_state(changed)
        else:
            assert canon.canonical_state(changed) == want


def test_a_remembered_side_is_the_same_object_only():
    states = _game("single", 0)
    state = states[3]
    canon.canonical_state(state)
    twin = dataclasses.replace(state.sides[0], health=state.sides[0].health - 1)
    changed = dataclasses.replace(state, sides=(twin, state.sides[1]))
    assert canon.canonical_state(changed) == _reference(changed)
    assert canon.canonical_state(changed) != canon.canonical_state(state)


def _paused_states():
    found = []
    for mode in ("single", "best-of-three", "solo"):
        for seed in range(6):
            found += [s for s in _game(mode, seed) if s.resolving is not None]
    return found


def test_paused_resolutions_on_and_off_the_fast_path():
    paused = _paused_states()
    assert len(paused) > 5
    for state in paused[:: max(1, len(paused) // 10)]:
        assert canon.canonical_state(state) == _reference(state)
        res = state.resolving
        variants = [
            dataclasses.replace(res, shields=(*res.shields, 1.0)),
            dataclasses.replace(res, emitted=2.0),
            dataclasses.replace(res, shields=list(res.shields)),
            dataclasses.replace(res, before=list(res.before)),
            dataclasses.replace(res, ask=dataclasses.replace(res.ask, amount=3.0)),
            dataclasses.replace(res, ask=dataclasses.replace(res.ask, source="caf\u00e9")),
            dataclasses.replace(res, defense=dataclasses.replace(res.defense, throws=1.0)),
            dataclasses.replace(res, defense=dataclasses.replace(
                res.defense, cards=(*res.defense.cards, 2.0))),
            dataclasses.replace(res, defense=dataclasses.replace(
                res.defense, cards=list(res.defense.cards))),
            dataclasses.replace(res, defense=dataclasses.replace(
                res.defense, gains=(("heal", 1.0),))),
            dataclasses.replace(res, defense=dataclasses.replace(
                res.defense, gains=(("heal", 2),))),
            dataclasses.replace(res, before=(dataclasses.replace(res.before[0], health=1.0),
                                             res.before[1])),
        ]
        for changed in variants:
            other = dataclasses.replace(state, resolving=changed)
            for _ in range(2):  # then remembered
                try:
                    want = _reference(other)
                except TypeError:  # to_json refuses a float in a resolution: so must this
                    with pytest.raises(TypeError):
                        canon.canonical_state(other)
                else:
                    assert canon.canonical_state(other) == want


def test_the_identity_memos_stay_bounded_and_keep_the_newest():
    """Many distinct sides, resolutions and defences: each memo keeps at most ``_LIMIT``
    entries, the newest ones (each holding its object), and every state still gets the
    reference bytes, the first time and again from the memo."""
    paused = _paused_states()
    states = [dataclasses.replace(
        state, sides=(dataclasses.replace(state.sides[0], health=n % 7), state.sides[1]))
        for n, state in enumerate(paused * (1 + 3 * canon._LIMIT // len(paused)))]
    assert len(states) > 3 * canon._LIMIT
    for state in states:
        assert canon.canonical_state(state) == _reference(state)
    memos = (canon._SIDE_MEMO, canon._RESOLVING_MEMO, canon._DEFENSE_MEMO, canon._RULES)
    for memo in memos:
        assert len(memo) <= canon._LIMIT
        for key, (obj, _fragment) in memo.items():
            assert id(obj) == key
    assert id(states[-1].sides[0]) in canon._SIDE_MEMO  # the newest kept
    assert id(states[0].sides[0]) not in canon._SIDE_MEMO  # the oldest dropped
    for state in states[-8:]:  # remembered: the same bytes again
        assert canon.canonical_state(state) == _reference(state)
