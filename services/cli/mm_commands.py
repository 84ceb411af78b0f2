"""``neon queue``, ``neon invitations``, ``neon decline`` and ``neon simulate``: the
matchmaking path from the command line.

``queue`` puts the human at the terminal in the queue and plays the match found (adding a
client seed and saying ready when the match waits for seeds: :func:`seed_and_ready`);
``invitations`` lists the parties that named the player and wait for them (ListMyInvitations);
``decline``
declines the invitation of a party that named the player (DeclineInvite: the party goes on
without them); ``simulate`` sends N simulated players through the whole path (tickets,
acceptance, client seeds, random play on the rules service, results and ratings in the scoring service)
and times each stage.
"""

from __future__ import annotations

import contextlib
import inspect
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from services.cli.errors import friendly
from services.cli.plain import print_plain

if TYPE_CHECKING:
    from services.cli.client import RulesClient
    from services.platform.playing import SeatTurn
    from services.platform.settings import Settings
    from services.rules.games.contract import Decision

    Chooser = Callable[[int, dict[str, Any], list[Decision]], Awaitable[dict[str, Any]]]

# gRPC, the generated messages, the rules client and the bots are imported where they are
# used, so that every other `neon` command starts without them (services/cli/main.py imports
# this module to register `queue` and `simulate`).

console = Console()
err_console = Console(stderr=True)
MAX_SIM_PLAYERS = 1000
"""The scoring leaderboard lists at most 1000 players, and simulate checks all are listed."""


class MatchmakingClient:
    def __init__(self, address: str, timeout: float = 15.0) -> None:
        from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
        from services.platform.grpc_kit import channel

        self.channel = channel(address)
        self.stub = mm_grpc.MatchmakingServiceStub(self.channel)
        self.timeout = timeout

    async def call(self, name: str, token: str, **kw: Any) -> Any:
        from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
        from services.platform.grpc_kit import call_metadata

        request = getattr(mm_pb, f"{name}Request")(**kw)
        reply = await getattr(self.stub, name)(request, metadata=call_metadata(token),
                                               timeout=self.timeout)
        return reply.ticket

    async def watch(self, token: str, ticket_id: str, timeout: float) -> AsyncIterator[Any]:
        from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
        from services.platform.grpc_kit import call_metadata

        call = self.stub.WatchTicket(mm_pb.WatchTicketRequest(ticket_id=ticket_id),
                                     metadata=call_metadata(token), timeout=timeout)
        async for message in call:
            yield message.ticket

    async def close(self) -> None:
        await self.channel.close()


def on_change(show: Callable[[Any], None]) -> Callable[[Any], None]:
    """``show`` called only when a ticket's status or reason changes: the watch also sends a
    ticket again when a player accepts, which printed "ticket proposed" twice."""
    last: tuple[int, str] | None = None

    def shown(ticket: Any) -> None:
        nonlocal last
        if last != (ticket.status, ticket.reason):
            last = (ticket.status, ticket.reason)
            show(ticket)
    return shown


