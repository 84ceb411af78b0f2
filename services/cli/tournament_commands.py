"""``neon tournament ...``: run a tournament from the command line.

Players: ``play`` (services/cli/tournament_play.py) plays the player's own tables.
Organisers: ``create``, ``register``, ``check-in``, ``withdraw``, ``start``, ``next-round``,
``round``, ``correct``, ``rematch``, ``drop``, ``reinstate``, ``late-entry``, ``standings``,
``export``, ``finish``, and ``list`` and ``show``, against a running backend (``neon up``).
``simulate`` runs a whole event with bots through the real services (``--embedded`` starts
them for the command): every simulated player asks the tournament service for its match,
adds a client seed on the rules service, says it is ready and plays random legal moves; the
command prints each round's pairings and the final standings, then exports the bundle and
verifies it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from services.cli.errors import FAILED, USAGE, CliError, emit, friendly, message_dict, target
from services.cli.files import refuse_folder, written_whole
from services.cli.fit import Cell, Col, fitted_table, print_fitted, print_notes
from services.cli.organiser import GET_ONE, token_option
from services.cli.plain import print_plain

if TYPE_CHECKING:
    from services.cli.client import RulesClient
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.settings import Settings

# gRPC, the generated messages and the rules client are imported where they are used, so that
# every other `neon` command starts without them (services/cli/main.py imports this module).

console = Console()
err_console = Console(stderr=True)
tournament_app = typer.Typer(help="Run a tournament: create, register, start, pair rounds, "
                             "standings and the audit export (`neon verify` checks it).", no_args_is_help=True)
JSON_HELP = ("print the service's answer as proto3 JSON (the field names of gRPC's JSON "
             "mapping and the HTTP gateway, default values included)")
FORMAT_NAMES = ("swiss", "round-robin", "single-elimination", "double-elimination", "multiplayer")


class TournamentClient:
    def __init__(self, address: str, timeout: float = 15.0) -> None:
        from services.genproto.neon.tournament.v1 import tournament_pb2_grpc as pb_grpc
        from services.platform.grpc_kit import channel

        self.address = address
        self.channel = channel(address)
        self.stub = pb_grpc.TournamentServiceStub(self.channel)
        self.timeout = timeout
        self.patience = 0.0
        """Seconds a call is tried again (each second) while the service does not answer
        (UNAVAILABLE: it restarts, or refuses new calls while it shuts down; CANCELLED: it
        shut down with the call in flight); 0: never."""
        self.on_lost: Callable[[Any, float], None] = lambda err, since: None
        """Called with the error and when the service stopped answering, before each try
        again."""

    async def call(self, rpc: str, token: str | None = None, /, **kw: Any) -> Any:
        """``rpc`` with ``kw``; the tournament service is named for the "does not answer"
        line first (a command may have called another service since). Tried again while
        it does not answer, for ``patience`` seconds (:meth:`wait_out`)."""
        import grpc

        from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
        from services.platform.grpc_kit import call_metadata

        request = getattr(pb, f"{rpc}Request")(**kw)
        lost_at: float | None = None
        while True:
            target("tournament service", self.address)
            try:
                return await getattr(self.stub, rpc)(request, metadata=call_metadata(token),
                                                     timeout=self.timeout)
            except grpc.aio.AioRpcError as err:
                lost_at = await self.wait_out(err, lost_at)

    async def wait_out(self, err: Any, lost_at: float | None) -> float:
        """After a call (or the watch) failed with ``err``: while the service does not answer
        (UNAVAILABLE) and has not for at most ``patience`` seconds since ``lost_at`` (None:
        it answered until now), say so (``on_lost``), wait a second and return when it
        stopped answering, to try again; any other error, or one past the patience, is
        raised."""
        import asyncio

        import grpc

        # CANCELLED from the service, not from here (a call this process cancels raises
        # asyncio.CancelledError): it shut down with the call in flight (its grace ran out)
        if err.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) \
                or not self.patience:
            raise err
        lost_at = lost_at or time.monotonic()
        if time.monotonic() - lost_at > self.patience:
            raise err
        self.on_lost(err, lost_at)
        await asyncio.sleep(1.0)
        return lost_at

    async def close(self) -> None:
        await self.channel.close()


def format_json(fmt: str, rounds: int, table_sizes: str = "", points: str = "",
                tiebreaks: str = "", extra: str = "") -> str:
    if fmt not in FORMAT_NAMES:
        raise CliError(f"unknown format {fmt!r}; formats: {', '.join(FORMAT_NAMES)}", USAGE)
    data: dict[str, Any] = {"format": fmt}
    if rounds:
        data["rounds"] = rounds
    if table_sizes:
        data["table_sizes"] = _numbers(table_sizes, int, "--table-sizes", "3,4")
    if points:
        data["placement_points"] = _numbers(points, float, "--points", "4,2,1,0")
    if tiebreaks:
        data["tiebreaks"] = [x.strip() for x in tiebreaks.split(",") if x.strip()]
    elif fmt in ("swiss", "round-robin"):
        data["tiebreaks"] = ["buchholz", "median-buchholz", "sonneborn-berger", "wins"]
    elif fmt == "multiplayer":
        data["tiebreaks"] = ["placement-points", "game-tiebreak"]
    if extra:
        try:
            more = json.loads(extra)
        except ValueError as err:
            raise CliError(f"--format-json is not JSON: {err}", USAGE) from None
        if not isinstance(more, dict):
            raise CliError("--format-json must be a JSON object of format settings, e.g. "
                           "'{\"late_entry_until\": 2}'", USAGE)
        data.update(more)
    return json.dumps(data)


def _numbers(text: str, kind: Callable[[str], Any], option: str, example: str) -> list[Any]:
    """``text``'s comma-separated numbers as ``kind`` (int, float); anything else is a usage
    error naming ``option`` with an ``example``."""
    try:
        return [kind(x) for x in text.split(",")]
    except ValueError:
        what = "whole numbers" if kind is int else "numbers"
        raise CliError(f"{option} must be {what} separated by commas, e.g. {example}, not "
                       f"{text!r}", USAGE) from None


# ----------------------------------------------------------------------------- bots


class RoundTimedOut(CliError):
    """A round that did not finish within the time it was given (the bots' wait for their
    match, or the wait for the round's results and checkpoint): an expected failure, one
    line and exit 1. ``number`` 0: the round's number is the caller's to say."""

    def __init__(self, number: int, timeout: float, why: str) -> None:
        self.number, self.timeout, self.why = number, timeout, why
        super().__init__(self.said(number), FAILED)

    def said(self, number: int, option: str = "") -> str:
        return (f"{f'round {number}' if number else 'the round'} did not finish within "
                f"{option}{self.timeout:g} s ({self.why})")


async def my_matches(client: TournamentClient, token: str,
                     tournament_id: str) -> AsyncGenerator[Any, None]:
    """The player's matches as they change (WatchMyMatches with the player's ``token``),
    opened again while the tournament service does not answer, for the client's
    ``patience`` (:meth:`TournamentClient.wait_out`), until the tournament ends. Each
    update is the latest state: the player's assignment of the round now, and the
    tournament's status. What both a player at the terminal (``neon tournament play``) and
    the bots (:func:`play_round_as`) follow."""
    import grpc

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.grpc_kit import call_metadata

    ended = (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED)
    lost_at: float | None = None
    while True:
        target("tournament service", client.address)
        call = client.stub.WatchMyMatches(
            pb.WatchMyMatchesRequest(tournament_id=tournament_id),
            metadata=call_metadata(token))
        try:
            async for update in call:
                lost_at = None
                yield update
                if update.status in ended:
                    return
        except grpc.aio.AioRpcError as err:  # opened again as each call is tried again
            lost_at = await client.wait_out(err, lost_at)
        finally:
            call.cancel()


async def play_round_as(client: TournamentClient, rules: dict[str, RulesClient], token: str,
                        tournament_id: str, player: str, *, timeout: float = 300.0,
                        rematches: bool = False) -> str:
    """Play the player's table of the current round as a random bot, through the real
    flow: the player's matches as they change (:func:`my_matches`, WatchMyMatches), a
    client seed on the rules service, ReadyForMatch, then every decision until the match
    ends. Returns "bye", "played", "abandoned" or "none".

    ``rematches``: follow the table until it is decided: when its match is abandoned, wait
    for the organiser to play it again (RematchTable: a new match id, the same seats) and
    play that one, or to set its result (CorrectResult); "abandoned" only if neither came
    within ``timeout``. Without it, an abandoned table answers "abandoned" at once.

    Each bot used to ask MyNextMatch every 0.1 s while it waited (for its match, its
    result, a rematch): a 128-player event's bots made some 1,300 calls a second, each a
    read of the whole tournament. The watch sends only what changed."""
    from services.cli.client import client_for
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.waiting import within

    deadline = time.monotonic() + timeout
    played: set[str] = set()
    a: Any = None
    updates = my_matches(client, token, tournament_id)
    try:
        while True:
            try:
                update = await within(anext(updates), deadline - time.monotonic())
            except (TimeoutError, StopAsyncIteration) as end:  # none came in time, or ended
                if a is not None and a.status == pb.TABLE_STATUS_ABANDONED:
                    return "abandoned"
                if played:  # its result not learned yet: the round's wait says so
                    return "played"
                if isinstance(end, StopAsyncIteration):  # the tournament ended meanwhile
                    return "none"
                raise RoundTimedOut(0, timeout, f"{player} was handed no match") from None
            if not update.HasField("assignment"):
                return "none"
            a = update.assignment
            if a.bye:
                return "bye"
            if a.status == pb.TABLE_STATUS_DONE:
                return "played"
            if a.status == pb.TABLE_STATUS_ABANDONED and not rematches:
                return "abandoned"
            if a.match_id and a.seat_token and a.match_id not in played \
                    and a.status != pb.TABLE_STATUS_ABANDONED:
                played.add(a.match_id)
                await _play_table_match(client, client_for(rules, a.rules_address), token,
                                        tournament_id, player, a)
                if not rematches:
                    return "played"
            # until the table is decided: its result learned, or a rematch
    finally:
        await updates.aclose()


async def _play_table_match(client: TournamentClient, rc: RulesClient, token: str,
                            tournament_id: str, player: str, a: Any) -> None:
    """One match of the player's table: seed and ready while it awaits its seats, then play
    the seat to the end (at once, when it was abandoned meanwhile)."""
    from services.platform import playing

    if not await join_table(client, rc, token, tournament_id, a):
        return
    await playing.play_seat(rc.stub, a.seat_token, a.match_id,
                            playing.random_choice(f"{player}:{a.match_id}"), seat=a.seat,
                            wait=10.0)


async def join_table(client: TournamentClient, rc: RulesClient, token: str, tournament_id: str,
                     a: Any) -> bool:
    """What a seat does at its table before play, while the match awaits its seats: a client
    seed of its own on the rules service (AddClientSeed, with the seat token), then
    ReadyForMatch (with the player token). False when the match will not start (it was
    abandoned or replaced meanwhile); a match already running is joined as it is."""
    import grpc

    from services.genproto.neon.rules.v1 import rules_pb2
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    if a.status != pb.TABLE_STATUS_AWAITING_SEATS:
        return True
    try:
        await rc.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
            match_id=a.match_id, seed=uuid.uuid4().hex), a.seat_token)
    except grpc.aio.AioRpcError as err:
        if err.code() != grpc.StatusCode.FAILED_PRECONDITION:  # started without us
            raise
    try:
        await client.call("ReadyForMatch", token, tournament_id=tournament_id,
                          match_id=a.match_id)
    except grpc.aio.AioRpcError as err:
        if err.code() != grpc.StatusCode.FAILED_PRECONDITION:  # abandoned meanwhile
            raise
        return False
    return True


async def wait_round_complete(client: TournamentClient, tournament_id: str, number: int,
                              timeout: float) -> Any:
    import asyncio

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    deadline = time.monotonic() + timeout
    while True:
        reply = await client.call("GetRound", tournament_id=tournament_id, round=number)
        if reply.round.complete:
            return reply.round
        if time.monotonic() > deadline:
            pending = [t.number for t in reply.round.tables if t.status != pb.TABLE_STATUS_DONE
                       and not t.bye]
            raise RoundTimedOut(number, timeout, f"table{'s' * (len(pending) != 1)} "
                                f"{', '.join(map(str, pending))} not done" if pending else
                                "every table done, its checkpoint not published yet")
        await asyncio.sleep(0.2)


@dataclass
class SimReport:
    tournament_id: str = ""
    rounds: list[Any] = field(default_factory=list)
    standings: list[Any] = field(default_factory=list)
    bundle: bytes = b""
    verify: Any = None
    tournament: Any = None
    stages: dict[str, float] = field(default_factory=dict)


async def fetch_bundle(client: TournamentClient, token: str | None, tournament_id: str,
                       write: Callable[[bytes], Any]) -> tuple[int, int]:
    """The tournament's audit bundle, handed to ``write`` piece by piece as it streams
    (ExportTournamentChunks); (matches, round checkpoints). A tournament service of an
    earlier release (UNIMPLEMENTED) is asked ExportTournament, whose bundle is written at
    once. A stream that fails, or ends without its done message or short of the size it
    announces, raises: what was written is then no bundle (the caller drops it)."""
    import grpc

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.grpc_kit import call_metadata

    target("tournament service", client.address)
    call = client.stub.ExportTournamentChunks(
        pb.ExportTournamentChunksRequest(tournament_id=tournament_id),
        metadata=call_metadata(token), timeout=client.timeout)
    received = 0
    try:
        async for message in call:
            if message.done:
                if message.total_bytes != received:
                    raise CliError(f"the bundle of {tournament_id} arrived broken: "
                                   f"{received:,} bytes of the {message.total_bytes:,} "
                                   "announced; try again")
                return message.matches, message.checkpoints
            write(message.chunk)
            received += len(message.chunk)
    except grpc.aio.AioRpcError as err:
        if received:  # the service answered, then met an error: its reason, not "no answer"
            raise CliError(f"the bundle of {tournament_id} stopped after {received:,} bytes: "
                           f"{err.code().name}: {err.details()}", FAILED, err.code().name,
                           err.details() or "") from None
        if err.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise
        reply = await client.call("ExportTournament", token, tournament_id=tournament_id)
        write(reply.bundle_jsonl)
        return reply.matches, reply.checkpoints
    raise CliError(f"the bundle of {tournament_id} arrived cut short ({received:,} bytes, "
                   "no closing message); try again")


async def simulate_run(address: str, issue: Callable[..., str], game: str, fmt_json: str,
                       players: int, *, mode: str = "", tournament_id: str = "",
                       check_in_seconds: int = 60, on_round: Callable[[Any], None] = lambda r: None,
                       between_rounds: Any = None, timeout: float = 300.0,
                       clock: pb.Clock | None = None) -> SimReport:
    """A whole tournament with ``players`` bots; ``between_rounds(number)`` may act (tests)."""
    import asyncio

    import grpc

    from services.cli.client import close_all
    from services.tournament.bundle import verify_bundle

    report = SimReport(tournament_id=tournament_id or f"sim_{uuid.uuid4().hex[:10]}")
    tid = report.tournament_id
    organiser = issue("organiser", "*", player="organiser", ttl=int(timeout) * 10 + 3600)
    names = [f"p{i:02d}-{tid[-4:]}" for i in range(players)]
    tokens = {n: issue("player", "*", player=n, ttl=int(timeout) * 10 + 3600) for n in names}
    client = TournamentClient(address)
    rules: dict[str, RulesClient] = {}
    t0 = time.perf_counter()
    try:
        kw: dict[str, Any] = {}
        if clock is not None:
            kw["clock"] = clock
        await client.call("CreateTournament", organiser, tournament_id=tid, name=f"simulation {tid}",
                          game=game, mode=mode, format_json=fmt_json,
                          check_in_seconds=check_in_seconds, **kw)
        await client.call("OpenRegistration", organiser, tournament_id=tid)
        for n in names:
            await client.call("Register", tokens[n], tournament_id=tid)
        await client.call("StartTournament", organiser, tournament_id=tid)
        report.stages["create, register, start"] = time.perf_counter() - t0
        number = 0
        while True:
            number += 1
            t1 = time.perf_counter()
            try:
                paired = await client.call("NextRound", organiser, tournament_id=tid, round=number)
            except grpc.aio.AioRpcError as err:
                if err.code() == grpc.StatusCode.FAILED_PRECONDITION and "finish" in (err.details() or ""):
                    break
                raise
            plays = [asyncio.create_task(play_round_as(client, rules, tokens[n], tid, n,
                                                       timeout=timeout, rematches=True))
                     for n in names]
            if between_rounds is not None:
                await between_rounds(number)
            results = await asyncio.gather(*plays, return_exceptions=True)
            problems = [r for r in results if isinstance(r, BaseException)]
            try:
                if problems:
                    raise problems[0]
                done = await wait_round_complete(client, tid, number, timeout)
            except RoundTimedOut as late:  # said as the command's own line: what to do
                raise CliError(
                    f"{late.said(number, '--timeout ')}; the tournament is left as it is "
                    f"(neon tournament round {tid} {number} shows its tables): run again with "
                    "a larger --timeout, the seconds a round may take", FAILED) from None
            report.rounds.append(done)
            on_round(done)
            report.stages[f"round {number}"] = time.perf_counter() - t1
            del paired
        finished = await client.call("FinishTournament", organiser, tournament_id=tid)
        report.standings = list(finished.rows)
        report.tournament = finished.tournament
        t2 = time.perf_counter()
        pieces: list[bytes] = []
        await fetch_bundle(client, organiser, tid, pieces.append)
        report.bundle = b"".join(pieces)
        del pieces
        report.stages["export"] = time.perf_counter() - t2
        t3 = time.perf_counter()
        report.verify = await asyncio.to_thread(verify_bundle, report.bundle)
        report.stages["verify offline"] = time.perf_counter() - t3
    finally:
        await client.close()
        await close_all(rules)
    report.stages["total"] = time.perf_counter() - t0
    return report


# ----------------------------------------------------------------------------- printing


def result_parts(seats: list[str], placements: list[int]) -> list[str]:
    """:func:`result_text` in the parts a line may end after: one per place ("1 carol,")
    when there are more than two seats, else one."""
    if len(placements) != len(seats) or not placements:
        return [" ".join(str(p) for p in placements)]
    if len(set(placements)) == 1:
        return ["draw"]
    if len(seats) == 2:
        return [f"{seats[placements.index(min(placements))]} wins"]
    ranked = [f"{place} {player}" for place, player in sorted(zip(placements, seats))]
    return [f"{part}," for part in ranked[:-1]] + ranked[-1:]


def result_text(seats: list[str], placements: list[int]) -> str:
    """A table's result in words: "alice wins", "draw", or the places in order
    ("1 carol, 2 alice, 2 bob") for more seats; placements are per seat, 1 is first."""
    return " ".join(result_parts(seats, placements))


ROUND_COLUMNS = (Col("table", "right"), Col("seats"), Col("result"), Col("match", drop=1))


def round_rows(r: Any) -> tuple[list[list[Cell]], list[tuple[int, str]]]:
    """The rows of a round's table (table, seats, result, match) and its notes, by table:
    what is too long for a cell (why a result was set by hand, why a match was abandoned or
    played again). The result cell says there is one, in one bracket: "(set by hand)",
    "(set by hand, forfeit)", "(rematch)", "(rematch, set by hand)"; "abandoned"; a table
    with no result yet says where its match is: "waiting for seats" (AWAITING_SEATS),
    "playing" (RUNNING)."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    rows: list[list[Cell]] = []
    notes: list[tuple[int, str]] = []
    for t in r.tables:
        if t.bye:
            rows.append([str(t.number), list(t.seats[:1]), "bye", ""])
            continue
        seats = [f"{s} v" for s in t.seats[:-1]] + list(t.seats[-1:])
        result: list[str] = []
        tags = ["rematch"] if t.earlier else []  # said once, in one bracket
        if t.HasField("result"):
            result = result_parts(list(t.seats), list(t.result.placements))
            if t.result.kind == "correction":  # set by the organiser: why, in the notes
                how = ["set by hand", "forfeit"] if t.result.forfeited else ["set by hand"]
                tags += how
                if t.result.reason:
                    notes.append((t.number, f"{', '.join(how)}: {t.result.reason}"))
            elif t.result.kind != "played":
                tags.append(t.result.kind)
        elif t.abandoned_reason:
            result = ["abandoned"]
            notes.append((t.number, f"abandoned: {t.abandoned_reason}"))
        elif t.status == pb.TABLE_STATUS_AWAITING_SEATS:
            result = ["waiting", "for", "seats"]
        elif t.status == pb.TABLE_STATUS_RUNNING:
            result = ["playing"]
        if tags:  # each tag whole on a line: "(rematch,", "set by hand,", "forfeit)"
            result += [f"{'(' * (i == 0)}{tag}{',' if i < len(tags) - 1 else ')'}"
                       for i, tag in enumerate(tags)]
        notes += [(t.number, f"rematch of {e.match_id} (abandoned: {e.abandoned_reason}; "
                             f"again: {e.rematch_reason})") for e in t.earlier]
        rows.append([str(t.number), seats, result, [t.match_id]])
    return rows, notes


