"""``neon simulate`` with the toy engine: tickets, acceptance, random play, results, ratings.

Odd player counts send the last player to a bot after the backfill wait, so this also runs
matchmaking's own bots through a whole match.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from services.cli.main import app


@pytest.mark.parametrize("players", [5])
def test_simulate_sends_every_player_through_the_whole_path(
    players: int, nats_url: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_PERSISTENCE", "sqlite")
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("NEON_LOG_LEVEL", "warning")
    result = CliRunner().invoke(app, ["simulate", "--game", "toy", "--players", str(players),
                                      "--embedded", "--timeout", "60"])
    out = result.output
    assert result.exit_code == 0, out
    assert f"matched {players}/{players} players" in out
    assert f"({players} of {players} simulated players listed)" in out
    assert f"ratings of {players} players agree with openskill" in out
    for stage in ("queue", "match", "play", "rate", "total"):
        assert stage in out


def test_simulate_refuses_a_game_without_engine(nats_url: str, tmp_path: object,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["simulate", "--game", "chess", "--players", "2", "--embedded"])
    assert result.exit_code != 0


def test_queue_matches_the_human_with_a_bot_and_plays_from_the_terminal(
    nats_url: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`neon queue`: alone in the queue, a bot fills the empty seat after the backfill wait; the
    human answers every decision by number on standard input until the match ends."""
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_PERSISTENCE", "sqlite")
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("NEON_LOG_LEVEL", "warning")
    result = CliRunner().invoke(app, ["queue", "toy", "--embedded", "--yes", "--player", "ann",
                                      "--timeout", "60"], input="1\n" * 200)
    out = result.output
    assert result.exit_code == 0, out
    assert "match found" in out and "(bot)" in out
    assert "your move" in out and "ended" in out
    statuses = [line.split(" after ")[0] for line in out.splitlines() if line.startswith("ticket ")]
    assert statuses.count("ticket proposed") == 1, statuses  # not again when ann accepts


def test_queue_asks_again_when_the_accept_answer_is_neither_yes_nor_no(
    nats_url: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`neon queue` without --yes: an answer at "accept? [Y/n]" that is neither yes nor no (a
    move number typed too early, a typo) is asked again, never taken as a decline that
    cancels the ticket; "y" then accepts and the match is played."""
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_PERSISTENCE", "sqlite")
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("NEON_LOG_LEVEL", "warning")
    result = CliRunner().invoke(app, ["queue", "toy", "--embedded", "--player", "ann",
                                      "--timeout", "60"], input="1\nyse\ny\n" + "1\n" * 200)
    out = result.output
    assert result.exit_code == 0, out
    assert out.count("answer y (accept) or n (decline)") == 2, out
    assert "cancelled" not in out and "your move" in out and "ended" in out


def test_queue_declines_on_n(
    nats_url: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """"n" at the accept prompt declines: the ticket is cancelled and the command exits 1."""
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_PERSISTENCE", "sqlite")
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("NEON_LOG_LEVEL", "warning")
    result = CliRunner().invoke(app, ["queue", "toy", "--embedded", "--player", "ann",
                                      "--timeout", "60"], input="n\n")
    assert result.exit_code == 1, result.output
    assert "cancelled" in result.output and "your move" not in result.output
