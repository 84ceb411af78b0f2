"""``neon tournament play``: a registered player plays their own tables from the terminal.

The player's side of an event, as a real client does it: follow ``WatchMyMatches`` with the
player's token; at each table add a client seed on the game's rules service (with the seat
token) and say ``ReadyForMatch``; play the seat at the terminal (``TerminalSeat``, as ``neon
play`` and ``neon queue``) or with a bot (``--bot``); print the table's result; wait for the
next round (a bye is announced), a rematch (``-g2``) or a result set by hand; and at the end
print the player's final rank and points from ``GetStandings``. The watch sends only the
latest state: a round it skipped (the command started late, or read slowly) is told from
the round's record, its bye or the player's table's result. Only the player's token and
its seat tokens are used: the screen never shows what another seat may not see.
``--register`` only registers; ``--check-in`` checks in (confirms the player is here for the
start: once anyone checks in, the tournament starts with the checked-in players only).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from services.cli.errors import USAGE, CliError, friendly, target
from services.cli.plain import print_plain
from services.cli.tournament_commands import (
    STANDING,
    TournamentClient,
    counted,
    find_tournament,
    my_matches,
    print_standings,
    result_key,
    result_text,
)

if TYPE_CHECKING:
    from services.cli.client import RulesClient
    from services.cli.terminal import Ask

# gRPC, the generated messages, the rules client and structlog are imported where they are
# used, so that every other `neon` command starts without them.

console = Console()
RECONNECT_FOR = 60.0
"""Seconds to keep opening WatchMyMatches, and trying each other call to the tournament
service again, while it does not answer (it restarts mid-round without losing anything)."""

STARTS_POLL = 1.0
"""Seconds between two looks at a ready seat's table while its match awaits its seats."""


