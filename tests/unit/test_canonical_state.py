"""``canonical_state``, the fast path of the bytes a state hash is taken over, gives exactly
``canonical_json(engine.encode(state))`` (the reference) on the states of real games.

NEON and Neon Reign remember the canonical bytes of the parts of a state that did not change
since the previous step, by identity (Neon Reign through ``CanonicalMemo``; NEON the bytes of
each field of the last state of each match, ``neon.encoding``); the games below run step after step
through one engine object, as a replay does, so the remembered parts are reused as they are
in ``neon verify``. The engines' other versions (older rulesets, other encodings) are played
too, and states pushed off the fast path (a float, non-ASCII text) still match.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import (
    CanonicalMemo,
    NotFast,
    _float_free,
    _float_free_walk,
    canonical_fast,
    canonical_json,
)
from services.platform.draws import SeededRandomness
from services.rules.bots import game_bots, make_bot
from services.rules.games import available, load_engine
from services.rules.games.contract import MatchConfig, canonical_state
from services.rules.games.neon.ruleset import RULESETS as NEON_RULESETS
from services.rules.games.neon_reign.rulesets import RULESETS as REIGN_RULESETS
from services.rules.selfplay import setups

FAST = ("neon", "neon-reign")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "selfplay"


def _engines(game: str):
    """The engine of every version kept (older rulesets encode differently)."""
    versions = NEON_RULESETS if game == "neon" else REIGN_RULESETS
    return [load_engine(game).for_version(v) for v in sorted(versions)]


def _check_game(engine, mode: str, seats: int, options: dict, bot: str, seed: int,
                limit: int = 600) -> int:
    rng = SeededRandomness(f"canonical-state:{engine.game_id}:{mode}:{seed}")
    state = engine.setup(MatchConfig(mode, seats, dict(options)), rng)
    bots = [make_bot(bot, f"{seed}-{s}", engine.game_id) for s in range(seats)]
    steps = 0
    for _ in range(limit):
        assert canonical_state(engine, state) == canonical_json(engine.encode(state)), (
            engine.game_id, engine.engine_version, mode, seed, steps)
        steps += 1
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[0]
        view = json.loads(json.dumps(engine.view(state, decision.seat)))
        state = engine.apply(state, decision.seat, bots[decision.seat].choose(decision, view),
                             rng).state
    return steps


def test_the_fast_engines_offer_canonical_state():
    for game in FAST:
        for engine in _engines(game):
            assert callable(getattr(engine, "canonical_state", None)), engine.engine_version
    assert len(_engines("neon")) >= 2 and len(_engines("neon-reign")) >= 2


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(FAST), st.data(), st.integers(0, 2**32), st.sampled_from(["rule", "random"]))
def test_every_state_of_games_drawn_by_hypothesis_has_the_reference_bytes(game, data, seed, bot):
    """Every state of a seeded game of either engine (any version kept), any mode and seat
    count, rule-based or random bots, from the set-up to the end."""
    engine = data.draw(st.sampled_from(_engines(game)))
    mode = data.draw(st.sampled_from(sorted(engine.modes())))
    plans = setups(engine, mode)
    setup = plans[data.draw(st.integers(0, len(plans) - 1))]
    if bot not in game_bots(game):
        bot = "random"
    assert _check_game(engine, mode, setup.seats, setup.options, bot, seed) > 1


@pytest.mark.parametrize("game", FAST)
def test_recorded_fixture_games_hash_the_same_through_canonical_state(game, monkeypatch):
    """Games of each kind of tests/fixtures/selfplay (recorded before issue 18), played by
    that test's own loop with every state hash taken over ``canonical_state``: each is the
    recorded one."""
    from tests.unit import test_selfplay_fixtures as fixtures

    recorded = [json.loads(line) for line in (FIXTURES / f"{game}.jsonl").read_text().splitlines()
                if line.strip()]
    engine = fixtures.recorded_engine(game, recorded[0])  # every game of a file: one version
    assert {r["engine_version"] for r in recorded} == {recorded[0]["engine_version"]}
    monkeypatch.setattr(engine, "encode", lambda state: state)  # play() hashes encode(state)
    monkeypatch.setattr(fixtures, "state_hash",
                        lambda state: hashlib.sha256(engine.canonical_state(state)).hexdigest())
    checked = 0
    seen: set[tuple[str, str]] = set()
    for want in recorded:
        kind = (want["mode"], want["bot"])
        if kind in seen and want["seed"] % 5:
            continue
        seen.add(kind)
        got = fixtures.play(game, want["mode"], want["seats"], want["options"], want["bot"],
                            want["seed"], [step[1] for step in want["steps"]], engine)
        assert [s[2] for s in got["steps"]] == [s[2] for s in want["steps"]], (
            game, want["mode"], want["seed"])
        checked += len(got["steps"])
    assert checked > 500


def _states(game: str, count: int = 40):
    engine = load_engine(game)
    rng = SeededRandomness(f"off-path:{game}")
    mode = sorted(engine.modes())[0]
    setup = setups(engine, mode)[0]
    state = engine.setup(MatchConfig(mode, setup.seats, dict(setup.options)), rng)
    bots = [make_bot("random", f"off-{s}", game) for s in range(setup.seats)]
    out = [state]
    while len(out) < count and (pending := engine.pending(state)):
        decision = pending[0]
        view = json.loads(json.dumps(engine.view(state, decision.seat)))
        state = engine.apply(state, decision.seat, bots[decision.seat].choose(decision, view),
                             rng).state
        out.append(state)
    return engine, out


@pytest.mark.parametrize("game", FAST)
@pytest.mark.parametrize("odd", ["float", "non-ascii"])
def test_a_state_off_the_fast_path_still_gets_the_reference_bytes(game, odd):
    """A float or non-ASCII text anywhere in a part (a side, a fighter, a deck) or in the
    table takes the reference path: RFC 8785 through the rfc8785 package."""
    engine, states = _states(game)
    value = 1.5 if odd == "float" else "h\u00e9ro"
    for state in states[:: max(1, len(states) // 8)]:
        canonical_state(engine, state)  # its parts remembered on the fast path
        if game == "neon":
            fighter = dataclasses.replace(state.fighters[0], energy=value)
            variants = [dataclasses.replace(state, fighters=(fighter, *state.fighters[1:])),
                        dataclasses.replace(state, round=value),
                        dataclasses.replace(state, cells=(*state.cells, value))]
        else:
            side = dataclasses.replace(state.sides[0], health=value)
            deck = dataclasses.replace(state.sides[1], deck=(*state.sides[1].deck, value))
            variants = [dataclasses.replace(state, sides=(side, state.sides[1])),
                        dataclasses.replace(state, sides=(state.sides[0], deck)),
                        dataclasses.replace(state, turn=value),
                        dataclasses.replace(state, in_play=(value,))]
        for changed in variants:
            want = canonical_json(engine.encode(changed))
            assert want == rfc8785.dumps(engine.encode(changed))
            assert canonical_state(engine, changed) == want
        assert canonical_state(engine, state) == canonical_json(engine.encode(state))


def test_the_memo_gives_the_bytes_of_the_same_object_and_refuses_values_off_the_path():
    calls = []

    def encode(value):
        calls.append(value)
        return list(value)

    memo = CanonicalMemo(encode, limit=3)
    row = ("b", "a", 3)
    assert orjson.dumps({"z": memo(row), "y": [memo(row)]}, option=orjson.OPT_SORT_KEYS) == \
        canonical_json({"z": ["b", "a", 3], "y": [["b", "a", 3]]})
    assert len(calls) == 1  # remembered
    for odd in ((1.5,), ("\u00e9",), (2**70,)):
        with pytest.raises(NotFast):
            memo(odd)
    rows = [(n, "x") for n in range(10)]
    for r in rows:
        assert bytes(orjson.dumps(memo(r))) == canonical_json(list(r))
    assert list(memo._memo) == [id(r) for r in rows[-3:]]  # the oldest dropped past its limit
    calls.clear()
    memo(rows[-1])
    assert calls == []  # the newest still remembered


keys = st.text(max_size=4) | st.sampled_from(["a", "b", "\u00e9"])
anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4)
    | st.floats() | st.binary(max_size=2),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(keys, inner, max_size=3)
    | st.dictionaries(st.integers() | st.floats(allow_nan=False), inner, max_size=2)
    | st.builds(lambda v: type("L", (list,), {})(v), st.lists(inner, max_size=2))
    | st.builds(lambda v: type("D", (dict,), {})(v), st.dictionaries(keys, inner, max_size=2))
    | st.builds(lambda x: type("F", (float,), {})(x), st.floats(allow_nan=False)),
    max_leaves=25)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(anything)
def test_the_level_walk_in_c_decides_floats_as_the_python_walk_does(value):
    assert _float_free(value) is _float_free_walk(value)
    fast = canonical_fast(value)
    if fast is not None:
        assert fast == canonical_json(value)


def test_deep_values_fall_back_to_the_python_walk():
    deep: object = 1.5
    for _ in range(100):
        deep = [deep]
    assert _float_free(deep) is False
    deep = 1
    for _ in range(100):
        deep = [deep]
    assert _float_free(deep) is True


def test_engines_without_canonical_state_take_the_reference():
    for game in available():
        engine = load_engine(game)
        if getattr(engine, "canonical_state", None) is None:
            rng = SeededRandomness("plain")
            mode = sorted(engine.modes())[0]
            setup = setups(engine, mode)[0]
            state = engine.setup(MatchConfig(mode, setup.seats, dict(setup.options)), rng)
            assert canonical_state(engine, state) == canonical_json(engine.encode(state))
