"""structlog set-up: JSON lines with match id and request id bound from context."""

from __future__ import annotations

import logging
import re
import sys
import traceback
from contextvars import ContextVar
from typing import Any

import structlog
from structlog.contextvars import bind_contextvars, bound_contextvars, clear_contextvars

__all__ = ["bind_contextvars", "bound_contextvars", "clear_contextvars", "configure", "error_words",
           "get_logger", "hide_in_logs", "withhold_words_of"]

_configured = False


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time of the write, not at configure time
    (a test runner or a CLI harness may swap it, and close the one it swapped in)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


ACTION_WORDS = re.compile(
    r"((?:illegal action|action does not match the [\w.-]+ schema|action_json"
    r"|action of seat \d+ is illegal|does not fold on it)(?:: | \()|does not replay \()[^\n]*")
"""The words with which an action is refused quote it (a schema's words quote the whole
action; an engine's name the card, the hand it is not in): told to the seat that sent it,
which may see them, but never logged, nor the rest of the line after them. So are an
engine's words when a stored action does not replay or fold (services/rules/replay.py's
ReplayError, a snapshot refused: the engine's reason, its exception's text)."""

ACTION_HIDDEN = r"\1[the action's words are its seat's alone]"


_HIDDEN: ContextVar[tuple[str, ...]] = ContextVar("neon_logs_hidden", default=())
HIDDEN = "[hidden]"
SHOWN = frozenset({"event", "level", "timestamp", "service", "method", "request_id", "match_id",
                   "tournament_id", "code"})
"""The fields of a log line that name the line, the call and the match: never rewritten."""


def hide_in_logs(values: Any, also: bool = False) -> None:
    """No log line written from here on in this context (the call, the task) holds any of
    ``values`` (the strings of a seat's action: its cards, its hidden choice); each is
    written as ``[hidden]``. Replaces what was hidden here before (a Play stream's next
    action), so the context holds one action's strings, or with ``also`` adds to them (a
    timeout the clock applies ahead of the call's own action). Set, never reset: the
    context goes with the call (services/platform/grpc_kit.py, _CallScope) or the task."""
    kept = set(_HIDDEN.get()) if also else set()
    kept |= {v for v in values if isinstance(v, str) and len(v) >= 3}
    _HIDDEN.set(tuple(sorted(kept, key=len, reverse=True)))


def _hide(value: Any, hidden: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        value = ACTION_WORDS.sub(ACTION_HIDDEN, value)
        for secret in hidden:
            if secret in value:
                value = value.replace(secret, HIDDEN)
        return value
    if isinstance(value, dict):
        return {k: _hide(v, hidden) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hide(v, hidden) for v in value]
    return value


def hide_action_words(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """A processor: no field of a log line (its reason, an error's words, a traceback) keeps
    the words with which an action was refused (:data:`ACTION_WORDS`), nor the strings of
    the action the call is about (:func:`hide_in_logs`: an engine's error may quote it).
    Those go to the seat that sent the action and to nobody else; the line keeps the code,
    the method, the match and the kind of refusal."""
    hidden = _HIDDEN.get()
    return {k: v if k in SHOWN else _hide(v, hidden) for k, v in event.items()}


_ENGINE_PACKAGES: set[str] = {"services.rules.games"}
WITHHELD = ("[its words are withheld: raised in a game engine, they may quote hidden state; "
            "the match's log replays it]")


def withhold_words_of(module: str) -> None:
    """From now on, an exception raised through ``module``'s package (a plug-in engine's:
    the rules host names its engine's) keeps its words out of the logs, as the built-in
    engines' (services.rules.games) do."""
    loaded = sys.modules.get(module)
    _ENGINE_PACKAGES.add(getattr(loaded, "__package__", None) or module)


def _in_engine(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in _ENGINE_PACKAGES)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or during, newest first."""
    seen: list[BaseException] = []
    while exc is not None and all(exc is not s for s in seen):
        seen.append(exc)
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)  # type: ignore[assignment]
    return seen


def _raised_in_engine(exc: BaseException) -> bool:
    for link in _chain(exc):
        tb = link.__traceback__
        while tb is not None:
            if _in_engine(str(tb.tb_frame.f_globals.get("__name__", ""))):
                return True
            tb = tb.tb_next
    return False


def error_words(err: BaseException) -> str:
    """What a log line may say of ``err``: its words (its type's name when it has none), or
    its type alone when it, or an error it was raised from, came through a game engine's
    code, whose words may quote the state (a deck's order, another seat's hand)."""
    if _raised_in_engine(err):
        return f"{type(err).__name__} {WITHHELD}"
    return str(err) or type(err).__name__


def _without_words(exc: BaseException) -> str:
    """A traceback of ``exc`` and its chain: every frame (file, line, function, the line's
    code), each exception's type, none of their words."""
    blocks = []
    for link in reversed(_chain(exc)):
        frames = "".join(traceback.format_list(traceback.extract_tb(link.__traceback__)))
        blocks.append("Traceback (most recent call last):\n" + frames
                      + f"{type(link).__qualname__}: {WITHHELD}")
    return "\n\nThe above led to the following:\n\n".join(blocks)


def withhold_engine_words(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """A processor, before ``format_exc_info``: a line's exception raised through a game
    engine's code is written without its words (:func:`error_words`)."""
    exc_info = event.get("exc_info")
    if not exc_info:
        return event
    if exc_info is True:
        exc_info = sys.exc_info()
    exc = exc_info if isinstance(exc_info, BaseException) else (
        exc_info[1] if isinstance(exc_info, tuple) else None)
    if isinstance(exc, BaseException) and _raised_in_engine(exc):
        del event["exc_info"]
        event["exception"] = _without_words(exc)
    return event


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
            withhold_engine_words,
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