async def wait_for_match(mm: MatchmakingClient, token: str, ticket_id: str, player: str,
                         accept: Callable[[Any], Awaitable[bool]], timeout: float,
                         on_status: Callable[[Any], None] = lambda t: None,
                         lapsed: Callable[[Any], None] = lambda t: None) -> Any:
    """Follow a ticket, accepting proposals as ``accept`` decides; the matched ticket. No
    match within ``timeout`` seconds (the watch's deadline) raises :class:`NoMatch`: the
    service answered all along, so it is not said as one that does not answer.

    The watch is read while ``accept`` decides (a person at ``accept? [Y/n]``): a proposal
    that ends before the answer (its time to accept ran out, another player declined) ends
    the question, ``lapsed(ticket)`` says so, and the ticket's news goes on as ever (an
    expired ticket ends the wait; one queued again is proposed again). The question waited
    at the prompt for ever before, the watch unread behind it."""
    import asyncio

    import grpc

    from services.genproto.neon.matchmaking.v1.matchmaking_pb2 import TicketStatus as S

    started = time.monotonic()
    watch = mm.watch(token, ticket_id, timeout).__aiter__()
    asking: asyncio.Future[bool] | None = None  # the question about match ``asked``
    asked = ""
    answered: set[str] = set()  # proposals answered: a ticket sent again asks nothing
    upcoming: asyncio.Future[Any] | None = None
    try:
        while True:
            upcoming = asyncio.ensure_future(anext(watch))
            while asking is not None and not upcoming.done():
                await asyncio.wait({upcoming, asking}, return_when=asyncio.FIRST_COMPLETED)
                if asking.done():
                    yes, asking = asking.result(), None
                    answered.add(asked)
                    if yes:
                        await mm.call("AcceptMatch", token, ticket_id=ticket_id, match_id=asked)
                    else:
                        await mm.call("CancelTicket", token, ticket_id=ticket_id)
            try:
                ticket = await upcoming
            except StopAsyncIteration:
                break
            match_id = ticket.assignment.match_id
            proposed = ticket.status == S.TICKET_STATUS_PROPOSED and player not in ticket.accepted
            if asking is not None and not (proposed and match_id == asked):
                asking.cancel()  # the proposal ended before the answer
                asking = None
                answered.add(asked)
                lapsed(ticket)
            on_status(ticket)
            if proposed and asking is None and match_id not in answered:
                asked = match_id
                asking = asyncio.ensure_future(accept(ticket))
            if ticket.status == S.TICKET_STATUS_MATCHED:
                return ticket
            if ticket.status in (S.TICKET_STATUS_CANCELLED, S.TICKET_STATUS_EXPIRED):
                raise RuntimeError(f"ticket {ticket_id} ended {S.Name(ticket.status)}: "
                                   f"{ticket.reason}")
    except grpc.aio.AioRpcError as err:
        # the watch's own deadline (a call inside it that timed out is a service not answering)
        if err.code() != grpc.StatusCode.DEADLINE_EXCEEDED or \
                time.monotonic() - started < timeout:
            raise
        raise NoMatch(f"no match for ticket {ticket_id} within {timeout:g} s") from None
    finally:
        for pending in (asking, upcoming):
            if pending is not None and not pending.done():
                pending.cancel()
    raise RuntimeError(f"the watch of ticket {ticket_id} ended without a match")


class NoMatch(RuntimeError):
    """A ticket found no match within the time it was given."""


async def play_seat(rules: RulesClient, match_id: str, seat: int, token: str,
                    choose: Chooser, wait: float = 10.0) -> dict[str, Any] | None:
    """Answer every decision of one seat until the match ends; returns the outcome
    (the shared loop, services.platform.playing.play_seat)."""
    from services.cli.play import contract_decision
    from services.platform import playing

    async def answer(turn: SeatTurn) -> dict[str, Any] | None:
        if not turn.owes:
            return None
        return await choose(seat, turn.view,
                            [contract_decision(d) for d in turn.decisions + turn.standing])

    return await playing.play_seat(rules.stub, token, match_id, answer, seat=seat, wait=wait,
                                   on_refused=lambda *_: None)


def bot_chooser(seed: str, kind: str = "random", game: str = "") -> Chooser:
    """A ``kind`` bot of ``game`` (random, or one of the game's own) as a seat's chooser."""
    from services.rules.bots import make_bot

    bot = make_bot(kind, seed, game)

    async def choose(seat: int, view: dict[str, Any], decisions: list[Decision]) -> dict[str, Any]:
        return dict(bot.choose(decisions[0], view))

    return choose


async def play_at_terminal(screen: Console, rules: RulesClient, game: str, match_id: str,
                           seat: int, token: str, names: dict[int, str],
                           ask: Any = None) -> dict[str, Any] | None:
    """The person at the terminal plays ``seat`` (TerminalSeat: narration, the table, numbered
    choices read through ``ask``) with the seat's own token, then sees the result."""
    from services.cli.terminal import TerminalSeat, ask_terminal

    human = TerminalSeat(screen, rules, game, match_id, seat, token, names=names,
                         ask=ask or ask_terminal)
    outcome = await play_seat(rules, match_id, seat, token, human.action)
    await human.finish(outcome)
    return outcome


