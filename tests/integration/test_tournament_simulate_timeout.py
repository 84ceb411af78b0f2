"""``neon tournament simulate`` whose round runs past ``--timeout``: an expected failure, one
line saying the round did not finish within the timeout and what to do, exit 1. Before: the
"unexpected error: RuntimeError: round N incomplete ..." line with its "run with --debug"
text. The real command, as its own process, against a running backend (tournament service,
Neon Reign's rules service, real NATS)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from services.cli.errors import FAILED, CliError
from services.cli.tournament_commands import (
    RoundTimedOut,
    TournamentClient,
    format_json,
    wait_round_complete,
)
from services.platform.errors import Unavailable
from services.tournament.rules_port import RulesGateway
from tests.integration.test_tournament_cli import neon, tournament_backend

pytestmark = pytest.mark.timeout(240)


async def test_a_round_past_the_timeout_is_one_line(tmp_path: Path, nats_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # no round can finish, however fast the machine: the tournament service (in this
    # process) never gets its tables' matches made, so the bots are handed none. (With the
    # matches made, a round could finish before the command first looked, and the command
    # rightly exit 0: it did, once, on a quick run.)
    async def no_match(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise Unavailable("this test's rules service makes no match")

    monkeypatch.setattr(RulesGateway, "create_match", no_match)
    b, env = await tournament_backend(tmp_path, nats_url)
    try:
        # far too short for any round: the bots are handed no match in time, or their round
        # is not complete in time (its result and checkpoint): said alike
        done = await asyncio.to_thread(neon, env, "tournament", "simulate", "--game",
                                       "neon-reign", "--players", "2", "--mode", "single",
                                       "--timeout", "0.001")
        said = done.stdout + done.stderr
        assert done.returncode == FAILED, said
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("round 1 did not finish within --timeout 0.001 s"), said
        assert "a larger --timeout" in last and "neon tournament round sim_" in last, said
        assert "  " not in last, said  # each part of the reason said (no empty table list)
        assert "unexpected error" not in said and "--debug" not in said, said
        assert "Traceback" not in said

        # the wait itself: a round nobody plays is not complete in time
        c = TournamentClient(b.address("tournament"))
        org = b.issuer.issue("organiser", "*", player="org", ttl=600)
        await c.call("CreateTournament", org, tournament_id="idle", game="neon-reign",
                     mode="single", format_json=format_json("swiss", 1))
        await c.call("OpenRegistration", org, tournament_id="idle")
        for name in ("ann", "bob"):
            await c.call("Register", b.issuer.issue("player", "*", player=name, ttl=600),
                         tournament_id="idle")
        await c.call("StartTournament", org, tournament_id="idle")
        await c.call("NextRound", org, tournament_id="idle")
        with pytest.raises(RoundTimedOut) as late:
            await wait_round_complete(c, "idle", 1, 0.3)
        assert isinstance(late.value, CliError) and late.value.code == FAILED
        assert late.value.number == 1 and "table 1" in late.value.why, late.value.why
        await c.channel.close()
    finally:
        await b.stop(1)