def print_round(r: Any, out: Console | None = None) -> None:
    """A round as a table that fits ``out``'s width: seats and results wrap between ids,
    never inside one; the notes follow it, a line each, named by table. When the match ids
    do not fit, a line says how they are made and the notes name the others."""
    out = out or console
    rows, notes = round_rows(r)
    table, left_out = fitted_table(out.width, f"round {r.number}", ROUND_COLUMNS, rows)
    out.print(table)
    if left_out:  # the match column: <tournament>-r<round>-t<table>, -g2... when played again
        made = f"{r.tournament_id}-r{r.number}-t"
        print_plain(out, f"match ids: {made}<table> (not shown at {out.width} columns)")
        notes += [(t.number, f"match {t.match_id}") for t in r.tables
                  if t.match_id and t.match_id != f"{made}{t.number}"]
    print_notes(out, [(f"table {n}", note) for n, note in sorted(notes, key=lambda n: n[0])])
    if r.HasField("checkpoint"):
        leaves = r.checkpoint.leaves
        print_plain(out, f"checkpoint: Merkle root {r.checkpoint.merkle_root[:16]}... over "
                         f"{leaves} match{'' if leaves == 1 else 'es'}, signed")


SHORT = {"buchholz": "Bh", "median-buchholz": "mBh", "sonneborn-berger": "SB",
         "head-to-head": "H2H", "wins": "W", "placement-points": "PP", "game-tiebreak": "GT"}