async def seed_and_ready(mm: MatchmakingClient, token: str, ticket: Any, player: str,
                         rules: RulesClient) -> Any:
    """A matched ticket whose match waits for client seeds (``seed_window``): add a fresh
    random client seed for ``player``'s seat with its own seat token (the rules service's
    AddClientSeed), then tell matchmaking the seat is ready (ReadyForMatch); the ticket as it
    answers. A match that does not wait (started, or a server without seed windows) is left
    as it is. A seed refused because the match started meanwhile (the window ended) is no
    error: the match goes on with the seeds it took."""
    import secrets

    import grpc

    from services.genproto.neon.rules.v1 import rules_pb2

    if not ticket.HasField("seed_window") or ticket.match_started or ticket.seed_window.ended:
        return ticket
    a = ticket.assignment
    for s in a.seats:
        if s.player != player or not s.token or s.bot:
            continue
        try:
            await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
                match_id=a.match_id, seed=secrets.token_hex(32)), s.token)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
    return await mm.call("ReadyForMatch", token, ticket_id=ticket.ticket_id,
                         match_id=a.match_id)


def own_seat(ticket: Any, player: str) -> tuple[int, str]:
    for s in ticket.assignment.seats:
        if s.player == player and s.token:
            return s.seat, s.token
    raise RuntimeError(f"the assignment of {ticket.ticket_id} has no seat token for {player}")


# ----------------------------------------------------------------------------- backends


@dataclass
class Endpoints:
    matchmaking: str
    scoring: str
    issue: Callable[..., str]
    stop: Callable[[], Awaitable[None]] = field(default=lambda: _nothing())
    scoring_running: bool = True


async def _nothing() -> None:
    return None


def _no_minting(*_: Any, **__: Any) -> str:
    raise RuntimeError("this command acts with the token it was given: it mints none")


async def endpoints(settings: Settings, embedded: bool, game: str,
                    mm_config: Any = None, command: str = "queue", mint: bool = True) -> Endpoints:
    """The matchmaking and scoring addresses: of a backend started here, or of ``settings``
    (then the players' tokens are minted with this machine's deployment keys: without them
    a one-line error naming ``command``, exit 2; none are made; ``mint`` False: the command
    was given its token, and needs no keys)."""
    if not embedded:
        from services.cli.organiser import issuer, needs_keys

        issue = issuer(settings, needs_keys(command)).issue if mint else _no_minting
        return Endpoints(settings.address("matchmaking"), settings.address("scoring"), issue)
    from services.cli.backend import start_backend, start_scratch_backend
    from services.rules.games import available

    if game not in available():
        from services.cli.errors import USAGE, CliError

        raise CliError(f"no engine for {game!r} in this build; games: "
                       f"{', '.join(available())} (plug-ins: NEON_ENGINES=game=module)", USAGE)
    extra: dict[str, Any] = {}
    if "scoring" in inspect.signature(start_backend).parameters:
        extra["scoring"] = True
    backend = await start_scratch_backend(settings, "neon-mm-", games=[game], matchmaking=True,
                                          matchmaking_config=mm_config, **extra)
    scoring = backend.services.get("scoring")
    return Endpoints(backend.address("matchmaking"),
                     scoring.address if scoring else settings.address("scoring"),
                     backend.issuer.issue, lambda: backend.stop(1), scoring is not None)


def embedded_config(accept_timeout: float = 60.0) -> Any:
    from services.matchmaking.config import Config
    from services.matchmaking.grouping import Policy

    return Config(interval=0.1, accept_timeout=accept_timeout,
                  policy=Policy(partial_after=2.0, backfill_after=4.0))


# ----------------------------------------------------------------------------- queue


