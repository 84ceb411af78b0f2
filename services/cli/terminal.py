"""A person at the terminal playing one seat: narration, the table, numbered choices.

:class:`TerminalSeat` is a chooser for any play loop: given the seat's view and decisions it
tells what happened since the seat's last decision (from the match's event stream, as this
seat may see it), draws the table with the game's presentation, lists the legal actions in
words and reads a number. ``j`` shows the JSON of the options (for client authors), ``v``
the JSON of the view, ``?`` the help.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import grpc
from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from services.cli.client import RulesClient
from services.cli.plain import print_plain
from services.cli.screen import Presenter, load_presentation, narrate, options_table
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.platform.playing import paced
from services.rules.records import is_abandoned

Ask = Callable[[str], Awaitable[str]]
HELP = "type a number to choose; j: the options as JSON; v: the view as JSON; ?: this help"


_reading: asyncio.Future[str] | None = None
"""The line being read from the terminal, while a question waits for it."""
_unread = bytearray()
"""What :func:`read_line` read from stdin past the line it handed out."""


def read_line(prompt: str) -> str:
    """``input(prompt)``, but from stdin that is not a terminal (a pipe, a file), or with
    stdout that is not one, read with ``os.read``: a thread waiting in it holds none of
    ``sys.stdin``'s locks, which the interpreter takes as it exits, so a command that ends
    while a question waits (Ctrl-C, the proposal ended) exits with its own code instead of
    aborting ("Fatal Python error: _enter_buffered_busy", exit 134)."""
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd) and sys.stdout.isatty():
            return input(prompt)  # the terminal's line editing
    except (AttributeError, OSError, ValueError):  # stdin replaced or closed
        return input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    while (end := _unread.find(b"\n")) < 0:
        chunk = os.read(fd, 65536)
        if not chunk:  # the end of the input: its last line, then EOFError as input() does
            if not _unread:
                raise EOFError
            end = len(_unread)
            break
        _unread.extend(chunk)
    line = bytes(_unread[:end])
    del _unread[:end + 1]
    return line.decode(sys.stdin.encoding or "utf-8", "replace").removesuffix("\r")


async def ask_terminal(prompt: str) -> str:
    """``input(prompt)`` without blocking the loop, read in a daemon thread: Ctrl-C at the
    prompt ends the command at once (``asyncio.to_thread``'s worker would hold the exit
    until a line was typed). A question given up before its answer (``neon queue``'s
    ``accept?`` when the proposal ends) leaves its read going: the next question takes the
    line from it rather than reading beside it, which lost the first line typed."""
    global _reading
    loop = asyncio.get_running_loop()
    if _reading is not None and not _reading.done() and _reading.get_loop() is loop:
        print(prompt, end="", flush=True)
        return await asyncio.shield(_reading)
    answer: asyncio.Future[str] = loop.create_future()
    answer.add_done_callback(lambda f: f.cancelled() or f.exception())  # read, if nobody asks
    _reading = answer

    def settle(line: str | None, err: BaseException | None) -> None:
        if answer.done():
            return
        if err is not None:
            answer.set_exception(err)
        else:
            answer.set_result(line or "")

    def read() -> None:
        try:
            line, err = read_line(prompt), None
        except BaseException as failed:  # EOFError at the end of stdin, handed to the caller
            line, err = None, failed
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (interrupted)
            loop.call_soon_threadsafe(settle, line, err)

    threading.Thread(target=read, name="terminal-input", daemon=True).start()
    return await asyncio.shield(answer)


async def events_between(client: RulesClient, match_id: str, token: str | None,
                         after: int, upto: int, timeout: float = 5.0) -> list[dict[str, Any]]:
    """The projected records ``after < n <= upto`` as ``token``'s seat may see them."""
    # over the seat's call rate (a script at the terminal): again after the wait
    return await paced(lambda: _events_between(client, match_id, token, after, upto, timeout))


async def _events_between(client: RulesClient, match_id: str, token: str | None,
                          after: int, upto: int, timeout: float) -> list[dict[str, Any]]:
    if upto <= after:
        return []
    out: list[dict[str, Any]] = []
    stream = client.stub.WatchMatch(
        rules_pb2.WatchMatchRequest(match_id=match_id, from_version=after),
        metadata=call_metadata(token), timeout=timeout)
    try:
        async for message in stream:
            event = message.event
            record = json.loads(event.payload_json)
            if list(getattr(event, "text", ())):
                record["text"] = list(event.text)
            out.append(record)
            if event.version >= upto:
                break
    except grpc.aio.AioRpcError as err:
        if err.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    finally:
        stream.cancel()
    return out


