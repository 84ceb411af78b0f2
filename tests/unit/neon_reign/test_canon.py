"""Neon Reign's ``canon.canonical_state``: the bytes of ``canonical_json(encode_state(state))``
for every state, on or off its fast path (instance dicts to orjson, sides remembered by
identity, strings checked by membership in a set of exact strs met before)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    """Many distinct sides and resolutions: each identity memo keeps at most ``_LIMIT``
    entries, the newest ones (each holding its object), and every state still gets the
    reference bytes, the first time and again from the memo."""
    paused = _paused_states()
    states = [dataclasses.replace(
        state, sides=(dataclasses.replace(state.sides[0], health=n % 7), state.sides[1]),
        resolving=dataclasses.replace(state.resolving))  # a resolution of its own each
        for n, state in enumerate(paused * (1 + 3 * canon._LIMIT // len(paused)))]
    assert len(states) > 3 * canon._LIMIT
    for state in states:
        assert canon.canonical_state(state) == _reference(state)
    for memo in (canon._RESOLVING_MEMO, canon._RULES):
        assert len(memo) <= canon._LIMIT
        for key, (obj, _fragment) in memo.items():
            assert id(obj) == key
    assert id(states[-1].resolving) in canon._RESOLVING_MEMO  # the newest kept
    assert id(states[0].resolving) not in canon._RESOLVING_MEMO  # the oldest dropped
    assert canon._RECENT[0] is states[-1].sides[0]  # the last state's sides, and only them
    for state in states[-8:]:  # remembered: the same bytes again
        assert canon.canonical_state(state) == _reference(state)


def test_containers_where_a_scalar_belongs_take_the_reference_path():
    """A float inside a list, tuple or dict put where the state or a side holds a scalar
    (which ``encode_state`` writes as it is): RFC 8785 writes 1.0 as 1, orjson as 1.0, so
    such a value is no plain scalar and takes the reference path (the fast path before
    this change checked only that the scalar itself was no float, and wrote 1.0; a list
    as the reason made it raise where the reference did not)."""
    state = _game("single", 1)[4]
    first, second = state.sides
    variants = [
        dataclasses.replace(state, sides=(dataclasses.replace(first, health={"a": 1.0}), second)),
        dataclasses.replace(state, sides=(first, dataclasses.replace(second, stars=[2.0]))),
        dataclasses.replace(state, sides=(dataclasses.replace(first, hero=("x", 1.5)), second)),
        dataclasses.replace(state, reason=[1.0]),
        dataclasses.replace(state, winner={"seat": 0.0}),
        dataclasses.replace(state, mode=(1.0,)),
        dataclasses.replace(state, in_play=((1.0,),)),
        dataclasses.replace(state, sides=(dataclasses.replace(first, deck=((1.0,),)), second)),
    ]
    for changed in variants:
        canon.canonical_state(state)  # the last state's sides: ``changed`` shares their piles
        want = _reference(changed)
        assert b"1.0" not in want and b"2.0" not in want
        assert canon.canonical_state(changed) == want
        assert canon.canonical_state(changed) == want  # again: nothing wrong was remembered


def test_a_side_is_looked_through_where_it_is_not_the_last_sides_own():
    """A side is checked only in the piles that are not the very tuples of the same seat's
    side in the last state encoded: a pile equal to the last one but another tuple (a float
    for an int, a subclass of str), a side of another match, and the last side itself once
    more all get the reference bytes."""
    states = _game("best-of-three", 2)
    other = _game("hero-match", 1)
    for state in states[1:: max(1, len(states) // 10)]:
        canon.canonical_state(state)
        first, second = state.sides
        deck = first.deck
        variants = [
            dataclasses.replace(state, sides=(dataclasses.replace(
                first, hand=(*first.hand, _Str("NP-99"))), second)),
            dataclasses.replace(state, sides=(dataclasses.replace(
                first, deck=tuple(deck[:-1]) + (1.0,) if deck else (1.0,)), second)),
            dataclasses.replace(state, sides=(first, dataclasses.replace(
                second, discard=(*second.discard, 3.0)))),
            dataclasses.replace(state, sides=(first, dataclasses.replace(second, bench=[]))),
            dataclasses.replace(state, sides=(other[5].sides[0], second)),
            state,
        ]
        for changed in variants:
            canon.canonical_state(state)
            assert canon.canonical_state(changed) == _reference(changed)


def test_states_of_matches_encoded_in_turn_get_the_reference_bytes():
    """A rules host encodes the states of many matches in turn: each side is then checked
    against a side of another match (nothing shared), and still gets the reference bytes."""
    games = [_game(mode, seed) for mode in ("single", "hero-match", "solo") for seed in (0, 1)]
    for step in range(max(len(g) for g in games)):
        for game in games:
            if step < len(game):
                assert canon.canonical_state(game[step]) == _reference(game[step])


def test_threads_encoding_at_once_get_each_state_own_bytes():
    """The record of the last state's sides is one tuple rebound whole: threads encoding
    states of different matches at once (the host's rebuilds in worker threads beside the
    event loop) never pair one side with another's checked values. Each thread's bytes
    are the reference's."""
    import sys
    import threading

    games = [_game(mode, seed) for mode in ("single", "best-of-three", "solo") for seed in (3, 4)]
    wanted = [[_reference(state) for state in game] for game in games]
    problems: list[str] = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        def encode(index: int) -> None:
            for _ in range(20):
                for state, want in zip(games[index], wanted[index], strict=True):
                    if canon.canonical_state(state) != want:
                        problems.append(f"game {index}")
                        return

        threads = [threading.Thread(target=encode, args=(i,)) for i in range(len(games))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert problems == []


_POOL: list = []


def _pool() -> list:
    """States of a few games of every mode (made once): what the property test draws from."""
    if not _POOL:
        for mode in ("single", "best-of-three", "hero-match", "solo"):
            _POOL.append(_game(mode, 7))
    return _POOL


_ODD = st.sampled_from([None, None, None, "float-pile", "float-scalar", "str-subclass",
                        "list-pile", "fresh-copy", "non-ascii"])


def _odd(state, how: str | None, seat: int):
    """``state`` or a copy of it with one side changed the way ``how`` says."""
    if how is None:
        return state
    side = state.sides[seat]
    if how == "float-pile":
        side = dataclasses.replace(side, hand=(*side.hand, 1.0))
    elif how == "float-scalar":
        side = dataclasses.replace(side, stars=float(side.stars))
    elif how == "str-subclass":
        side = dataclasses.replace(side, discard=(*side.discard, _Str("NP-01")))
    elif how == "list-pile":
        side = dataclasses.replace(side, deck=list(side.deck))
    elif how == "fresh-copy":  # equal values, new tuples: looked through again
        side = dataclasses.replace(side, deck=tuple(list(side.deck)), hand=tuple(list(side.hand)))
    else:
        side = dataclasses.replace(side, hero="h\u00e9ro")
    sides = (side, state.sides[1]) if seat == 0 else (state.sides[0], side)
    return dataclasses.replace(state, sides=sides)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), _ODD, st.integers(0, 1)),
                min_size=1, max_size=40),
       st.booleans())
def test_any_order_of_states_gets_the_reference_bytes(picks, in_runs):
    """The record of the last state's sides (``_RECENT``) never vouches for a value it did
    not check: states of several games drawn in any order (or in runs, a replay's way),
    some with a side changed off the fast path, each get the reference bytes."""
    pool = _pool()
    for game, step, how, seat in picks:
        states = pool[game]
        start = step % len(states)
        run = states[start:start + 6] if in_runs else [states[start]]
        for state in run:
            state = _odd(state, how, seat)
            try:
                want = _reference(state)
            except Exception as err:  # noqa: BLE001 - the fast path must raise alike
                with pytest.raises(type(err)):
                    canon.canonical_state(state)
                continue
            assert canon.canonical_state(state) == want