@friendly
def queue(
    game: str = typer.Argument(..., help="a game id (see: neon games)"),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    player: str = typer.Option("", help="your player id (default: generated)"),
    bots: bool = typer.Option(True, help="accept bots in empty seats after the backfill wait"),
    region: str = typer.Option("", help="only players of this region"),
    yes: bool = typer.Option(False, "--yes", "-y", help="accept the proposed match without asking"),
    embedded: bool = typer.Option(False, help="start a backend for the duration of the command"),
    timeout: float = typer.Option(600.0, help="seconds to wait for a match"),
    token: str = typer.Option(
        "", "--token", envvar="NEON_TOKEN", show_default=False,
        help="your player token (the organiser's `neon token player ID`, or the identity "
             "provider's JWT), for the player it names (--player may say it again); default: "
             "one minted with this machine's deployment keys"),
) -> None:
    """Queue yourself for a match, accept it and play it in the terminal."""
    import asyncio

    import grpc

    from services.cli.client import RulesClient
    from services.cli.errors import USAGE, CliError, target
    from services.cli.main import _settings
    from services.cli.terminal import ask_terminal

    settings = _settings(log_file=True)
    if token and embedded:
        raise CliError("--embedded starts a backend with keys of its own, which accepts no "
                       "token from elsewhere: leave out --token (and NEON_TOKEN), or --embedded",
                       USAGE)
    from services.platform.tokens import BOT_RESERVED, claimed_player, is_bot

    if token and not player:
        # the player the token says it is for (read, not checked: matchmaking checks it)
        player = claimed_player(token) or ""
        if not player:
            raise CliError("--token is no player token: give your player token (`neon token "
                           "player ID` on the server host, or your identity provider's JWT), "
                           "or --player with it", USAGE)
    name = player or f"human-{uuid.uuid4().hex[:6]}"
    if is_bot(name):
        raise CliError(BOT_RESERVED, USAGE)

    async def accept(ticket: Any) -> bool:
        others = ", ".join(f"{s.player}{' (bot)' if s.bot else ''}" for s in ticket.assignment.seats
                           if s.player != name)
        print_plain(console, f"match found ({ticket.assignment.mode}) against {others}; "
                             f"{ticket.accept_seconds_left:.0f} s to accept")  # their names
        if yes:
            return True
        while True:  # anything else (a move number typed early, a typo) is asked again
            answer = (await ask_terminal("accept? [Y/n] ")).strip().lower()
            if answer in ("", "y", "yes", "n", "no"):
                return answer in ("", "y", "yes")
            print_plain(console, "answer y (accept) or n (decline)")

    def lapsed(ticket: Any) -> None:  # the proposal ended while accept? waited
        from services.genproto.neon.matchmaking.v1.matchmaking_pb2 import TicketStatus as S

        print_plain(console, "")  # ends the question's line
        if ticket.status in (S.TICKET_STATUS_EXPIRED, S.TICKET_STATUS_CANCELLED):
            print_plain(console, "no answer to the proposed match in time: it fell through")
        else:
            print_plain(console, "the proposed match fell through before your answer")

    def show(ticket: Any) -> None:
        from services.genproto.neon.matchmaking.v1.matchmaking_pb2 import TicketStatus as S

        reason = f" ({ticket.reason})" if ticket.reason else ""
        status = S.Name(ticket.status).removeprefix("TICKET_STATUS_").lower()
        print_plain(console, f"ticket {status} after {ticket.waited_seconds:.1f} s{reason}")

    async def run() -> int:
        ends = await endpoints(settings, embedded, game, embedded_config(), mint=not token)
        target("matchmaking service", ends.matchmaking)
        mm = MatchmakingClient(ends.matchmaking)
        mine = token or ends.issue("player", "*", player=name, ttl=int(timeout) + 3600)
        ticket_id = f"q-{uuid.uuid4().hex[:16]}"
        rules = None
        try:
            try:
                await mm.call("CreateTicket", mine, ticket_id=ticket_id, game=game,
                              modes=[mode] if mode else [], players=[name], allow_bots=bots,
                              region=region)
            except grpc.aio.AioRpcError as err:
                if token and (refused := _token_refused(
                        err, f"a player token of this deployment for {name} (`neon token "
                             f"player {name}` on the server host)")):
                    raise refused from None
                raise
            print_plain(console, f"{name} queued for {game} (ticket {ticket_id}); Ctrl-C leaves "
                                 "the queue")
            try:
                matched = await wait_for_match(mm, mine, ticket_id, name, accept, timeout,
                                             on_change(show), lapsed)
            except BaseException:
                with contextlib.suppress(Exception):
                    await mm.call("CancelTicket", mine, ticket_id=ticket_id)
                raise
            seat, seat_token = own_seat(matched, name)
            a = matched.assignment
            print_plain(console, f"match {a.match_id}: you are seat {seat}")
            target(f"rules service for {a.game}", a.rules_address)
            rules = RulesClient(a.rules_address)
            ready = await seed_and_ready(mm, mine, matched, name, rules)
            if ready.HasField("seed_window"):
                w = ready.seed_window
                print_plain(console, "your client seed is added; the match starts "
                            + ("now" if ready.match_started else
                               f"when every seat is ready, in {w.seconds_left:.0f} s at most"))
            await play_at_terminal(console, rules, a.game, a.match_id, seat, seat_token,
                                   {s.seat: s.player for s in a.seats})
            print_plain(console, f"match {a.match_id} ended")
            return 0
        except NoMatch as err:
            raise CliError(f"{err}; the ticket is cancelled (--timeout waits longer)") from None
        except RuntimeError as err:
            raise CliError(str(err)) from None
        finally:
            if rules is not None:
                await rules.close()
            await mm.close()
            await ends.stop()

    raise typer.Exit(asyncio.run(run()))


