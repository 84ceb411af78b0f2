"""`neon invitations`: a player lists the parties that invited them from the command line, with
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

from tests.integration.test_matchmaking import Client
from tests.integration.test_queue_token import ROOT, served  # noqa: F401 (the fixture)

pytestmark = pytest.mark.timeout(180)


def invitations(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "services.cli.main", "invitations", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def said(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join((done.stdout + done.stderr).split())


async def test_a_player_lists_their_invitations_from_the_command_line(
    served: Any,  # noqa: F811
) -> None:
    b, env = served
    mm = Client(b.address("matchmaking"))
    ann, bob, cy = (b.issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "bob", "cy"))
    await mm.call("CreateTicket", ann, ticket_id="inv-1", game="toy", players=["ann", "bob"])
    done = await asyncio.to_thread(invitations, {**env, "NEON_TOKEN": bob})
    assert done.returncode == 0, said(done)
    assert "inv-1: toy (race), invited by ann, party of 2" in said(done), said(done)
    none = await asyncio.to_thread(invitations, env, "--token", cy)
    assert none.returncode == 0 and "no open invitations" in said(none), said(none)
    assert "inv-1" not in said(none)
    # refusals: one line with the status and the service's reason
    organiser = await asyncio.to_thread(invitations, env, "--token", b.organiser_token())
    assert organiser.returncode == 1 and "PERMISSION_DENIED" in said(organiser), said(organiser)
    assert "player token" in said(organiser)
    needs = await asyncio.to_thread(invitations, env)
    assert needs.returncode == 2 and "--player" in said(needs), said(needs)
    assert not (Path(env["NEON_VAR_DIR"]) / "keys.json").exists(), "no keys made"
    # on the server host, the token is minted for --player
    host = {**env, "NEON_VAR_DIR": str(b.settings.var_dir), "NEON_NAMESPACE": b.settings.namespace}
    minted = await asyncio.to_thread(invitations, host, "--player", "bob", "--limit", "1")
    assert minted.returncode == 0 and "inv-1" in said(minted), said(minted)
    await mm.call("DeclineInvite", bob, ticket_id="inv-1")
    after = await asyncio.to_thread(invitations, host, "--player", "bob")
    assert after.returncode == 0 and "no open invitations" in said(after), said(after)
    await mm.channel.close()
