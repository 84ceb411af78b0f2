"""``neon tournament register``, ``check-in`` and ``withdraw``: the organiser's desk before the start,
against a running tournament service over gRPC (the commands run as their own processes,
as in test_tournament_cli.py): one CheckIn or Withdraw per player, each player's result, the
counts naming who has not checked in, a refused player named with the service's reason while
the others go on (exit 1), a player token acting only for its own player, and ``--json``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.cli.tournament_commands import TournamentClient, format_json
from tests.integration.test_tournament_cli import _rows, neon, tournament_backend
from tests.integration.test_tournament_cli_json import proto_json

pytestmark = pytest.mark.timeout(180)


@dataclass
class Desk:
    b: Any
    client: TournamentClient
    org: str
    run: Callable[..., Awaitable[Any]]

    async def create(self, tid: str, players: tuple[str, ...], fmt: str = "swiss") -> None:
        """A neon-reign single event of format ``fmt`` (a Swiss: one round), registration
        open, ``players`` registered."""
        await self.client.call("CreateTournament", self.org, tournament_id=tid,
                               game="neon-reign", mode="single",
                               format_json=format_json(fmt, 1 if fmt == "swiss" else 0))
        await self.client.call("OpenRegistration", self.org, tournament_id=tid)
        for n in players:
            await self.register(tid, n)

    async def started(self, tid: str, fmt: str, players: tuple[str, ...]) -> None:
        """:meth:`create`, then started."""
        await self.create(tid, players, fmt)
        await self.client.call("StartTournament", self.org, tournament_id=tid)

    async def register(self, tid: str, player: str) -> None:
        await self.client.call("Register", self.org, tournament_id=tid, player_id=player)

    async def tournament(self, tid: str) -> Any:
        return (await self.client.call("GetTournament", tournament_id=tid)).tournament

    async def statuses(self, tid: str) -> dict[str, str]:
        return {p.player_id: p.status for p in (await self.tournament(tid)).players}


@pytest.fixture
async def desk(tmp_path: Path, nats_url: str) -> AsyncIterator[Desk]:
    b, env = await tournament_backend(tmp_path, nats_url)

    async def run(*args: str, **extra: str) -> Any:
        """``neon ARGS`` as its own process; ``extra``: more environment (NEON_TOKEN)."""
        return await asyncio.to_thread(neon, {**env, **extra}, *args)

    d = Desk(b, TournamentClient(b.address("tournament")),
             b.issuer.issue("organiser", "*", player="org", ttl=600), run)
    try:
        yield d
    finally:
        await d.client.close()
        await b.stop(1)


def said(text: str) -> str:
    """``text`` with rich's line wrapping undone."""
    return " ".join(text.split())