def _token_refused(err: Any, must_be: str) -> Any:
    """The CliError for a call refused for the token given with --token (or NEON_TOKEN),
    saying what it ``must_be``; None for any other refusal."""
    import grpc

    from services.cli.errors import CliError

    if err.code() not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return None
    return CliError(f"{err.code().name}: {err.details() or 'refused'}; the token given "
                    f"(--token, NEON_TOKEN) must be {must_be}",
                    status=err.code().name, detail=err.details() or "")


def _own_player_option() -> Any:
    """``--player`` of a command a player runs for themself (decline, invitations)."""
    return typer.Option(
        "", help="your player id, to mint your token with this machine's deployment keys "
                 "(not needed with --token: the token names you)")


def _own_token_option() -> Any:
    """``--token`` (or NEON_TOKEN) of a command a player runs for themself."""
    return typer.Option(
        "", "--token", envvar="NEON_TOKEN", show_default=False,
        help="your player token (the organiser's `neon token player ID`, or the identity "
             "provider's JWT); default: one minted for --player with this machine's "
             "deployment keys")


async def _as_own_player(command: str, player: str, token: str, must_be: str,
                         call: Callable[[Any, str], Awaitable[Any]]) -> Any:
    """``call(matchmaking client, player token)`` with the token given (--token) or one
    minted for --player with this machine's deployment keys; a refusal of the given token
    says what it ``must_be`` (:func:`_token_refused`). Neither given: USAGE."""
    import grpc

    from services.cli.errors import USAGE, CliError, target
    from services.cli.main import _settings

    if not token and not player:
        raise CliError("give --player (your player id, to mint your token with this "
                       "machine's deployment keys) or --token (your player token)", USAGE)
    settings = _settings(log_file=True)
    ends = await endpoints(settings, False, "", command=command, mint=not token)
    target("matchmaking service", ends.matchmaking)
    mm = MatchmakingClient(ends.matchmaking)
    try:
        mine = token or ends.issue("player", "*", player=player, ttl=600)
        try:
            return await call(mm, mine)
        except grpc.aio.AioRpcError as err:
            if token and (refused := _token_refused(err, must_be)):
                raise refused from None
            raise
    finally:
        await mm.close()


# ----------------------------------------------------------------------------- decline


@friendly
def decline(
    ticket_id: str = typer.Argument(..., help="the ticket of the party that named you"),
    player: str = _own_player_option(),
    token: str = _own_token_option(),
) -> None:
    """Decline a party's invitation: a ticket another player queued naming you.

    You leave the party, which goes on without you; its players are told you declined,
    and nothing else of you. Only an invitation you have not accepted can be declined.
    """
    import asyncio

    async def run() -> int:
        ticket = await _as_own_player(
            "decline", player, token,
            "the invited player's own player token of this deployment (`neon token player ID` "
            "on the server host)",
            lambda mm, mine: mm.call("DeclineInvite", mine, ticket_id=ticket_id))
        who = ", ".join(ticket.declined) or player
        print_plain(console, f"{who} declined the invitation of ticket {ticket_id}; the party "
                             "goes on without you")
        return 0

    raise typer.Exit(asyncio.run(run()))