class TournamentSeat:
    """One player following a tournament: plays each of its tables as they come."""

    def __init__(self, client: TournamentClient, token: str, tournament: Any, player: str, *,
                 bot: str = "", ask: Ask | None = None, screen: Console = console) -> None:
        from services.platform.logs import get_logger

        self.client, self.token, self.player = client, token, player
        self.tournament_id, self.game = tournament.tournament_id, tournament.game
        self.bot, self.ask, self.screen = bot, ask, screen
        self.rules: dict[str, RulesClient] = {}
        self.played: set[str] = set()
        self.told: set[tuple[Any, ...]] = set()
        self.results: dict[tuple[int, int], tuple[Any, ...]] = {}
        """The result last told of each (round, table) of the player's."""
        self.settled: set[int] = set()
        """Rounds whose outcome for the player (a bye, its table's result) was told: the
        watch sends only the latest state, so a round it skipped is told from its record
        (:meth:`catch_up`)."""
        self.log = get_logger("cli").bind(tournament=self.tournament_id, player=player)
        # Every call to the tournament service from here on (GetRound, ReadyForMatch, the
        # final standings) is tried again while it restarts, as the watch is opened again.
        client.patience, client.on_lost = RECONNECT_FOR, self.lost

    def lost(self, err: Any, since: float) -> None:
        """The tournament service does not answer (since ``since``): said once, logged."""
        self.log.warning("tournament.play.reconnect", error=err.details())
        self.once(("lost", int(since)), "the tournament service does not answer; trying again")

    def once(self, key: tuple[Any, ...], text: str) -> None:
        """Print ``text`` the first time ``key`` comes (the stream repeats the assignment
        after each match, and when it is opened again). Printed as written: it may hold
        other players' ids and an organiser's reason."""
        if key not in self.told:
            self.told.add(key)
            print_plain(self.screen, text)

    async def follow(self) -> int:
        """Every update of the player's matches until the tournament ends; its final status."""
        from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

        status = pb.TOURNAMENT_STATUS_UNSPECIFIED
        async for update in self.updates():
            status = update.status
            if status in (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED):
                t = (await self.client.call("GetTournament",
                                            tournament_id=self.tournament_id)).tournament
                # every round is read again: a result the organiser set by hand after it
                # was told (the watch sends only the latest round's) is told as changed
                # before the final standings
                self.settled.clear()
                await self.catch_up(t.rounds_paired + 1)
                break
            if update.HasField("assignment"):
                # the round before too: a result set by hand once the next round was paired
                self.settled.discard(update.assignment.round - 1)
                await self.catch_up(update.assignment.round)
                await self.on_assignment(update.assignment)
            elif status == pb.TOURNAMENT_STATUS_REGISTRATION:
                self.once(("start",), "waiting for the organiser to start the tournament")
            else:  # no table: dropped (the stream does not say so), or ended meanwhile
                t = (await self.client.call("GetTournament",
                                            tournament_id=self.tournament_id)).tournament
                await self.catch_up(t.rounds_paired + 1)
                if t.status in (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED):
                    return t.status
                if _status_of(t, self.player) == "dropped":
                    raise CliError(dropped_text(self.player, t))
                if self.left_out(t):
                    continue
                self.once(("no table", status), "no table for you now; waiting")
        return status

    def left_out(self, t: Any) -> bool:
        """Whether the start left the player out (not checked in: still "registered" in a
        running tournament): told once while the organiser may still add them as a late
        entry (the command waits for that), and the command ends (exit 1) once no round
        can take them any more, rather than waiting for the end of the event."""
        from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

        if t.status != pb.TOURNAMENT_STATUS_RUNNING or _status_of(t, self.player) != "registered":
            return False
        until = late_entry_until(t)
        if until is None or t.rounds_paired + 1 > until:
            raise CliError(left_out_text(self.player, t, until))
        self.once(("left out",), f"{self.player} was left out at the start of "
                                 f"{t.tournament_id} (not checked in); the organiser may "
                                 f"still add you as a late entry (rounds up to {until}): "
                                 "waiting")
        return True

    async def updates(self) -> AsyncIterator[Any]:
        """WatchMyMatches, opened again while the tournament service restarts (the
        client's patience: :data:`RECONNECT_FOR`)."""
        async with aclosing(my_matches(self.client, self.token, self.tournament_id)) as updates:
            async for update in updates:
                yield update

    async def catch_up(self, before: int) -> None:
        """Tell what the watch skipped of the rounds before round ``before``: the watch sends
        only the latest state, so a command whose watch started late, or that read slowly,
        may never see a round's bye or its table's result. Each such round's record
        (GetRound) tells it: the bye, or the result of the player's table (a round without
        the player has nothing to tell; a table without a result yet is asked again at the
        next update)."""
        for number in range(1, before):
            if number in self.settled:
                continue
            r = (await self.client.call("GetRound", tournament_id=self.tournament_id,
                                        round=number)).round
            t = next((t for t in r.tables if self.player in t.seats), None)
            if t is not None and t.bye:
                self.once(("bye", number), f"round {number}: a bye (no game this round)")
            elif t is not None and t.HasField("result"):
                self.told_result(number, t, waiting=False)
            elif t is not None:
                continue
            self.settled.add(number)

    async def on_assignment(self, a: Any) -> None:
        from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

        where = f"round {a.round}, table {a.table}"
        if a.bye:
            self.settled.add(a.round)
            self.once(("bye", a.round), f"round {a.round}: a bye (no game this round); "
                      "waiting for the next round or the end")
            return
        if a.seats and a.seats[a.seat] != self.player and a.seat_token:
            raise CliError(f"the token is {a.seats[a.seat]}'s, not {self.player}'s "
                           "(--player names the token's player)", USAGE)
        if a.status == pb.TABLE_STATUS_PAIRED:
            self.once(("paired", a.round, a.table), f"{where}: {' v '.join(a.seats)}; "
                      "its match is being created")
        elif a.status == pb.TABLE_STATUS_DONE:
            await self.tell_result(a)
        elif a.status == pb.TABLE_STATUS_ABANDONED:
            self.told_abandoned(a, (await self.table(a)).abandoned_reason)
        elif a.match_id and a.seat_token and a.match_id not in self.played:
            self.played.add(a.match_id)
            await self.play(a)

    def told_abandoned(self, a: Any, reason: str) -> None:
        """Table ``a``'s match was abandoned: said once, whether the watch shows the table
        abandoned or the seat's own play ends that way first (the watch sends only the latest
        state: a rematch made at once would hide the abandon from it)."""
        self.once(("abandoned", a.match_id),
                  f"round {a.round}, table {a.table}: match {a.match_id} was abandoned "
                  f"({reason or 'no reason'}); waiting for the organiser to have the table "
                  "play again or set its result")

    async def play(self, a: Any) -> None:
        """One match of the player's table: seed and ready, then every decision of the seat."""
        from services.cli.client import client_for
        from services.cli.mm_commands import bot_chooser, play_at_terminal, play_seat
        from services.cli.screen import load_presentation
        from services.cli.terminal import describe_outcome
        from services.cli.tournament_commands import join_table
        from services.rules.records import is_abandoned

        again = " (a rematch)" if "-g" in a.match_id.removeprefix(self.tournament_id) else ""
        print_plain(self.screen, f"round {a.round}, table {a.table}: {' v '.join(a.seats)}; match "
                                 f"{a.match_id}{again}, you are seat {a.seat}")
        self.log.info("tournament.play.match", match_id=a.match_id, round=a.round,
                      table=a.table, seat=a.seat)
        target(f"rules service for {a.game}", a.rules_address)
        rules = client_for(self.rules, a.rules_address)
        if not await join_table(self.client, rules, self.token, self.tournament_id, a):
            print_plain(self.screen, f"match {a.match_id} will not start (abandoned or replaced)")
            return
        target(f"rules service for {a.game}", a.rules_address)  # ReadyForMatch named the other
        self.screen.print("seed added, ready; the match starts when every seat is ready")
        if not await self.starts(a, rules):
            self.log.info("tournament.play.not_started", match_id=a.match_id)
            print_plain(self.screen, f"match {a.match_id} will not start: the organiser decided "
                                     "the table (or abandoned or replaced its match) first")
            return
        if self.bot:
            chooser = bot_chooser(f"{self.player}:{a.match_id}", self.bot, a.game)
            outcome = await play_seat(rules, a.match_id, a.seat, a.seat_token, chooser)
            print_plain(self.screen, describe_outcome(outcome, a.seat, load_presentation(a.game),
                                                      dict(enumerate(a.seats))))
        else:
            outcome = await play_at_terminal(self.screen, rules, a.game, a.match_id, a.seat,
                                             a.seat_token, dict(enumerate(a.seats)), self.ask)
        self.log.info("tournament.play.ended", match_id=a.match_id, outcome=outcome)
        if isinstance(outcome, dict) and is_abandoned(outcome):
            self.told_abandoned(a, str(outcome.get("reason") or ""))
            return
        print_plain(self.screen, f"match {a.match_id} ended; waiting for the table's result")

    async def starts(self, a: Any, rules: RulesClient) -> bool:
        """After ReadyForMatch: wait while the table's match ``a`` awaits its seats, until it
        starts (True: play it) or the tournament no longer waits for it (False: it will
        never start). A match still waiting for its seats when the organiser sets the
        table's result (CorrectResult) is left waiting, never started, so following its
        seat would wait for ever; a table abandoned or replaced meanwhile, or a round
        ended, likewise. Whether the match is going anyway (it started just before) is
        asked of the rules service itself."""
        import asyncio

        from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

        if a.status != pb.TABLE_STATUS_AWAITING_SEATS:
            return True
        while True:
            reply = await self.client.call("MyNextMatch", self.token,
                                           tournament_id=self.tournament_id)
            now = reply.assignment if reply.HasField("assignment") else None
            same = now is not None and (now.round, now.table, now.match_id) == (
                a.round, a.table, a.match_id)
            if same and now.status == pb.TABLE_STATUS_AWAITING_SEATS:
                await asyncio.sleep(STARTS_POLL)
                continue
            if same and now.status == pb.TABLE_STATUS_RUNNING:
                return True
            return await self.started_on(rules, a)

    async def started_on(self, rules: RulesClient, a: Any) -> bool:
        """Whether match ``a`` started (or ended) on its rules service, asked again while
        the service does not answer (a restart), for up to a minute as the seat's own play
        would; a match it does not know will not start."""
        import asyncio
        import time

        import grpc

        from services.genproto.neon.rules.v1 import rules_pb2

        until = time.monotonic() + RECONNECT_FOR
        while True:
            try:
                view = await rules.call("GetView",
                                        rules_pb2.GetViewRequest(match_id=a.match_id),
                                        a.seat_token)
            except grpc.aio.AioRpcError as err:
                if err.code() == grpc.StatusCode.NOT_FOUND:
                    return False
                if err.code() not in (grpc.StatusCode.UNAVAILABLE,
                                      grpc.StatusCode.DEADLINE_EXCEEDED) \
                        or time.monotonic() > until:
                    raise
                await asyncio.sleep(1.0)
                continue
            return view.status != rules_pb2.MATCH_STATUS_AWAITING_SEEDS

    async def table(self, a: Any) -> Any:
        reply = await self.client.call("GetRound", tournament_id=self.tournament_id,
                                       round=a.round)
        return next(t for t in reply.round.tables if t.number == a.table)

    async def tell_result(self, a: Any) -> None:
        """The result of the player's done table: the watch sends it when the table is done,
        and again when the organiser sets it by hand afterwards (each new result is told)."""
        self.settled.add(a.round)
        self.told_result(a.round, await self.table(a))

    def told_result(self, number: int, t: Any, waiting: bool = True) -> None:
        """Round ``number``'s table ``t`` result, once each result it has: a result the
        organiser sets by hand after one was told (a correction, or a correction of a
        correction) is told again, as changed, with the organiser's reason; ``waiting``:
        more may come."""
        r = t.result
        result = result_key(r)
        key = ("result", number, t.number, result)
        if key in self.told:
            return
        changed = self.results.get((number, t.number)) not in (None, result)
        self.results[(number, t.number)] = result
        text = result_text(list(t.seats), list(r.placements))
        if r.kind not in ("", "played"):
            text += f" ({r.kind})"
        if changed and r.reason:
            text += f"; the organiser's reason: {r.reason}"
        self.log.info("tournament.play.result", round=number, table=t.number,
                      placements=list(r.placements), kind=r.kind, changed=changed)
        self.once(key, f"round {number}, table {t.number} result"
                  f"{' changed' if changed else ''}: {text}"
                  + ("; waiting for the next round or the end" if waiting else ""))

    async def close(self) -> None:
        from services.cli.client import close_all

        await close_all(self.rules)