async def test_the_desk_checks_players_in_withdraws_and_the_start_follows(desk: Desk) -> None:
    """Two of three players checked in: the counts name the third; a repeat says so and
    records nothing; a player not registered is named with the service's reason and exit 1
    while the other is checked in; a withdrawal before the start (repeated: said so), after
    which the withdrawn player cannot check in; `start` refuses naming the player who did not
    check in, `start --checked-in-only` starts without her; then check-in and withdraw are
    refused with the service's reasons."""
    run = desk.run
    await desk.create("desk", ("ann", "ben", "cat"))

    two = await run("tournament", "check-in", "desk", "ann", "ben")
    assert two.returncode == 0, two.stdout + two.stderr
    assert two.stdout.splitlines()[:2] == ["ann checked in", "ben checked in"], two.stdout
    assert ("desk: 2 checked in, 1 registered but not checked in: cat; start refuses without "
            "them unless --checked-in-only") in said(two.stdout), two.stdout
    assert two.stderr == ""
    assert await desk.statuses("desk") == {"ann": "checked-in", "ben": "checked-in",
                                           "cat": "registered"}

    version = (await desk.tournament("desk")).version
    again = await run("tournament", "check-in", "desk", "ann")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[0] == "ann is checked in already", again.stdout
    assert "2 checked in, 1 registered but not checked in: cat" in said(again.stdout)
    assert (await desk.tournament("desk")).version == version, "a repeat records nothing"

    for n in ("dan", "eve"):
        await desk.register("desk", n)
    mixed = await run("tournament", "check-in", "desk", "zed", "dan")
    assert mixed.returncode == 1, mixed.stdout + mixed.stderr
    assert "zed cannot be checked in: 'zed' is not registered" in said(mixed.stderr)
    assert "1 of 2 players not checked in: zed" in said(mixed.stderr)
    assert mixed.stdout.splitlines()[0] == "dan checked in", mixed.stdout
    assert ("desk: 3 checked in, 2 registered but not checked in: cat, eve"
            in said(mixed.stdout)), mixed.stdout
    assert (await desk.statuses("desk"))["dan"] == "checked-in"
    assert "zed" not in await desk.statuses("desk")

    gone = await run("tournament", "withdraw", "desk", "eve")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert gone.stdout.splitlines()[0] == "eve withdrawn", gone.stdout
    assert ("desk: 3 checked in, 1 registered but not checked in: cat; 1 withdrawn; start "
            "refuses without them unless --checked-in-only"
            in said(gone.stdout)), gone.stdout
    twice = await run("tournament", "withdraw", "desk", "eve", "zed")
    assert twice.returncode == 1, twice.stdout + twice.stderr
    assert twice.stdout.splitlines()[0] == "eve was withdrawn already", twice.stdout
    assert "zed cannot be withdrawn: 'zed' is not registered" in said(twice.stderr)
    late = await run("tournament", "check-in", "desk", "eve")
    assert late.returncode == 1, late.stdout + late.stderr
    assert "eve cannot be checked in: 'eve' is not registered; eve is withdrawn" in \
        said(late.stderr), late.stderr
    assert (await desk.statuses("desk"))["eve"] == "withdrawn"

    refused = await run("tournament", "start", "desk")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "1 registered player did not check in: cat." in said(refused.stderr)
    assert "pass --checked-in-only to start without them" in said(refused.stderr)
    started = await run("tournament", "start", "desk", "--checked-in-only")
    assert started.returncode == 0, started.stdout + started.stderr
    assert ("started with 3 checked-in players; 1 registered player who did not check in is "
            "not playing: cat (1 round planned;") in said(started.stdout), started.stdout

    over = await run("tournament", "check-in", "desk", "cat", "ann")
    assert over.returncode == 1, over.stdout + over.stderr
    why = said(over.stderr)
    assert ("cat cannot be checked in: check-in is over (the tournament is running); cat is "
            "registered, not checked in") in why, why
    assert "ann cannot be checked in: check-in is over (the tournament is running); ann is " \
        "playing" in why, why
    assert "2 of 2 players not checked in: cat, ann" in why, why
    assert ("desk is running (check-in is over): 3 playing, 1 registered but not playing: "
            "cat; 1 withdrawn") in said(over.stdout), over.stdout
    dropped = await run("tournament", "withdraw", "desk", "ann")
    assert dropped.returncode == 1, dropped.stdout + dropped.stderr
    assert ("ann cannot be withdrawn: the tournament has started: drop the player instead; "
            "ann is playing") in said(dropped.stderr), dropped.stderr
    assert "1 of 1 player not withdrawn: ann" in said(dropped.stderr)
    assert await desk.statuses("desk") == {"ann": "playing", "ben": "playing", "cat": "registered",
                                           "dan": "playing", "eve": "withdrawn"}


