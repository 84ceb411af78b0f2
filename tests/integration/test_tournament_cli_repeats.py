"""An organiser's commands run twice, by two organisers, or over another's work, against a
running tournament service over gRPC (the commands run as their own processes, as in
test_tournament_cli_desk.py): ``start``, ``late-entry`` and ``finish`` say that a repeat
changed nothing rather than announce it as new; ``correct`` names the result it replaced (the
match's, or one set by hand before, with its reason); ``next-round`` names the players the
service dropped as no-shows before pairing; ``round`` of a tournament that paired none says
so rather than "no round 0"."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import format_json, play_round_as, wait_round_complete
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from tests.integration.test_tournament_cli_desk import (  # noqa: F401 (desk: the fixture)
    Desk,
    desk,
    said,
)

pytestmark = pytest.mark.timeout(180)


async def _play_round(at: Desk, tid: str, players: tuple[str, ...]) -> None:
    """Each of ``players`` plays their table of ``tid``'s current round with their token."""
    tokens = {n: at.b.issuer.issue("player", "*", player=n, ttl=600) for n in players}
    rules: dict[str, RulesClient] = {}
    try:
        await asyncio.gather(*(play_round_as(at.client, rules, tokens[n], tid, n,
                                             timeout=120) for n in tokens))
    finally:
        await close_all(rules)


async def test_repeats_say_nothing_changed_and_a_correction_names_what_it_replaced(
        desk: Desk) -> None:  # noqa: F811
    run = desk.run
    await desk.client.call("CreateTournament", desk.org, tournament_id="twice",
                           game="neon-reign", mode="single",
                           format_json=json.dumps({**json.loads(format_json("swiss", 1)),
                                                   "late_entry_until": 1}))
    await desk.client.call("OpenRegistration", desk.org, tournament_id="twice")
    for n in ("ann", "ben", "cat"):
        await desk.register("twice", n)

    none = await run("tournament", "round", "twice")
    assert none.returncode == 1, none.stdout + none.stderr
    assert said(none.stderr) == ("twice has no round paired yet (status: registration); "
                                 "`neon tournament next-round twice` pairs round 1"), none.stderr
    as_json = await run("tournament", "round", "twice", "--json")
    assert json.loads(as_json.stdout)["error"]["code"] == "NOT_FOUND", as_json.stdout
    missing = await run("tournament", "round", "twice", "3")  # a number given: the service's
    assert "no round 3 (rounds paired: 0)" in said(missing.stderr), missing.stderr

    first = await run("tournament", "start", "twice")
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.splitlines() == ["started with 3 players; 1 round planned"]
    version = (await desk.tournament("twice")).version
    again = await run("tournament", "start", "twice")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines() == ["twice was already started with 3 players; 1 round "
                                         "planned"]
    assert (await desk.tournament("twice")).version == version, "a repeat records nothing"

    late = await run("tournament", "late-entry", "twice", "dan")
    assert late.stdout.splitlines() == ["dan enters twice from the next round"], late.stderr
    late = await run("tournament", "late-entry", "twice", "dan")
    assert late.returncode == 0, late.stdout + late.stderr
    assert late.stdout.splitlines() == ["dan is a late entry of twice already: nothing changed"]
    playing = await run("tournament", "late-entry", "twice", "ann")  # registered, started
    assert playing.returncode == 0, playing.stdout + playing.stderr
    assert playing.stdout.splitlines() == ["ann plays in twice already: nothing changed"]

    tables = (await desk.client.call("NextRound", desk.org, tournament_id="twice")).round.tables
    await _play_round(desk, "twice", ("ann", "ben", "cat", "dan"))
    done = await wait_round_complete(desk.client, "twice", 1, timeout=120)
    played = done.tables[0]
    placements = list(played.result.placements)
    winner = played.seats[placements.index(1)]
    loser = next(s for s in played.seats if s != winner)
    was = "draw" if placements.count(1) > 1 else f"{winner} wins"  # a game may end drawn
    flipped = ",".join("1" if s == loser else "2" for s in played.seats)
    assert [list(t.seats) for t in done.tables] == [list(t.seats) for t in tables]

    fixed = await run("tournament", "correct", "twice", "1", "1", "--placements", flipped,
                      "--reason", "a misclick")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stdout.splitlines()[-1] == (f"table 1 of round 1: replaces the match's result "
                                             f"({was})"), fixed.stdout
    same = await run("tournament", "correct", "twice", "1", "1", "--placements", flipped,
                     "--reason", "a misclick")
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.splitlines()[-1] == ("table 1 of round 1 had this result already: "
                                            "nothing changed"), same.stdout
    back = ",".join("2" if s == loser else "1" for s in played.seats)
    olga = desk.b.issuer.issue("organiser", "*", player="olga", ttl=600)
    other = await run("tournament", "correct", "twice", "1", "1", "--placements", back,
                      "--forfeited", "--reason", f"{loser} left", NEON_TOKEN=olga)
    assert other.returncode == 0, other.stdout + other.stderr
    assert said(other.stdout).endswith(
        f"table 1 of round 1: replaces the result set by hand before ({loser} wins: a "
        "misclick)"), other.stdout
    table = (await desk.client.call("GetRound", tournament_id="twice", round=1)).round.tables[0]
    assert (table.result.kind, table.result.reason) == ("correction", f"{loser} left")

    await desk.client.call("DropPlayer", desk.org, tournament_id="twice", player_id="ann",
                           reason="went home")
    back = await run("tournament", "late-entry", "twice", "ann")
    assert back.returncode == 1, back.stdout + back.stderr
    assert said(back.stderr) == ("FAILED_PRECONDITION: 'ann' was dropped from this tournament: "
                                 "a dropped player comes back by ReinstatePlayer (`neon "
                                 "tournament reinstate`, Swiss and multiplayer), not as a late "
                                 "entry"), back.stderr

    finished = await run("tournament", "finish", "twice")
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "already" not in finished.stdout and "final standings" in finished.stdout
    version = (await desk.tournament("twice")).version
    repeat = await run("tournament", "finish", "twice")
    assert repeat.returncode == 0, repeat.stdout + repeat.stderr
    assert repeat.stdout.splitlines()[0] == "twice was already finished: nothing changed"
    assert "final standings" in repeat.stdout
    assert (await desk.tournament("twice")).version == version


