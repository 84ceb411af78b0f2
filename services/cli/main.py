"""The ``neon`` command line."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import signal
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from services.platform import logs
from services.platform.settings import Settings, load

app = typer.Typer(help="Neon Arena: authoritative game server for four tabletop games.",
                  no_args_is_help=True, add_completion=False)
console = Console()
err_console = Console(stderr=True)


def _settings(**overrides: Any) -> Settings:
    settings = load()
    logs.configure(settings.log_level, settings.log_format)
    return dataclasses.replace(settings, **overrides) if overrides else settings


async def _wait_for_signal() -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def _close_nats(nc: Any, timeout: float = 2.0) -> None:
    """Drain the NATS connection at shutdown; when NATS is unreachable just close it (what is
    not yet published stays in the store's outbox and goes out after the restart)."""
    try:
        await asyncio.wait_for(nc.drain(), timeout)
    except Exception as err:  # shutting down: a NATS outage must not turn SIGTERM into a crash
        err_console.print(f"NATS not drained ({type(err).__name__}); closing")
        with contextlib.suppress(Exception):
            await nc.close()


@app.command()
def up(
    processes: bool = typer.Option(False, "--processes",
                                   help="run each service as its own OS process (neon serve)"),
) -> None:
    """Start the whole backend on embedded defaults (bundled nats-server, SQLite in ./var)."""
    from services.cli.backend import start_backend

    settings = _settings()
    if processes:
        from services.cli.processes import run_processes

        raise typer.Exit(run_processes(settings, _endpoint_table, console.print))

    async def run() -> None:
        backend = await start_backend(settings, scoring=True, matchmaking=True)
        token_file = settings.var_dir / "organiser.token"
        token_file.write_text(backend.organiser_token() + "\n")
        table = Table(title="Neon Arena is up")
        table.add_column("service")
        table.add_column("endpoint")
        for name, address in backend.endpoints().items():
            table.add_row(name, address)
        console.print(table)
        console.print(f"organiser token: {token_file}  (Ctrl-C stops)")
        try:
            await _wait_for_signal()
        finally:
            console.print("stopping...")
            await backend.stop(settings.grace_seconds)
            console.print("stopped")

    asyncio.run(run())


def _endpoint_table(endpoints: dict[str, str]) -> None:
    table = Table(title="Neon Arena is up")
    table.add_column("service")
    table.add_column("endpoint")
    for name, address in endpoints.items():
        table.add_row(name, address)
    console.print(table)


@app.command()
def serve(service: str = typer.Argument(..., help="dice or rules-<game>")) -> None:
    """Run one service on its own, configured by environment variables."""
    from services.dice import main as dice_main
    from services.platform import bus
    from services.platform.keys import load_keys
    from services.rules import main as rules_main
    from services.rules.games import available

    settings = _settings()
    known = ["dice", "matchmaking", "scoring", *(f"rules-{game}" for game in available())]
    if service not in known:
        err_console.print(f"unknown service {service!r}; services here: {', '.join(known)}")
        raise typer.Exit(2)

    async def run() -> None:
        keys = load_keys(settings)
        nc = None
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
        else:
            err_console.print(f"{service} is not part of this build yet")
            raise typer.Exit(2)
        console.print(f"{service} serving on {running.address}")
        try:
            await _wait_for_signal()
        finally:
            await running.stop(settings.grace_seconds)
            if nc is not None:
                await _close_nats(nc)

    asyncio.run(run())


def _organiser_token(settings: Settings) -> str:
    from services.platform.keys import load_keys
    from services.platform.tokens import TokenIssuer

    return TokenIssuer(load_keys(settings).token_secret).issue("organiser", "*", player="cli",
                                                                ttl=3600)


async def _terminal_human(seat: int, view: dict[str, Any], decisions: list[Any]) -> tuple[int, dict[str, Any]]:
    console.rule(f"seat {seat}: your move")
    console.print_json(json.dumps(view))
    options = [(i, a) for i, d in enumerate(decisions) for a in d.legal]
    for number, (i, action) in enumerate(options, start=1):
        console.print(f"[bold]{number:>3}[/] {decisions[i].kind}: {json.dumps(action)}")
    while True:
        answer = await asyncio.to_thread(input, f"choose 1-{len(options)}: ")
        if answer.strip().isdigit() and 1 <= int(answer) <= len(options):
            i, action = options[int(answer) - 1]
            return i, dict(action)
        console.print("please type one of the numbers")


@app.command()
def play(
    game: str = typer.Argument(..., help="neon-reign, neon, ..."),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    bots: str = typer.Option("", help="bots only, one per seat, e.g. random,random"),
    seats: int = typer.Option(0, help="seats with a human at seat 0 (default: the mode's minimum)"),
    seed: int | None = typer.Option(None, help="dev seed for a reproducible match"),
    embedded: bool = typer.Option(False, help="start a backend for the duration of the command"),
    export: Path | None = typer.Option(None, help="write the audit export here at the end"),
    options: str = typer.Option("{}", help="game options as a JSON object"),
    match_id: str = typer.Option("", help="match id (default: generated)"),
) -> None:
    """Play a match in the terminal: you against bots, or bots only with --bots."""
    from services.cli.backend import start_backend
    from services.cli.client import RulesClient
    from services.cli.play import play_match

    settings = _settings()
    service = f"rules-{game}"

    async def run() -> int:
        backend = None
        if embedded:
            zero = {name: 0 for name in settings.ports}
            backend = await start_backend(dataclasses.replace(settings, ports=zero), games=[game],
                                          scoring=True)
            address, organiser = backend.address(service), backend.organiser_token()
        else:
            address, organiser = settings.address(service), _organiser_token(settings)
        client = RulesClient(address)
        try:
            info = await client.info()
            modes = {m.name: m for m in info.modes}
            chosen = mode or next(iter(modes))
            if chosen not in modes:
                err_console.print(f"unknown mode {chosen!r}; modes: {', '.join(modes)}")
                return 2
            if bots:
                players = [b.strip() for b in bots.split(",") if b.strip()]
            else:
                count = seats or modes[chosen].min_seats
                players = ["human"] + ["random"] * (count - 1)
            result = await play_match(
                client, organiser, mode=chosen, seats=players, seed=seed,
                options=json.loads(options), match_id=match_id,
                human=_terminal_human,
            )
            console.print(f"match {result.match_id} ended after {result.steps} actions")
            console.print_json(json.dumps(result.outcome))
            if export:
                response = await client.export(organiser, result.match_id)
                export.write_bytes(response.export_jsonl)
                console.print(f"export written to {export} ({response.event_count} events)")
            return 0
        finally:
            await client.close()
            if backend is not None:
                await backend.stop(1)

    raise typer.Exit(asyncio.run(run()))


@app.command("export")
def export_match(
    match_id: str,
    output: Path = typer.Option(..., "-o", "--output", help="file to write"),
    game: str = typer.Option("", help="the match's game (default: ask every rules service)"),
) -> None:
    """Export a match's audit log (JSON Lines plus a signed checkpoint)."""
    import grpc

    from services.cli.client import RulesClient, is_code
    from services.rules.games import available

    settings = _settings()
    games = [game] if game else available()

    async def run() -> int:
        organiser = _organiser_token(settings)
        for name in games:
            client = RulesClient(settings.address(f"rules-{name}"), timeout=10)
            try:
                response = await client.export(organiser, match_id)
            except grpc.aio.AioRpcError as err:
                if is_code(err, grpc.StatusCode.NOT_FOUND) or is_code(err, grpc.StatusCode.UNAVAILABLE):
                    continue
                err_console.print(f"{err.code().name}: {err.details()}")
                return 1
            finally:
                await client.close()
            output.write_bytes(response.export_jsonl)
            console.print(f"{response.event_count} events of {match_id} written to {output}")
            return 0
        err_console.print(f"no running rules service knows match {match_id!r}")
        return 1

    raise typer.Exit(asyncio.run(run()))


@app.command()
def verify(
    file: Path,
    public_key: str = typer.Option("", help="the organiser's Ed25519 public key (hex) to pin"),
) -> None:
    """Check an export offline: chain, signature, seed, every draw and a full replay."""
    from services.rules.verify import verify_export

    report = verify_export(file.read_bytes(), public_key or None)
    for check in report.checks:
        console.print(f"[green]ok[/] {check}")
    for warning in report.warnings:
        console.print(f"[yellow]note[/] {warning}")
    if not report.ok:
        err_console.print(f"FAILED: {report.failure}")
        raise typer.Exit(1)
    console.print(f"verified: match {report.match_id}, {report.events} events")


@app.command()
def replay(
    file: Path,
    seat: int = typer.Option(-1, help="show this seat's view (default: the spectator's)"),
    interactive: bool = typer.Option(False, help="wait for Enter between steps"),
) -> None:
    """Step through an exported match, showing each event and the view after it."""
    from services.rules import records as rec
    from services.rules.export import parse_export
    from services.rules.games import load_engine
    from services.rules.replay import Replayed, step

    records, _ = parse_export(file.read_bytes())
    engine = load_engine(records[0]["game"])
    replayed = Replayed()
    viewer = None if seat < 0 else seat
    for record in records:
        step(engine, replayed, record)
        public = rec.project(record, viewer)
        console.rule(f"event {record['n']}: {record['type']}")
        console.print_json(json.dumps({k: v for k, v in public.items() if k not in ("hash",)}))
        if replayed.state is not None and record["type"] in ("MatchStarted", "ActionAccepted"):
            console.print_json(json.dumps(engine.view(replayed.state, viewer)))
        if interactive and sys.stdin.isatty():
            input("Enter for the next event...")


from services.cli import mm_commands  # noqa: E402  (registers queue and simulate)

mm_commands.register(app)

if __name__ == "__main__":
    app()
