"""`neon decline TICKET`: a player declines a party's invitation from the command line, with
the player token the organiser gave them (no keys on their machine) or, on the server host,
one minted for ``--player``. The command runs as its own process against a running backend.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_matchmaking import Client, S, status_is
from tests.integration.test_queue_token import ROOT, served  # noqa: F401 (the fixture)

pytestmark = pytest.mark.timeout(180)


def decline(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", "decline", *args],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def said(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join((done.stdout + done.stderr).split())


async def test_a_player_declines_from_the_command_line(served: Any) -> None:  # noqa: F811
    b, env = served
    mm = Client(b.address("matchmaking"))
    ann, bob = b.issuer.issue("player", "*", player="ann", ttl=600), \
        b.issuer.issue("player", "*", player="bob", ttl=600)
    await mm.call("CreateTicket", ann, ticket_id="party-1", game="toy", players=["ann", "bob"])
    done = await asyncio.to_thread(decline, {**env, "NEON_TOKEN": bob}, "party-1")
    assert done.returncode == 0, said(done)
    assert "bob declined the invitation of ticket party-1" in said(done)
    party = await status_is(mm, ann, "party-1", S.TICKET_STATUS_WAITING)
    assert list(party.players) == ["ann"] and list(party.declined) == ["bob"]
    again = await asyncio.to_thread(decline, env, "party-1", "--token", bob)
    assert again.returncode == 0 and "bob declined" in said(again), said(again)
    # refusals: one line with the status and the service's reason
    mine = await asyncio.to_thread(decline, env, "party-1", "--token", ann)
    assert mine.returncode == 1 and "FAILED_PRECONDITION" in said(mine), said(mine)
    assert "CancelTicket" in said(mine)
    stranger = b.issuer.issue("player", "*", player="cy", ttl=600)
    nobody = await asyncio.to_thread(decline, env, "party-1", "--token", stranger)
    assert nobody.returncode == 1 and "NOT_FOUND" in said(nobody), said(nobody)
    organiser = await asyncio.to_thread(decline, env, "party-1", "--token",
                                        b.organiser_token())
    assert organiser.returncode == 1 and "PERMISSION_DENIED" in said(organiser)
    assert "player token" in said(organiser)
    needs = await asyncio.to_thread(decline, env, "party-1")
    assert needs.returncode == 2 and "--player" in said(needs), said(needs)
    assert not (Path(env["NEON_VAR_DIR"]) / "keys.json").exists(), "no keys made"
    await mm.channel.close()


async def test_on_the_server_host_the_token_is_minted_for_the_player(
    served: Any,  # noqa: F811
) -> None:
    b, env = served
    mm = Client(b.address("matchmaking"))
    ann = b.issuer.issue("player", "*", player="ann", ttl=600)
    await mm.call("CreateTicket", ann, ticket_id="party-2", game="toy", players=["ann", "dee"])
    host = {**env, "NEON_VAR_DIR": str(b.settings.var_dir), "NEON_NAMESPACE": b.settings.namespace}
    done = await asyncio.to_thread(decline, host, "party-2", "--player", "dee")
    assert done.returncode == 0, said(done)
    assert "dee declined the invitation of ticket party-2" in said(done)
    assert list((await mm.call("GetTicket", ann, ticket_id="party-2")).declined) == ["dee"]
    await mm.channel.close()
