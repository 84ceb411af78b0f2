"""An organiser away from the server host: ``neon token organiser NAME`` on the host, then the
organiser commands with ``--token`` / ``NEON_TOKEN`` from a machine without the deployment's
keys, against a running backend (the commands run as their own processes, as in
test_tournament_cli.py). A player's token, another deployment's token or this machine's own
keys are refused with a line saying what the command needs; without a token and without
keys the command says how to get one, and no keys are made."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.cli.tournament_commands import TournamentClient
from services.platform.tokens import TokenIssuer
from tests.integration.test_tournament_cli import neon, tournament_backend

pytestmark = pytest.mark.timeout(240)


@dataclass
class Remote:
    """A backend, the environment of its server host (``host``: its keys), and that of an
    organiser's laptop (``laptop``: the same addresses, a var folder with no keys)."""

    b: Any
    host: dict[str, str]
    laptop: dict[str, str]
    laptop_var: Path
    client: TournamentClient

    async def run(self, env: dict[str, str], *args: str, **extra: str) -> Any:
        return await asyncio.to_thread(neon, {**env, **extra}, *args)


@pytest.fixture
async def remote(tmp_path: Path, nats_url: str) -> AsyncIterator[Remote]:
    b, host = await tournament_backend(tmp_path, nats_url)
    laptop_var = tmp_path / "laptop"
    laptop_var.mkdir()
    laptop = {**host, "NEON_VAR_DIR": str(laptop_var), "NEON_NAMESPACE": ""}
    r = Remote(b, host, laptop, laptop_var, TournamentClient(b.address("tournament")))
    try:
        yield r
    finally:
        await r.client.close()
        await b.stop(1)


def said(text: str) -> str:
    """``text`` with rich's line wrapping undone."""
    return " ".join(text.split())


def no_keys_made(var: Path) -> None:
    assert not list(var.rglob("keys.json")), "a command made keys on the laptop"


async def test_an_organiser_token_from_the_host_runs_the_event_from_a_laptop(
        remote: Remote) -> None:
    """Without keys and without a token, `create` says how to get a token (one line, exit 2);
    with the token `neon token organiser alice` minted on the host, create, register (a
    repeat named as registered already), start and next-round work from the laptop, as do
    `neon abandon` and `neon export` of a table's match and the tournament's export: alice
    is recorded as who acted. No keys are made on the laptop."""
    run, laptop = remote.run, remote.laptop
    minted = await run(remote.host, "token", "organiser", "alice")
    assert minted.returncode == 0, minted.stderr
    token = minted.stdout.strip()
    assert token.startswith("v1.") and len(minted.stdout.splitlines()) == 1
    claims = remote.b.issuer.verify(token)
    assert (claims.role, claims.player, claims.match) == ("organiser", "alice", "*")

    keyless = await run(laptop, "tournament", "create", "away", "--game", "neon-reign")
    assert keyless.returncode == 2, keyless.stdout + keyless.stderr
    assert len(keyless.stderr.splitlines()) == 1 and "Traceback" not in keyless.stderr
    assert keyless.stderr.startswith("no deployment keys on this machine (no NEON_TOKEN_SECRET "
                                     f"and no {remote.laptop_var / 'keys.json'})"), keyless.stderr
    assert "neon token organiser NAME" in keyless.stderr
    no_keys_made(remote.laptop_var)

    created = await run(laptop, "tournament", "create", "away", "--game", "neon-reign",
                        "--mode", "single", "--format", "swiss", "--rounds", "1",
                        NEON_TOKEN=token)
    assert created.returncode == 0, created.stdout + created.stderr
    assert "tournament away created (neon-reign single); registration open" in said(
        created.stdout)
    first = await run(laptop, "tournament", "register", "away", "ann", "ben", "cat",
                      "--token", token)
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.strip() == "3 newly registered", first.stdout
    again = await run(laptop, "tournament", "register", "away", "ann", "dan", "cat",
                      NEON_TOKEN=token)
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.strip() == "1 newly registered; already registered: ann, cat"
    started = await run(laptop, "tournament", "start", "away", NEON_TOKEN=token)
    assert started.returncode == 0, started.stdout + started.stderr
    assert said(started.stdout) == "started with 4 players; 1 round planned", started.stdout
    paired = await run(laptop, "tournament", "next-round", "away", "--token", token)
    assert paired.returncode == 0, paired.stdout + paired.stderr
    assert "round 1" in paired.stdout and "away-r1" in paired.stdout

    match_id = (await remote.client.call("GetRound", tournament_id="away", round=1)) \
        .round.tables[0].match_id
    gone = await run(laptop, "abandon", match_id, "--reason", "power cut", NEON_TOKEN=token)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert f"match {match_id} abandoned" in said(gone.stdout)
    export = remote.laptop_var / "match.jsonl"
    exported = await run(laptop, "export", match_id, "-o", str(export), "--game", "neon-reign",
                         "--token", token)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    ended = [json.loads(x) for x in export.read_text().splitlines()
             if json.loads(x).get("type") == "MatchEnded"]
    assert ended and ended[-1]["outcome"]["by"] == "alice", ended

    bundle = remote.laptop_var / "away.jsonl"
    for _ in range(50):  # the abandoned match's seal follows its abandon
        written = await run(laptop, "tournament", "export", "away", "-o", str(bundle),
                            NEON_TOKEN=token)
        if written.returncode == 0:
            break
        await asyncio.sleep(0.2)
    assert written.returncode == 0, written.stdout + written.stderr
    records = [json.loads(x) for x in bundle.read_text().splitlines()]
    logged = [r["record"] for r in records if r.get("type") == "LogRecord"]
    assert {r.get("created_by") for r in logged if "created_by" in r} == {"alice"}
    assert [r["by"] for r in logged if r.get("type") == "Registered"] == ["alice"] * 4, logged
    no_keys_made(remote.laptop_var)


