"""The README followed by a newcomer, with the typos a newcomer makes: a bot kind that does not
exist (`neon play neon-reign --bots rnd,random`) and a player id that could never play
(`neon tournament play T --player "ann smith"`). Each is a usage error (exit 2) named in one
line, said before anything is made: no match is left running on the rules service, no token
is minted. The commands run as their own processes against real services."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from tests.integration.test_tournament_cli import neon, tournament_backend

pytestmark = pytest.mark.timeout(120)


async def test_an_unknown_bot_or_a_bad_player_id_is_a_usage_error(
        tmp_path: Path, nats_url: str) -> None:
    b, env = await tournament_backend(tmp_path, nats_url)
    rules = RulesClient(b.address("rules-neon-reign"))
    try:
        typo = await asyncio.to_thread(neon, env, "play", "neon-reign", "--bots", "rnd,random")
        said = " ".join(typo.stderr.split())
        assert typo.returncode == 2, typo.stdout + typo.stderr
        assert "unknown bot 'rnd' for neon-reign; bots: random, rule" in said, said
        assert "unexpected error" not in said and "Traceback" not in said, said
        listed = await rules.call("ListMatches", rules_pb2.ListMatchesRequest())
        assert [m.match_id for m in listed.matches] == [], "no match made for a typo"

        org = b.issuer.issue("organiser", "*", player="olga", ttl=600)
        made = await asyncio.to_thread(neon, {**env, "NEON_TOKEN": org}, "tournament", "create",
                                       "typos", "--game", "neon-reign", "--mode", "single",
                                       "--format", "swiss", "--rounds", "1")
        assert made.returncode == 0, made.stdout + made.stderr
        for args in (["--player", "ann smith"], ["--player", "ann smith", "--register"]):
            bad = await asyncio.to_thread(neon, env, "tournament", "play", "typos", *args)
            said = " ".join((bad.stdout + bad.stderr).split())
            assert bad.returncode == 2, said
            assert "player id 'ann smith' must be 1-64 letters, digits or _ . : @ | + -" in said
            assert "minted" not in said and "not registered" not in said, said
    finally:
        await rules.close()
        await b.stop(1)