def dropped_text(player: str, t: Any) -> str:
    """The last line of a dropped player's ``tournament play`` (exit 1): no more tables."""
    return (f"{player} was dropped from {t.tournament_id}: no more tables for {player}; the "
            f"rounds played stay in the standings (see: neon tournament standings "
            f"{t.tournament_id})")


def late_entry_until(t: Any) -> int | None:
    """The last round a late entry may join ``t`` in; None when its format takes none (or
    its format is not one this release reads)."""
    import json

    from services.tournament.core.formats import late_entries_refused
    from services.tournament.core.model import FormatConfig, TournamentError

    try:
        config = FormatConfig.from_stored(json.loads(t.format_json))
    except (TournamentError, ValueError, TypeError, KeyError, RecursionError):
        return None
    if late_entries_refused(config) or not config.late_entry_until:
        return None
    return int(config.late_entry_until)


def left_out_text(player: str, t: Any, until: int | None) -> str:
    """The last line of ``tournament play`` for a player the start left out who can no
    longer enter (exit 1)."""
    why = ("its format takes no late entries" if until is None else
           f"it took late entries up to round {until}, and round {t.rounds_paired} is paired")
    return (f"{player} was left out at the start of {t.tournament_id} (not checked in) and "
            f"cannot join it now: {why}")


