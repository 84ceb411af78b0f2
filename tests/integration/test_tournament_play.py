"""``neon tournament play``: registered players play their own tables from the terminal,
against a running backend (real gRPC, NATS and stores): bots as their own processes, a
person in process with the choices fed through the prompt, and the command's failures."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import pty
import random
import re
import select
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from rich.console import Console

from services.cli import main as cli
from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.cli.tournament_play import play_tournament
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import logs
from tests.integration.test_terminal_play import JSON_LOG
from tests.integration.test_tournament_cli import ROOT, neon, tournament_backend

pytestmark = pytest.mark.timeout(300)
FINAL = re.compile(r"(\S+): final rank (\d+) of (\d+), ([\d.]+) points?")
INTERRUPTIBLE = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                 "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")
"""Run a command with SIGINT's default action, as a terminal's foreground job has it, also
when pytest ignores SIGINT (started with ``&`` by a shell without job control, or under
nohup): an ignored signal stays ignored across exec, and Python then leaves Ctrl-C ignored,
so the SIGINT of the tests below would do nothing. Set in a process of its own, which then
becomes the command (no ``preexec_fn``, unsafe in this test's process, where gRPC's threads
run)."""
NEON = [sys.executable, "-c", INTERRUPTIBLE, "-m", "services.cli.main"]


@dataclasses.dataclass
class Event:
    """A backend with the tournament service, its organiser's client, and the players'
    commands started in the test (killed at its end if still running)."""

    b: Any
    env: dict[str, str]
    client: TournamentClient
    org: str
    rules: dict[str, RulesClient] = dataclasses.field(default_factory=dict)
    procs: list[asyncio.subprocess.Process] = dataclasses.field(default_factory=list)

    async def create(self, tid: str, rounds: int, players: tuple[str, ...] = (),
                     start: bool = False, **kw: Any) -> None:
        """A neon-reign single Swiss, registration open, ``players`` registered by the
        organiser, and started when ``start``."""
        await self.client.call("CreateTournament", self.org, tournament_id=tid, game="neon-reign",
                               mode="single",
                               **{"format_json": format_json("swiss", rounds), **kw})
        await self.client.call("OpenRegistration", self.org, tournament_id=tid)
        for n in players:
            await self.client.call("Register", self.org, tournament_id=tid, player_id=n)
        if start:
            await self.client.call("StartTournament", self.org, tournament_id=tid)

    async def call(self, rpc: str, tid: str, **kw: Any) -> Any:
        """An organiser's call about tournament ``tid``."""
        return await self.client.call(rpc, self.org, tournament_id=tid, **kw)

    def token(self, name: str) -> str:
        return self.b.issuer.issue("player", "*", player=name, ttl=600)

    async def player(self, *args: str, **env: str) -> asyncio.subprocess.Process:
        """``neon tournament play ARGS`` as its own process, its output piped."""
        proc = await asyncio.create_subprocess_exec(
            *NEON, "tournament", "play", *args, env={**self.env, **env}, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        self.procs.append(proc)
        return proc


@pytest.fixture
async def event(tmp_path: Path, nats_url: str) -> AsyncIterator[Event]:
    b, env = await tournament_backend(tmp_path, nats_url)
    e = Event(b, env, TournamentClient(b.address("tournament")),
              b.issuer.issue("organiser", "*", player="org", ttl=600))
    try:
        yield e
    finally:
        for p in e.procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
        await close_all(e.rules)
        await e.client.close()
        await b.stop(1)


async def finished(proc: asyncio.subprocess.Process, timeout: float = 120) -> tuple[int, str, str]:
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode or 0, out.decode(), err.decode()


async def read_until(proc: asyncio.subprocess.Process, text: str, timeout: float = 60) -> str:
    """The process's output up to the line holding ``text``."""
    assert proc.stdout is not None
    seen = ""
    while text not in seen:
        line = await asyncio.wait_for(proc.stdout.readline(), timeout)
        if not line:  # it exited: what it said on stderr says why
            err = (await proc.stderr.read()).decode() if proc.stderr is not None else ""
            raise AssertionError(f"the output ended before {text!r}: {seen}\nstderr: {err}")
        seen += line.decode()
    return seen


async def refusing(address: str) -> bool:
    """Whether the service at ``address`` refuses new calls (health NOT_SERVING, or calls
    refused: it is stopping or gone)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from services.platform.grpc_kit import channel

    ch = channel(address)
    try:
        reply = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                          timeout=5)
        return reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
    except grpc.aio.AioRpcError as err:
        return err.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await ch.close()


async def until(check: Any, timeout: float = 60, what: str = "") -> Any:
    for _ in range(int(timeout * 10)):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


async def test_four_players_play_a_swiss_with_their_own_commands(event: Event) -> None:
    """Four `neon tournament play --register --check-in --bot random` processes register
    and check in themselves, play every table of a 2-round Swiss and exit 0 with the rank
    GetStandings gives."""
    names = ["ann", "ben", "cat", "dan"]
    await event.create("own_cup", 2)
    procs = [await event.player("own_cup", "--player", n, "--register", "--check-in", "--bot",
                                "random") for n in names]

    async def all_checked_in() -> bool:
        t = (await event.client.call("GetTournament", tournament_id="own_cup")).tournament
        return sorted(p.player_id for p in t.players if p.status == "checked-in") == names

    await until(all_checked_in, what="the four players checked in")
    await event.call("StartTournament", "own_cup")
    for number in (1, 2):
        await event.call("NextRound", "own_cup")
        await wait_round_complete(event.client, "own_cup", number, timeout=120)
    await event.call("FinishTournament", "own_cup")
    results = [await finished(p) for p in procs]
    standings = {r.player_id: r for r in
                 (await event.client.call("GetStandings", tournament_id="own_cup")).rows}
    for n, (code, out, err) in zip(names, results):
        assert code == 0, (n, out, err)
        assert "no --token: playing with a player token for" in out
        assert f"{n} registered in own_cup (not checked in)\n{n} checked in to own_cup" in out
        assert f"{n} in own_cup (neon-reign single, registration): checked in;" in out
        assert "seed added, ready" in out and "own_cup is finished" in out
        assert re.search(r"round 1, table \d result: ", out), out
        assert re.search(r"round 2, table \d result: ", out), out
        assert FINAL.findall(out)[-1][:4] == \
            (n, str(standings[n].rank), "4", f"{standings[n].points:g}"), out
        assert not JSON_LOG.search(out) and not JSON_LOG.search(err), "a log line on screen"
    for number in (1, 2):
        r = (await event.client.call("GetRound", tournament_id="own_cup", round=number)).round
        assert r.complete and len(r.tables) == 2
        for t in r.tables:
            assert t.status == pb.TABLE_STATUS_DONE and t.HasField("result")
            assert t.result.kind == "played" and sorted(t.result.placements) in ([1, 2], [1, 1])
            mine = [out for n, (_, out, _) in zip(names, results) if n in t.seats]
            assert len(mine) == 2 and all(f"match {t.match_id}, you are seat" in o for o in mine)
    # the tournament over, the command tells the rank at once
    code, out, err = await finished(await event.player("own_cup", "--player", "cat"))
    assert code == 0, err
    assert FINAL.findall(out)[-1][1] == str(standings["cat"].rank)
    assert "seed added" not in out


async def statuses(event: Event, tid: str) -> dict[str, str]:
    t = (await event.client.call("GetTournament", tournament_id=tid)).tournament
    return {p.player_id: p.status for p in t.players}


async def test_register_does_not_check_in_so_a_mixed_field_starts_with_everyone(
        event: Event) -> None:
    """The organiser registers three players (none checks in); a fourth registers herself
    with `--register`: she is registered, not checked in, and told how to check in; the
    start takes all four, and `neon tournament start` names nobody left out."""
    await event.create("mixed", 2, ("ann", "ben", "cat"))
    dee = await event.player("mixed", "--player", "dee", "--register", "--bot", "random")
    out = await read_until(dee, "waiting for the organiser to start")
    assert "dee registered in mixed (not checked in)" in out, out
    assert "dee in mixed (neon-reign single, registration): registered, not checked in;" in out
    assert "check in with --check-in" in out
    assert "checked in to" not in out
    assert await statuses(event, "mixed") == dict.fromkeys(["ann", "ben", "cat", "dee"],
                                                           "registered")
    started = await asyncio.to_thread(neon, event.env, "tournament", "start", "mixed")
    assert started.returncode == 0, started.stderr
    assert "started with 4 players; 2 rounds planned" in started.stdout, started.stdout
    assert "not playing" not in started.stdout
    assert set((await statuses(event, "mixed")).values()) == {"playing"}


async def test_check_in_and_a_start_that_leaves_registered_players_out(event: Event) -> None:
    """`--check-in` checks a registered player in (with `--register` too for a new one);
    `neon tournament start` is then refused by the service (exit 2, naming the registered
    players who did not check in) until `--checked-in-only`, which starts with the
    checked-in players and names those left out; a repeat names the same ones. Check-in
    refused: not registered, the tournament started."""
    await event.create("half", 1, ("ann", "ben", "cat", "dan"))

    async def run(*args: str) -> tuple[int, str, str]:
        return await finished(await event.player(*args), 60)

    code, out, err = await run("half", "--player", "zed", "--check-in")
    assert code == 1, (out, err)
    assert "zed cannot check in: not registered in half (registration); pass --register" in err
    ann = await event.player("half", "--player", "ann", "--check-in", "--bot", "random")
    out = await read_until(ann, "waiting for the organiser to start")
    assert "ann checked in to half" in out, out
    assert "ann in half (neon-reign single, registration): checked in;" in out
    assert "check in with --check-in" not in out
    eve = await event.player("half", "--player", "eve", "--register", "--check-in", "--bot",
                             "random")
    out = await read_until(eve, "waiting for the organiser to start")
    assert "eve registered in half (not checked in)\neve checked in to half" in out, out
    assert await statuses(event, "half") == {"ann": "checked-in", "ben": "registered",
                                             "cat": "registered", "dan": "registered",
                                             "eve": "checked-in"}
    refused = await asyncio.to_thread(neon, event.env, "tournament", "start", "half")
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    said = " ".join(refused.stderr.split())
    assert "3 registered players did not check in: ben, cat, dan." in said, refused.stderr
    assert "pass --checked-in-only to start without them" in said, refused.stderr
    assert set((await statuses(event, "half")).values()) == {"checked-in", "registered"}, \
        "refused before the start: nobody is playing yet"
    started = await asyncio.to_thread(neon, event.env, "tournament", "start", "half",
                                      "--checked-in-only")
    assert started.returncode == 0, started.stderr
    named = ("started with 2 checked-in players; 3 registered players who did not check in "
             "are not playing: ben, cat, dan")
    assert named in " ".join(started.stdout.split()), started.stdout
    again = await asyncio.to_thread(neon, event.env, "tournament", "start", "half")
    assert again.returncode == 0, again.stderr  # running: StartTournament answers as it is
    assert named in " ".join(again.stdout.split()), again.stdout
    code, out, err = await run("half", "--player", "ben", "--check-in")
    assert code == 1, (out, err)
    assert ("ben cannot check in: check-in is over (half is running, ben is registered, not "
            "checked in)") in " ".join(err.split()), err


async def test_a_person_plays_their_table_at_the_terminal(
        event: Event, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """`neon tournament play` without --bot: the person's choices typed at the prompt play
    the whole match (TerminalSeat, as `neon play`), against a bot seat of the event."""
    log_file = cli.logs_to_file(tmp_path / "logs" / "cli.log")
    capfd.readouterr()  # what the backend printed before
    screen = Console(record=True, width=110, file=io.StringIO(), color_system=None)
    rng = random.Random(5)
    asked: list[str] = []

    async def ask(prompt: str) -> str:
        asked.append(prompt)
        top = int(re.search(r"choose 1-(\d+)", prompt).group(1))  # type: ignore[union-attr]
        return str(rng.randint(1, max(1, top - 1)))  # the last option is often "resign"

    try:
        await event.create("duo", 1, ("hum", "bob"), start=True)
        person = asyncio.create_task(play_tournament(
            event.b.address("tournament"), "duo", "hum", event.token("hum"), ask=ask,
            screen=screen))
        paired = (await event.call("NextRound", "duo")).round
        assert await play_round_as(event.client, event.rules, event.token("bob"), "duo", "bob",
                                   timeout=120) == "played"
        await wait_round_complete(event.client, "duo", 1, timeout=120)
        rows = (await event.call("FinishTournament", "duo")).rows
        assert await asyncio.wait_for(person, 60) == 0
        out, err = capfd.readouterr()
    finally:
        logs.configure()
    text = screen.export_text()
    assert asked, "the person was never asked"
    assert "your move" in text and "since your last move" in text
    assert text.count("your move") == len(asked)
    assert f"match {paired.tables[0].match_id}, you are seat" in text
    assert "result" in text and "round 1, table 1 result: " in text
    rank = next(r.rank for r in rows if r.player_id == "hum")
    assert [m[:3] for m in FINAL.findall(text)] == [("hum", str(rank), "2")]
    for where in (text, out, err):
        assert not JSON_LOG.search(where), JSON_LOG.search(where)
    assert log_file.read_text().strip(), "the logs went nowhere"


async def test_an_abandoned_table_is_played_again_when_the_organiser_rematches_it(
        event: Event) -> None:
    """A player ready at its table sees its match abandoned (`neon abandon`), waits, and
    plays the organiser's rematch (`-g2`) with the other player; both exit 0."""

    async def neon_cli(*args: str) -> Any:
        return await asyncio.to_thread(neon, event.env, *args)

    await event.create("again", 1, ("ann", "ben"), start=True, check_in_seconds=120)
    match_id = (await event.call("NextRound", "again")).round.tables[0].match_id
    ann = await event.player("again", "--player", "ann", "--bot", "rule")
    before = await read_until(ann, "seed added, ready")
    gone = await neon_cli("abandon", match_id, "--reason", "power cut")
    assert gone.returncode == 0, gone.stderr
    for _ in range(100):  # a rematch waits for the abandoned match's seal
        again = await neon_cli("tournament", "rematch", "again", "1", "1", "--reason", "spare")
        if again.returncode == 0 or "not sealed yet" not in again.stderr:
            break
        await asyncio.sleep(0.2)
    assert again.returncode == 0, again.stderr
    ben = await event.player("again", "--player", "ben", "--bot", "random")
    await wait_round_complete(event.client, "again", 1, timeout=120)
    await event.call("FinishTournament", "again")
    (code, out, err), (code2, out2, err2) = [await finished(p) for p in (ann, ben)]
    out = before + out
    assert code == 0 and code2 == 0, (out, err, out2, err2)
    assert f"match {match_id}, you are seat" in out
    assert re.search(r"abandoned by \S+, no result: power cut", out), out
    assert f"match {match_id} was abandoned (power cut); waiting for the organiser" in out
    assert f"match {match_id}-g2 (a rematch), you are seat" in out
    assert f"match {match_id}-g2 (a rematch), you are seat" in out2
    assert f"match {match_id}, you are seat" not in out2  # ben came after the rematch
    assert "round 1, table 1 result: " in out and FINAL.search(out) and FINAL.search(out2)
    table = (await event.client.call("GetRound", tournament_id="again", round=1)).round.tables[0]
    assert table.match_id == f"{match_id}-g2" and table.status == pb.TABLE_STATUS_DONE


async def test_the_command_says_what_is_wrong(event: Event) -> None:
    """Unknown tournament, a player not registered, a bad token, a bad bot, a bad id, no
    service answering, and Ctrl-C: one line each and the CLI's exit codes."""
    await event.create("errs", 1, ("ann",))

    async def run(*args: str, **env: str) -> tuple[int, str, str]:
        return await finished(await event.player(*args, **env), 60)

    code, out, err = await run("nope", "--player", "ann")
    assert code == 1 and "no tournament 'nope' on this deployment" in err, err
    code, out, err = await run("errs", "--player", "zed")
    assert code == 1 and "zed is not registered in errs (registration)" in err, err
    assert "--register" in err
    code, out, err = await run("errs", "--player", "ann", NEON_TOKEN="v1.e30.AAAA")
    assert code == 1 and "UNAUTHENTICATED: token signature is invalid" in err, err
    code, out, err = await run("errs", "--player", "ann", "--token", event.token("ben"))
    assert code == 2 and "'ben' is not registered in 'errs': the token is not ann's" in err
    code, out, err = await run("errs", "--player", "ann", "--bot", "genius")
    assert code == 2 and "unknown bot 'genius' for neon-reign; bots: random, rule" in err
    code, out, err = await run("bad id!", "--player", "ann")
    assert code == 2 and "INVALID_ARGUMENT" in err, err
    code, out, err = await run("errs", "--player", "ann", NEON_TOURNAMENT_ADDR="127.0.0.1:9")
    assert code == 3 and "no tournament service answers on 127.0.0.1:9" in err, err
    code, out, err = await run("errs", "--player", "bot-x")
    assert code == 2 and "reserved for bots" in err
    # Ctrl-C while waiting for the start: 130, one line
    waiting = await event.player("errs", "--player", "ann", "--bot", "random")
    await read_until(waiting, "waiting for the organiser to start")
    waiting.send_signal(signal.SIGINT)
    code, out, err = await finished(waiting, 30)
    assert code == 130 and err.strip().endswith("interrupted"), (out, err)
    assert "Traceback" not in err


async def test_ctrl_c_at_the_prompt_leaves_at_once(event: Event) -> None:
    """The command in a terminal (a pty) waiting for the person's choice: SIGINT ends it at
    once with 130 and one line (the prompt's reading thread does not hold the exit)."""
    main_fd, seat_fd = pty.openpty()
    opponent = None
    try:
        await event.create("tty", 1, ("hum", "bob"), start=True)
        await event.call("NextRound", "tty")
        proc = await asyncio.create_subprocess_exec(
            *NEON, "tournament", "play", "tty", "--player", "hum", env=event.env, cwd=ROOT,
            stdin=seat_fd, stdout=seat_fd, stderr=seat_fd, start_new_session=True)
        event.procs.append(proc)
        opponent = asyncio.create_task(play_round_as(event.client, event.rules,
                                                     event.token("bob"), "tty", "bob",
                                                     timeout=60))
        screen = b""
        for _ in range(600):
            if b"choose 1-" in screen:
                break
            await asyncio.sleep(0.05)
            while select.select([main_fd], [], [], 0)[0]:
                screen += os.read(main_fd, 65536)
        assert b"choose 1-" in screen, screen[-2000:]
        proc.send_signal(signal.SIGINT)
        code = await asyncio.wait_for(proc.wait(), 10)
        while select.select([main_fd], [], [], 0.2)[0]:
            try:
                screen += os.read(main_fd, 65536)
            except OSError:
                break
        assert code == 130, screen[-2000:]
        assert screen.rstrip().endswith(b"interrupted"), screen[-500:]
    finally:
        if opponent is not None:
            opponent.cancel()
            await asyncio.gather(opponent, return_exceptions=True)
        os.close(main_fd)
        os.close(seat_fd)


async def test_a_player_waits_through_a_restart_of_the_tournament_service(event: Event) -> None:
    """The tournament service stopped and started again (same store, same port) while the
    players' commands follow it: they open their watch again and play on."""
    from services.tournament import main as tournament_main

    await event.create("back", 1, ("ann", "ben"))
    procs = [await event.player("back", "--player", n, "--bot", "random") for n in ("ann", "ben")]
    before = [await read_until(p, "waiting for the organiser to start") for p in procs]
    b = event.b
    address = b.address("tournament")
    await b.services.pop("tournament").stop(1)
    # the commands find it gone, and try again: each says so before it is back (waited for,
    # not for a fixed time a loaded machine may outrun)
    lost = "the tournament service does not answer; trying again"
    before = [head + await read_until(p, lost) for head, p in zip(before, procs)]
    port = int(address.rsplit(":", 1)[1])
    settings = dataclasses.replace(b.settings, ports={**b.settings.ports, "tournament": port})
    b.services["tournament"] = await tournament_main.start(settings, b.keys, b.nats_client)
    await event.call("StartTournament", "back")
    await event.call("NextRound", "back")
    await wait_round_complete(event.client, "back", 1, timeout=120)
    await event.call("FinishTournament", "back")
    for head, p in zip(before, procs):
        code, out, err = await finished(p)
        out = head + out
        assert code == 0, (out, err)
        assert "the tournament service does not answer; trying again" in out
        assert "round 1, table 1 result: " in out and FINAL.search(out)


async def test_a_player_with_a_bye_is_told_and_waits(event: Event) -> None:
    """Three players, one round: the player with the bye is told so and ends with the rest."""
    names = ["ann", "ben", "cat"]
    await event.create("odd", 1, tuple(names), start=True)
    procs = [await event.player("odd", "--player", n, "--bot", "rule") for n in names]
    tables = (await event.call("NextRound", "odd")).round.tables
    bye = next(t.seats[0] for t in tables if t.bye)
    await wait_round_complete(event.client, "odd", 1, timeout=120)
    rows = (await event.call("FinishTournament", "odd")).rows
    for n, p in zip(names, procs):
        code, out, err = await finished(p)
        assert code == 0, (out, err)
        assert ("round 1: a bye (no game this round)" in out) == (n == bye), out
        assert ("seed added, ready" in out) == (n != bye), out
        rank = next(r.rank for r in rows if r.player_id == n)
        assert FINAL.findall(out)[-1][:3] == (n, str(rank), "3")


async def test_a_result_set_by_hand_again_is_told_to_the_player(event: Event) -> None:
    """The organiser sets a table's result by hand while its match waits for ben, who never
    came, then again (a correction of the correction, or a second organiser's): ann, who
    follows with a bot, is told that the match will not start, then each result as it
    comes, the second as changed with its reason, before the tournament ends. Before, ann's
    command waited for ever on the match (a match waiting for its seats when its table is
    decided is never started), the watch sent nothing for a done table whose result
    changed, and the command told a table's result only once."""
    await event.create("fix", 1, ("ann", "ben"), start=True, check_in_seconds=120)
    await event.call("NextRound", "fix")
    ann = await event.player("fix", "--player", "ann", "--bot", "rule")
    out = await read_until(ann, "seed added, ready")
    await event.call("CorrectResult", "fix", round=1, table=1, placements=[2, 1],
                     reason="ben's screen")
    out += await read_until(ann, "round 1, table 1 result: ben wins (correction)")
    # the match awaited ben when its table was decided: it never starts (it is abandoned
    # where it waits), and ann's command says so rather than waiting on it for ever: told
    # by the tournament that it will not start, or by the match that it ended abandoned,
    # whichever it hears first
    assert ("match fix-r1-t1 will not start: the organiser decided the table" in out
            or "abandoned by tournament, no result: the organiser set the table's result: "
               "ben's screen" in out), out
    await event.call("CorrectResult", "fix", round=1, table=1, placements=[1, 2],
                     forfeited=True, reason="ben went home")
    out += await read_until(ann, "result changed", timeout=30)
    assert ("round 1, table 1 result changed: ann wins (correction); the organiser's reason: "
            "ben went home; waiting for the next round or the end") in " ".join(out.split()), out
    await wait_round_complete(event.client, "fix", 1, timeout=120)
    await event.call("FinishTournament", "fix")
    code, rest, err = await finished(ann)
    out += rest
    assert code == 0, (out, err)
    assert out.count("result changed") == 1 and out.count("result: ben wins") == 1, out
    assert FINAL.findall(out)[-1][:3] == ("ann", "1", "2"), out


async def test_a_result_of_an_earlier_round_set_by_hand_is_told_before_the_end(
        event: Event) -> None:
    """Round 1's table is set by hand once round 2 is paired (the organiser heard of a
    misreport): its players, following round 2 by then, are told round 1's result changed
    before the final standings (the watch sends only the latest round, so it was never
    told, and the command's last lines contradicted its own account of round 1)."""
    names = ("ann", "ben", "cat")
    await event.create("back", 2, names, start=True)
    procs = {n: await event.player("back", "--player", n, "--bot", "rule") for n in names}
    await event.call("NextRound", "back")
    first = await wait_round_complete(event.client, "back", 1, timeout=120)
    played = next(t for t in first.tables if not t.bye)
    winner = played.seats[list(played.result.placements).index(1)]
    loser = next(s for s in played.seats if s != winner)
    await event.call("NextRound", "back")
    flipped = [1 if s == loser else 2 for s in played.seats]
    await event.call("CorrectResult", "back", round=1, table=played.number, placements=flipped,
                     reason="a misreport")
    await wait_round_complete(event.client, "back", 2, timeout=120)
    await event.call("FinishTournament", "back")
    for n, p in procs.items():
        code, out, err = await finished(p)
        assert code == 0, (out, err)
        text = " ".join(out.split())
        told = (f"round 1, table {played.number} result changed: {loser} wins (correction); "
                "the organiser's reason: a misreport")
        assert (told in text) == (n in played.seats), (n, out)
        if n in played.seats:
            assert text.index(told) < text.index(f"{n}: final rank"), out


async def test_a_player_who_comes_late_is_told_the_rounds_they_missed(event: Event) -> None:
    """The watch sends only the latest state: commands started after round 1 (round 2
    paired) still tell each player round 1's bye or table result from the round's record,
    then play round 2; a command started after the end tells both rounds, then the rank."""
    names = ["ann", "ben", "cat"]
    await event.create("late", 2, tuple(names), start=True)
    first = (await event.call("NextRound", "late")).round.tables
    await asyncio.gather(*(play_round_as(event.client, event.rules, event.token(n), "late", n,
                                         timeout=120) for n in names))
    await wait_round_complete(event.client, "late", 1, timeout=120)
    second = (await event.call("NextRound", "late")).round.tables
    procs = [await event.player("late", "--player", n, "--bot", "rule") for n in names]
    await wait_round_complete(event.client, "late", 2, timeout=120)
    rows = (await event.call("FinishTournament", "late")).rows
    last_bye = next(t.seats[0] for t in second if t.bye)
    after = await event.player("late", "--player", last_bye)
    for n, p in [*zip(names, procs), (last_bye, after)]:
        code, out, err = await finished(p)
        assert code == 0, (out, err)
        for number, tables in ((1, first), (2, second)):
            t = next(t for t in tables if n in t.seats)
            told = (f"round {number}: a bye (no game this round)" if t.bye else
                    f"round {number}, table {t.number} result: ")
            assert told in out, (n, number, out)
        mine = next(t for t in first if n in t.seats)
        assert mine.bye or f"match {mine.match_id}, you are seat" not in out, out
        plays_second = not next(t for t in second if n in t.seats).bye
        assert ("seed added, ready" in out) == (p is not after and plays_second), out
        rank = next(r.rank for r in rows if r.player_id == n)
        assert FINAL.findall(out)[-1][:3] == (n, str(rank), "3")


@pytest.mark.postgres
async def test_a_player_waits_through_a_shutdown_and_restart_of_the_tournament_service(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    """The organiser's run-through: a player follows with a bot and is ready at its table;
    the tournament service (its own process, on PostgreSQL) gets SIGTERM, and within its
    shutdown window the table's match is abandoned (`neon abandon`). The player's command
    asks the tournament service for the table (GetRound) while it refuses new calls, then
    while it is down: it says the tournament service does not answer, tries again, and once
    the service is back tells the abandon, plays on to the end and exits 0."""
    from services.cli.backend import start_backend
    from services.platform.natsrv import free_port
    from tests.e2e.procs import ServiceProcess, service_env
    from tests.integration.conftest import make_settings
    from tests.integration.test_tournament_cli import neon

    settings = make_settings(tmp_path, nats_url)
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False)
    port = free_port()
    address = f"127.0.0.1:{port}"
    service = ServiceProcess("tournament", service_env({
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(settings.var_dir),
        "DATABASE_URL": postgres_url, "NEON_PERSISTENCE": "postgres",
        "NEON_POSTGRES_SCHEMA": postgres_schema, "POSTGRES_PASSWORD": "",
        "NEON_TOURNAMENT_PORT": str(port), "NEON_GRACE_SECONDS": "10",
        "NEON_RULES_NEON_REIGN_ADDR": b.address("rules-neon-reign"),
        "NEON_DICE_ADDR": b.address("dice"), "NEON_SCORING_ADDR": "127.0.0.1:1"}),
        address, tmp_path).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(settings.var_dir),
               NEON_NAMESPACE=settings.namespace, NEON_TOURNAMENT_ADDR=address,
               NEON_RULES_NEON_REIGN_ADDR=b.address("rules-neon-reign"), COLUMNS="200")
    client = TournamentClient(address)
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    player = None
    try:
        await client.call("CreateTournament", org, tournament_id="down", game="neon-reign",
                          mode="single", format_json=format_json("swiss", 1),
                          check_in_seconds=120)
        await client.call("OpenRegistration", org, tournament_id="down")
        for n in ("d1", "d2"):
            await client.call("Register", org, tournament_id="down", player_id=n)
        await client.call("StartTournament", org, tournament_id="down")
        player = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "services.cli.main", "tournament", "play", "down",
            "--player", "d1", "--bot", "random", env=env, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out = await read_until(player, "no table for you now")
        match_id = (await client.call("NextRound", org, tournament_id="down")
                    ).round.tables[0].match_id
        out += await read_until(player, "seed added, ready")  # d2 never comes
        assert service.proc is not None
        service.proc.send_signal(signal.SIGTERM)  # it stops within NEON_GRACE_SECONDS
        # the abandon lands in its shutdown window: once it refuses new calls (waited for,
        # not a fixed half second a loaded machine may take to handle the signal)
        await until(lambda: refusing(address), 30, "the service refusing after SIGTERM")
        gone = await asyncio.to_thread(neon, env, "abandon", match_id, "--reason", "x")
        assert gone.returncode == 0, gone.stderr
        out += await read_until(player, "the tournament service does not answer; trying "
                                "again", timeout=30)
        assert await asyncio.to_thread(service.proc.wait, 30) is not None
        service.start()
        out += await read_until(player, f"match {match_id} was abandoned (x); waiting for the "
                                "organiser", timeout=90)
        for _ in range(100):  # a result set by hand waits for the abandoned match's seal
            try:
                await client.call("CorrectResult", org, tournament_id="down", round=1, table=1,
                                  placements=[1, 2], reason="on paper")
                break
            except grpc.aio.AioRpcError as err:
                if "seal" not in (err.details() or ""):
                    raise
                await asyncio.sleep(0.2)
        await wait_round_complete(client, "down", 1, timeout=60)
        out += await read_until(player, "round 1, table 1 result: d1 wins (correction)",
                                timeout=90)
        await client.call("FinishTournament", org, tournament_id="down")
        code, rest, err = await finished(player, 90)
        out += rest
        assert code == 0, (out, err)
        assert "abandoned by organiser, no result: x" in out, out
        assert "no rules service" not in err, err
        assert FINAL.findall(out) == [("d1", "1", "2", "1")], out
    finally:
        if player is not None and player.returncode is None:
            player.kill()
            await player.wait()
        await client.close()
        service.stop()
        await b.stop(1)


