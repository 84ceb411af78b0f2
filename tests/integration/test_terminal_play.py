"""A person plays a whole Neon Reign match through ``neon play``'s code path (embedded backend),
choices fed through the prompt, the screen captured with rich."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from services.cli import main as cli
from services.cli.screen import load_presentation
from services.platform import logs
from services.rules.games import available
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")
JSON_LOG = re.compile(r'^\s*\{.*"(event|level)"\s*:', re.MULTILINE)


async def test_a_human_plays_neon_reign_in_the_terminal(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    screen = Console(record=True, width=110, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(cli, "console", screen)
    log_file = cli.logs_to_file(tmp_path / "logs" / "cli.log")
    rng = random.Random(7)
    asked: list[str] = []

    async def ask(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) == 1:
            return "j"  # a client author looks at the JSON once
        if len(asked) == 2:
            return "what?"
        top = int(re.search(r"choose 1-(\d+)", prompt).group(1))  # type: ignore[union-attr]
        return str(rng.randint(1, top))

    settings = make_settings(tmp_path, nats_url, nats_configured=True)
    export = tmp_path / "match.jsonl"
    try:
        code = await cli.play_in_terminal(settings, "neon-reign", seed=11, embedded=True,
                                          var_dir=tmp_path / "embedded", export=export, ask=ask)
    finally:
        logs.configure()
    assert code == 0
    text = screen.export_text()
    out, err = capfd.readouterr()

    records = [json.loads(line) for line in export.read_text().splitlines()]
    opponent_moves = [r for r in records if r.get("type") == "ActionAccepted" and r.get("seat") == 1]
    assert opponent_moves, "the bot never moved"
    # a narration line for each opponent action, in words
    assert text.count("bot-random-1:") == len(opponent_moves)
    assert "since your last move" in text and "your move" in text
    assert re.search(r"health\D{0,12}\d+", text, re.IGNORECASE)
    assert "result" in text and "ended after" in text
    # the options in words, numbered; JSON only when asked for with j
    assert '"action":' in text and text.count('"action":') <= 60
    assert "type a number to choose" in text
    if load_presentation("neon-reign").from_game:  # the game's own words: card names
        content = load_presentation("neon-reign").source.content()
        names = re.findall(r'"name":\s*"([^"]+)"', json.dumps(content))
        assert sum(name in text for name in set(names)) >= 3
    else:  # the generic table: the hand by id, under plain headings
        assert re.search(r"hand: (NP|CF)-\d+", text)
    # no JSON log line on the terminal; they went to the log file
    assert not JSON_LOG.search(text) and not JSON_LOG.search(out) and not JSON_LOG.search(err)
    assert log_file.read_text().strip()