def print_standings(rows: list[Any], title: str = "standings", out: Console | None = None) -> None:
    """The standings as a table that fits ``out``'s width (:func:`print_fitted`: a player id
    is never cut; the wins and then the games columns are left out when it is too narrow)."""
    out = out or console
    names = [tb.name for tb in rows[0].tiebreaks] if rows else []
    columns = [Col("rank", "right"), Col("player"), Col("points", "right"),
               Col("games", "right", drop=2), Col("wins", "right", drop=1),
               *(Col(SHORT.get(n, n), "right") for n in names)]
    print_fitted(out, title, columns,
                 [[str(r.rank), r.player_id + (" (dropped)" if r.dropped else ""),
                   f"{r.points:g}", str(r.games), str(r.wins),
                   *(f"{tb.value:g}" for tb in r.tiebreaks)] for r in rows])
    if names:
        print_plain(out, "tie-breaks: " + ", ".join(f"{SHORT.get(n, n)} {n}" for n in names))


def print_bundle_report(report: Any, prefix: str = "") -> None:
    """A tournament bundle's verification report; ``prefix`` names the file among several.
    What the bundle says (ids, names, reasons, also in the checks) and the file's name are
    not markup: escaped, or printed as written."""
    at = escape(prefix)
    for check in report.checks:
        console.print(f"{at}[green]ok[/] {escape(check)}", emoji=False)
    for warning in report.warnings:
        console.print(f"{at}[yellow]note[/] {escape(warning)}", emoji=False)
    for failure in report.failures:
        print_plain(err_console, f"{prefix}FAILED: {failure}")
    if report.ok:
        print_plain(console, f"{prefix}verified: tournament {report.tournament_id}, "
                             f"{report.matches} matches")