async def test_a_dropped_player_is_told_and_the_command_ends(event: Event) -> None:
    """A player following with a bot plays round 1, is dropped by the organiser, and when
    round 2 is paired without them is told so and the command ends (exit 1), rather than
    waiting for a table that will not come."""
    names = ("ann", "ben", "cat", "dan")
    await event.create("gone", 2, names, start=True)
    dan = await event.player("gone", "--player", "dan", "--bot", "random")
    out = await read_until(dan, "no table for you now")
    await event.call("NextRound", "gone")
    await asyncio.gather(*(play_round_as(event.client, event.rules, event.token(n), "gone", n,
                                         timeout=120) for n in names[:3]))
    await wait_round_complete(event.client, "gone", 1, timeout=120)
    out += await read_until(dan, " result: ")
    await event.call("DropPlayer", "gone", player_id="dan", reason="went home")
    paired = (await event.call("NextRound", "gone")).round
    assert all("dan" not in t.seats for t in paired.tables)
    code, rest, err = await finished(dan, 60)
    out += rest
    assert code == 1, (out, err)
    assert " ".join(err.split()) == ("dan was dropped from gone: no more tables for dan; the "
                                     "rounds played stay in the standings (see: neon "
                                     "tournament standings gone)"), err
    assert re.search(r"round 1, table \d result: ", out), out