# ----------------------------------------------------------------------------- invitations

INVITATION_STATUS = {1: "waiting", 2: "a match waits for your accept"}


@friendly
def invitations(
    player: str = _own_player_option(),
    token: str = _own_token_option(),
    limit: int = typer.Option(50, min=1, max=200, help="list at most this many (1-200)"),
) -> None:
    """List the parties that invited you: open tickets another player queued naming you.

    Each shows its ticket id, game, who queued it, the party's size and whether a match waits
    for your accept. Decline one with `neon decline TICKET`. When a matchmaking replica does
    not answer, the games whose invitations could not be listed are named, and it exits 1.
    """
    import asyncio

    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
    from services.platform.grpc_kit import call_metadata

    async def run() -> int:
        listed = await _as_own_player(
            "invitations", player, token,
            "your own player token of this deployment (`neon token player ID` on the server "
            "host)",
            lambda mm, mine: mm.stub.ListMyInvitations(
                mm_pb.ListMyInvitationsRequest(limit=limit), metadata=call_metadata(mine),
                timeout=mm.timeout))
        missing = ""
        if listed.partial:  # a replica did not answer: its queues' invitations are not here
            games = ", ".join(listed.unavailable_games) or "some games"
            missing = (f"not listed: the invitations of {games} (their matchmaking replica "
                       "does not answer; try again shortly)")
        if not listed.invitations:
            print_plain(console, "no open invitations" + (" that could be listed" if missing
                                                          else ""))
            if missing:
                print_plain(console, missing)
            return 1 if missing else 0
        for i in listed.invitations:
            line = (f"{i.ticket_id}: {i.game} ({', '.join(i.modes)}), invited by {i.invited_by}, "
                    f"party of {i.party_size}, waiting {i.waited_seconds:.0f} s, "
                    f"{INVITATION_STATUS.get(i.status, 'open')}")
            if i.match_id:
                line += f" (match {i.match_id}, {i.accept_seconds_left:.0f} s left)"
            print_plain(console, line)
        if listed.total > len(listed.invitations):
            print_plain(console, f"... and {listed.total - len(listed.invitations)} more "
                                 "(--limit)")
        if missing:
            print_plain(console, missing)
            return 1
        return 0

    raise typer.Exit(asyncio.run(run()))


# ----------------------------------------------------------------------------- simulate


@dataclass
class SimReport:
    stages: dict[str, float] = field(default_factory=dict)
    matched: int = 0
    matches: set[str] = field(default_factory=set)
    ended: set[str] = field(default_factory=set)
    listed: int = 0
    board: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    ratings_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


