"""``neon games`` on a narrow terminal: the ids a person copies into the next command stay whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from services.rules.games import available, load_engine


def test_games_never_cuts_a_game_or_mode_id(tmp_path: Path) -> None:
    """At 80 columns it printed 'neon-knigh…' and 'best-of-th…'."""
    out = subprocess.run([sys.executable, "-m", "services.cli.main", "games"],
                         env={**os.environ, "NEON_VAR_DIR": str(tmp_path / "var"), "COLUMNS": "60"},
                         capture_output=True, text=True, timeout=60, check=True).stdout
    cells = [[c.strip() for c in line.split("│")[1:3]] for line in out.splitlines()
             if line.startswith("│")]
    games = {c[0] for c in cells if c[0]}
    modes = {(c[0], c[1]) for c in cells if c[0]}
    assert games == set(available()), out
    assert modes == {(g, m.name) for g in available() for m in load_engine(g).modes().values()}, out
