"""Files the CLI writes whole or not at all."""

from __future__ import annotations

import contextlib
import errno
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from services.cli.errors import FAILED, USAGE, CliError

_NO_ROOM = {errno.EFBIG, errno.ENOSPC, errno.EDQUOT}
"""Why writing a file fails half-way (too large for the process's limit or the filesystem,
a full disk, a quota)."""


def part_beside(output: Path) -> Path:
    """A file name beside ``output`` for its ``.part``: hidden, and of this run only (two runs
    writing the same output never share one)."""
    return output.with_name(f".{output.name}.{uuid.uuid4().hex[:8]}.part")


def refuse_folder(output: Path, what: str) -> None:
    """A usage error when ``output`` names a folder (``.``, ``/``, an existing folder), or a
    file in a folder that does not exist (or is not a folder): said before any work (a match
    played, a tournament run), since no ``.part`` can be made beside it and no file written
    there. ``what``: the file's kind, in the error ("bundle")."""
    if not output.name or output.is_dir():
        raise CliError(f"cannot use {output}: it is a folder; name the {what} file to write",
                       USAGE)
    folder = output.parent
    if not folder.is_dir():
        why = "is not a folder" if folder.exists() else "does not exist"
        raise CliError(f"cannot write {output}: the folder {folder} {why}; make it first, or "
                       f"name the {what} file in another folder", USAGE)


@contextlib.contextmanager
def written_whole(output: Path, part: Path | None = None, mode: str = "wb") -> Iterator[IO[Any]]:
    """A file ``part`` (beside ``output``; by default :func:`part_beside`'s) to write, which
    takes ``output``'s place when the block ends normally. Whatever fails, in the block or
    moving it into place, leaves no ``part`` and ``output`` as it was: a cut download, or a
    write that failed half-way (a full disk), is never a file that looks complete. A write
    that found no room, or a ``part`` that cannot be made (its folder is gone, or takes no
    new file), is a one-line error naming ``output``."""
    part = part_beside(output) if part is None else part
    try:
        try:
            f = part.open(mode)
        except OSError as err:  # the folder is gone, or takes no new file: said of output
            if err.errno in _NO_ROOM:
                raise
            raise CliError(f"cannot write {output}: {err.strerror}", USAGE) from None
        with f:
            yield f
        part.replace(output)
    except OSError as err:
        if err.errno not in _NO_ROOM:
            raise
        raise CliError(f"could not write {output}: {err.strerror}; nothing was written there",
                       FAILED) from None
    finally:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):  # never made
            part.unlink()


def write_private(output: Path, text: str) -> None:
    """``text`` as ``output``, readable by its owner only from the first byte (a secret: an
    organiser token). Written beside it and moved into place: never a moment in which another
    local user could open it, nor a half-written file."""
    from services.platform.keys import create_private  # cryptography: only when asked

    output.parent.mkdir(parents=True, exist_ok=True)
    part = part_beside(output)
    try:
        create_private(part, text)
        part.replace(output)
    finally:
        part.unlink(missing_ok=True)