def _status(value: int) -> str:
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    return pb.TournamentStatus.Name(value).removeprefix("TOURNAMENT_STATUS_").lower()


def _status_of(t: Any, player: str) -> str:
    """``player``'s ``Player.status`` in ``t``: "withdrawn" for one never registered too."""
    return next((p.status for p in t.players if p.player_id == player), "withdrawn")


async def _register(client: TournamentClient, token: str, t: Any, player: str,
                    screen: Console) -> Any:
    """Register as the player itself (registering does not check in: ``--check-in``)."""
    status = _status_of(t, player)
    if status != "withdrawn":
        print_plain(screen, f"{player} is registered already ({STANDING.get(status, status)})")
        return t
    t = (await client.call("Register", token, tournament_id=t.tournament_id,
                           player_id=player)).tournament
    print_plain(screen, f"{player} registered in {t.tournament_id} (not checked in)")
    return t


async def _check_in(client: TournamentClient, token: str, t: Any, player: str,
                    screen: Console) -> Any:
    """Check in as the player itself: confirms the player is here for the start."""
    import grpc

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    tid = t.tournament_id
    status = _status_of(t, player)
    if status == "checked-in":
        print_plain(screen, f"{player} is checked in already")
        return t
    if status == "withdrawn":
        raise CliError(f"{player} cannot check in: not registered in {tid} "
                       f"({_status(t.status)}); pass --register too while registration is open")
    if t.status != pb.TOURNAMENT_STATUS_REGISTRATION:
        if status == "playing":  # started with the player: nothing left to confirm
            print_plain(screen, f"check-in is over ({tid} is {_status(t.status)}); {player} is "
                                "playing")
            return t
        raise CliError(f"{player} cannot check in: check-in is over ({tid} is "
                       f"{_status(t.status)}, {player} is {STANDING.get(status, status)})")
    try:
        t = (await client.call("CheckIn", token, tournament_id=tid, player_id=player)).tournament
    except grpc.aio.AioRpcError as err:  # the tournament started meanwhile, or a withdrawal
        if err.code() not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
            raise
        raise CliError(f"{player} cannot check in: {err.details()}", status=err.code().name,
                       detail=err.details() or "") from None
    print_plain(screen, f"{player} checked in to {tid}")
    return t


