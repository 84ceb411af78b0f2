"""services/cli/files.py ``written_whole``: the ``.part`` takes the output's place only when
the block ends normally; whatever fails (the block, the move into place, a write with no
room) leaves no ``.part`` and the output as it was."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from services.cli.errors import FAILED, USAGE, CliError
from services.cli.files import part_beside, refuse_folder, write_private, written_whole


def test_the_part_takes_the_outputs_place_once_whole(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    output.write_bytes(b"earlier\n")
    with written_whole(output) as f:
        f.write(b"new ")
        assert output.read_bytes() == b"earlier\n"  # not yet
        f.write(b"whole\n")
    assert output.read_bytes() == b"new whole\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_failing_block_leaves_the_output_as_it_was_and_no_part(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    output.write_bytes(b"earlier\n")
    with pytest.raises(RuntimeError), written_whole(output) as f:
        f.write(b"half")
        raise RuntimeError("cut")
    assert output.read_bytes() == b"earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_move_that_fails_leaves_no_part(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    output.mkdir()
    (output / "inside").write_bytes(b"kept\n")
    with pytest.raises(OSError), written_whole(output) as f:
        f.write(b"whole\n")
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    assert (output / "inside").read_bytes() == b"kept\n"


@pytest.mark.parametrize("code", [errno.EFBIG, errno.ENOSPC, errno.EDQUOT])
def test_a_write_with_no_room_is_one_line_naming_the_output(tmp_path: Path, code: int) -> None:
    output = tmp_path / "out.jsonl"
    with pytest.raises(CliError) as refused, written_whole(output) as f:
        f.write(b"half")
        raise OSError(code, "No room")
    assert refused.value.message == f"could not write {output}: No room; nothing was written there"
    assert refused.value.code == FAILED
    assert list(tmp_path.iterdir()) == []


def test_parts_are_hidden_and_of_one_run_each(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    one, two = part_beside(output), part_beside(output)
    assert one != two and one.parent == tmp_path
    assert one.name.startswith(".out.jsonl.") and one.name.endswith(".part")


@pytest.mark.parametrize("where", [".", "/", "folder"])
def test_a_folder_is_refused(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CliError) as refused:
        refuse_folder(Path(where), "bundle")
    assert refused.value.message == f"cannot use {where}: it is a folder; name the bundle file to write"
    assert refused.value.code == USAGE
    refuse_folder(Path("file.jsonl"), "bundle")  # a file's name: fine


def test_a_private_file_is_its_owners_alone_from_the_first_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An organiser token (``neon up``'s var/organiser.token) is never readable by another
    local user, whatever the umask, nor while it is written; written again, it is replaced."""
    import os
    import stat

    seen: list[int] = []
    real_fdopen = os.fdopen

    def fdopen(fd: int, *args: object, **kwargs: object) -> object:
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))  # the file as it is made
        return real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", fdopen)
    old = os.umask(0)
    try:
        output = tmp_path / "var" / "organiser.token"
        write_private(output, "first\n")
        write_private(output, "second\n")
    finally:
        os.umask(old)
    assert seen == [0o600, 0o600]
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    assert output.read_text() == "second\n"
    assert [p.name for p in output.parent.iterdir()] == ["organiser.token"]
