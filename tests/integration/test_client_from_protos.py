"""A client written from protos/ alone plays a whole match of each game over real gRPC.

The client (tests/support/proto_client.py) runs in its own Python with ``-I``: it generates
its code from protos/ into a temporary folder and imports nothing of services/. It learns
card names from GetGameInfo's content pack and plays from SubmitAction's answers.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend, start_backend
from services.rules.games import available
from tests.integration.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests" / "support" / "proto_client.py"
GAMES = {"neon-reign": "single", "neon": "rebirth"}


@pytest.fixture
async def both_games(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    games = [g for g in GAMES if g in available()]
    if not games:
        pytest.skip("no Neon Reign or NEON engine in this build")
    backend = await start_backend(make_settings(tmp_path, nats_url), games=games,
                                  embedded_nats=False)
    yield backend
    await backend.stop(1)


async def run_client(backend: Backend, tmp_path: Path, game: str, players: str) -> dict[str, Any]:
    report = tmp_path / f"{game}-report.json"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-I", str(CLIENT), "--protos", str(ROOT / "protos"),
        "--out", str(tmp_path / f"gen-{game}"), "--rules", backend.address(f"rules-{game}"),
        "--token", backend.organiser_token(), "--mode", GAMES[game], "--players", players,
        "--seed", "21", "--report", str(report),
        cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, err.decode()[-3000:]
    return json.loads(report.read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_client_from_the_protos_alone_plays_a_whole_match(
        both_games: Backend, tmp_path: Path, game: str) -> None:
    if f"rules-{game}" not in both_games.services:
        pytest.skip(f"no {game} engine in this build")
    report = await run_client(both_games, tmp_path, game, "ann,bob")
    assert report["project_modules"] == [], "the client imported the project's code"
    assert report["game_id"] == game
    outcome = report["outcome"]
    assert outcome is not None and len(outcome["placements"]) == 2
    assert report["actions"] >= 5
    # every card it ever held was named from the served content pack
    assert report["held"], "the client never saw a hand"
    assert report["unnamed"] == []
    assert not any("?" in line for line in report["hands_drawn"])
    assert report["most_hands_in_a_view"] == 1, "a seat's view showed another seat's hand"
    # most positions came from SubmitAction's own answers, not from asking again
    assert report["positions_from_queries"] < report["actions"]
    assert report["schemas"] == {"view": True, "event": True}
    assert report["events_with_text"] > 0


async def test_client_facing_json_includes_default_values(both_games: Backend,
                                                          tmp_path: Path) -> None:
    game = next(g for g in GAMES if f"rules-{g}" in both_games.services)
    report = await run_client(both_games, tmp_path, game, "ann,bob")
    full = {k: json.loads(v) for k, v in report["json_with_defaults"].items()}
    bare = {k: json.loads(v) for k, v in report["json_without_defaults"].items()}
    assert [t["seat"] for t in full["create"]["seatTokens"]] == [0, 1]
    assert full["view"]["viewer"] == 0
    # without the option, proto3 JSON drops seat 0 and viewer 0: why clients need it
    assert "seat" not in bare["create"]["seatTokens"][0] and "viewer" not in bare["view"]
    assert isinstance(full["view"]["version"], str), "int64 is a string in proto3 JSON"