async def test_the_desk_with_a_player_token_and_json(desk: Desk) -> None:
    """--token / NEON_TOKEN: a player token checks its own player in, and acting for another
    player is refused with a clear line; --json prints GetTournament's answer (and the
    {"error": ...} line when a player was refused); a tournament that does not exist."""
    run = desk.run
    await desk.create("kiosk", ("ann", "ben", "cat"))
    ann = desk.b.issuer.issue("player", "*", player="ann", ttl=600)
    await desk.register("kiosk", "dan")
    first = await run("tournament", "withdraw", "kiosk", "dan")
    assert first.returncode == 0, first.stdout + first.stderr
    assert ("kiosk: 0 checked in, 3 registered but not checked in: ann, ben, cat; 1 withdrawn "
            "(nobody checked in: start takes every registered player)") in said(first.stdout)

    own = await run("tournament", "check-in", "kiosk", "ann", NEON_TOKEN=ann)
    assert own.returncode == 0, own.stdout + own.stderr
    assert own.stdout.splitlines()[0] == "ann checked in", own.stdout
    other = await run("tournament", "check-in", "kiosk", "ben", "--token", ann)
    assert other.returncode == 1, other.stdout + other.stderr
    assert ("ben cannot be checked in: a player token acts only for its own player; an "
            "organiser token acts for any player: mint one on the server host with `neon token "
            "organiser NAME` and pass it with --token or NEON_TOKEN, or leave out --token and "
            "NEON_TOKEN to mint one with this machine's deployment keys") in said(other.stderr), \
        other.stderr
    assert (await desk.statuses("kiosk"))["ben"] == "registered"
    withdrawn = await run("tournament", "withdraw", "kiosk", "cat", NEON_TOKEN=ann)
    assert withdrawn.returncode == 1, withdrawn.stdout + withdrawn.stderr
    assert "cat cannot be withdrawn: a player token acts only for its own player" in \
        said(withdrawn.stderr)
    assert (await desk.statuses("kiosk"))["cat"] == "registered"

    answered = await run("tournament", "check-in", "kiosk", "ben", "--json")
    assert answered.returncode == 0, answered.stdout + answered.stderr
    [shown] = [json.loads(line) for line in answered.stdout.splitlines()]
    assert shown == proto_json(await desk.client.call("GetTournament", tournament_id="kiosk"))
    assert {p["playerId"]: p["status"] for p in shown["tournament"]["players"]} == \
        {"ann": "checked-in", "ben": "checked-in", "cat": "registered", "dan": "withdrawn"}

    partly = await run("tournament", "withdraw", "kiosk", "cat", "zed", "--json")
    assert partly.returncode == 1, partly.stdout + partly.stderr
    shown, error = [json.loads(line) for line in partly.stdout.splitlines()]
    assert shown == proto_json(await desk.client.call("GetTournament", tournament_id="kiosk"))
    assert {p["playerId"]: p["status"] for p in shown["tournament"]["players"]}["cat"] == \
        "withdrawn"
    assert error == {"error": {"code": "FAILED",
                               "message": "1 of 2 players not withdrawn: zed"}}
    assert "zed cannot be withdrawn: 'zed' is not registered" in said(partly.stderr)

    missing = await run("tournament", "check-in", "no_such_cup", "ann")
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "no tournament 'no_such_cup' on this deployment" in said(missing.stderr)


async def test_register_goes_on_past_a_refused_player(desk: Desk) -> None:
    """`register` with a refused id in the middle registers the others, names the refused one
    with the service's reason, says how many it registered and exits 1; after the start a
    new player is refused (registration is not open) as is one already playing; a player
    token registers its own player and is refused for another, the others going on."""
    run = desk.run
    await desk.create("reg", ("ann",))

    mixed = await run("tournament", "register", "reg", "ben", "bot-x", "cat", "ann")
    assert mixed.returncode == 1, mixed.stdout + mixed.stderr
    assert mixed.stdout.strip() == "2 newly registered; already registered: ann", mixed.stdout
    assert said(mixed.stderr) == ("bot-x cannot be registered: player ids starting with 'bot-' "
                                  "are reserved for bots 1 of 4 players not registered: bot-x"), \
        mixed.stderr
    assert await desk.statuses("reg") == {"ann": "registered", "ben": "registered",
                                          "cat": "registered"}

    bad = await run("tournament", "register", "reg", "dan", "no spaces", "bot-y", "eve")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert bad.stdout.strip() == "2 newly registered", bad.stdout
    why = said(bad.stderr)
    assert "no spaces cannot be registered: player id 'no spaces' must be 1-64 letters" in why
    assert "bot-y cannot be registered: player ids starting with 'bot-'" in why, why
    assert why.endswith("2 of 4 players not registered: no spaces, bot-y"), why

    fay = desk.b.issuer.issue("player", "*", player="fay", ttl=600)
    own = await run("tournament", "register", "reg", "gus", "fay", NEON_TOKEN=fay)
    assert own.returncode == 1, own.stdout + own.stderr
    assert own.stdout.strip() == "1 newly registered", own.stdout
    assert ("gus cannot be registered: a player token acts only for its own player; an "
            "organiser token acts for any player: mint one on the server host with `neon token "
            "organiser NAME`") in said(own.stderr), own.stderr
    assert "1 of 2 players not registered: gus" in said(own.stderr)
    assert (await desk.statuses("reg")).get("fay") == "registered"
    assert "gus" not in await desk.statuses("reg")

    assert (await run("tournament", "start", "reg")).returncode == 0
    late = await run("tournament", "register", "reg", "hal", "ann")
    assert late.returncode == 1, late.stdout + late.stderr
    assert late.stdout.strip() == "0 newly registered", late.stdout
    why = said(late.stderr)
    assert ("hal cannot be registered: registration is not open (the tournament is running); "
            "an organiser may add a late entry") in why, why
    assert "ann cannot be registered: registration is not open" in why and "ann is playing" in why
    assert why.endswith("2 of 2 players not registered: hal, ann"), why
    assert "hal" not in await desk.statuses("reg")


