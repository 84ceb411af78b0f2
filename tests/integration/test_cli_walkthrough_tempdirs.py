"""The README: "`queue`, `simulate` and `tournament simulate` use a temporary folder" for
their `--embedded` backend. Temporary: the folder (its SQLite stores, its NATS store) is gone
when the command ends; every run left one in /tmp before (`neon-mm-*`, `neon-tournament-*`,
up to megabytes each). The commands in-process (CliRunner), with the temporary folders made
under the test's own folder, over the shared NATS."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def temp(tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the commands make their temporary folders (here, to look at afterwards)."""
    made = tmp_path / "tmp"
    made.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(made))
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("NEON_PERSISTENCE", "sqlite")
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("NEON_LOG_LEVEL", "warning")
    return made


def test_embedded_simulations_leave_no_folder_behind(temp: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--game", "toy", "--players", "2",
                                      "--embedded", "--timeout", "60"])
    assert result.exit_code == 0, result.output
    assert "matched 2/2 players" in result.output
    result = CliRunner().invoke(app, ["tournament", "simulate", "--game", "neon-reign",
                                      "--mode", "single", "--players", "2", "--rounds", "1",
                                      "--embedded"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in temp.iterdir()) == [], "the temporary folders stay"