async def test_a_player_the_start_left_out_waits_for_a_late_entry_then_is_told(
        event: Event) -> None:
    """A registered player who did not check in is left out of a start with the checked-in
    players only: their `tournament play` says so and waits while the format may still take
    them as a late entry (up to round 1 here), and once round 1 is paired without them it
    ends (exit 1) saying why, rather than waiting for the end of the event."""
    names = ("ann", "ben", "cat")
    await event.create("late", 2, names,
                       format_json=format_json("swiss", 2, extra='{"late_entry_until": 1}'))
    for n in names[:2]:
        await event.call("CheckIn", "late", player_id=n)
    started = await event.call("StartTournament", "late", checked_in_only=True)
    assert list(started.left_out) == ["cat"]
    cat = await event.player("late", "--player", "cat")
    out = await read_until(cat, "cat was left out at the start of late (not checked in); the "
                           "organiser may still add you as a late entry (rounds up to 1)")
    paired = (await event.call("NextRound", "late")).round
    assert all("cat" not in t.seats for t in paired.tables)
    code, rest, err = await finished(cat, 60)
    out += rest
    assert code == 1, (out, err)
    assert " ".join(err.split()) == ("cat was left out at the start of late (not checked in) "
                                     "and cannot join it now: it took late entries up to "
                                     "round 1, and round 1 is paired"), (out, err)
    assert "no table for you now" not in out, out


async def test_a_player_left_out_of_a_format_without_late_entries_is_told_at_once(
        event: Event) -> None:
    """Without late entries, a left-out player's `tournament play` ends as it starts."""
    names = ("ann", "ben", "cat")
    await event.create("shut", 1, names)
    for n in names[:2]:
        await event.call("CheckIn", "shut", player_id=n)
    await event.call("StartTournament", "shut", checked_in_only=True)
    code, out, err = await finished(await event.player("shut", "--player", "cat"), 60)
    assert code == 1, (out, err)
    assert " ".join(err.split()) == ("cat was left out at the start of shut (not checked in) "
                                     "and cannot join it now: its format takes no late "
                                     "entries"), (out, err)
