"""``neon games``: on a narrow terminal the ids a person copies into the next command stay
whole; with --json every game and mode as the engines have them."""

from __future__ import annotations

import json
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


def test_games_json_lists_every_mode_with_its_seats(tmp_path: Path) -> None:
    """`neon games --json`: stdout is one JSON document, each game with its bots and its modes
    as the engine has them (seats, teams, the sides the engine plays)."""
    from services.rules.bots import bot_kinds

    out = subprocess.run([sys.executable, "-m", "services.cli.main", "games", "--json"],
                         env={**os.environ, "NEON_VAR_DIR": str(tmp_path / "var")},
                         capture_output=True, text=True, timeout=60, check=True).stdout
    games = {g["game"]: g for g in json.loads(out)["games"]}
    assert list(games) == list(available())
    for game_id, shown in games.items():
        assert shown["bots"] == list(bot_kinds(game_id))
        assert shown["modes"] == [
            {"name": m.name, "minSeats": m.min_seats, "maxSeats": m.max_seats,
             "teamLayouts": [{"seats": t.seats, "teamSize": t.team_size}
                             for t in getattr(m, "team_layouts", ())],
             "aiParticipants": list(getattr(m, "ai_participants", ()))}
            for m in load_engine(game_id).modes().values()]
    neon_modes = {m["name"]: m for m in games["neon"]["modes"]}
    assert neon_modes["coalition"]["minSeats"] == 4 and neon_modes["coalition"]["teamLayouts"]
    assert "automa" in neon_modes["rebirth"]["aiParticipants"]