# ----------------------------------------------------------------------------- the desk

NAMED = 40
"""At most this many players named in a line (then "and N more")."""
STANDING = {"registered": "registered, not checked in", "checked-in": "checked in"}
"""A player's status (``Player.status``) in words."""


@dataclass(frozen=True)
class DeskAction:
    """``register``, ``check-in`` or ``withdraw``: the RPC, the player's status it leads to,
    and the words."""

    rpc: str
    status: str  # Player.status once done
    done: str  # "alice checked in"
    again: str  # "alice is checked in already"
    cannot: str  # "alice cannot be checked in: ..."


REGISTER = DeskAction("Register", "registered", "registered", "is registered already",
                      "cannot be registered")
CHECK_IN = DeskAction("CheckIn", "checked-in", "checked in", "is checked in already",
                      "cannot be checked in")
WITHDRAW = DeskAction("Withdraw", "withdrawn", "withdrawn", "was withdrawn already",
                      "cannot be withdrawn")


async def find_tournament(client: TournamentClient, tournament_id: str) -> Any:
    """GetTournament's tournament; a CliError naming it when this deployment has none."""
    import grpc

    try:
        return (await client.call("GetTournament", tournament_id=tournament_id)).tournament
    except grpc.aio.AioRpcError as err:
        if err.code() == grpc.StatusCode.NOT_FOUND:
            raise CliError(f"no tournament {tournament_id!r} on this deployment (see: neon "
                           "tournament list)", status=err.code().name,
                           detail=err.details() or "") from None
        raise


def _names(players: list[str]) -> str:
    more = len(players) - NAMED
    return ", ".join(players[:NAMED]) + (f" and {more} more" if more > 0 else "")


def desk_text(t: Any) -> str:
    """Where the desk stands: how many checked in and who, registered, has not (``start``
    refuses while some checked in and others did not, unless --checked-in-only)."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    by: dict[str, list[str]] = {}
    for p in t.players:
        by.setdefault(p.status, []).append(p.player_id)
    checked, waiting = by.get("checked-in", []), by.get("registered", [])
    withdrawn = f"; {len(by['withdrawn'])} withdrawn" if by.get("withdrawn") else ""
    if t.status not in (pb.TOURNAMENT_STATUS_CREATED, pb.TOURNAMENT_STATUS_REGISTRATION):
        text = (f"{t.tournament_id} is {_status(t.status)} (check-in is over): "
                f"{len(by.get('playing', []))} playing")
        if waiting:  # registered, left out by the start
            text += f", {len(waiting)} registered but not playing: {_names(waiting)}"
        return text + withdrawn
    text = (f"{t.tournament_id}: {len(checked)} checked in, {len(waiting)} registered but not "
            "checked in")
    if waiting:
        text += f": {_names(waiting)}{withdrawn}"
        return text + ("; start refuses without them unless --checked-in-only" if checked else
                       " (nobody checked in: start takes every registered player)")
    return text + withdrawn


async def desk(client: TournamentClient, token: str, action: DeskAction, tournament_id: str,
               players: list[str], as_json: bool) -> None:
    """One ``action`` call per player, each one's result said; then the desk's counts (or
    GetTournament's answer as JSON). A player the service refuses (not registered, the
    tournament started, a player token acting for another player) is named with the
    service's reason and the others go on; a CliError (exit 1) at the end names them."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    _, failed = await each_player(client, token, action, tournament_id, players,
                                  say=not as_json)
    reply = await client.call("GetTournament", tournament_id=tournament_id)
    if as_json:
        emit(message_dict(pb.GetTournamentResponse(tournament=reply.tournament)))
    else:
        print_plain(console, desk_text(reply.tournament))
    if failed:
        raise not_done(action, players, failed)


async def each_player(client: TournamentClient, token: str, action: DeskAction,
                      tournament_id: str, players: list[str], say: bool = True,
                      ) -> tuple[Any, list[str]]:
    """One ``action`` call per player, in order; with ``say`` each one's result on stdout. A
    player the service refuses (not registered, the tournament started or full, a bad id, a
    player token acting for another player) is named on stderr with the service's reason
    and the others go on. Returns the tournament as it was before the calls and the players
    refused (:func:`not_done` is the line that ends the command then); a tournament this
    deployment does not have, a token the service does not accept (UNAUTHENTICATED), or a
    service not answering stops at once."""
    import grpc

    refusals = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT)
    t = first = await find_tournament(client, tournament_id)
    failed: list[str] = []
    for player in players:
        before = {p.player_id: p.status for p in t.players}.get(player, "")
        try:
            t = (await client.call(action.rpc, token, tournament_id=tournament_id,
                                   player_id=player)).tournament
        except grpc.aio.AioRpcError as err:
            if err.code() not in refusals:
                raise
            failed.append(player)
            why = err.details() or err.code().name
            if err.code() == grpc.StatusCode.PERMISSION_DENIED:
                why += f"; an organiser token acts for any player: {GET_ONE}"
            elif before:
                why += f"; {player} is {STANDING.get(before, before)}"
            print_plain(err_console, f"{player} {action.cannot}: {why}")
            continue
        if say:
            said = action.again if before == action.status else action.done
            print_plain(console, f"{player} {said}")
    return first, failed


def not_done(action: DeskAction, players: list[str], failed: list[str]) -> CliError:
    """The last line (exit 1) of a desk command some of whose ``players`` were refused."""
    return CliError(f"{len(failed)} of {counted(len(players), 'player')} "
                    f"not {action.done}: {_names(failed)}")


# ----------------------------------------------------------------------------- commands


def start_text(reply: Any) -> str:
    """What ``start`` says of StartTournament's answer: how many play, and the registered
    players the start left out (``left_out``: they did not check in)."""
    t, out = reply.tournament, list(reply.left_out)
    # who the start took (a repeat answers later: dropped since, or late entries added)
    playing = sum(p.status in ("playing", "dropped") and not p.late for p in t.players)
    # planned_rounds 0: the format does not know yet
    rounds = (f"{counted(t.planned_rounds, 'round')} planned" if t.planned_rounds else
              "rounds not known yet")
    if not out:
        return f"started with {counted(playing, 'player')}; {rounds}"
    one = len(out) == 1
    return (f"started with {counted(playing, 'checked-in player')}; {len(out)} registered "
            f"{'player who' if one else 'players who'} did not check in "
            f"{'is' if one else 'are'} not playing: {', '.join(out)} ({rounds}; an organiser "
            "may add them with late-entry where the format allows it)")


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless n is 1: "1 round", "3 rounds", "0 rounds"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def tournament_address(settings: Settings) -> str:
    """The tournament service's address (NEON_TOURNAMENT_ADDR, else its port on the host),
    named for the "does not answer" line."""
    address = settings.address("tournament") if "tournament" in settings.ports or \
        "tournament" in settings.addresses else f"{settings.host}:50054"
    target("tournament service", address)
    return address


