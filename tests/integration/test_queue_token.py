"""`neon queue --token`: a player away from the server host queues with the player token the
organiser gave them, against a running backend, from a machine without the deployment's keys
(the command runs as its own process; nothing is minted, no keys are made). A token that is
not this deployment's player token for ``--player`` is refused with a line saying what the
command needs."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import start_backend
from services.cli.mm_commands import embedded_config
from services.platform.tokens import TokenIssuer
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def toy_queue_backend(tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
                            accept_timeout: float = 60.0
                            ) -> AsyncIterator[tuple[Any, dict[str, str]]]:
    """A backend with matchmaking (proposals to accept within ``accept_timeout`` seconds) and
    the toy game, and the environment of a player's laptop: its addresses, a var folder with
    no keys."""
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    settings = make_settings(tmp_path / "host", nats_url)
    settings = dataclasses.replace(settings, ports={**settings.ports, "matchmaking": 0})
    b = await start_backend(settings, games=["toy"], embedded_nats=False, matchmaking=True,
                            matchmaking_config=embedded_config(accept_timeout=accept_timeout))
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(laptop), NEON_ENGINES="toy=tests.support.toy",
               NEON_MATCHMAKING_ADDR=b.address("matchmaking"), NEON_LOG_LEVEL="warning",
               COLUMNS="200")
    try:
        yield b, env
    finally:
        await b.stop(1)


@pytest.fixture
async def served(tmp_path: Path, nats_url: str,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Any, dict[str, str]]]:
    async with toy_queue_backend(tmp_path, nats_url, monkeypatch) as served:
        yield served


def queue(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", "queue", "toy", "--yes",
                           "--timeout", "60", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120, input="1\n" * 200)


async def test_a_player_queues_with_the_token_the_organiser_gave(served: Any) -> None:
    b, env = served
    token = b.issuer.issue("player", "*", player="ann", ttl=600)  # `neon token player ann`
    done = await asyncio.to_thread(queue, {**env, "NEON_TOKEN": token}, "--player", "ann")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ann queued for toy" in done.stdout and "match found" in done.stdout
    assert "(bot)" in done.stdout and "ended" in done.stdout
    assert not (Path(env["NEON_VAR_DIR"]) / "keys.json").exists(), "no keys made"
    # the token alone: its player is the one it names, as `neon invitations --token` does
    cid = b.issuer.issue("player", "*", player="cid", ttl=600)
    done = await asyncio.to_thread(queue, {**env, "NEON_TOKEN": cid})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cid queued for toy" in done.stdout and "ended" in done.stdout


async def test_a_token_that_is_not_the_players_is_refused_plainly(served: Any) -> None:
    b, env = served
    bob = b.issuer.issue("player", "*", player="bob", ttl=600)
    refused = await asyncio.to_thread(queue, env, "--player", "ann", "--token", bob)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    said = " ".join(refused.stderr.split())
    assert "PERMISSION_DENIED" in said and "`neon token player ann` on the server host" in said
    forged = TokenIssuer(b"another deployment's secret!").issue("player", "*", player="ann")
    refused = await asyncio.to_thread(queue, env, "--player", "ann", "--token", forged)
    assert refused.returncode == 1 and "UNAUTHENTICATED" in refused.stderr, refused.stderr
    organiser = b.issuer.issue("organiser", "*", player="olga", ttl=600)
    needs_player = await asyncio.to_thread(queue, env, "--token", organiser)
    assert needs_player.returncode == 2 and "--token is no player token" in needs_player.stderr
    embedded = await asyncio.to_thread(queue, env, "--player", "bob", "--token", bob,
                                       "--embedded")
    assert embedded.returncode == 2 and "leave out --token" in embedded.stderr
    assert not (Path(env["NEON_VAR_DIR"]) / "keys.json").exists(), "no keys made"