async def test_next_round_names_the_no_shows_it_dropped(desk: Desk) -> None:  # noqa: F811
    """p3 never comes to its table in round 1 (a 1.5 s clock forfeits its seat): the organiser's
    ``next-round`` pairs round 2 without them and says so, naming them and how to reinstate."""
    names = ["p0", "p1", "p2", "p3"]
    await desk.client.call("CreateTournament", desk.org, tournament_id="shows",
                           game="neon-reign", mode="single", format_json=format_json("swiss", 2),
                           check_in_seconds=2, no_show=pb.NO_SHOW_POLICY_FORFEIT,
                           clock=pb.Clock(per_decision_ms=1500, max_timeouts=1))
    await desk.client.call("OpenRegistration", desk.org, tournament_id="shows")
    for n in names:
        await desk.register("shows", n)
    await desk.client.call("StartTournament", desk.org, tournament_id="shows")
    await desk.client.call("NextRound", desk.org, tournament_id="shows")
    tokens = {n: desk.b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    try:
        await asyncio.gather(*(play_round_as(desk.client, rules, tokens[n], "shows", n,
                                             timeout=120) for n in names if n != "p3"))
    finally:
        await close_all(rules)
    await wait_round_complete(desk.client, "shows", 1, timeout=120)
    paired = await desk.run("tournament", "next-round", "shows")
    assert paired.returncode == 0, paired.stdout + paired.stderr
    assert said(paired.stdout).endswith(
        "p3 was dropped before round 2 was paired: a no-show of round 1 (never came to their "
        "table); `neon tournament reinstate shows PLAYER --reason ...` pairs a player again "
        "from the next round"), paired.stdout
    assert (await desk.statuses("shows"))["p3"] == "dropped"


async def test_round_watch_prints_each_table_once(desk: Desk) -> None:  # noqa: F811
    """``round --watch`` follows a round to its checkpoint: each table it prints differs from
    the one before (a change the table does not show, such as the match's final hash as it
    is sealed, printed the same table again)."""
    await desk.create("seen", ("ann", "ben"))
    await desk.client.call("StartTournament", desk.org, tournament_id="seen")
    await desk.client.call("NextRound", desk.org, tournament_id="seen")
    watching = asyncio.create_task(desk.run("tournament", "round", "seen", "--watch"))
    await asyncio.sleep(2.0)  # the watch prints the round waiting for its seats
    await _play_round(desk, "seen", ("ann", "ben"))
    out = await asyncio.wait_for(watching, 120)
    assert out.returncode == 0, out.stdout + out.stderr
    tables: list[str] = []
    for line in out.stdout.splitlines():
        if line.strip() == "round 1":  # a table's title: a new table
            tables.append("")
        elif tables:
            tables[-1] += line + "\n"
    assert len(tables) >= 2 and "waiting for seats" in tables[0], out.stdout
    assert "checkpoint: Merkle root" in tables[-1], out.stdout
    assert all(a != b for a, b in zip(tables, tables[1:])), out.stdout


async def test_two_starts_at_once_one_starts_the_other_is_told_it_was_started(
        desk: Desk) -> None:  # noqa: F811
    """Two organisers start the tournament at the same moment: the service answers exactly
    one of them already_started=False (three calls at once over gRPC), and of two `start`
    commands exactly one prints "started". The command used to judge by the version it read
    before its call, which two commands at once can both read before either starts; whether
    the two processes here overlap that closely is up to the machine, the gRPC calls do."""
    for tid in ("both", "both_cli"):
        await desk.client.call("CreateTournament", desk.org, tournament_id=tid,
                               game="neon-reign", mode="single",
                               format_json=format_json("swiss", 1))
        await desk.client.call("OpenRegistration", desk.org, tournament_id=tid)
        for n in ("ann", "ben"):
            await desk.register(tid, n)

    answers = await asyncio.gather(*(desk.client.call("StartTournament", desk.org,
                                                      tournament_id="both") for _ in range(3)))
    assert sorted(a.already_started for a in answers) == [False, True, True]
    assert {a.tournament.version for a in answers} == {(await desk.tournament("both")).version}
    again = await desk.client.call("StartTournament", desk.org, tournament_id="both")
    assert again.already_started and list(again.left_out) == []

    runs = await asyncio.gather(*(desk.run("tournament", "start", "both_cli") for _ in range(2)))
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    said_ = sorted(r.stdout.strip() for r in runs)
    assert said_ == ["both_cli was already started with 2 players; 1 round planned",
                     "started with 2 players; 1 round planned"], said_