async def simulate_run(ends: Endpoints, game: str, players: int, mode: str = "",
                       timeout: float = 300.0, rating_timeout: float = 60.0) -> SimReport:
    """The whole path for ``players`` simulated players; see :func:`simulate`."""
    import asyncio

    from services.cli.client import client_for, close_all

    report = SimReport()
    tag = uuid.uuid4().hex[:6]
    names = [f"sim-{tag}-{i:04d}" for i in range(players)]
    tokens = {n: ends.issue("player", "*", player=n, ttl=int(timeout) + 3600) for n in names}
    mm = MatchmakingClient(ends.matchmaking)
    rules: dict[str, RulesClient] = {}
    t0 = time.perf_counter()
    try:
        await asyncio.gather(*(mm.call(
            "CreateTicket", tokens[n], ticket_id=f"{n}-t", game=game,
            modes=[mode] if mode else [], players=[n], allow_bots=True) for n in names))
        report.stages["queue (create tickets)"] = time.perf_counter() - t0

        async def yes(ticket: Any) -> bool:
            return True

        t1 = time.perf_counter()
        results = await asyncio.gather(
            *(wait_for_match(mm, tokens[n], f"{n}-t", n, yes, timeout) for n in names),
            return_exceptions=True)
        matched = {n: r for n, r in zip(names, results) if not isinstance(r, BaseException)}
        report.matched = len(matched)
        for n, r in zip(names, results):
            if isinstance(r, BaseException):
                report.problems.append(f"{n} was not matched: {r}")
        report.stages["match (group, accept, create)"] = time.perf_counter() - t1

        t2 = time.perf_counter()

        async def play(n: str, ticket: Any) -> str:
            a = ticket.assignment
            client = client_for(rules, a.rules_address)
            seat, token = own_seat(ticket, n)
            await seed_and_ready(mm, tokens[n], ticket, n, client)
            await play_seat(client, a.match_id, seat, token, bot_chooser(f"{n}:{a.match_id}"))
            return str(a.match_id)

        played = await asyncio.gather(*(play(n, t) for n, t in matched.items()),
                                      return_exceptions=True)
        report.matches = {t.assignment.match_id for t in matched.values()}
        for n, r in zip(matched, played):
            if isinstance(r, BaseException):
                report.problems.append(f"{n} could not finish its match: {r!r}")
            else:
                report.ended.add(r)
        report.stages["play (random moves on the rules service)"] = time.perf_counter() - t2

        t3 = time.perf_counter()
        await _await_leaderboard(report, ends, game, names, matched, rating_timeout)
        if not report.problems:
            await _check_ratings(report, ends)
        report.stages["rate (scoring leaderboard lists everyone)"] = time.perf_counter() - t3
    finally:
        await mm.close()
        await close_all(rules)
    report.stages["total"] = time.perf_counter() - t0
    return report


async def _await_leaderboard(report: SimReport, ends: Endpoints, game: str, names: list[str],
                             matched: dict[str, Any], timeout: float) -> None:
    """Poll ``GetLeaderboard`` until it lists every simulated player, or time out.

    A player whose only opponents were bots has no rated match, so the scoring service
    lists it on the best-score board only: that board is asked for when there is one.
    """
    import asyncio

    import grpc

    from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
    from services.platform.grpc_kit import call_metadata, channel

    only_bots = any(sum(1 for s in t.assignment.seats if not s.bot) < 2 for t in matched.values())
    ranked_by = scoring_pb2.RANKED_BY_BEST_SCORE if only_bots else scoring_pb2.RANKED_BY_UNSPECIFIED
    ch = channel(ends.scoring)
    stub = scoring_pb2_grpc.ScoringServiceStub(ch)
    deadline = time.monotonic() + timeout
    wanted = set(names)
    last_error = ""
    try:
        while True:
            try:
                reply = await stub.GetLeaderboard(
                    scoring_pb2.GetLeaderboardRequest(game=game, limit=MAX_SIM_PLAYERS,
                                                      ranked_by=ranked_by),
                    metadata=call_metadata(), timeout=5)
                report.board = [e for e in reply.entries if e.rating.player in wanted]
                report.listed = len(report.board)
                if report.listed == len(wanted):
                    return
            except grpc.aio.AioRpcError as err:
                last_error = f"{err.code().name}: {err.details()}"
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
    finally:
        await ch.close()
    where = "" if ends.scoring_running else " (no scoring service was started here)"
    report.problems.append(
        f"the leaderboard lists {report.listed} of {len(wanted)} players after {timeout:g} s"
        f"{where}{'; last error ' + last_error if last_error else ''}")


