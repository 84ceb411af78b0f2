"""The structured log lines of this process, captured whatever an earlier test left
configured (an in-process command's log file, another level): a test that asserts what is
NOT logged must first know it is reading the lines at all."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

from services.platform import logs

CANARY = "log capture canary"


@contextlib.contextmanager
def captured_logs(level: str = "debug") -> Iterator[io.StringIO]:
    """This process's log lines at ``level`` into the stream yielded. A canary line is
    logged first and must still be there at the end: the lines of the code under test went
    where it went (nothing configured the logs elsewhere meanwhile)."""
    stream = io.StringIO()
    logs.configure(level, "json", stream=stream)
    try:
        logs.get_logger("tests").warning(CANARY)
        yield stream
        assert CANARY in stream.getvalue(), "the log lines were not captured"
    finally:
        logs.configure()
