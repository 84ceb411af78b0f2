"""The fast canonical JSON path agrees with RFC 8785 (the rfc8785 package) byte for byte."""

import json

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json, canonical_json_float_free
from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot, game_bots, make_bot
from services.rules.games import available, load_engine
from services.rules.games.contract import MatchConfig
from services.rules.selfplay import setups

keys = st.text(max_size=6) | st.sampled_from(["a", "B", "\u00e9", "\ue000", "\U0001f600", "_"])
scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
           | st.text(max_size=8) | st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=4), max_leaves=20)


@settings(max_examples=500, deadline=None)
@given(values)
def test_any_json_value_encodes_as_rfc8785_does(value):
    assert canonical_json(value) == rfc8785.dumps(value)


def test_keys_that_sort_differently_by_utf16_take_the_rfc8785_path():
    value = {"\ue000": 1, "\U0001f600": 2}  # code points and UTF-16 units disagree
    assert canonical_json(value) == rfc8785.dumps(value)
    assert list(rfc8785.dumps(value).decode()).index("\U0001f600") < list(
        rfc8785.dumps(value).decode()).index("\ue000")


def test_every_state_shape_the_engines_produce_encodes_as_rfc8785_does():
    for game in available():
        engine = load_engine(game)
        for mode in engine.modes().values():
            rng = SeededRandomness(f"{game}:{mode.name}")
            seats = max(mode.min_seats, min(mode.max_seats, 4))
            if mode.team_layouts:
                seats = mode.team_layouts[0].seats
            options = dict(engine.match_options(mode.name, seats, None)) if hasattr(
                engine, "match_options") else {}
            state = engine.setup(MatchConfig(mode.name, seats, options), rng)
            bot = RandomBot(game)
            for _ in range(150):
                if engine.outcome(state) is not None:
                    break
                encoded = engine.encode(state)
                assert canonical_json(encoded) == rfc8785.dumps(encoded), (game, mode.name)
                decision = engine.pending(state)[0]
                state = engine.apply(state, decision.seat, bot.choose(decision), rng).state


float_free = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(float_free)
def test_the_float_free_encoder_is_rfc8785_on_any_float_free_value(value):
    assert canonical_json_float_free(value) == rfc8785.dumps(value)


GAMES = available()


GAME = (st.sampled_from(GAMES), st.data(), st.integers(0, 2**32),
        st.sampled_from(["rule", "random"]))


@settings(max_examples=10, deadline=None, derandomize=True)
@given(*GAME)
def test_states_of_games_drawn_by_hypothesis_encode_as_rfc8785_does(game, data, seed, bot):
    """A few games drawn (a fixed draw: every mode of every game is played above);
    ``-m slow`` (or NEON_SLOW=1) draws 200."""
    _encode_every_state(game, data, seed, bot)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(*GAME)
def test_states_of_many_games_drawn_by_hypothesis_encode_as_rfc8785_does(game, data, seed, bot):
    _encode_every_state(game, data, seed, bot)


def _encode_every_state(game, data, seed, bot):
    """Every state of a seeded game of any engine, any mode and seat count, rule-based or
    random bots, from the set-up to the end (or 400 actions)."""
    engine = load_engine(game)
    mode = data.draw(st.sampled_from(sorted(engine.modes())))
    plans = setups(engine, mode)
    setup = plans[data.draw(st.integers(0, len(plans) - 1))]
    if bot not in game_bots(game):
        bot = "random"
    rng = SeededRandomness(f"canonical:{game}:{mode}:{seed}")
    state = engine.setup(MatchConfig(mode, setup.seats, setup.options), rng)
    bots = [make_bot(bot, f"{seed}-{s}", game) for s in range(setup.seats)]
    for _ in range(400):
        encoded = engine.encode(state)
        assert canonical_json(encoded) == rfc8785.dumps(encoded), (game, mode)
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[0]
        view = json.loads(json.dumps(engine.view(state, decision.seat)))
        state = engine.apply(state, decision.seat, bots[decision.seat].choose(decision, view), rng).state


def test_identity_memo_remembered_twice_evicts_without_error() -> None:
    """Two threads that both missed the same object both remember it (the deque then holds
    its key twice): evicting the second copy of the key finds the entry gone already, which
    must be a cache miss, never a KeyError escaping the encoder."""
    from services.platform.canonical import IdentityMemo

    memo = IdentityMemo(limit=2)
    a, b, c, d = (1, "a"), (2, "b"), (3, "c"), (4, "d")
    memo.remember(a, "A")
    memo.remember(a, "A")  # the other thread's
    for obj, value in ((b, "B"), (c, "C"), (d, "D")):
        assert memo.remember(obj, value) == value
    assert memo.get(id(d)) == (d, "D")
    assert len(memo) <= 2