async def _check_ratings(report: SimReport, ends: Endpoints) -> None:
    """Recompute the simulated players' ratings with openskill (Plackett-Luce) from the stored
    results, in the order the scoring service applied them, and compare with its leaderboard.

    Independent of the scoring code: bots are left out, a draw ranks every side first, teams
    rank by their best placement, sides of one human-only result.
    """
    from openskill.models import PlackettLuce

    from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
    from services.platform.grpc_kit import call_metadata, channel

    model = PlackettLuce()
    ch = channel(ends.scoring)
    stub = scoring_pb2_grpc.ScoringServiceStub(ch)
    try:
        results = [(await stub.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id=m),
                                              metadata=call_metadata(), timeout=5)).result
                   for m in sorted(report.matches)]
    finally:
        await ch.close()
    ratings: dict[str, Any] = {}
    for r in sorted(results, key=lambda r: r.sequence):
        groups = [tuple(t.seats) for t in r.teams] or [(s,) for s in range(len(r.players))]
        sides = [([r.players[s] for s in g if not r.bots[s]],
                  1 if r.draw else min(r.placements[s] for s in g)) for g in groups]
        sides = [(members, rank) for members, rank in sides if members]
        if len(sides) < 2:
            continue
        teams = [[ratings.get(p) or model.rating(name=p) for p in members] for members, _ in sides]
        rated = model.rate(teams, ranks=[rank for _, rank in sides])
        for team in rated:
            for player in team:
                ratings[player.name] = player
    for entry in report.board:
        mine = ratings.get(entry.rating.player)
        mu, sigma = (mine.mu, mine.sigma) if mine else (model.mu, model.sigma)
        if abs(mu - entry.rating.mu) > 1e-9 or abs(sigma - entry.rating.sigma) > 1e-9:
            report.problems.append(
                f"{entry.rating.player}: scoring says mu {entry.rating.mu:.6f} sigma "
                f"{entry.rating.sigma:.6f}, openskill over the stored results {mu:.6f} {sigma:.6f}")
    report.ratings_checked = len(report.board)


def print_report(report: SimReport, players: int) -> None:
    stages = Table(title="stages")
    stages.add_column("stage")
    stages.add_column("seconds", justify="right")
    for stage, seconds in report.stages.items():
        stages.add_row(stage, f"{seconds:.2f}")
    console.print(stages)
    board = Table(title=f"leaderboard ({report.listed} of {players} simulated players listed)")
    for column in ("rank", "player", "ordinal", "mu", "sigma", "matches", "wins"):
        board.add_column(column)
    for e in report.board:
        r = e.rating
        board.add_row(str(e.rank), Text(r.player), f"{r.ordinal:.2f}", f"{r.mu:.2f}",
                      f"{r.sigma:.2f}", str(r.matches), str(r.wins))
    console.print(board)
    console.print(f"matched {report.matched}/{players} players into {len(report.matches)} matches; "
                  f"{len(report.ended)} matches ended")
    if report.ratings_checked:
        console.print(f"ratings of {report.ratings_checked} players agree with openskill "
                      "(Plackett-Luce) applied to the stored results in order")
    for problem in report.problems[:20]:
        err_console.print(f"[red]problem[/] {escape(problem)}", emoji=False)


@friendly
def simulate(
    game: str = typer.Option(..., help="game id"),
    players: int = typer.Option(..., help="how many simulated players"),
    mode: str = typer.Option("", help="the game's mode (default: its first)"),
    embedded: bool = typer.Option(False, help="start a backend for the duration of the command"),
    timeout: float = typer.Option(300.0, help="seconds each stage may take"),
) -> None:
    """Send simulated players through tickets, matches, play and ratings; time each stage.

    Exits 0 only when every player was matched, every match ended and the scoring
    leaderboard lists every player.
    """
    import asyncio

    from services.cli.errors import target
    from services.cli.main import _settings

    if not 1 <= players <= MAX_SIM_PLAYERS:
        raise typer.BadParameter(f"--players must be 1..{MAX_SIM_PLAYERS}")
    settings = _settings(log_file=True)

    async def run() -> int:
        ends = await endpoints(settings, embedded, game, embedded_config(), "simulate")
        target("matchmaking service", ends.matchmaking)
        try:
            report = await simulate_run(ends, game, players, mode, timeout)
        finally:
            await ends.stop()
        print_report(report, players)
        return 0 if report.ok and len(report.ended) == len(report.matches) else 1

    raise typer.Exit(asyncio.run(run()))


def register(app: typer.Typer) -> None:
    app.command("queue")(queue)
    app.command("decline")(decline)
    app.command("invitations")(invitations)
    app.command("simulate")(simulate)
