"""Expected failures of ``neon`` commands: one line saying what happened and what to do.

Exit codes (README, "Exit codes"): 0 success; 1 verification failed or another failure;
2 usage (unknown game or mode, bad option, missing file, bad key; a request the service
answers INVALID_ARGUMENT); 3 a backend service does not answer; 130 interrupted. A traceback
only with ``neon --debug``.

A command with ``--json`` (its ``as_json`` parameter) prints its answer as JSON on stdout and
nothing else there; when it fails, stdout also gets one object ``{"error": {"code", "message"}}``
(the gRPC status name for a failed call, else the exit code's name: USAGE, FAILED,
UNREACHABLE, INTERRUPTED, UNEXPECTED), and stderr and the exit code are as without it.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import typer
from rich.console import Console

from services.cli.plain import print_plain

OK, FAILED, USAGE, UNREACHABLE, INTERRUPTED = 0, 1, 2, 3, 130
F = TypeVar("F", bound=Callable[..., Any])
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


class CliError(Exception):
    """A failure to report in one line with an exit code."""

    def __init__(self, message: str, code: int = FAILED, status: str = "",
                 detail: str = "") -> None:
        super().__init__(message)
        self.message, self.code = message, code
        # For --json: the gRPC status name and its details when a call failed.
        self.status, self.detail = status, detail


@dataclass
class State:
    debug: bool = False
    json: bool = False
    targets: list[tuple[str, str]] = field(default_factory=list)
    embedded: bool = False
    """The running command takes ``--embedded`` (its ``embedded`` parameter)."""
    embedding: bool = False
    """... and was given it: it starts a backend, whose folder it makes."""


state = State()


def target(what: str, address: str) -> None:
    """Name the backend a command is about to call, for the "does not answer" line (named
    again before each of many calls: kept once)."""
    if state.targets[-1:] != [(what, address)]:
        state.targets.append((what, address))


def _unreachable(late: bool = False) -> str:
    """``late``: the call's deadline, or a connection's, passed: a service may be there but
    too busy to answer in time (a loaded machine), which "no ... answers" alone would hide."""
    what, address = state.targets[-1] if state.targets else ("backend service", "its address")
    said = (f"no {what} answered on {address} in time (busy, or not running)" if late
            else f"no {what} answers on {address}")
    return f"{said}; start one with ./dev up{' or pass --embedded' if state.embedded else ''}"


_LATE = ("deadline exceeded", "timed out", "timeout")
"""Words of gRPC's own details when nobody answered in time (a deadline, a connection or
handshake that timed out)."""


_TRANSPORT = ("failed to connect", "connection refused", "socket closed", "connection reset",
              "broken pipe", "dns resolution failed", "goaway", "keepalive", "connections to all",
              "deadline exceeded", "connect failed", "endpoint closing")
"""Words of gRPC's own details when no service answered (a refused, reset or closed
connection, a name not resolved, a deadline): anything else UNAVAILABLE says is a service's
reason (a rules service's broken export, a store down), shown as it is."""


def _no_answer(details: str) -> bool:
    text = details.lower()
    return not text.strip() or any(word in text for word in _TRANSPORT)


def _address_in(text: str) -> str:
    """The first host:port (IPv4 or a bracketed IPv6) an error's text names, or "its
    address"."""
    where = re.search(r"(\d[\d.]*:\d+|\[[^\]]+\]:\d+)", text)
    return where.group(1) if where else "its address"


def explain(err: BaseException) -> CliError | None:
    """The one-line form of an expected failure, or None for a real bug."""
    import grpc

    if isinstance(err, CliError):
        return err
    if isinstance(err, grpc.aio.AioRpcError | grpc.RpcError) and hasattr(err, "code"):
        code = err.code()
        called = {"status": code.name, "detail": err.details() or ""}
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            if code == grpc.StatusCode.UNAVAILABLE and not _no_answer(err.details() or ""):
                # a service answered, unavailable for a reason of its own: say it
                return CliError(f"{code.name}: {err.details()}", UNREACHABLE, **called)
            late = code == grpc.StatusCode.DEADLINE_EXCEEDED or any(
                word in (err.details() or "").lower() for word in _LATE)
            return CliError(_unreachable(late), UNREACHABLE, code.name)
        if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
            return CliError(f"{code.name}: {err.details()} (is this the deployment whose keys "
                            "are in NEON_VAR_DIR / NEON_TOKEN_SECRET?)", FAILED, **called)
        if code == grpc.StatusCode.INVALID_ARGUMENT:  # what the command was given is wrong
            return CliError(f"{code.name}: {err.details()}", USAGE, **called)
        return CliError(f"{code.name}: {err.details()}", FAILED, **called)
    if isinstance(err, FileNotFoundError):
        return CliError(f"file not found: {err.filename}", USAGE)
    if isinstance(err, IsADirectoryError | PermissionError):
        return CliError(f"cannot use {err.filename}: {err.strerror}", USAGE)
    if isinstance(err, json.JSONDecodeError):
        return CliError(f"not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})", USAGE)
    if isinstance(err, EOFError):  # stdin ended at a prompt (a pipe, a file, Ctrl-D)
        return CliError("input ended at the prompt (end of file): nothing more to answer "
                        "with; run it at a terminal, or give one answer a line for every "
                        "prompt", FAILED)
    if isinstance(err, RuntimeError) and str(err).startswith("could not serve metrics on "):
        address = _address_in(str(err))
        if "in use" in str(err):
            return CliError(f"port busy: cannot serve metrics on {address} (another `neon "
                            "up`?); set NEON_METRICS_PORT to move it (0: none)", FAILED)
        return CliError(f"{err}; set NEON_METRICS_HOST / NEON_METRICS_PORT (0: none)", FAILED)
    if isinstance(err, RuntimeError) and ("could not bind" in str(err)
                                          or "Failed to bind" in str(err)):
        address = _address_in(str(err))
        return CliError(f"port busy: cannot listen on {address} (another `neon up`?); set "
                        "NEON_<SERVICE>_PORT to move it", FAILED)
    if isinstance(err, OSError) and err.errno == 98:  # EADDRINUSE
        return CliError(f"a port is busy: {err.strerror}; set NEON_<SERVICE>_PORT to move it",
                        FAILED)
    if type(err).__name__ in ("NoServersError", "ConnectionRefusedError"):
        return CliError("no NATS answers on NATS_URL; unset NATS_URL to use the bundled "
                        "nats-server, or start NATS", UNREACHABLE)
    return None


def friendly(fn: F) -> F:
    """Run a command, turning expected failures into one line and an exit code."""
    embedded = "embedded" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        state.targets.clear()
        state.json = bool(kwargs.get("as_json", False))
        state.embedded = embedded
        state.embedding = embedded and bool(kwargs.get("embedded", False))
        before = _sigterm_as_ctrl_c() if state.embedding else None
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except Exception as err:
            found = explain(err)
            if found is None or state.debug:
                if found is None and not state.debug:
                    message = (f"unexpected error: {type(err).__name__}: {err} "
                               "(run with --debug for the traceback; logs in var/logs)")
                    json_error("UNEXPECTED", message)
                    print_plain(err_console, message)
                    raise typer.Exit(FAILED) from None
                raise
            json_error(found.status or CODE_NAMES.get(found.code, "FAILED"),
                       found.detail or found.message)
            print_plain(err_console, found.message)  # a service's words, a name: not markup
            raise typer.Exit(found.code) from None
        except BaseException as err:
            if not _interrupted(err):
                raise
            json_error("INTERRUPTED", "interrupted")
            err_console.print("interrupted")
            raise typer.Exit(INTERRUPTED) from None
        finally:
            if before is not None:
                signal.signal(signal.SIGTERM, before)

    return wrapper  # type: ignore[return-value]


def _sigterm_as_ctrl_c() -> Any:
    """SIGTERM does what Ctrl-C does (SIGINT's handler: asyncio.run's cancels the command's
    task, Python's raises KeyboardInterrupt) for a command that runs a backend of its own
    (``--embedded``): the backend then stops as on Ctrl-C, its bundled nats-server
    (a session of its own) and temporary folder with it, where SIGTERM's default ended the
    command at once and left them behind. The handler before it (to put back), or None
    when there is none to replace (not the main thread)."""
    def interrupt(signum: int, frame: Any) -> None:
        on_ctrl_c = signal.getsignal(signal.SIGINT)  # asyncio.run's: cancels the main task
        if callable(on_ctrl_c):
            on_ctrl_c(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    try:
        before = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread of the main interpreter
        return None
    return signal.SIG_DFL if before is None else before


CODE_NAMES = {FAILED: "FAILED", USAGE: "USAGE", UNREACHABLE: "UNREACHABLE",
              INTERRUPTED: "INTERRUPTED"}


def emit(obj: Any) -> None:
    """One JSON document on its own line of stdout, flushed (a script reads it as it comes)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def json_error(code: str, message: str) -> None:
    """With --json, the failure as ``{"error": {"code", "message"}}`` on stdout too."""
    if state.json:
        emit({"error": {"code": code, "message": message}})


def message_dict(message: Any) -> dict[str, Any]:
    """A protobuf message as proto3 JSON with default values included: the field names,
    enum names and int64-as-text of gRPC's JSON mapping and of the HTTP gateway."""
    from google.protobuf import json_format

    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:  # protobuf before 5.26
        return json_format.MessageToDict(message, including_default_value_fields=True)


def _interrupted(err: BaseException) -> bool:
    """Ctrl-C, or asyncio's CancelledError (only raised once asyncio is imported: the
    commands that do not use it, such as ``neon verify``, do not import it)."""
    if isinstance(err, KeyboardInterrupt):
        return True
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(err, asyncio.CancelledError)
