"""``neon tournament reinstate TID PLAYER --reason TEXT`` against a running tournament service
over gRPC (the command runs as its own process, as in test_tournament_cli_desk.py): a player
dropped with ``drop`` is reinstated and paired in the next round; ``--json`` prints
ReinstatePlayer's answer; the service's refusals (a player who plays, a round robin, a
player token) are printed as the service said them; ``--reason`` is required."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.cli.tournament_commands import TournamentClient, format_json
from tests.integration.test_tournament_cli import neon, tournament_backend
from tests.integration.test_tournament_cli_json import proto_json

pytestmark = pytest.mark.timeout(180)


@dataclass
class Desk:
    b: Any
    client: TournamentClient
    org: str
    run: Callable[..., Awaitable[Any]]

    async def started(self, tid: str, fmt: str, players: tuple[str, ...]) -> None:
        """A neon-reign single event of format ``fmt``, ``players`` registered, started."""
        await self.client.call("CreateTournament", self.org, tournament_id=tid,
                               game="neon-reign", mode="single",
                               format_json=format_json(fmt, 1 if fmt == "swiss" else 0))
        await self.client.call("OpenRegistration", self.org, tournament_id=tid)
        for n in players:
            await self.client.call("Register", self.org, tournament_id=tid, player_id=n)
        await self.client.call("StartTournament", self.org, tournament_id=tid)

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


async def test_reinstate_a_dropped_player_who_is_paired_again(desk: Desk) -> None:
    run = desk.run
    await desk.started("back", "swiss", ("ann", "ben", "cat", "dan"))

    playing = await run("tournament", "reinstate", "back", "ann", "--reason", "mistake")
    assert playing.returncode != 0, playing.stdout + playing.stderr
    assert "'ann' is not dropped: it plays" in said(playing.stderr), playing.stderr

    dropped = await run("tournament", "drop", "back", "ann", "--reason", "client failed")
    assert dropped.returncode == 0, dropped.stdout + dropped.stderr
    assert (await desk.statuses("back"))["ann"] == "dropped"

    bare = await run("tournament", "reinstate", "back", "ann")
    assert bare.returncode == 2 and "--reason" in bare.stderr, bare.stdout + bare.stderr

    back = await run("tournament", "reinstate", "back", "ann", "--reason",
                     "[bold]readied late[/bold], the arbiter agreed")
    assert back.returncode == 0, back.stdout + back.stderr
    assert back.stdout.splitlines() == ["ann reinstated in back: paired again from round 1"]
    assert back.stderr == ""
    assert (await desk.statuses("back"))["ann"] == "playing"
    version = (await desk.tournament("back")).version
    again = await run("tournament", "reinstate", "back", "ann", "--reason", "again", "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    [shown] = [json.loads(line) for line in again.stdout.splitlines()]
    assert shown == proto_json(await desk.client.call("GetTournament", tournament_id="back"))
    assert (await desk.tournament("back")).version == version, "a repeat records nothing"

    first = (await desk.client.call("NextRound", desk.org, tournament_id="back")).round
    assert "ann" in {p for t in first.tables for p in t.seats}

    ann = desk.b.issuer.issue("player", "*", player="ann", ttl=600)
    await run("tournament", "drop", "back", "ben", "--reason", "went home")
    own = await run("tournament", "reinstate", "back", "ben", "--reason", "x", NEON_TOKEN=ann)
    assert own.returncode != 0, own.stdout + own.stderr
    assert "organiser token" in said(own.stderr), own.stderr
    assert (await desk.statuses("back"))["ben"] == "dropped"


async def test_a_round_robin_refuses_with_the_service_reason(desk: Desk) -> None:
    await desk.started("rr", "round-robin", ("ann", "ben", "cat"))
    await desk.client.call("DropPlayer", desk.org, tournament_id="rr", player_id="cat",
                           reason="left")
    refused = await desk.run("tournament", "reinstate", "rr", "cat", "--reason", "back")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "a round-robin reinstates no dropped player" in said(refused.stderr), refused.stderr
    assert (await desk.statuses("rr"))["cat"] == "dropped"