async def play_tournament(address: str, tournament_id: str, player: str, token: str, *,
                          bot: str = "", register: bool = False, check_in: bool = False,
                          ask: Ask | None = None, screen: Console = console) -> int:
    """The body of ``neon tournament play`` (tests call it with ``ask`` feeding the choices)."""
    import grpc

    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.rules.bots import bot_kinds

    client = TournamentClient(address)
    seat: TournamentSeat | None = None
    try:
        t = await find_tournament(client, tournament_id)
        if bot and bot not in bot_kinds(t.game):
            raise CliError(f"unknown bot {bot!r} for {t.game}; bots: "
                           f"{', '.join(bot_kinds(t.game))}", USAGE)
        if register:
            t = await _register(client, token, t, player, screen)
        if check_in:
            t = await _check_in(client, token, t, player, screen)
        standing = _status_of(t, player)
        if standing == "withdrawn":
            raise CliError(f"{player} is not registered in {tournament_id} ({_status(t.status)}):"
                           " the organiser registers players, or pass --register while "
                           "registration is open")
        try:  # the token's own check: is it a player token of this deployment, registered here
            await client.call("MyNextMatch", token, tournament_id=tournament_id)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.NOT_FOUND:
                raise
            raise CliError(f"{err.details()}: the token is not {player}'s", USAGE,
                           err.code().name, err.details() or "") from None
        print_plain(screen, f"{player} in {tournament_id} ({t.game} {t.mode}, "
                            f"{_status(t.status)}): {STANDING.get(standing, standing)}; Ctrl-C "
                            "leaves (your seat then plays out on its clock)")
        if standing == "registered" and t.status == pb.TOURNAMENT_STATUS_REGISTRATION:
            screen.print("check in with --check-in when you are here for the start (once "
                         "anyone checks in, the tournament starts with the checked-in players)")
        seat = TournamentSeat(client, token, t, player, bot=bot, ask=ask, screen=screen)
        seat.log.info("tournament.play.start", bot=bot, status=_status(t.status))
        seat.left_out(t)  # ends at once when the start left the player out for good
        status = t.status
        if status not in (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED):
            status = await seat.follow()
        else:  # over before the command: its rounds, then the standings
            await seat.catch_up(t.rounds_paired + 1)
        return await _final(client, tournament_id, player, status, screen)
    finally:
        if seat is not None:
            await seat.close()
        await client.close()


