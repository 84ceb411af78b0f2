"""The ``neon`` command line."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from services.cli import errors
from services.cli.errors import USAGE, CliError, friendly, target
from services.cli.files import refuse_folder, written_whole
from services.cli.organiser import token_option
from services.cli.plain import print_plain
from services.platform.settings import Settings, load


def _usage_errors() -> tuple[type[Exception], ...]:
    """The command-line parser's usage error: Typer's own copy of click's (``typer._click``,
    which Typer runs commands in; see organiser.py), and click's where it is installed."""
    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        with contextlib.suppress(ImportError):
            found.append(importlib.import_module(module).UsageError)
    return tuple(found)


class _Commands(TyperGroup):
    """The ``neon`` group: the command-line parser's own refusals (a value of the wrong kind,
    a missing argument, an unknown option or command) are bad arguments like any other, so
    with ``--json`` stdout gets one ``{"error": {"code": "USAGE", ...}}`` too (README: "a bad
    argument"); the parser still writes its usage text to stderr and exits 2."""

    _json = False

    def main(self, args: Any = None, *more: Any, **options: Any) -> Any:
        self._json = "--json" in (sys.argv[1:] if args is None else list(args))
        return super().main(args, *more, **options)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _usage_errors() as err:
            if self._json:
                errors.state.json = True
                errors.json_error("USAGE", err.format_message())  # type: ignore[attr-defined]
            raise


app = typer.Typer(help="Neon Arena: authoritative game server for four tabletop games.",
                  no_args_is_help=True, add_completion=False, cls=_Commands)
console = Console()
err_console = errors.err_console


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="show tracebacks of failures"),
) -> None:
    """Exit codes: 0 ok; 1 verification failed or other failure; 2 usage (bad argument, missing
    file, bad key); 3 a backend service does not answer. Tracebacks only with --debug."""
    errors.state.debug = debug