class TerminalSeat:
    """One human seat of one match, drawn on ``console`` and answered through ``ask``."""

    def __init__(self, console: Console, client: RulesClient, game: str, match_id: str,
                 seat: int, token: str, *, names: Mapping[int, str] | None = None,
                 ask: Ask = ask_terminal, presenter: Presenter | None = None) -> None:
        self.console, self.client, self.match_id = console, client, match_id
        self.seat, self.token, self.ask = seat, token, ask
        self.presenter = presenter or load_presentation(game)
        self.names = {**(names or {}), seat: "you"}
        self.seen = 0
        self.clock: Any = None  # this seat's running clock as of the last look, if any

    async def catch_up(self, view: Any) -> None:
        """Tell what happened since this seat last looked, up to the current version."""
        looked = await self.client.view(self.match_id, self.token)
        version = int(looked.version)
        self.clock = next((c for c in looked.clocks if c.seat == self.seat and c.running), None)
        records = await events_between(self.client, self.match_id, self.token, self.seen, version)
        self.seen = max([self.seen, *(int(r.get("n", 0)) for r in records)])
        lines = narrate(self.presenter, records, self.seat, view, self.names)
        if lines:
            # the players' names, the game's words, an abandon's reason: not markup
            self.console.print(Panel(Text("\n".join(lines)), title="since your last move",
                                     title_align="left", border_style="blue"))

    async def choose(self, seat: int, view: dict[str, Any],
                     decisions: list[Any]) -> tuple[int, dict[str, Any]]:
        await self.catch_up(view)
        self.console.rule(f"seat {seat}: your move")
        self.console.print(self.presenter.render(view, seat))
        menu, numbered = options_table(self.presenter, decisions, view)
        self.console.print(menu)
        if self.clock is not None:  # a clocked match: its default is played when time is up
            print_plain(self.console, f"your clock: {clock_text(self.clock.remaining_ms)} left "
                                      "to answer; then the default move is played for you")
        while True:
            answer = (await self.ask(f"choose 1-{len(numbered)} (j: JSON, ?: help): ")).strip()
            if answer.isdigit() and 1 <= int(answer) <= len(numbered):
                return numbered[int(answer) - 1]
            if answer.lower() == "j":
                for n, (i, a) in enumerate(numbered, start=1):
                    self.console.print(Text(f"{n:>4}  {decisions[i].kind}  "), end="")
                    print_plain(self.console, json.dumps({"action": a}))
            elif answer.lower() == "v":
                self.console.print(Syntax(json.dumps(view, indent=1), "json", word_wrap=True))
            else:
                self.console.print(HELP)

    async def action(self, seat: int, view: dict[str, Any], decisions: list[Any]) -> dict[str, Any]:
        """The chooser shape that returns the action alone (``neon queue``'s loop)."""
        return (await self.choose(seat, view, decisions))[1]

    async def finish(self, outcome: Any) -> None:
        """The last events and the result, in words."""
        view = json.loads((await self.client.view(self.match_id, self.token)).view_json or "{}")
        await self.catch_up(view)
        self.console.print(self.presenter.render(view, self.seat))
        self.console.print(Panel(Text(describe_outcome(outcome, self.seat, self.presenter,
                                                       self.names)),
                                 title="result",
                                 border_style="green"))


def clock_text(ms: int) -> str:
    """``remaining_ms`` as a person reads it: "0:58", "12:05", "1:02:00"."""
    seconds = max(0, int(ms) // 1000)
    hours, rest = divmod(seconds, 3600)
    return (f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours
            else f"{rest // 60}:{rest % 60:02d}")


def describe_outcome(outcome: Any, seat: int | None, presenter: Presenter | None = None,
                     names: Mapping[int, str] | None = None) -> str:
    """Ranks (``placements[seat]`` is the seat's rank, 1 best), scores and the reason, in words;
    with the game's ``presenter``, the places of the sides the engine plays among them (a
    seat placed 2nd behind an engine-played side is not left wondering who was 1st);
    ``names``: the players of the seats, where known (a tournament's table)."""
    if not isinstance(outcome, Mapping):
        return "the match ended"
    if is_abandoned(outcome):  # AbandonMatch: ended by an organiser, no result
        return f"abandoned by {outcome.get('by') or 'the organiser'}, no result: {outcome.get('reason', '')}"

    def who(s: int) -> str:
        return "you" if s == seat else (names or {}).get(s) or f"seat {s}"

    lines = []
    ranks = outcome.get("placements") or []
    scores = outcome.get("scores") or []
    places = [(int(rank), 0, who(s), scores[s] if s < len(scores) else None)
              for s, rank in enumerate(ranks)]
    if presenter is not None:
        places += [(int(rank), 1, name, score)
                   for rank, name, score in presenter.engine_places(outcome)]
    for place, _, name, score in sorted(places, key=lambda p: p[:2]):
        lines.append(f"{place}. {name}" + (f" ({score})" if score is not None else ""))
    if outcome.get("draw"):
        lines.append("a draw")
    if outcome.get("reason"):
        lines.append(str(outcome["reason"]).replace("_", " "))
    return "\n".join(lines) or "the match ended"
