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