async def _final(client: TournamentClient, tournament_id: str, player: str, status: int,
                 screen: Console) -> int:
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    t = (await client.call("GetTournament", tournament_id=tournament_id)).tournament
    reply = await client.call("GetStandings", tournament_id=tournament_id)
    rows = list(reply.rows)
    reason = f" ({t.reason})" if t.reason else ""
    if status == pb.TOURNAMENT_STATUS_FORCE_ENDED and not rows:  # before its start
        print_plain(screen, f"{tournament_id} was called off before any round was played"
                            f"{reason}: no standings")
        return 0
    ended = "force-ended" if status == pb.TOURNAMENT_STATUS_FORCE_ENDED else "finished"
    print_plain(screen, f"{tournament_id} is {ended}{reason}")
    print_standings(rows, "final standings" if reply.final else "standings", out=screen)
    mine = next((r for r in rows if r.player_id == player), None)
    if mine is None:
        raise CliError(f"{player} is not in the standings of {tournament_id}")
    print_plain(screen, final_text(player, mine, len(rows)))
    return 0


def final_text(player: str, mine: Any, of: int) -> str:
    """The player's last line: its rank of ``of``, points, wins and games (its standings row
    ``mine``), "1 point (1 win in 2 games)"."""
    points = f"{mine.points:g} point{'' if mine.points == 1 else 's'}"
    return (f"{player}: final rank {mine.rank} of {of}, {points} "
            f"({counted(mine.wins, 'win')} in {counted(mine.games, 'game')})")


NO_PLAYER_TOKEN = ("pass your player token with --token or NEON_TOKEN: the organiser mints it "
                   "on the server host with `neon token player ID`")


@friendly
def play(
    tournament_id: str = typer.Argument(..., help="the tournament"),
    player: str = typer.Option(..., "--player", help="your player id"),
    token: str = typer.Option("", envvar="NEON_TOKEN", show_default=False,
                              help="your player token (this deployment's, or your identity "
                              "provider's JWT); default: one minted with this machine's "
                              "deployment keys (on the server host), as `neon queue` does"),
    register: bool = typer.Option(False, "--register", help="register yourself first (this "
                                  "does not check you in)"),
    check_in: bool = typer.Option(False, "--check-in", help="check in (you are here for the "
                                  "start) while registration is open"),
    bot: str = typer.Option("", help="a bot plays your tables: random or rule (the game's "
                            "own); default: you, at the terminal"),
) -> None:
    """Play your tables of a tournament (player).

    Each round's match at the terminal (or --bot), until the tournament finishes; prints
    your final rank."""
    from services.cli.main import _settings, _token, run_async
    from services.cli.tournament_commands import tournament_address
    from services.platform.players import player_id_refused
    from services.platform.tokens import BOT_RESERVED, is_bot

    if is_bot(player):
        raise CliError(BOT_RESERVED, USAGE)
    if (why := player_id_refused(player)) is not None:  # before a token is minted for it
        raise CliError(f"{why}: such a player can never register nor play", USAGE)
    settings = _settings(log_file=True)
    address = tournament_address(settings)
    if not token:
        token = _token(settings, "player", player, 7 * 24 * 3600, NO_PLAYER_TOKEN)
        print_plain(console, f"no --token: playing with a player token for {player} minted with "
                             "this machine's deployment keys")
    raise typer.Exit(run_async(play_tournament(address, tournament_id, player, token,
                                               bot=bot, register=register,
                                               check_in=check_in)))


def register(app: typer.Typer) -> None:
    app.command("play")(play)