async def test_finish_force_says_what_it_ended(desk: Desk) -> None:
    """`finish --force` says what happened: a tournament called off before the start has no
    standings (no empty table); one started with no round paired, its standings with no
    results; one played, its force-ended standings; a repeat keeps the first reason and says
    so; a finished one is left as it is (test_tournament_cli.py). --json is ForceEnd's
    tournament and GetStandings' rows, as FinishTournament answers, in every case."""
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    run = desk.run
    await desk.create("off", ("ann", "ben", "cat"))
    off = await run("tournament", "finish", "off", "--force", "the venue [was] lost")
    assert off.returncode == 0, off.stdout + off.stderr
    assert said(off.stdout) == ("off called off before any round was played (the venue [was] "
                                "lost): no standings"), off.stdout
    assert "standings (" not in off.stdout and "│" not in off.stdout, "no empty table"
    t = await desk.tournament("off")
    assert (t.status, t.reason, t.rounds_paired) == (
        pb.TOURNAMENT_STATUS_FORCE_ENDED, "the venue [was] lost", 0)
    standings = await desk.client.call("GetStandings", tournament_id="off")
    assert standings.final and list(standings.rows) == []
    again = await run("tournament", "finish", "off", "--force", "rain")
    assert again.returncode == 0, again.stdout + again.stderr
    assert said(again.stdout) == ("off was already called off before any round was played (the "
                                  "venue [was] lost): no standings"), again.stdout
    answered = await run("tournament", "finish", "off", "--force", "rain", "--json")
    assert answered.returncode == 0, answered.stdout + answered.stderr
    [shown] = [json.loads(line) for line in answered.stdout.splitlines()]
    assert shown == proto_json(pb.FinishTournamentResponse(tournament=t, rows=standings.rows))
    assert shown["rows"] == [] and shown["tournament"]["reason"] == "the venue [was] lost"

    await desk.create("early", ("ann", "ben"))
    await desk.client.call("StartTournament", desk.org, tournament_id="early")
    early = await run("tournament", "finish", "early", "--force", "storm")
    assert early.returncode == 0, early.stdout + early.stderr
    lines = early.stdout.splitlines()
    assert lines[0] == ("early force-ended before its first round was paired (storm): no rounds "
                        "were played"), early.stdout
    assert "final standings (force-ended)" in early.stdout
    assert sorted(row[1] for row in _rows(early.stdout)) == ["ann", "ben"], early.stdout

    await desk.create("mid", ("ann", "ben"))
    await desk.client.call("StartTournament", desk.org, tournament_id="mid")
    await desk.client.call("NextRound", desk.org, tournament_id="mid")
    mid = await run("tournament", "finish", "mid", "--force", "fire")
    assert mid.returncode == 0, mid.stdout + mid.stderr
    assert "final standings (force-ended)" in mid.stdout.splitlines()[0], mid.stdout
    assert sorted(row[1] for row in _rows(mid.stdout)) == ["ann", "ben"], mid.stdout
    repeat = await run("tournament", "finish", "mid", "--force", "smoke")
    assert repeat.returncode == 0, repeat.stdout + repeat.stderr
    assert repeat.stdout.splitlines()[0] == "mid was already force-ended (fire)", repeat.stdout
    assert _rows(repeat.stdout) == _rows(mid.stdout)
    ended = await run("tournament", "finish", "mid", "--force", "smoke", "--json")
    [shown] = [json.loads(line) for line in ended.stdout.splitlines()]
    rows = (await desk.client.call("GetStandings", tournament_id="mid")).rows
    assert shown == proto_json(pb.FinishTournamentResponse(tournament=await desk.tournament("mid"),
                                                           rows=rows))
