"""`neon up`'s log lines: every one to its file (JSON, with what was bound), and those of
warning level and above also on the terminal, so the endpoint table is not buried in them."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.cli.main import logs_to_file
from services.platform import logs


@pytest.fixture
def restored() -> Iterator[None]:
    yield
    logs.configure()  # back to stderr for the tests that follow
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)


def test_up_logs_to_its_file_and_echoes_warnings_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], restored: None) -> None:
    path = logs_to_file(tmp_path / "logs" / "up.log", echo="warning")
    log = logs.get_logger("backend")
    with logs.bound_contextvars(match_id="m-1"):
        log.info("backend up", endpoints={"dice": "127.0.0.1:50051"})
        log.warning("store slow", seconds=3)
    logging.getLogger("grpc").warning("a library's warning")
    logging.getLogger("grpc").info("a library's info")
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    assert [(e["event"], e["level"], e["match_id"]) for e in lines] == [
        ("backend up", "info", "m-1"), ("store slow", "warning", "m-1")]
    assert "a library's warning" in path.read_text()
    err = capsys.readouterr().err.splitlines()
    echoed = [json.loads(line) for line in err if line.startswith("{")]
    assert [(e["event"], e["level"], e["match_id"]) for e in echoed] == [
        ("store slow", "warning", "m-1")]
    assert "a library's warning" in err and "a library's info" not in "\n".join(err)