def _settings(log_file: bool = False, configure_logs: bool = True,
              environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
    """The settings (from ``environ``, default the process's, NEON_PORT_OFFSET spelled out:
    services.cli.ports, the NATS address too when NATS_URL is not set); with ``log_file``
    log lines go to ``<var>/logs/cli.log`` (a person is reading the terminal;
    :func:`_cli_log`), else to stderr (a service's output). Without
    ``configure_logs`` logging is left alone (and structlog unimported): for commands that
    log nothing (``neon verify``), which configure it with :func:`_cli_log` when they need."""
    from services.cli.ports import nats_default, port_offset, with_port_offset

    given = os.environ if environ is None else environ
    try:
        settings = load(with_port_offset(given))
    except ValueError as err:
        raise CliError(str(err), USAGE) from None
    offset = port_offset(given)  # checked by with_port_offset
    if offset and not settings.nats_configured:  # where `neon up`'s bundled NATS moved
        settings = dataclasses.replace(settings,
                                       nats_url=f"nats://127.0.0.1:{nats_default(offset)}")
    if configure_logs and log_file:
        _cli_log(settings)
    elif configure_logs:
        from services.platform import logs

        logs.configure(settings.log_level, settings.log_format)
    return dataclasses.replace(settings, **overrides) if overrides else settings


def _cli_log(settings: Settings) -> None:
    """Every log line to ``<var>/logs/cli.log`` when the var dir is there (the server host,
    a checkout that ran ``./dev up``) or the command starts a backend (``--embedded``, which
    makes it); else warnings and errors only, to stderr: a client command makes no folder
    in the directory it is run from."""
    if Path(settings.var_dir).is_dir() or errors.state.embedding:
        logs_to_file(settings.var_dir / "logs" / "cli.log", settings.log_level,
                     settings.log_format)
        return
    from services.platform import logs

    level = settings.log_level if _level(settings.log_level) > _level("warning") else "warning"
    logs.configure(level, settings.log_format)


def _level(name: str) -> int:
    import logging

    return int(logging.getLevelNamesMapping().get(name.upper(), logging.INFO))


def logs_to_file(path: Path, level: str = "info", fmt: str = "json",
                 echo: str = "") -> Path:
    """Send structlog and the standard library's logging (grpc, nats, eventsourcing) to
    ``path``, so that no log line reaches the terminal a person is playing in; with
    ``echo`` (a level: "warning") the lines of that level and above also go to stderr, as
    they are written to the file."""
    import logging

    import structlog

    from services.platform import logs
    from services.platform.logs import _CurrentStderr

    path.parent.mkdir(parents=True, exist_ok=True)
    stream = open(path, "a", buffering=1)  # noqa: SIM115 - open for the process's life
    logs.configure(level, fmt, stream=stream)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(logging.StreamHandler(stream))
    root.setLevel(logging.WARNING)
    if echo:
        *chain, render = structlog.get_config()["processors"]
        structlog.configure(processors=[*chain, _echo(render, _level(echo)), render])
        terminal = logging.StreamHandler(_CurrentStderr())
        terminal.setLevel(max(_level(echo), logging.WARNING))
        root.addHandler(terminal)
    return path


def _echo(render: Any, at_least: int) -> Any:
    """A structlog processor that also writes an event of ``at_least`` or above, rendered as
    in the file, to stderr (read when written: a harness may swap it)."""

    def echo(logger: Any, method: str, event: Any) -> Any:
        if _level(str(event.get("level", "info"))) >= at_least:
            sys.stderr.write(f"{render(logger, method, dict(event))}\n")
            sys.stderr.flush()
        return event

    return echo


def run_async(coro: Any) -> Any:
    """``asyncio.run(coro)``: asyncio (a tenth of the command line's import) is imported by
    the commands that run a loop, not by every command (``neon verify`` has none)."""
    import asyncio

    return asyncio.run(coro)


async def _wait_for_signal() -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def _close_nats(nc: Any, timeout: float = 2.0) -> None:
    """Drain the NATS connection at shutdown; when NATS is unreachable just close it (what is
    not yet published stays in the store's outbox and goes out after the restart)."""
    import asyncio

    try:
        await asyncio.wait_for(nc.drain(), timeout)
    except Exception as err:  # shutting down: a NATS outage must not turn SIGTERM into a crash
        err_console.print(f"NATS not drained ({type(err).__name__}); closing")
        with contextlib.suppress(Exception):
            await nc.close()


@app.command()
@friendly
def up(
    processes: bool = typer.Option(False, "--processes",
                                   help="run each service as its own OS process (neon serve)"),
    offset_option: int | None = typer.Option(
        None, "--port-offset", metavar="N", show_default=False,
        help="add N to every default port (as NEON_PORT_OFFSET=N): a second backend beside "
             "the first; a NEON_<SERVICE>_PORT set still wins"),
) -> None:
    """Start the whole backend on embedded defaults (bundled nats-server, SQLite in ./var).

    Prints the endpoints; log lines go to var/logs/up.log (warnings also to the terminal)."""
    from services.cli.ports import (
        OFFSET,
        port_offset,
        with_port_offset,
    )
    from services.cli.varlock import only_backend

    environ = dict(os.environ)
    if offset_option is not None:
        environ[OFFSET] = str(offset_option)
    settings = _settings(configure_logs=False, environ=environ)
    offset = port_offset(environ)  # checked by _settings
    environ = with_port_offset(environ)  # the gateway's port, and every child's environment
    with only_backend(Path(settings.var_dir),
                      f"neon up, NEON_PORT_OFFSET={offset}" if offset else "neon up",
                      f"NEON_VAR_DIR={{folder}}-2 ./dev up --port-offset {offset + 100}"):
        _up(settings, environ, offset, processes)


def _up(settings: Settings, environ: dict[str, str], offset: int, processes: bool) -> None:
    """``neon up`` once it holds its folder (varlock)."""
    from services.cli.backend import start_backend
    from services.cli.ports import busy_message, busy_ports

    log_path = logs_to_file(Path(settings.var_dir) / "logs" / "up.log", settings.log_level,
                            settings.log_format, echo="warning")
    if processes:
        from services.cli.processes import run_processes

        raise typer.Exit(run_processes(
            settings, lambda endpoints: _endpoint_table(endpoints, offset),
            lambda line: print_plain(console, line, soft_wrap=True), environ=environ,
            log_path=log_path))
    from services.gateway.config import load_config
    from services.rules.games import available

    gateway_config = load_config(environ)
    wanted = {name: settings.ports.get(name, 0) for name in
              ["dice", *(f"rules-{game}" for game in available()), "scoring", "matchmaking",
               "tournament"]}
    taken = busy_ports(settings.bind_host, {**wanted, "gateway": gateway_config.port})
    if taken:  # said by us alone, before any server binds (gRPC would print a line of its own)
        raise CliError(busy_message(settings.bind_host, taken, offset))

    async def run() -> None:
        from services.gateway import main as gateway_main

        backend = await start_backend(up_metrics(settings, offset), scoring=True,
                                      matchmaking=True, tournament=True)
        try:
            gateway = await gateway_main.start(
                backend.settings, backend.keys, gateway_config,
                addresses={k: v for k, v in backend.endpoints().items() if k != "nats"})
        except BaseException:
            await backend.stop(0)
            raise
        from services.cli.files import write_private

        token_file = settings.state_dir / "organiser.token"
        write_private(token_file, backend.organiser_token() + "\n")
        endpoints = {**backend.endpoints(), "gateway (HTTP/JSON, viewer)": gateway.url}
        if backend.metrics_url:
            endpoints["metrics (Prometheus)"] = backend.metrics_url
        _endpoint_table(endpoints, offset)
        print_plain(console, f"organiser token: {token_file}; logs: {log_path}  (Ctrl-C stops)",
                    soft_wrap=True)
        try:
            await _wait_for_signal()
        finally:
            console.print("stopping...")
            await gateway.stop()
            await backend.stop(settings.grace_seconds)
            console.print("stopped")

    run_async(run())


def up_metrics(settings: Settings, offset: int = 0) -> Settings:
    """``neon up``'s metrics port: NEON_METRICS_PORT when set (0: none), else the default
    port (moved by NEON_PORT_OFFSET), or any free one when another process holds it."""
    if settings.metrics_port is not None:
        return settings
    from services.cli.ports import metrics_default
    from services.platform.natsrv import free_port, port_open

    host = settings.metrics_bind_host
    port = metrics_default(offset)
    busy = port_open("127.0.0.1" if host in ("0.0.0.0", "::", "") else host, port)
    return dataclasses.replace(settings, metrics_port=free_port() if busy else port)


def _endpoint_table(endpoints: dict[str, str], offset: int = 0) -> None:
    """The endpoints, a row each; the title says when NEON_PORT_OFFSET moved the ports."""
    moved = f", every port + {offset} (NEON_PORT_OFFSET={offset})" if offset else ""
    table = Table(title=f"Neon Arena is up{moved}")
    table.add_column("service")
    table.add_column("endpoint")
    for name, address in endpoints.items():
        table.add_row(name, address)
    console.print(table)
    if offset:
        print_plain(console, f"the neon commands find it with NEON_PORT_OFFSET={offset} "
                             "exported in their shell", soft_wrap=True)


@app.command()
@friendly
def serve(service: str = typer.Argument(
        ..., help="dice, scoring, matchmaking, tournament, gateway or rules-<game>")) -> None:
    """Run one service on its own, configured by environment variables."""
    import faulthandler
    import signal

    from services.dice import main as dice_main
    from services.platform import bus
    from services.platform.keys import NoKeys, load_keys, signs
    from services.rules import main as rules_main
    from services.rules.games import available

    # SIGUSR1 writes every thread's stack to stderr (the service's log under `neon up
    # --processes`, which asks for it when a service does not start in time).
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (ValueError, OSError, AttributeError):  # stderr is not a file (in process, tests)
        pass
    from services.cli.processes import die_with_supervisor

    die_with_supervisor()
    settings = _settings()
    known = ["dice", "matchmaking", "scoring", "tournament", "gateway",
             *(f"rules-{game}" for game in available())]
    if service not in known:
        raise CliError(f"unknown service {service!r}; services here: {', '.join(known)}", USAGE)
    from services.cli.ports import busy_message, busy_ports, with_port_offset

    gateway_config = None
    if service == "gateway":
        from services.gateway.config import load_config

        gateway_config = load_config(with_port_offset(os.environ))
        port = gateway_config.port
    else:
        port = settings.ports.get(service, 0)
    taken = busy_ports(settings.bind_host, {service: port})
    if taken:  # said by us alone, before the server binds (gRPC would print a line of its own)
        raise CliError(busy_message(settings.bind_host, taken, command="neon serve"))

    async def run() -> None:
        try:
            keys = load_keys(settings, signing=signs(service))
        except (NoKeys, ValueError) as err:  # a deployment's settings (keys missing, or a
            # NEON_PUBLIC_KEY / NEON_SIGNING_KEY that is not one): said as they are, exit 2
            raise CliError(f"neon serve {service}: {err}", USAGE) from None
        nc = served = None
        if settings.metrics_port:  # first: a port taken fails before the service starts
            from services.platform import metrics

            served = await metrics.serve(settings.metrics_bind_host, settings.metrics_port,
                                         settings.host)
        if service == "dice":
            running = await dice_main.start(settings, keys)
        elif service.startswith("rules-"):
            nc = await bus.connect(settings.nats_url, service)
            running = await rules_main.start(service.removeprefix("rules-"), settings, keys, nc)
        elif service == "matchmaking":
            from services.matchmaking import main as mm_main

            nc = await bus.connect(settings.nats_url, service)
            running = await mm_main.start(settings, keys, nc)
        elif service == "scoring":
            from services.scoring import main as scoring_main

            nc = await bus.connect(settings.nats_url, service)
            running = await scoring_main.start(settings, keys, nc)
        elif service == "gateway":
            from services.gateway import main as gateway_main

            running = await gateway_main.start(settings, keys, gateway_config)
        elif service == "tournament":
            from services.tournament import main as tournament_main

            nc = await bus.connect(settings.nats_url, service)
            running = await tournament_main.start(settings, keys, nc)
        else:
            err_console.print(f"{service} is not part of this build yet")
            raise typer.Exit(2)
        console.print(f"{service} serving on {running.address}"
                      + (f"; metrics on {served.url}" if served else ""))
        try:
            await _wait_for_signal()
        finally:
            await running.stop(settings.grace_seconds)
            if served is not None:
                await served.stop()
            if nc is not None:
                await _close_nats(nc)

    run_async(run())


def _token(settings: Settings, role: str, player: str, ttl: int, for_what: str) -> str:
    """A ``role`` token for ``player`` minted with this machine's deployment keys; without
    them (none are made here) a one-line error, exit 2, ending in ``for_what``."""
    from services.cli.organiser import issuer

    return issuer(settings, for_what).issue(role, "*", player=player, ttl=ttl)


def _organiser_token(settings: Settings, given: str = "") -> str:
    """``given`` (--token, NEON_TOKEN), else an organiser token minted with this machine's
    deployment keys (a one-line error when it has none: no keys are made here)."""
    from services.cli.organiser import organiser_token

    return organiser_token(settings, given)


def embedded_settings(settings: Settings, var_dir: Path | None) -> Settings:
    """An embedded backend's settings: its own folder (``<var>/embedded`` unless given) and
    any free ports, so it never shares SQLite files or ports with ``./dev up``."""
    zero = {name: 0 for name in settings.ports}
    return dataclasses.replace(settings, ports=zero,
                               var_dir=var_dir or settings.var_dir / "embedded")


def _terminal_seat(client: Any, game: str, ask: Any = None) -> Any:
    """The ``play_match`` factory of terminal seats for ``game``."""
    from services.cli.terminal import TerminalSeat, ask_terminal

    seats: dict[int, TerminalSeat] = {}

    def make(match_id: str, seat: int, token: str, players: list[str]) -> Any:
        names = dict(enumerate(players))
        seats[seat] = TerminalSeat(console, client, game, match_id, seat, token, names=names,
                                   ask=ask or ask_terminal)
        return seats[seat].choose

    make.seats = seats  # type: ignore[attr-defined]
    return make


@app.command()
@friendly
def play(
    game: str = typer.Argument(..., help="a game id (see: neon games)"),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    bots: str = typer.Option("", help="bots only, one per seat, e.g. random,random"),
    seats: int = typer.Option(0, help="seats with a human at seat 0 (default: the mode's minimum)"),
    seed: int | None = typer.Option(None, help="dev seed for a reproducible match"),
    embedded: bool = typer.Option(False, help="start a backend for the duration of the command"),
    var_dir: Path | None = typer.Option(None, help="--embedded's folder (default: var/embedded)"),
    export: Path | None = typer.Option(None, help="write the audit export here at the end"),
    options: str = typer.Option("{}", help="game options as a JSON object"),
    match_id: str = typer.Option("", help="match id (default: generated)"),
    after: str = typer.Option("", help="continue this finished match of a campaign mode: "
                              "its export file, or its match id on the same backend"),
) -> None:
    """Play a match in the terminal: you against bots, or bots only with --bots."""
    if export is not None:  # said now, not after the match has been played
        refuse_folder(export, "export")
    settings = _settings(log_file=True)
    try:
        parsed = json.loads(options)
    except json.JSONDecodeError as err:
        raise CliError(f"--options is not a JSON object: {err.msg}", USAGE) from None
    if not isinstance(parsed, dict):
        raise CliError("--options must be a JSON object, e.g. '{\"difficulty\": \"hard\"}'", USAGE)
    raise typer.Exit(run_async(play_in_terminal(
        settings, game, mode=mode, bots=bots, seats=seats, seed=seed, embedded=embedded,
        var_dir=var_dir, export=export, options=parsed, match_id=match_id, after=after)))


async def play_in_terminal(settings: Settings, game: str, *, mode: str = "", bots: str = "",
                           seats: int = 0, seed: int | None = None, embedded: bool = False,
                           var_dir: Path | None = None, export: Path | None = None,
                           options: dict[str, Any] | None = None, match_id: str = "",
                           ask: Any = None, after: str = "") -> int:
    """The body of ``neon play`` (tests call it with ``ask`` feeding the choices)."""
    from services.cli.backend import start_backend
    from services.cli.client import RulesClient
    from services.cli.organiser import needs_keys
    from services.cli.play import play_match
    from services.cli.screen import load_presentation
    from services.cli.terminal import describe_outcome
    from services.cli.varlock import only_backend
    from services.rules.bots import bot_kinds
    from services.rules.games import available

    service = f"rules-{game}"
    backend = None
    held = contextlib.ExitStack()  # the embedded backend's folder, while it runs
    if embedded:
        if game not in available():
            raise CliError(f"no engine for {game!r} in this build; games: "
                           f"{', '.join(available())}", USAGE)
        own = embedded_settings(settings, var_dir)
        with held:
            held.enter_context(only_backend(Path(own.var_dir), "neon play --embedded",
                                            "--var-dir {folder}-2"))
            backend = await start_backend(own, games=[game], scoring=True)
            held = held.pop_all()
        address = backend.address(service)
        creator = backend.issuer.issue("service", "*", player="neon-cli", ttl=3600)
    else:
        if service not in settings.ports and service not in settings.addresses:
            raise CliError(f"unknown game {game!r}; games: {', '.join(available())}", USAGE)
        address = settings.address(service)
        creator = _token(settings, "service", "neon-cli", 3600, needs_keys("play"))
    target(f"rules service for {game}", address)
    client = RulesClient(address)
    try:
        info = await client.info()
        modes = {m.name: m for m in info.modes}
        chosen = mode or next(iter(modes))
        if chosen not in modes:
            raise CliError(f"unknown mode {chosen!r}; modes: {', '.join(modes)}", USAGE)
        if bots:
            players = [b.strip() for b in bots.split(",") if b.strip()]
            kinds = bot_kinds(game)
            if unknown := next((p for p in players if p != "human" and p not in kinds), None):
                # said before CreateMatch: it left a match running that nobody would play
                raise CliError(f"unknown bot {unknown!r} for {game}; bots: {', '.join(kinds)}",
                               USAGE)
        else:
            count = seats or modes[chosen].min_seats
            players = ["human"] + ["random"] * (count - 1)
        previous = await _previous_match(client, creator, after) if after else None
        terminal = _terminal_seat(client, game, ask)
        result = await play_match(
            client, creator, mode=chosen, seats=players, seed=seed, options=options or {},
            match_id=match_id, human_seat=terminal, previous=previous,
        )
        for seat in terminal.seats.values():
            await seat.finish(result.outcome)
        if not terminal.seats:
            print_plain(console, describe_outcome(result.outcome, None, load_presentation(game)))
        print_plain(console, f"match {result.match_id} ended after {result.steps} actions")
        if export:  # whole and checked, or not at all, as neon export writes it
            count = await save_export(client, creator, result.match_id, export)
            print_plain(console, f"export written to {export} ({count} events)")
        return 0
    finally:
        await client.close()
        if backend is not None:
            await backend.stop(1)
        held.close()


async def _previous_match(client: Any, token: str, after: str) -> tuple[str, str]:
    """``--after``: the (match id, final hash) of the match a campaign match continues, read
    from its export file, or from the rules service's export of that match id."""
    from services.rules.export import parse_export

    path = Path(after)
    if path.is_file():
        data = path.read_bytes()
    else:  # streamed and checked as neon export reads it
        with io.BytesIO() as out:
            await checked_export(client, token, after, out)
            data = out.getvalue()
    try:
        records, _ = parse_export(data)
    except ValueError as err:
        raise CliError(f"--after {after}: not an export ({err})", USAGE) from None
    if not records:
        raise CliError(f"--after {after}: the export holds no records", USAGE)
    return str(records[0]["match_id"]), str(records[-1]["hash"])


async def _on_its_rules_service(settings: Settings, game: str, match_id: str,
                                call: Callable[[Any, str], Awaitable[Any]],
                                token: str = "", command: str = "") -> Any:
    """``call(client, organiser token)`` on the rules service of ``game``, or of each game in
    turn until one knows ``match_id``: its answer. The token is ``token`` (--token,
    NEON_TOKEN) or one minted with this machine's deployment keys. None answering, none
    knowing the match, or the token refused, is a one-line error (``command`` names the
    command in it)."""
    import grpc

    from services.cli.client import RulesClient, is_code
    from services.cli.organiser import refused
    from services.rules.games import available

    def served(name: str) -> bool:  # a game this deployment has a rules service address for
        service = f"rules-{name}"
        return service in settings.ports or service in settings.addresses

    if game and not served(game):
        # settings.address() had no port for it: "unexpected error: KeyError: 'rules-nope'"
        raise CliError(f"unknown game {game!r}; games: "
                       f"{', '.join(n for n in available() if served(n))}", errors.USAGE)
    games = [game] if game else [name for name in available() if served(name)]
    organiser = _organiser_token(settings, token)
    unreachable: list[str] = []
    for name in games:
        target(f"rules service for {name}", settings.address(f"rules-{name}"))
        client = RulesClient(settings.address(f"rules-{name}"), timeout=10)
        try:
            return await call(client, organiser)
        except grpc.aio.AioRpcError as err:
            if is_code(err, grpc.StatusCode.UNAVAILABLE):
                unreachable.append(name)
                continue
            if is_code(err, grpc.StatusCode.NOT_FOUND):
                continue
            said = refused(err, command or "this command", bool(token))
            if said is not None:
                raise said from None
            raise
        finally:
            await client.close()
    if len(unreachable) == len(games):
        raise CliError(f"no rules service answers ({', '.join(unreachable)}); start them "
                       "with ./dev up", errors.UNREACHABLE)
    raise CliError(f"no running rules service knows match {match_id!r} (asked: "
                   f"{', '.join(games)})", errors.FAILED)


@app.command("export")
@friendly
def export_match(
    match_id: str,
    output: Path = typer.Option(..., "-o", "--output", help="file to write"),
    game: str = typer.Option("", help="the match's game (default: ask every rules service)"),
    token: str = token_option(),
) -> None:
    """Export a match's audit log (JSON Lines plus a signed checkpoint; organiser)."""
    refuse_folder(output, "export")
    settings = _settings(log_file=True)

    async def run() -> int:
        count = await _on_its_rules_service(
            settings, game, match_id,
            lambda client, organiser: save_export(client, organiser, match_id, output),
            token, "export")
        print_plain(console, f"{count} events of {match_id} written to {output}")
        return 0

    raise typer.Exit(run_async(run()))


async def save_export(client: Any, organiser: str, match_id: str, output: Path) -> int:
    """Write the match's export to ``output``, streamed in chunks (ExportMatchChunks), so
    a long match's export of any size arrives; the number of events. Written beside
    ``output`` first and moved there once complete and checked: a cut stream, or one whose
    export's closing checkpoint names another final hash or event count than the stream
    announced (checked from the file's tail), leaves no file (and ``output`` as it was). A
    rules service of an earlier release (no ExportMatchChunks) is asked ExportMatch, whose
    answer is checked the same way (its checkpoint against the hash and count it names).
    The ``.part`` is :func:`~services.cli.files.part_beside`'s: hidden, and of this run only
    (two runs writing the same file shared one before 6 December 2026)."""
    with written_whole(output, mode="w+b") as out:
        return await checked_export(client, organiser, match_id, out)


async def checked_export(client: Any, organiser: str, match_id: str, out: BinaryIO) -> int:
    """The match's export into ``out`` (seekable, empty), streamed in chunks
    (ExportMatchChunks) and checked against what the stream announced, or, from a rules
    service of an earlier release (UNIMPLEMENTED), its ExportMatch answer checked against
    the hash and count it names; the number of events. An export that arrived broken is a
    one-line error (``out`` then holds part of it: the caller drops it)."""
    import grpc

    from services.platform.export_chunks import (
        BrokenExport,
        check_answer,
        check_closing,
        read_export_chunks,
    )

    try:
        try:
            head = await read_export_chunks(client.export_chunks(organiser, match_id),
                                            out.write)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            data, head = check_answer(await client.export(organiser, match_id))
            out.seek(0)
            out.truncate()
            out.write(data)
            return head.event_count
        check_closing(out, head)
        return head.event_count
    except BrokenExport as err:
        raise CliError(f"the export of {match_id} arrived broken ({err}); run the command "
                       "again", errors.FAILED) from None


@app.command("abandon")
@friendly
def abandon_match(
    match_id: str,
    reason: str = typer.Option(..., "--reason", help="why, in words (required; 500 characters kept)"),
    game: str = typer.Option("", help="the match's game (default: ask every rules service)"),
    token: str = token_option(),
) -> None:
    """End a match with no result (organiser).

    A running match, or one waiting for its seats: players can act no more, clocks stop,
    scoring and tournaments take no result from it; its export verifies as abandoned. Again
    on an abandoned match, it says so and changes nothing. The organiser's name (the
    token's) is recorded as who abandoned it."""
    if not reason.strip():
        raise CliError("--reason must say why the match is abandoned", USAGE)
    settings = _settings(log_file=True)

    async def run() -> int:
        reply = await _on_its_rules_service(
            settings, game, match_id,
            lambda client, organiser: client.abandon(organiser, match_id, reason),
            token, "abandon")
        outcome = json.loads(reply.outcome_json or "{}")
        # the reason and who gave it are an organiser's words: printed as written
        if reply.already_abandoned:
            print_plain(console, f"match {match_id} was already abandoned by {outcome.get('by')}: "
                                 f"{outcome.get('reason')} (nothing changed)")
        else:
            print_plain(console, f"match {match_id} abandoned at version {reply.version}: "
                                 f"{outcome.get('reason')}")
        return 0

    raise typer.Exit(run_async(run()))


@app.command()
@friendly
def verify(
    files: list[Path] = typer.Argument(
        ..., help="exports, tournament bundles, or folders of them (every *.jsonl under a "
                  "folder, subfolders too; a campaign: all its matches)"),
    public_key: list[str] = typer.Option(
        [], help="the organiser's Ed25519 public key (hex) to pin: `neon public-key` prints "
                 "it; repeat for several (a key rotation's old and new keys: each file must "
                 "be signed by one of them, and the report says which)"),
    rules_key: list[str] = typer.Option(
        [], help="a bundle's trusted rules key (hex; repeat for several): its matches and "
                 "results must be signed by one of these, not by a key the organiser names"),
    jobs: int = typer.Option(0, help="processes to verify in (default: one per core)"),
    as_json: bool = typer.Option(
        False, "--json", help="JSON Lines on stdout: one object per file as it is checked, "
                              "then {\"summary\": ...}"),
) -> None:
    """Check exports and tournament bundles offline.

    An export's chain, signature, seed, every draw and a full replay; a bundle's log,
    matches, checkpoints and proofs; the links between the matches of a campaign. Several
    files are checked in parallel, each report printed as it comes; a folder's files are
    read by the workers, one at a time."""
    if as_json:
        raise typer.Exit(_verify_json(files, public_key, jobs, rules_key))
    # Numbers and names are highlighted only where colours show (without, the text is the
    # same): rich's highlighting is most of the cost of printing a folder's reports.
    highlight = console.color_system is not None
    from services.cli.tournament_commands import counted, print_bundle_report

    exports, bundles, verified, events, bad, failed = 0, 0, 0, 0, [], False
    for kind, label, prefix, report in _verified(files, public_key, jobs, rules_key):
        if kind == "bundle":
            bundles += 1
            print_bundle_report(report, prefix)
            if report.ok:
                verified += 1
            else:
                bad.append(label)
        elif kind == "campaign":
            for problem in report:
                print_plain(err_console, f"FAILED: campaign link: {problem}")
            if not report:
                console.print("[green]ok[/] campaign links: every match that continues another "
                              "names its final hash and starts from what it carried on",
                              highlight=highlight, emoji=False)
            failed = failed or bool(report)
        else:
            exports += 1
            # One print per file: rich's cost is mostly per call (highlighting, wrapping),
            # and the lines come out the same as printed one by one. What the file says (ids,
            # an abandon's reason, in the checks too) and its name are escaped: not markup.
            at = escape(prefix)
            lines = [f"{at}[green]ok[/] {escape(check)}" for check in report.checks]
            if report.ok and len(public_key) > 1:  # which of the pinned keys signed it
                lines.append(f"{at}[green]ok[/] signed by key {escape(report.signed_by)}")
            lines += [f"{at}[yellow]note[/] {escape(warning)}" for warning in report.warnings]
            if report.ok:
                abandoned = (f", abandoned (no result): {report.abandoned['reason']}"
                             if report.abandoned else "")
                lines.append(escape(f"{prefix}verified: match {report.match_id}, "
                                    f"{report.events} events{_created_by(report)}{abandoned}"))
                verified, events = verified + 1, events + report.events
            if lines:
                console.print("\n".join(lines), highlight=highlight, emoji=False)
            if not report.ok:
                print_plain(err_console, f"{prefix}FAILED: {report.failure}")
                bad.append(label)
    # as --json's summary: every file, bundles too ("files" when both kinds were given)
    checked = counted(exports + bundles, "file" if exports and bundles else
                      "bundle" if bundles else "export")
    if exports + bundles > 1:
        kinds = (f"{counted(exports, 'export')}, {counted(bundles, 'bundle')}; "
                 if exports and bundles else "")
        console.print(f"{verified} of {checked} verified"
                      f"{f' ({kinds}{events:,} events)' if exports else ''}",
                      highlight=highlight)
    if bad:
        shown = ", ".join(bad[:10]) + (f" and {len(bad) - 10} more" if len(bad) > 10 else "")
        print_plain(err_console, f"FAILED: {len(bad)} of {checked}: {shown}")
    if failed or bad:
        raise typer.Exit(1)


def _expand(files: list[Path]) -> dict[Path, str]:
    """The files to verify, in the order given, each with the name its reports are printed
    under: a folder stands for every ``*.jsonl`` file under it (subfolders too), sorted,
    each named by its path inside the folder; a file given by itself is named by its name
    (as before folders were taken). A file given twice is verified once."""
    out: dict[Path, str] = {}
    for given in files:
        if given.is_dir():
            found = sorted(p for p in given.rglob("*.jsonl") if p.is_file())
            if not found:
                raise CliError(f"{given}: no .jsonl file in this folder", USAGE)
            for path in found:
                out.setdefault(path, str(path.relative_to(given)))
        else:
            out.setdefault(given, given.name)
    return out


def _first_line(path: Path) -> bytes:
    """The file's first line that is not blank, as verify reads it (``OSError`` when it
    cannot be read: the command says so)."""
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                return line
    return b""


def _starts_campaign(data: bytes) -> bool:
    """Whether the export's MatchCreated continues an earlier match.

    When every export verified and none continues a match, ``campaign_links`` has no link
    to check and finds no problem (each export parsed with orjson or the json module in
    verify, so ``json.loads`` parses it too), so the command skips reading every export
    again. A first line that does not parse starts no campaign: that export failed verify
    already (its first record is its first line that is not blank, as verify reads it), and
    ``campaign_links`` said so a second time, as a campaign link, of files with no campaign."""
    first = _first_record(data)
    return isinstance(first, dict) and bool(first.get("campaign"))


def _first_record(data: bytes) -> Any:
    """The first line of a file as JSON (``None`` when it is not JSON)."""
    try:
        return json.loads(data.split(b"\n", 1)[0])
    except (ValueError, RecursionError):  # a line nested too deeply: verify says so
        return None


PARALLEL_FROM = 8


def _is_bundle(data: bytes) -> bool:
    """Whether ``data`` is a tournament bundle. An export starts with its MatchCreated
    record; only other files import the tournament package (networkx and all: a quarter
    of a second of the command's start-up)."""
    first = _first_record(data)
    if not isinstance(first, dict) or first.get("type") == "MatchCreated":
        return False  # is_bundle reads the same first line: not an object, not a bundle
    from services.tournament.bundle import is_bundle

    return is_bundle(data)


def _verified(files: list[Path], public_key: list[str], jobs: int,
              rules_keys: list[str] | None = None) -> Iterator[tuple[str, str, str, Any]]:
    """What ``neon verify`` checks, as it is checked: ``(kind, label, prefix, report)`` for
    each tournament bundle first (kind "bundle", a ``BundleReport``), then each export
    (kind "match", a ``Report``, across processes when there are several), then, when the
    exports hold a campaign, its links (kind "campaign", the problems in words). ``label`` is
    the file's name as given or found under a folder; ``prefix`` is ``"<label>: "`` when
    several files are checked."""
    from services.rules.verify import campaign_links

    settings = _settings(configure_logs=False)  # verifying logs nothing
    for key in public_key:
        if not key and len(public_key) > 1:  # one empty --public-key: no pin, as before
            raise CliError("--public-key is empty: give the 64 hex digits of the "
                           "organiser's Ed25519 public key (`neon public-key`)", USAGE)
        check_public_key(key)
    pinned = tuple(k.lower() for k in public_key if k) or None
    for rules_key in rules_keys or ():
        if not rules_key:  # an empty --rules-key pins nothing: not read as "no pin" either
            raise CliError("--rules-key is empty: give the 64 hex digits of a rules "
                           "service's Ed25519 public key (`neon public-key`)", USAGE)
        check_public_key(rules_key, "--rules-key")
    labels = _expand(files)
    firsts = [_first_line(path) for path in labels]  # a file that cannot be read stops here
    kinds = [_is_bundle(first) for first in firsts]
    many = len(labels) > 1

    def prefix(path: Path) -> str:
        return f"{labels[path]}: " if many else ""

    bundles = [path for path, bundle in zip(labels, kinds) if bundle]
    if bundles:
        from services.tournament.bundle import verify_bundle

        _cli_log(settings)  # the tournament's code may log
        for path in bundles:
            yield "bundle", labels[path], prefix(path), verify_bundle(
                path.read_bytes(), pinned, jobs=jobs, rules_keys=rules_keys or ())
    pairs = [(path, first) for path, first, bundle in zip(labels, firsts, kinds) if not bundle]
    for (path, _), report in zip(pairs, _verify_paths([p for p, _ in pairs], pinned,
                                                      jobs, [f for _, f in pairs])):
        yield "match", labels[path], prefix(path), report
    if any(_starts_campaign(first) for _, first in pairs):
        yield "campaign", "", "", campaign_links([path.read_bytes() for path, _ in pairs],
                                                 [labels[path] for path, _ in pairs])


def _verify_json(files: list[Path], public_key: list[str], jobs: int,
                 rules_keys: list[str] | None = None) -> int:
    """``neon verify --json``: each file's report as one JSON object on stdout as it comes
    (bundles first, then exports, as the text does), a campaign's links as one more object
    when there is a campaign, then ``{"summary": ...}``; the failures also on stderr, as
    without --json. Returns the exit code."""
    from services.cli.errors import emit

    files_seen, verified, events, bad, campaign_failed = 0, 0, 0, [], False
    for kind, label, prefix, report in _verified(files, public_key, jobs, rules_keys):
        if kind == "campaign":
            emit({"kind": "campaign", "ok": not report, "failures": report})
            for problem in report:
                print_plain(err_console, f"FAILED: campaign link: {problem}")
            campaign_failed = bool(report)
            continue
        files_seen += 1
        emit(bundle_json(label, report) if kind == "bundle" else export_json(label, report))
        for failure in report.failures if kind == "bundle" else [report.failure] * (not report.ok):
            print_plain(err_console, f"{prefix}FAILED: {failure}")
        if report.ok:
            verified += 1
            events += report.events if kind == "match" else 0
        else:
            bad.append(label)
    emit({"summary": {"files": files_seen, "verified": verified, "failed": bad,
                      "events": events, "ok": not bad and not campaign_failed}})
    return 1 if bad or campaign_failed else 0


def _created_by(report: Any) -> str:
    """", created by the organiser alice" for an export whose MatchCreated names its
    creator (``created_by``; ", created by the organiser alice (through matchmaking)" for a
    match a service made on her behalf), else "" (exports from before creators were
    recorded)."""
    creator = report.created_by
    if not report.ok or not isinstance(creator, dict):
        return ""
    role, name = str(creator.get("role", "")), str(creator.get("name", ""))
    via = creator.get("via")  # made by a service (matchmaking) on the organiser's behalf
    through = f" (through {via})" if isinstance(via, str) and via else ""
    return f", created by the {role}{f' {name}' if name else ''}{through}"


def export_json(label: str, report: Any) -> dict[str, Any]:
    """A match export's report (``services.rules.verify.Report``) for ``--json``. The
    outcome is the public one: a campaign's ``carry`` (the whole table for the next match,
    hands included) stays in the export."""
    from services.rules.records import public_outcome

    return {"file": label, "kind": "match", "ok": report.ok, "match_id": report.match_id,
            "events": report.events, "checks": list(report.checks),
            "warnings": list(report.warnings), "failure": report.failure or None,
            "outcome": public_outcome(report.outcome) if report.ok else None,
            "abandoned": report.abandoned, "created_by": report.created_by if report.ok else None,
            "signed_by": report.signed_by or None,
            "dev_seed": report.dev_seed if report.ok else None}


def bundle_json(label: str, report: Any) -> dict[str, Any]:
    """A tournament bundle's report (``services.tournament.bundle.BundleReport``)."""
    return {"file": label, "kind": "bundle", "ok": report.ok,
            "tournament_id": report.tournament_id, "matches": report.matches,
            "checks": list(report.checks), "warnings": list(report.warnings),
            "failures": list(report.failures)}


def _verify_file(path: Path, public_key: tuple[str, ...] | None) -> Any:
    """``verify_export`` of the file's bytes, read here (in the worker); a file that cannot
    be read fails by itself, the others go on."""
    from services.rules.verify import Report, verify_export

    try:
        data = path.read_bytes()
    except OSError as err:
        return Report().fail(f"cannot read {path}: {err.strerror}")
    return verify_export(data, public_key)


def _verify_paths(paths: list[Path], public_key: tuple[str, ...] | None, jobs: int,
                  firsts: list[bytes]) -> Iterator[Any]:
    """Reports in the order given, each as soon as it and those before it are done; across
    processes when there are several files (``firsts``: their first lines)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    if not jobs and len(paths) < PARALLEL_FROM:
        jobs = 1  # starting worker processes costs more than a few exports take
    workers = min(len(paths), jobs or os.cpu_count() or 1)
    if workers <= 1:
        for path in paths:
            yield _verify_file(path, public_key)
        return
    # A lone thread (the `neon verify` command) forks: workers start with every module and
    # engine already imported, where a spawned worker spends about a second importing the
    # command line again. Spawn when other threads run (tests, neon up: gRPC threads break
    # in a forked child).
    import threading

    fork = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    if fork:
        _import_engines(firsts)
    context = multiprocessing.get_context("fork" if fork else "spawn")
    chunk = max(1, min(16, len(paths) // (workers * 4)))
    pool = ProcessPoolExecutor(workers, mp_context=context)
    try:
        yield from pool.map(partial(_verify_file, public_key=public_key), paths,
                            chunksize=chunk)
    finally:  # also when the printing stops early (Ctrl-C): drop what has not started
        pool.shutdown(wait=True, cancel_futures=True)


def _import_engines(firsts: list[bytes]) -> None:
    """Import the engines the exports' first lines name, once, before workers are forked."""
    import re

    from services.rules.games import load_engine

    for game in sorted({m.group(1).decode() for first in firsts
                        if (m := re.search(rb'"game":"([a-z0-9-]+)"', first))}):
        with contextlib.suppress(KeyError, ModuleNotFoundError):
            load_engine(game)


def check_public_key(public_key: str, option: str = "--public-key") -> None:
    """A pinned key is 64 hex digits (32 bytes); say so rather than "signed with another key"."""
    if not public_key:
        return
    whose = "organiser's" if option == "--public-key" else "rules service's"
    try:
        raw = bytes.fromhex(public_key)
    except ValueError:
        raise CliError(f"{option} is not hex: give the 64 hex digits of the {whose} "
                       "Ed25519 public key", USAGE) from None
    if len(raw) != 32:
        raise CliError(f"{option} has {len(raw)} bytes; an Ed25519 public key has 32 "
                       "(64 hex digits)", USAGE)


@app.command()
@friendly
def selfplay(
    game: str = typer.Argument(..., help="a game id (see: neon games)"),
    games_: int = typer.Option(100, "--games", help="games per mode"),
    mode: str = typer.Option("", help="only this mode (default: every mode)"),
    bot: str = typer.Option("rule", help="the bots that play every seat: rule or random"),
) -> None:
    """Bots against each other on the pure engine: endings, lengths and speed.

    Games/s and actions/s per core. Seeded, so a run is reproducible; exits 1 if a game
    fails or never ends."""
    from services.rules.games import available
    from services.rules.selfplay import report, run_mode, targets

    _settings(log_file=True)
    if game not in available():
        raise CliError(f"no engine for {game!r} in this build; games: {', '.join(available())}",
                       USAGE)
    failed = False
    for g, m in targets(game, mode or None, bot):
        tally = run_mode(g, m, games_, bot=bot)
        print_plain(console, report(tally))
        failed = failed or bool(tally.failures)
    if failed:
        raise typer.Exit(1)


@app.command()
@friendly
def games(as_json: bool = typer.Option(
        False, "--json", help="print {\"games\": [...]} as JSON (names as in GetGameInfo)"),
) -> None:
    """The games this build serves: modes, seats, teams, engine-played sides and bots."""
    from services.rules.bots import bot_kinds
    from services.rules.games import available, load_engine

    if as_json:
        errors.emit({"games": [games_json(game_id, load_engine(game_id), bot_kinds(game_id))
                               for game_id in available()]})
        return
    rows = []
    for game_id in available():
        engine = load_engine(game_id)
        for mode in engine.modes().values():
            teams = ", ".join(f"{t.seats} as teams of {t.team_size}"
                              for t in getattr(mode, "team_layouts", ()))
            rows.append((game_id, mode.name, f"{mode.min_seats}-{mode.max_seats}", teams,
                         ", ".join(getattr(mode, "ai_participants", ())),
                         ", ".join(bot_kinds(game_id))))
    table = Table()
    for i, name in enumerate(("game", "mode")):  # ids a person copies: never cut or wrapped
        table.add_column(name, no_wrap=True, min_width=max(len(row[i]) for row in rows))
    for name in ("seats", "teams", "played by the engine", "bots"):
        table.add_column(name)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def games_json(game_id: str, engine: Any, bots: Any) -> dict[str, Any]:
    """A game as ``neon games`` shows it, each mode with the field names of GetGameInfo's
    ModeInfo in proto3 JSON."""
    return {"game": game_id, "bots": list(bots),
            "modes": [{"name": mode.name, "minSeats": mode.min_seats, "maxSeats": mode.max_seats,
                       "teamLayouts": [{"seats": t.seats, "teamSize": t.team_size}
                                       for t in getattr(mode, "team_layouts", ())],
                       "aiParticipants": list(getattr(mode, "ai_participants", ()))}
                      for mode in engine.modes().values()]}


@app.command()
@friendly
def replay(
    file: Path,
    seat: int = typer.Option(-1, help="show this seat's view (default: the spectator's)"),
    interactive: bool = typer.Option(False, help="wait for Enter between steps"),
) -> None:
    """Step through an exported match: what happened in words, and the table after it."""
    from services.cli.replaying import replay_export

    _settings(log_file=True)
    replay_export(console, file.read_bytes(), None if seat < 0 else seat,
                  pause=interactive and sys.stdin.isatty())


@app.command()
@friendly
def token(
    role: str = typer.Argument(..., metavar="ROLE", help="player or organiser"),
    name: str = typer.Argument(..., metavar="ID",
                               help="the player's id (not starting with bot-), or the "
                                    "organiser's name, recorded as who acted"),
    ttl: int | None = typer.Option(
        None, help="lifetime in seconds, at most 2592000 (30 days); default: 86400 (24 hours) "
                   "for a player, 43200 (12 hours) for an organiser", show_default=False),
) -> None:
    """Mint a player or organiser token with the deployment's token secret.

    Run it on the server host (or wherever the deployment's keys are: NEON_VAR_DIR,
    NEON_NAMESPACE, NEON_TOKEN_SECRET); it never makes keys. `neon token player alice` is
    alice's player token (tickets, a tournament's tables). `neon token organiser NAME` lets
    an organiser run the organiser commands from another machine: pass it with --token or
    NEON_TOKEN; NAME is recorded as who acted (the tournament's log and bundle, an abandoned
    match's outcome). An organiser token acts for every match and tournament until it
    expires: hand it over as a password."""
    from services.cli.organiser import MAX_TTL, ORGANISER_TTL, PLAYER_TTL, issuer
    from services.platform.players import player_id_refused
    from services.platform.tokens import BOT_RESERVED, is_bot

    if role not in ("player", "organiser"):
        raise CliError(f"unknown token role {role!r}: `neon token player ID` mints a player "
                       "token, `neon token organiser NAME` an organiser token", USAGE)
    ttl = ttl if ttl is not None else ORGANISER_TTL if role == "organiser" else PLAYER_TTL
    if ttl <= 0 or ttl > MAX_TTL:
        raise CliError(f"--ttl must be between 1 and {MAX_TTL} seconds (30 days)", USAGE)
    if not name or len(name) > 128 or not name.isprintable():  # before looking for keys
        what = "an organiser's name" if role == "organiser" else "a player id"
        raise CliError(f"{what} is 1-128 printable characters", USAGE)
    if role == "player" and is_bot(name):
        raise CliError(BOT_RESERVED, USAGE)
    if role == "player" and (why := player_id_refused(name)) is not None:
        raise CliError(f"{why}: a token for it could never queue nor register", USAGE)
    settings = _settings(log_file=True)
    minter = issuer(settings, "run `neon token` on the server host, where the deployment's "
                              "keys are")
    try:
        minted = (minter.issue("organiser", "*", player=name, ttl=ttl) if role == "organiser"
                  else minter.issue_player(name, ttl=ttl))
    except ValueError as err:
        raise CliError(str(err), USAGE) from None
    from services.platform.logs import get_logger

    get_logger("cli").info("token minted", role=role, name=name, ttl=ttl)
    print(minted)


PUBLIC_KEY_ELSEWHERE = ("run `neon public-key` on the server host, or point NEON_VAR_DIR (and "
                        "NEON_NAMESPACE) at the deployment's folder; it never makes keys")


@app.command("public-key")
@friendly
def public_key() -> None:
    """Print this deployment's Ed25519 public key (hex).

    What signs its exports, results and tournament checkpoints, and what `neon verify
    --public-key` pins. Publish it to players. Run it on the server host (or wherever the
    deployment's keys are: NEON_VAR_DIR, NEON_NAMESPACE, NEON_SIGNING_KEY); it never makes
    keys."""
    from services.cli.organiser import signing_key
    from services.platform.signing import public_key_hex

    settings = _settings(log_file=True)
    print(public_key_hex(signing_key(settings, PUBLIC_KEY_ELSEWHERE)))


from services.cli import mm_commands  # noqa: E402  (registers queue, decline and simulate)

mm_commands.register(app)

from services.cli import tournament_commands  # noqa: E402  (registers `neon tournament ...`)

tournament_commands.register(app)

if __name__ == "__main__":
    app()
