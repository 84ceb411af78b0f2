"""Files the CLI writes whole or not at all."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def written_whole(output: Path, part: Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """A file ``part`` (beside ``output``) to write, which takes ``output``'s place when the
    block ends normally. Whatever fails, in the block or moving it into place, leaves no
    ``part`` and ``output`` as it was: a cut download is never a file that looks complete."""
    try:
        with part.open(mode) as f:
            yield f
        part.replace(output)
    finally:
        part.unlink(missing_ok=True)