def _client_and_token(token: str = "", organiser: bool = True) -> tuple[TournamentClient, str]:
    """The tournament client and the token to call it with: ``token`` when given (--token,
    NEON_TOKEN), else an organiser token minted with this machine's deployment keys (a
    one-line error when it has none); no token at all for the public calls (not
    ``organiser``)."""
    from services.cli.main import _settings
    from services.cli.organiser import organiser_token

    settings = _settings(log_file=True)
    address = tournament_address(settings)
    return TournamentClient(address), (organiser_token(settings, token, name="organiser")
                                       if organiser else "")


def _run(coro_factory: Callable[[TournamentClient, str], Any], token: str = "",
         organiser: bool = True) -> None:
    """``coro_factory(client, token)`` against the tournament service, with ``token`` or an
    organiser token minted here (``organiser``; the public calls of list, show, standings
    and round send none). A call refused for its token says the command needs an
    organiser token and how to get one."""
    import asyncio

    import grpc

    from services.cli.organiser import command_name, refused

    command = command_name()

    async def run() -> None:
        client, token_ = _client_and_token(token, organiser)
        try:
            await coro_factory(client, token_)
        except grpc.aio.AioRpcError as err:
            if not organiser or (said := refused(err, command, bool(token))) is None:
                raise
            raise said from None
        finally:
            await client.close()

    asyncio.run(run())


@tournament_app.command("create")
@friendly
def create(
    tournament_id: str = typer.Argument(..., help="1-40 letters, digits or _"),
    game: str = typer.Option(..., help="game id"),
    fmt: str = typer.Option("swiss", "--format", help=", ".join(FORMAT_NAMES)),
    rounds: int = typer.Option(0, help="rounds (0: the format's natural number)"),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    table_sizes: str = typer.Option("", help="multiplayer: seats per table, e.g. 3,4"),
    points: str = typer.Option("", help="placement points, e.g. 4,2,1,0"),
    tiebreaks: str = typer.Option("", help="comma list: buchholz, median-buchholz, ..."),
    format_extra: str = typer.Option("", "--format-json", help="more format settings as JSON"),
    no_show: str = typer.Option("forfeit", help="forfeit or bot"),
    check_in: int = typer.Option(300, help="seconds a seat has to be ready at its table"),
    name: str = typer.Option("", help="the event's name"),
    unrated: bool = typer.Option(
        False, "--unrated", help="an unrated tournament: its matches are made on the "
        "organiser's behalf, player tokens the organiser minted may play them, and scoring "
        "rates none of them"),
    seed_from_ratings: bool = typer.Option(
        False, "--seed-from-ratings", help="seed the field by scoring's ratings of the game "
        "(highest first, then registration; a player scoring has not rated seeds as 0), "
        "read when the tournament starts: an elimination bracket's seeds, and the seed order "
        "every format uses; without it, registration order"),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP + " (OpenRegistration's)"),
    token: str = token_option(),
) -> None:
    """Create a tournament and open its registration (organiser)."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    fj = format_json(fmt, rounds, table_sizes, points, tiebreaks, format_extra)
    policy = {"forfeit": pb.NO_SHOW_POLICY_FORFEIT, "bot": pb.NO_SHOW_POLICY_BOT}.get(no_show)
    if policy is None:
        raise CliError("--no-show must be forfeit or bot", USAGE)

    async def go(client: TournamentClient, token: str) -> None:
        reply = await client.call("CreateTournament", token, tournament_id=tournament_id,
                                  game=game, mode=mode, format_json=fj, no_show=policy,
                                  check_in_seconds=check_in, name=name, unrated=unrated,
                                  seed_from_ratings=seed_from_ratings)
        if unrated and not reply.tournament.unrated:
            # a tournament service from before unrated tournaments skips the field unread
            raise CliError(
                f"the tournament service does not know unrated tournaments (an older "
                f"release): {tournament_id} was created rated and its registration was not "
                f"opened; call it off with `neon tournament finish {tournament_id} --force "
                "REASON`, or upgrade the service")
        opened = await client.call("OpenRegistration", token, tournament_id=tournament_id)
        if as_json:
            emit(message_dict(opened))
            return
        t = reply.tournament
        rated = ", unrated" if t.unrated else ""
        print_plain(console, f"tournament {t.tournament_id} created ({t.game} {t.mode}{rated}); "
                             "registration open")

    _run(go, token)


@tournament_app.command("register")
@friendly
def register_players(tournament_id: str, players: list[str] = typer.Argument(...),
                     token: str = token_option()) -> None:
    """Register players (organiser): one Register each.

    Says how many were newly registered and names those who were registered already (a
    repeat changes nothing; a checked-in player stays checked in). A player the service
    refuses (a bad or bot id, registration closed, the tournament full, a player token
    acting for another player) is named with its reason, the others go on, and the command
    exits 1."""

    async def go(client: TournamentClient, token: str) -> None:
        given = list(dict.fromkeys(players))  # a name given twice: registered once
        t, failed = await each_player(client, token, REGISTER, tournament_id, given, say=False)
        before = {p.player_id: p.status for p in t.players}
        print_plain(console, register_text([p for p in given if p not in failed], before))
        if failed:
            raise not_done(REGISTER, given, failed)

    _run(go, token)


def register_text(players: list[str], before: dict[str, str]) -> str:
    """What ``register`` says: how many of ``players`` it newly registered, and who was
    registered already (``before``: each player's status before, as in GetTournament; a
    withdrawn player registers again)."""
    given = list(dict.fromkeys(players))
    already = [p for p in given if before.get(p) in ("registered", "checked-in")]
    text = f"{len(given) - len(already)} newly registered"
    if already:
        text += f"; already registered: {_names(already)}"
    return text


@tournament_app.command("check-in")
@friendly
def check_in(tournament_id: str, players: list[str] = typer.Argument(...),
             token: str = token_option(),
             as_json: bool = typer.Option(
                 False, "--json", help=JSON_HELP + " (GetTournament's, after the check-ins; "
                                       "a refused player adds the {\"error\": ...} line)"),
             ) -> None:
    """Check players in at the desk before the start (organiser): one CheckIn each.

    Says each player's result, then how many checked in and who, registered, has not yet. A
    player the service refuses (not registered, withdrawn, the tournament started) is named
    with its reason, the others go on, and the command exits 1."""

    async def go(client: TournamentClient, token: str) -> None:
        await desk(client, token, CHECK_IN, tournament_id, players, as_json)

    _run(go, token)


@tournament_app.command("withdraw")
@friendly
def withdraw(tournament_id: str, players: list[str] = typer.Argument(...),
             token: str = token_option(),
             as_json: bool = typer.Option(
                 False, "--json", help=JSON_HELP + " (GetTournament's, after the withdrawals; "
                                       "a refused player adds the {\"error\": ...} line)"),
             ) -> None:
    """Withdraw registrations before the start (organiser): one Withdraw each.

    Says each player's result, then how many checked in and who, registered, has not yet. A
    player the service refuses (not registered, the tournament started: `drop` then) is named
    with its reason, the others go on, and the command exits 1."""

    async def go(client: TournamentClient, token: str) -> None:
        await desk(client, token, WITHDRAW, tournament_id, players, as_json)

    _run(go, token)


@tournament_app.command("start")
@friendly
def start(tournament_id: str,
          checked_in_only: bool = typer.Option(
              False, "--checked-in-only",
              help="start even though registered players who did not check in are left out"),
          token: str = token_option(),
          ) -> None:
    """Start the tournament with the checked-in players (organiser).

    All registered players play when nobody checked in. The service refuses, naming them,
    when that would leave registered players out, unless --checked-in-only
    (StartTournament's checked_in_only); then names them in what it prints."""

    async def go(client: TournamentClient, token: str) -> None:
        import grpc

        before = await _version_of(client, tournament_id)  # a service without already_started
        try:
            reply = await client.call("StartTournament", token, tournament_id=tournament_id,
                                      checked_in_only=checked_in_only)
        except grpc.aio.AioRpcError as err:
            why = err.details() or ""
            if err.code() != grpc.StatusCode.FAILED_PRECONDITION or "checked_in_only" not in why:
                raise
            # refused for the players it would leave out: the flag (a usage matter) says go
            raise CliError(why.replace("checked_in_only", "--checked-in-only"), USAGE,
                           err.code().name, why) from None
        text = start_text(reply)
        # a repeat, or another organiser's start that came first (of two at once, the service
        # tells the one it answered second; one from before already_started only a repeat)
        if reply.already_started or reply.tournament.version == before:
            text = f"{tournament_id} was already {text}"
        print_plain(console, text)

    _run(go, token)


@tournament_app.command("next-round")
@friendly
def next_round(tournament_id: str,
               as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
               token: str = token_option()) -> None:
    """Pair the next round and create its matches (organiser).

    Names the players the service dropped as no-shows before pairing it."""

    async def go(client: TournamentClient, token: str) -> None:
        before = None if as_json else await _tournament_or_none(client, tournament_id)
        reply = await client.call("NextRound", token, tournament_id=tournament_id)
        if as_json:
            emit(message_dict(reply))
            return
        print_round(reply.round)
        after = await _tournament_or_none(client, tournament_id)
        if before is None or after is None:
            return
        was = {p.player_id: p.status for p in before.players}
        gone = [p.player_id for p in after.players
                if p.status == "dropped" and was.get(p.player_id) != "dropped"]
        if gone:
            one = len(gone) == 1
            print_plain(console, f"{_names(gone)} {'was' if one else 'were'} dropped before round "
                                 f"{reply.round.number} was paired: "
                                 f"{'a no-show' if one else 'no-shows'} of round "
                                 f"{reply.round.number - 1} (never came to their table); "
                                 "`neon tournament "
                                 f"reinstate {tournament_id} PLAYER --reason ...` pairs a player "
                                 "again from the next round")

    _run(go, token)


@tournament_app.command("round")
@friendly
def show_round(tournament_id: str,
               number: int = typer.Argument(0, help="the round (default: the last paired)"),
               watch: bool = typer.Option(False, help="follow it live until it is complete"),
               as_json: bool = typer.Option(
                   False, "--json", help=JSON_HELP + "; with --watch one {\"round\": ...} "
                                         "line per change")) -> None:
    """A round's tables, matches, results and checkpoint (--watch: live)."""

    async def go(client: TournamentClient, token: str) -> None:
        if not watch:
            import grpc

            try:
                reply = await client.call("GetRound", tournament_id=tournament_id, round=number)
            except grpc.aio.AioRpcError as err:
                t = None if number or err.code() != grpc.StatusCode.NOT_FOUND else \
                    await _tournament_or_none(client, tournament_id)
                if t is None or t.rounds_paired:
                    raise
                # the last paired round (the default) of a tournament that paired none: not
                # "no round 0", a number the organiser never gave
                said = (f"{tournament_id} has no round paired yet (status: "
                        f"{_status(t.status)}); `neon tournament next-round {tournament_id}` "
                        "pairs round 1")
                raise CliError(said, FAILED, err.code().name, said) from None
            if as_json:
                emit(message_dict(reply))
                return
            print_round(reply.round)
            return
        await watch_round(client, tournament_id, number, as_json)

    _run(go, organiser=False)


async def watch_round(client: TournamentClient, tournament_id: str, number: int,
                      as_json: bool) -> None:
    """``round --watch``: round ``number`` (0: the last paired, or the first to be paired
    when none is) as it is now, then each change, until it is complete. WatchTournament
    streams only the latest round, so the round is read with GetRound first (a round before
    the latest is printed, complete, and the command ends), and again when the watch moves
    on to a later round (its last change, the watch may have skipped). A round not paired
    yet is waited for; when the tournament ends without it, a one-line error (exit 1)."""
    import grpc

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.grpc_kit import call_metadata

    shown = ""

    def show(r: Any) -> bool:
        """Print ``r`` when it changed since last printed (as printed: a change the table
        does not show, e.g. a match's final hash as it is sealed, prints no second copy of
        the same table; ``--json`` prints every change of the answer); whether it is
        complete."""
        nonlocal shown
        if as_json:  # the shape of GetRound's answer
            key = r.SerializeToString(deterministic=True).hex()
            if key != shown:
                shown = key
                emit(message_dict(pb.GetRoundResponse(round=r)))
            return bool(r.complete)
        with console.capture() as printed:
            print_round(r)
        text = printed.get()
        if text != shown:
            shown = text
            console.file.write(text)
            console.file.flush()
        return bool(r.complete)

    want = number
    try:
        now = (await client.call("GetRound", tournament_id=tournament_id, round=number)).round
    except grpc.aio.AioRpcError as err:
        if err.code() != grpc.StatusCode.NOT_FOUND:
            raise
        t = await find_tournament(client, tournament_id)  # one this deployment has
        if t.status in (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED):
            raise never_paired(t, number) from None
        if not as_json:
            print_plain(err_console, f"waiting for round {number or 1} of {tournament_id} to "
                                     "be paired")
    else:
        want = now.number
        if show(now):
            return
    call = client.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tournament_id),
                                       metadata=call_metadata(), timeout=None)
    try:
        async for update in call:
            if not update.HasField("round"):
                continue
            latest = update.round
            want = want or latest.number
            if latest.number == want:
                if show(latest):
                    return
            elif latest.number > want:  # moved on: the round's last state, complete
                again = await client.call("GetRound", tournament_id=tournament_id, round=want)
                show(again.round)
                return
    finally:
        call.cancel()
    if not shown:
        raise never_paired(await find_tournament(client, tournament_id), want)