async def test_tokens_that_cannot_act_as_the_organiser_are_refused_plainly(
        remote: Remote) -> None:
    """A player's token given to an organiser command, an organiser token of another
    deployment, and (without a token) an organiser token minted with this machine's own
    keys, which are not the deployment's: each a line saying the command needs an
    organiser token of this deployment and how to get one, exit 1, nothing done."""
    run, laptop = remote.run, remote.laptop
    org = remote.b.issuer.issue("organiser", "*", player="org", ttl=600)
    ann = remote.b.issuer.issue("player", "*", player="ann", ttl=600)
    created = await run(laptop, "tournament", "create", "guard", "--game", "neon-reign",
                        "--mode", "single", "--rounds", "1", NEON_TOKEN=org)
    assert created.returncode == 0, created.stdout + created.stderr
    how = ("needs an organiser token of this deployment: mint one on the server host with "
           "`neon token organiser NAME` and pass it with --token or NEON_TOKEN, or leave out "
           "--token and NEON_TOKEN to mint one with this machine's deployment keys")

    start = await run(laptop, "tournament", "start", "guard", NEON_TOKEN=ann)
    assert start.returncode == 1, start.stdout + start.stderr
    assert start.stderr.strip() == ("PERMISSION_DENIED: this call needs an organiser token, not "
                                    f"player; `neon tournament start` {how}"), start.stderr
    other = await run(laptop, "tournament", "register", "guard", "ben", "--token", ann)
    assert other.returncode == 1, other.stdout + other.stderr  # named, as at the desk
    assert said(other.stderr) == ("ben cannot be registered: a player token acts only for its "
                                  "own player; an organiser token acts for any player: "
                                  f"{how.split(': ', 1)[1]} 1 of 1 player not registered: ben"), \
        other.stderr
    match = await run(laptop, "abandon", "guard-r1-t1", "--reason", "x", "--game",
                      "neon-reign", NEON_TOKEN=ann)
    assert match.returncode == 1, match.stdout + match.stderr
    assert said(match.stderr) == ("PERMISSION_DENIED: this call needs an organiser token, not "
                                  f"a player token; `neon abandon` {how}"), match.stderr
    players = await run(laptop, "tournament", "register", "guard", "ann", NEON_TOKEN=ann)
    assert players.returncode == 0, players.stderr  # a player registers itself
    assert players.stdout.strip() == "1 newly registered"

    foreign = TokenIssuer(b"another deployment's secret", external=None).issue(
        "organiser", "*", player="mallory", ttl=600)
    forged = await run(laptop, "tournament", "next-round", "guard", "--token", foreign)
    assert forged.returncode == 1, forged.stdout + forged.stderr
    assert said(forged.stderr) == ("UNAUTHENTICATED: token signature is invalid; `neon "
                                   f"tournament next-round` {how}"), forged.stderr

    (remote.laptop_var / "keys.json").write_text(json.dumps({
        "token_secret": "00" * 32, "signing_key": "11" * 32}))
    own = await run(laptop, "tournament", "start", "guard")
    assert own.returncode == 1, own.stdout + own.stderr
    assert said(own.stderr) == (
        "UNAUTHENTICATED: token signature is invalid; the organiser token minted with this "
        "machine's deployment keys is refused: they are not the deployment's; pass an "
        "organiser token with --token or NEON_TOKEN (mint one on the server host with `neon "
        "token organiser NAME`)"), own.stderr
    t = (await remote.client.call("GetTournament", tournament_id="guard")).tournament
    assert [p.player_id for p in t.players] == ["ann"] and t.rounds_paired == 0


async def test_client_commands_on_a_laptop_say_what_is_missing_and_make_no_keys(
        remote: Remote) -> None:
    """Client commands that mint a token (or read the signing key) with this machine's keys,
    run on the laptop without --embedded: one line saying what is missing and what to do,
    exit 2, no keys made. On the server host the same commands find the deployment's keys:
    `neon public-key` prints the key the backend signs with, `neon play` creates and plays
    its match with the service token it mints."""
    from services.platform.signing import public_key_hex

    run, laptop = remote.run, remote.laptop
    missing = ("no deployment keys on this machine (no NEON_TOKEN_SECRET and no "
               f"{remote.laptop_var / 'keys.json'}): ")
    for args, what in (
            (["public-key"], "run `neon public-key` on the server host"),
            (["play", "neon-reign", "--bots", "random,random"], "`neon play` mints its tokens"),
            (["tournament", "simulate", "--game", "neon-reign", "--players", "2"],
             "`neon tournament simulate` mints its tokens"),
            (["tournament", "play", "any", "--player", "ann"],
             "pass your player token with --token or NEON_TOKEN: the organiser mints it on "
             "the server host with `neon token player ID`")):
        out = await run(laptop, *args)
        assert out.returncode == 2, out.stdout + out.stderr
        assert out.stdout == "" and len(out.stderr.splitlines()) == 1, out.stderr
        line = said(out.stderr)
        if args == ["public-key"]:
            assert line.startswith(missing.replace("NEON_TOKEN_SECRET", "NEON_SIGNING_KEY")), line
        else:
            assert line.startswith(missing), line
        assert what in line, line
        no_keys_made(remote.laptop_var)

    key = await run(remote.host, "public-key")
    assert key.returncode == 0, key.stdout + key.stderr
    assert key.stdout.strip() == public_key_hex(remote.b.keys.signing_key)
    played = await run(remote.host, "play", "neon-reign", "--mode", "single", "--bots",
                       "random,random", "--seed", "7")
    assert played.returncode == 0, played.stdout + played.stderr
    assert "ended after" in said(played.stdout), played.stdout
