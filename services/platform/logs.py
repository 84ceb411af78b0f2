"""structlog set-up: JSON lines with match id and request id bound from context."""

from __future__ import annotations

import logging
import re
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


ACTION_WORDS = re.compile(
    r"(illegal action|action does not match the [\w.-]+ schema|action_json)(: )[^\n]*")
"""The words with which an action is refused quote it (a schema's words quote the whole
action; an engine's name the card, the hand it is not in): told to the seat that sent it,
which may see them, but never logged, nor the rest of the line after them."""

ACTION_HIDDEN = r"\1\2[the action's words are its seat's alone]"


def _hide_action_words(value: Any) -> Any:
    if isinstance(value, str):
        return ACTION_WORDS.sub(ACTION_HIDDEN, value)
    if isinstance(value, dict):
        return {k: _hide_action_words(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hide_action_words(v) for v in value]
    return value


def hide_action_words(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """A processor: no field of a log line (its reason, an error's words, a traceback) keeps
    the words with which an action was refused (:data:`ACTION_WORDS`). Those words go to the
    seat that sent the action in its error and to nobody else; the line keeps the code,
    the method, the match and the kind of refusal."""
    return {k: _hide_action_words(v) for k, v in event.items()}


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
            hide_action_words,  # after format_exc_info: a traceback's message too
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
