"""structlog set-up: JSON lines with match id and request id bound from context."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog
from structlog.contextvars import bind_contextvars, bound_contextvars, clear_contextvars

__all__ = ["bind_contextvars", "bound_contextvars", "clear_contextvars", "configure", "get_logger"]

_configured = False


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time of the write, not at configure time
    (a test runner or a CLI harness may swap it, and close the one it swapped in)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure(level: str = "info", fmt: str = "json", stream: Any = None) -> None:
    """Configure structlog once for the process (idempotent)."""
    global _configured
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=stream or _CurrentStderr()),
        cache_logger_on_first_use=False,
    )
    _configured = True


def get_logger(name: str) -> Any:
    if not _configured:
        configure()
    return structlog.get_logger(service=name)