def never_paired(t: Any, number: int) -> CliError:
    """The line (exit 1) of ``round --watch`` whose round ``number`` (0: the first) the
    tournament ``t`` ended without pairing."""
    return CliError(f"round {number or 1} of {t.tournament_id} was never paired: the "
                    f"tournament is {_status(t.status)} after "
                    f"{counted(t.rounds_paired, 'round')}")


def _print_table(title: str, columns: tuple[Col, ...], rows: list[tuple[str, ...]]) -> None:
    print_fitted(console, title, columns, rows)


def _status(value: int) -> str:
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    return pb.TournamentStatus.Name(value).removeprefix("TOURNAMENT_STATUS_").lower()


LIST_COLUMNS = (Col("tournament"), Col("name", drop=5), Col("game", drop=4),
                Col("format", drop=2), Col("status"), Col("players", drop=3),
                Col("rounds", drop=1))
"""``list``'s columns; on a narrow terminal the rounds are left out first, then the format,
the players, the game and the name (at 80 columns often the rounds and the format)."""


@tournament_app.command("list")
@friendly
def list_tournaments(limit: int = typer.Option(50, help="at most this many, newest first"),
                     as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The newest tournaments: id, game, format, status, players and rounds."""

    async def go(client: TournamentClient, token: str) -> None:
        reply = await client.call("ListTournaments", limit=limit)
        if as_json:
            emit(message_dict(reply))
            return
        _print_table("tournaments", LIST_COLUMNS,
                     [(t.tournament_id, t.name, f"{t.game} {t.mode}", t.format,
                       _status(t.status), str(t.players), str(t.rounds_paired))
                      for t in reply.tournaments])

    _run(go, organiser=False)


@tournament_app.command("show")
@friendly
def show(tournament_id: str,
         as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """One tournament: its settings, status, players and rounds."""

    async def go(client: TournamentClient, token: str) -> None:
        reply = await client.call("GetTournament", tournament_id=tournament_id)
        if as_json:
            emit(message_dict(reply))
            return
        t = reply.tournament
        planned = f" of {t.planned_rounds}" if t.planned_rounds else ""
        # its name and a force-end's reason are an organiser's words: printed as written
        print_plain(console, f"{t.tournament_id}{f' ({t.name})' if t.name else ''}: {t.game} "
                             f"{t.mode}, {json.loads(t.format_json or '{}').get('format', '?')}, "
                             f"{_status(t.status)}{f' ({t.reason})' if t.reason else ''}; round "
                             f"{t.rounds_paired}{planned}"
                             f"{', complete' if t.round_complete else ''}")
        _print_table("players", (Col("player"), Col("status"), Col("rating")),
                     [(p.player_id + (" (late)" if p.late else ""), p.status, f"{p.rating:g}")
                      for p in t.players])

    _run(go, organiser=False)


@tournament_app.command("standings")
@friendly
def standings(tournament_id: str,
              as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The standings with their tie-break values."""

    async def go(client: TournamentClient, token: str) -> None:
        reply = await client.call("GetStandings", tournament_id=tournament_id)
        if as_json:
            emit(message_dict(reply))
            return
        print_standings(list(reply.rows), "final standings" if reply.final else "standings")

    _run(go, organiser=False)


def force_end_text(t: Any, rows: list[Any], reason: str) -> tuple[str, str]:
    """What ``finish --force`` says after ForceEnd (its tournament ``t``) and GetStandings
    (``rows``): a line ("" for none) and the title of the standings printed under it ("" for
    no table). ForceEnd leaves a finished tournament as it is (its final standings stand);
    a tournament called off before the start has no standings; one force-ended earlier keeps
    its first reason (``t.reason`` differs from ``reason``: said "already")."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    tid = t.tournament_id
    if t.status == pb.TOURNAMENT_STATUS_FINISHED:
        return f"{tid} already finished: nothing was force-ended", "final standings"
    was = "was already " if t.reason != reason.strip()[:500] else ""
    if not rows:
        return (f"{tid} {was}called off before any round was played ({t.reason}): no "
                "standings", "")
    if not t.rounds_paired:
        return (f"{tid} {was}force-ended before its first round was paired ({t.reason}): no "
                "rounds were played", "final standings (force-ended)")
    return (f"{tid} was already force-ended ({t.reason})" if was else "",
            "final standings (force-ended)")


@tournament_app.command("finish")
@friendly
def finish(tournament_id: str,
           force: str = typer.Option("", help="force-end now, with this reason (before the "
                                     "start: the tournament is called off, unplayed)"),
           as_json: bool = typer.Option(
               False, "--json", help=JSON_HELP + " (FinishTournament's; with --force the "
                                     "same shape: ForceEnd's tournament and the standings)"),
           token: str = token_option(),
           ) -> None:
    """Finish after the last round (or --force REASON) and publish the standings (organiser)."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    async def go(client: TournamentClient, token: str) -> None:
        if force:
            ended = await client.call("ForceEnd", token, tournament_id=tournament_id,
                                      reason=force)
            reply = await client.call("GetStandings", tournament_id=tournament_id)
            if as_json:
                emit(message_dict(pb.FinishTournamentResponse(tournament=ended.tournament,
                                                              rows=reply.rows)))
                return
            line, title = force_end_text(ended.tournament, list(reply.rows), force)
            if line:
                print_plain(console, line)
            if title:
                print_standings(list(reply.rows), title)
            return
        # the version: for a service from before already_ended (see _version_of)
        before = None if as_json else await _version_of(client, tournament_id)
        reply = await client.call("FinishTournament", token, tournament_id=tournament_id)
        if as_json:
            emit(message_dict(reply))
            return
        if reply.already_ended or reply.tournament.version == before:
            # a repeat (or another organiser's finish first): its standings were published
            how = ("force-ended" if reply.tournament.status == pb.TOURNAMENT_STATUS_FORCE_ENDED
                   else "finished")
            print_plain(console, f"{tournament_id} was already {how}: nothing changed")
        print_standings(list(reply.rows), "final standings")

    _run(go, token)


@tournament_app.command("correct")
@friendly
def correct(
    tournament_id: str,
    number: int = typer.Argument(..., metavar="ROUND", help="the round"),
    table: int = typer.Argument(..., help="the table"),
    placements: str = typer.Option(..., help="placement of each seat, e.g. 1,2 (seat 0 won)"),
    reason: str = typer.Option(..., help="why (kept in the tournament log)"),
    forfeited: bool = typer.Option(False, help="a forfeit: no game for the tie-breaks; the "
                                   "seats placed below the best lose by forfeit (all placed "
                                   "level, e.g. 1,1: a double forfeit, every seat loses)"),
    token: str = token_option(),
) -> None:
    """Set a table's result by hand (organiser).

    For an abandoned match or a game played on paper; the original result stays in the
    log."""
    try:
        places = [int(x) for x in placements.split(",")]
    except ValueError:
        raise CliError(f"--placements must be numbers separated by commas, not {placements!r}",
                       USAGE) from None

    async def go(client: TournamentClient, token: str) -> None:
        import grpc

        try:  # the table's result before: a correction may replace one (another organiser's)
            earlier = (await client.call("GetRound", tournament_id=tournament_id,
                                         round=number)).round
        except grpc.aio.AioRpcError:  # the call itself says what is wrong
            earlier = None
        reply = await client.call("CorrectResult", token, tournament_id=tournament_id,
                                  round=number, table=table, placements=places,
                                  forfeited=forfeited, reason=reason)
        print_round(reply.round)
        line = replaced_text(earlier, reply.round, table)
        if line:
            print_plain(console, line)

    _run(go, token)


def result_key(r: Any) -> tuple[Any, ...]:
    """A table's result (GetRound) as a comparable value: two the same are one result."""
    return tuple(r.placements), r.forfeited, r.kind, r.reason


def replaced_text(before: Any, after: Any, number: int) -> str:
    """What ``correct`` says of table ``number``'s result before it (round ``before``, as
    GetRound gave it; None: not read), beside round ``after`` (CorrectResult's answer): ""
    for a table that had none; "nothing changed" for the very same correction (a repeat);
    else the result it replaced, a match's or one set by hand before (by another organiser,
    maybe), with its reason."""
    old = next((t for t in before.tables if t.number == number), None) if before else None
    new = next((t for t in after.tables if t.number == number), None)
    if old is None or new is None or not old.HasField("result"):
        return ""
    where = f"table {number} of round {after.number}"
    if result_key(old.result) == result_key(new.result):
        return f"{where} had this result already: nothing changed"
    text = result_text(list(old.seats), list(old.result.placements))
    if old.result.kind != "correction":
        return f"{where}: replaces the match's result ({text})"
    how = "set by hand, forfeit" if old.result.forfeited else "set by hand"
    return (f"{where}: replaces the result {how} before ({text}"
            f"{': ' + old.result.reason if old.result.reason else ''})")


@tournament_app.command("rematch")
@friendly
def rematch(
    tournament_id: str,
    number: int = typer.Argument(..., metavar="ROUND", help="the round"),
    table: int = typer.Argument(..., help="the table"),
    reason: str = typer.Option(..., help="why the table plays again (kept in the log)"),
    token: str = token_option(),
) -> None:
    """Have an abandoned table play again (organiser).

    A new match for the same seats, with a new check-in window; the abandoned match stays
    in the log and the bundle."""

    async def go(client: TournamentClient, token: str) -> None:
        reply = await client.call("RematchTable", token, tournament_id=tournament_id,
                                  round=number, table=table, reason=reason)
        print_round(reply.round)

    _run(go, token)


async def _tournament_or_none(client: TournamentClient, tournament_id: str) -> Any:
    """The tournament (GetTournament) before or after an organiser's command, None when it
    cannot be read (the command's own call then says what is wrong)."""
    import grpc

    try:
        return (await client.call("GetTournament", tournament_id=tournament_id)).tournament
    except grpc.aio.AioRpcError:
        return None


async def _version_of(client: TournamentClient, tournament_id: str) -> int | None:
    """The tournament's version (events in its log) before a command that a repeat leaves
    as it is (start, drop, reinstate, late entry, finish), for a service from before their
    answers said so (``already_started``, ``already_dropped``, ``already_reinstated``,
    ``already_playing``, ``already_ended``: each false from such a service, whose answer
    alone does not tell a repeat from a first call). Its answer at the same version
    recorded nothing: a repeat. A later version is said as a first call (it may be another
    caller's event meanwhile: the answer, as before). None when it cannot be read (a public
    GetTournament refused, an unknown id; 0, a service that does not count them): the call
    itself then says what it says."""
    t = await _tournament_or_none(client, tournament_id)
    return (int(t.version) or None) if t is not None else None


@tournament_app.command("drop")
@friendly
def drop(tournament_id: str, player: str,
         reason: str = typer.Option("", help="why (kept in the tournament log)"),
         token: str = token_option()) -> None:
    """Drop a player from the next rounds (the rounds played stay in the standings)."""

    async def go(client: TournamentClient, token: str) -> None:
        before = await _version_of(client, tournament_id)  # a service without already_dropped
        reply = await client.call("DropPlayer", token, tournament_id=tournament_id,
                                  player_id=player, reason=reason)
        if reply.already_dropped or reply.tournament.version == before:
            print_plain(console, f"{player} already dropped from {tournament_id}: nothing changed")
            return
        print_plain(console, f"{player} dropped from {tournament_id} after round "
                             f"{reply.tournament.rounds_paired}")

    _run(go, token)


@tournament_app.command("reinstate")
@friendly
def reinstate(tournament_id: str, player: str,
              reason: str = typer.Option(..., help="why the player plays again (kept in the "
                                                   "tournament log)"),
              as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
              token: str = token_option()) -> None:
    """Reinstate a dropped player from the next round on (organiser; Swiss, multiplayer).

    For a no-show or a player dropped by mistake; the rounds missed count as unplayed."""

    async def go(client: TournamentClient, token: str) -> None:
        # the version: for a service from before already_reinstated (see _version_of)
        before = None if as_json else await _version_of(client, tournament_id)
        reply = await client.call("ReinstatePlayer", token, tournament_id=tournament_id,
                                  player_id=player, reason=reason)
        if as_json:
            emit(message_dict(reply))
            return
        if reply.already_reinstated or reply.tournament.version == before:
            print_plain(console, f"{player} already reinstated in {tournament_id}: nothing "
                                 "changed")
            return
        print_plain(console, f"{player} reinstated in {tournament_id}: paired again from round "
                             f"{reply.tournament.rounds_paired + 1}")

    _run(go, token)


@tournament_app.command("late-entry")
@friendly
def late_entry(tournament_id: str, player: str, token: str = token_option()) -> None:
    """Add a player to a running tournament from the next round on (organiser)."""

    async def go(client: TournamentClient, token: str) -> None:
        before = await _version_of(client, tournament_id)  # a service without already_playing
        reply = await client.call("AddLateEntry", token, tournament_id=tournament_id,
                                  player_id=player)
        if reply.already_playing or reply.tournament.version == before:  # a repeat
            late = any(p.player_id == player and p.late for p in reply.tournament.players)
            print_plain(console, f"{player} {'is a late entry of' if late else 'plays in'} "
                                 f"{tournament_id} already: nothing changed")
            return
        print_plain(console, f"{player} enters {tournament_id} from the next round")

    _run(go, token)


@tournament_app.command("export")
@friendly
def export(tournament_id: str,
           output: Path = typer.Option(..., "-o", "--output", help="the bundle file to write"),
           token: str = token_option()) -> None:
    """Write the audit bundle: the log, every match export, checkpoints and proofs."""
    refuse_folder(output, "bundle")

    async def go(client: TournamentClient, token: str) -> None:
        client.timeout = 600.0  # the whole stream's deadline, however large the bundle
        # streamed into a file beside the output, which takes its place once complete: a
        # failed export leaves no partial bundle, nor harms an earlier file of that name
        with written_whole(output) as f:
            matches, checkpoints = await fetch_bundle(client, token, tournament_id, f.write)
        print_plain(console, f"{matches} match{'' if matches == 1 else 'es'} and "
                             f"{counted(checkpoints, 'round checkpoint')} of {tournament_id} "
                             f"written to {output}; check it with: neon verify {output}")

    _run(go, token)


@tournament_app.command("simulate")
@friendly
def simulate(
    fmt: str = typer.Option("swiss", "--format", help=", ".join(FORMAT_NAMES)),
    game: str = typer.Option(..., help="game id (see: neon games)"),
    players: int = typer.Option(16, help="how many bots"),
    rounds: int = typer.Option(0, help="rounds (0: the format's natural number)"),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    table_sizes: str = typer.Option("", help="multiplayer: seats per table, e.g. 3,4"),
    points: str = typer.Option("", help="placement points, e.g. 4,2,1,0"),
    embedded: bool = typer.Option(False, help="start the backend for the duration of the command"),
    output: Path = typer.Option(None, "-o", "--output", help="also write the bundle here"),
    timeout: float = typer.Option(300.0, help="seconds a round may take"),
) -> None:
    """Run a whole tournament with bots through the real services.

    Prints each round and the standings, exports the bundle and verifies it. Exits 0 only
    when it verifies."""
    import asyncio

    from services.cli.main import _settings

    if not 2 <= players <= 512:
        raise CliError("--players must be 2..512", USAGE)
    if output is not None:  # said now, not after the whole tournament has run
        refuse_folder(output, "bundle")
    fj = format_json(fmt, rounds, table_sizes, points)
    settings = _settings(log_file=True)

    async def run() -> int:
        backend = None
        if embedded:
            from services.cli.backend import start_scratch_backend
            from services.rules.games import available

            if game not in available():
                raise CliError(f"no engine for {game!r}; games: {', '.join(available())}", USAGE)
            backend = await start_scratch_backend(settings, "neon-tournament-", games=[game],
                                                  scoring=True, tournament=True)
            address, issue = backend.address("tournament"), backend.issuer.issue
            target("tournament service", address)
        else:
            from services.cli.organiser import issuer, needs_keys

            address = tournament_address(settings)  # named for the "does not answer" line
            issue = issuer(settings, needs_keys("tournament simulate")).issue
        try:
            report = await simulate_run(address, issue, game, fj, players, mode=mode,
                                        on_round=print_round, timeout=timeout)
        finally:
            if backend is not None:  # its temporary folder with it
                await backend.stop(1)
        print_standings(report.standings, "final standings")
        if output is not None:  # whole or not at all, as neon tournament export writes it
            with written_whole(output) as f:
                f.write(report.bundle)
            print_plain(console, f"bundle written to {output}")
        console.print(f"bundle: {len(report.bundle)} bytes; verifying offline")
        print_bundle_report(report.verify)
        stages = Table(title="stages")
        stages.add_column("stage")
        stages.add_column("seconds", justify="right")
        for stage, seconds in report.stages.items():
            stages.add_row(stage, f"{seconds:.2f}")
        console.print(stages)
        return 0 if report.verify.ok else 1

    raise typer.Exit(asyncio.run(run()))


def register(app: typer.Typer) -> None:
    from services.cli import tournament_play  # the players' side: `neon tournament play`

    tournament_play.register(tournament_app)
    app.add_typer(tournament_app, name="tournament")
