"""A person plays a whole match through ``neon play``'s code path (embedded backend), choices
fed through the prompt, the screen captured with rich: Neon Reign and NEON rebirth."""

from __future__ import annotations

import io
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from services.cli import main as cli
from services.cli.screen import load_presentation
from services.platform import logs
from services.rules.games import available
from tests.integration.conftest import make_settings

JSON_LOG = re.compile(r'^\s*\{.*"(event|level)"\s*:', re.MULTILINE)


def needs(game: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(game not in available(), reason=f"no {game} engine")


@dataclass
class Played:
    text: str
    out: str
    err: str
    records: list[dict[str, Any]]
    log_file: Path

    def opponent_moves(self, human: int = 0) -> list[dict[str, Any]]:
        return [r for r in self.records
                if r.get("type") == "ActionAccepted" and r.get("seat") != human]

    def assert_no_json_log_line(self) -> None:
        for where in (self.text, self.out, self.err):
            assert not JSON_LOG.search(where), JSON_LOG.search(where)
        assert self.log_file.read_text().strip(), "the logs went nowhere"


async def play_as_a_human(tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
                          capfd: pytest.CaptureFixture[str], game: str, *, mode: str = "",
                          seed: int, look_at_json: bool = False, rate: int = 0) -> Played:
    screen = Console(record=True, width=110, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(cli, "console", screen)
    log_file = cli.logs_to_file(tmp_path / "logs" / "cli.log")
    rng = random.Random(seed)
    asked: list[str] = []

    async def ask(prompt: str) -> str:
        asked.append(prompt)
        if look_at_json and len(asked) == 1:
            return "j"  # a client author looks at the JSON once
        if look_at_json and len(asked) == 2:
            return "what?"
        top = int(re.search(r"choose 1-(\d+)", prompt).group(1))  # type: ignore[union-attr]
        return str(rng.randint(1, max(1, top - 1)))  # the last option is often "resign"

    settings = make_settings(tmp_path, nats_url, nats_configured=True, max_calls_per_second=rate)
    export = tmp_path / "match.jsonl"
    try:
        code = await cli.play_in_terminal(settings, game, mode=mode, seed=seed, embedded=True,
                                          var_dir=tmp_path / "embedded", export=export, ask=ask)
    finally:
        logs.configure()
    assert code == 0
    out, err = capfd.readouterr()
    records = [json.loads(line) for line in export.read_text().splitlines()]
    return Played(screen.export_text(), out, err, records, log_file)


@needs("neon-reign")
async def test_a_person_faster_than_the_seats_call_rate_plays_on(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    """A person answering at once (a script at the terminal) against a service whose call rate
    per seat is low: each refusal over the rate is waited out and the call sent again, and
    the match ends as any other (the terminal's catch-up of events ended the command with
    RESOURCE_EXHAUSTED "too many calls from this seat")."""
    played = await play_as_a_human(tmp_path, nats_url, monkeypatch, capfd, "neon-reign",
                                   seed=12, rate=20)
    assert "result" in played.text and "ended after" in played.text
    assert [r["type"] for r in played.records][-2:] == ["MatchSealed", "Checkpoint"]


@needs("neon-reign")
async def test_a_human_plays_neon_reign_in_the_terminal(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    played = await play_as_a_human(tmp_path, nats_url, monkeypatch, capfd, "neon-reign",
                                   seed=11, look_at_json=True)
    text = played.text
    opponent_moves = played.opponent_moves()
    assert opponent_moves, "the bot never moved"
    # a narration line for each opponent action, in words
    assert text.count("bot-random-1:") == len(opponent_moves)
    assert "since your last move" in text and "your move" in text
    assert re.search(r"health\D{0,12}\d+", text, re.IGNORECASE)
    assert "result" in text and "ended after" in text
    # the options in words, numbered; JSON only when asked for with j
    # (one decision's options can number about 70 with Neon Reign 1.2.0's decks; JSON for every
    # decision of a whole game would run to many hundreds)
    assert '"action":' in text and text.count('"action":') <= 150
    assert "type a number to choose" in text
    if load_presentation("neon-reign").from_game:  # the game's own words: card names
        content = load_presentation("neon-reign").source.content()
        names = re.findall(r'"name":\s*"([^"]+)"', json.dumps(content))
        assert sum(name in text for name in set(names)) >= 3
    else:  # the generic table: the hand by id, under plain headings
        assert re.search(r"hand: (NP|CF)-\d+", text)
    played.assert_no_json_log_line()


@needs("neon")
async def test_a_human_plays_neon_rebirth_in_the_terminal(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    played = await play_as_a_human(tmp_path, nats_url, monkeypatch, capfd, "neon",
                                   mode="rebirth", seed=11)
    text = played.text
    opponent_moves = played.opponent_moves()
    assert opponent_moves, "the bot never moved"
    assert text.count("bot-random-1:") == len(opponent_moves)
    assert "since your last move" in text and "your move" in text
    assert "result" in text and "ended after" in text
    assert '"action":' not in text, "the options are words unless j is typed"
    presentation = load_presentation("neon")
    if presentation.from_game:
        content = presentation.source.content()
        fighters = {f["id"]: f["name"] for f in content["fighters"]}
        shown = {name for name in fighters.values() if re.search(rf"\b{name}\b", text)}
        assert len(shown) >= 2, f"fighter names on the table: {shown}"
        cards = {c["name"] for c in content["cards"]}
        hands = re.findall(r"Your hand: (.+?)Your row", text, re.DOTALL)
        assert any(name in line for line in hands for name in cards), hands[:3]
        assert "initiative" in text and "health" in text.lower()
    played.assert_no_json_log_line()
