"""The ``neon`` commands as an organiser, a player and a client author's script run them, as
their own processes against real services (a backend in this process over real NATS and
gRPC sockets): each command ends, with the line and exit code that say what happened.

- ``neon queue --timeout N`` with no match in N seconds says so and exits 1 (it said that no
  matchmaking service answered, exit 3, while the service had answered all along);
- ``neon tournament round T N --watch`` of a round before the latest prints that round and
  ends when it is complete (the watch streams only the latest round: it printed nothing and
  waited for the tournament's end, exit 0);
- ``neon tournament play`` of a tournament called off before its first round ends saying so,
  exit 0 as after any force-end (it printed an empty standings table and "not in the
  standings", exit 1).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from tests.integration.test_queue_token import served  # noqa: F401 (a fixture)
from tests.integration.test_tournament_cli import ROOT, tournament_backend

pytestmark = pytest.mark.timeout(240)


def neon(env: dict[str, str], *args: str, timeout: float = 60.0
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


async def test_queue_without_a_match_in_time_says_so_and_exits_1(
        served: Any) -> None:  # noqa: F811 (the fixture imported above)
    b, env = served
    token = b.issuer.issue("player", "*", player="ann", ttl=600)
    started = time.monotonic()
    # two seats and no bots: ann alone is never matched
    out = await asyncio.to_thread(neon, env, "queue", "toy", "--player", "ann", "--token", token,
                                  "--no-bots", "--timeout", "2", "--yes")
    assert time.monotonic() - started < 30
    said = " ".join(out.stderr.split())
    assert out.returncode == 1, out.stdout + out.stderr
    assert "no match" in said and "2 s" in said, said
    assert "answers" not in said and "./dev up" not in said, said
    assert "ann queued for toy" in out.stdout
    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
    from services.platform.grpc_kit import call_metadata, channel

    ticket_id = out.stdout.split("(ticket ")[1].split(")")[0]
    ch = channel(b.address("matchmaking"))
    try:  # the ticket left the queue with the command
        got = await mm_grpc.MatchmakingServiceStub(ch).GetTicket(
            mm_pb.GetTicketRequest(ticket_id=ticket_id), metadata=call_metadata(token),
            timeout=10)
        assert got.ticket.status == mm_pb.TICKET_STATUS_CANCELLED
    finally:
        await ch.close()


async def _two_rounds_played(b: Any, client: TournamentClient, tid: str) -> None:
    """``tid``: a Swiss of four with round 1 played and round 2 paired, not played."""
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    names = ["ann", "ben", "cat", "dan"]
    await client.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                      mode="single", format_json=format_json("swiss", 2))
    await client.call("OpenRegistration", org, tournament_id=tid)
    for n in names:
        await client.call("Register", org, tournament_id=tid, player_id=n)
    await client.call("StartTournament", org, tournament_id=tid)
    await client.call("NextRound", org, tournament_id=tid, round=1)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    try:
        await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n) for n in names))
    finally:
        for rc in rules.values():
            await rc.close()
    await wait_round_complete(client, tid, 1, timeout=60)
    await client.call("NextRound", org, tournament_id=tid, round=2)


async def test_watching_an_earlier_round_prints_it_and_ends(tmp_path: Path,
                                                            nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    client = TournamentClient(b.address("tournament"))
    try:
        await _two_rounds_played(b, client, "wcup")
        for args in (["--json"], []):
            out = await asyncio.to_thread(neon, env, "tournament", "round", "wcup", "1",
                                          "--watch", *args, timeout=30)
            assert out.returncode == 0, out.stdout + out.stderr
            if args:
                [shown] = [json.loads(line) for line in out.stdout.splitlines()]
                assert shown["round"]["number"] == 1 and shown["round"]["complete"] is True
            else:
                assert "round 1" in out.stdout and "checkpoint: Merkle root" in out.stdout
        # round 3 is waited for while it may come; once the tournament has ended without
        # it, one line, exit 1 (it ended at once, exit 0, having printed nothing)
        waiting = asyncio.create_task(asyncio.to_thread(
            neon, env, "tournament", "round", "wcup", "3", "--watch", "--json", timeout=60))
        await asyncio.sleep(3.0)
        assert not waiting.done()
        org = b.issuer.issue("organiser", "*", player="org", ttl=600)
        await client.call("ForceEnd", org, tournament_id="wcup", reason="closing time")
        out = await asyncio.wait_for(waiting, 60)
        assert out.returncode == 1, out.stdout + out.stderr
        error = json.loads(out.stdout)["error"]
        assert error["message"] == ("round 3 of wcup was never paired: the tournament is "
                                    "force_ended after 2 rounds"), error
        out = await asyncio.to_thread(neon, env, "tournament", "round", "wcup", "9", "--watch",
                                      timeout=30)
        assert out.returncode == 1 and "round 9 of wcup was never paired" in out.stderr
    finally:
        await client.close()
        await b.stop(1)


async def test_a_player_of_a_tournament_called_off_is_told_and_exits_0(
        tmp_path: Path, nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    client = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        await client.call("CreateTournament", org, tournament_id="rained", game="neon-reign",
                          mode="single", format_json=format_json("swiss", 1))
        await client.call("OpenRegistration", org, tournament_id="rained")
        for n in ("ann", "ben"):
            await client.call("Register", org, tournament_id="rained", player_id=n)
        playing = asyncio.create_task(asyncio.to_thread(
            neon, env, "tournament", "play", "rained", "--player", "ann", "--bot", "random"))
        await asyncio.sleep(3.0)  # following, waiting for the start
        await client.call("ForceEnd", org, tournament_id="rained", reason="rain")
        out = await asyncio.wait_for(playing, 60)
        assert out.returncode == 0, out.stdout + out.stderr
        text = " ".join(out.stdout.split())
        assert text.endswith("rained was called off before any round was played (rain): no "
                             "standings"), text
        assert "final standings" not in text and out.stderr == "", out.stderr
    finally:
        await client.close()
        await b.stop(1)
