"""`neon tournament export` counts what it wrote in words: "1 match and 1 round checkpoint",
not "1 matches and 1 round checkpoints" (a 2-player, 1-round event)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import services.cli.tournament_commands as tc
from services.cli.main import app


class _Closed:
    async def close(self) -> None:
        return None


@pytest.mark.parametrize(("counts", "said"), [
    ((1, 1), "1 match and 1 round checkpoint of t1 written to"),
    ((2, 1), "2 matches and 1 round checkpoint of t1 written to"),
    ((5, 3), "5 matches and 3 round checkpoints of t1 written to"),
])
def test_the_export_line_counts_in_words(counts: tuple[int, int], said: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    async def fetch(client: Any, token: str, tournament_id: str, write: Any) -> tuple[int, int]:
        write(b"{}\n")
        return counts

    screen = Console(record=True, width=200, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(tc, "console", screen)
    monkeypatch.setattr(tc, "fetch_bundle", fetch)
    monkeypatch.setattr(tc, "_client_and_token", lambda token, organiser: (_Closed(), "t"))
    out = tmp_path / "t1.jsonl"
    result = CliRunner().invoke(app, ["tournament", "export", "t1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert said in screen.export_text(), screen.export_text()
