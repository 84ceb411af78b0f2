"""``neon tournament export -o`` naming a folder (``.``, ``/``, an existing folder) is a
usage error in one line ("cannot use ...", exit 2), said before any bundle is fetched, and
leaves no file behind; it was an unexpected error (``PosixPath('.') has an empty name``)
for ``.`` and ``/``, whose ``.part`` beside the output cannot be named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_cli_errors import SECRET, run


@pytest.mark.parametrize("where", [".", "/", "folder"])
def test_an_output_that_is_a_folder_is_a_usage_error(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dead_port: int) -> None:
    work = tmp_path / "work"
    (work / "folder").mkdir(parents=True)
    monkeypatch.chdir(work)
    before = sorted(p.name for p in work.iterdir())
    # no tournament service answers: the folder is refused before any call
    dead = {**SECRET, "NEON_VAR_DIR": str(tmp_path / "var"), "NATS_URL": "",
            "NEON_NAMESPACE": "", "NEON_TOURNAMENT_PORT": str(dead_port)}
    line = run(["tournament", "export", "cup", "-o", where], dead, 2)
    assert line.startswith(f"cannot use {where}"), line
    assert sorted(p.name for p in work.iterdir()) == before
    assert sorted(p.name for p in (work / "folder").iterdir()) == []
