"""`neon selfplay`: bots against each other on the pure engine, seeded and reproducible."""

from typer.testing import CliRunner

from services.cli.main import app
from services.rules.selfplay import run_mode


def test_selfplay_prints_endings_lengths_and_rates_per_core():
    result = CliRunner().invoke(app, ["selfplay", "neon-reign", "--games", "4", "--mode", "single"])
    assert result.exit_code == 0, result.output
    assert "neon-reign / single: 4 games" in result.output
    assert "games/s" in result.output and "actions/s per core" in result.output


def test_selfplay_is_reproducible_and_random_bots_play_too():
    a, b = run_mode("neon-reign", "single", 6), run_mode("neon-reign", "single", 6)
    assert a.lengths == b.lengths and a.endings == b.endings and not a.failures
    assert not run_mode("neon-reign", "single", 3, bot="random").failures


def test_selfplay_names_an_unknown_game():
    result = CliRunner().invoke(app, ["selfplay", "chess"])
    assert result.exit_code == 2 and "no engine for 'chess'" in result.output


def test_bots_read_views_as_a_client_does():
    """``as_client_json`` (orjson) reads every value as json.loads(json.dumps(value)) does."""
    import json

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from services.rules.selfplay import as_client_json

    keys = st.text(max_size=5) | st.integers(-3, 3)
    values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=6)
        | st.floats(allow_nan=False, allow_infinity=False),
        lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=4), max_leaves=20)

    @settings(max_examples=300, deadline=None)
    @given(values)
    def same(value):
        assert as_client_json(value) == json.loads(json.dumps(value))

    same()
