"""The README's curl walkthrough, run exactly as written, plays a whole Neon Reign match
through the gateway: create, list legal actions, submit, export, verify."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.rules.verify import verify_export
from tests.support.gateway import gateway_for

README = Path(__file__).resolve().parents[2] / "README.md"


def walkthrough() -> str:
    text = README.read_text()
    block = re.search(
        r"<!-- curl-walkthrough:start -->\n```sh\n(.*?)```\n<!-- curl-walkthrough:end -->",
        text,
        re.S,
    )
    assert block, "the README's curl walkthrough is missing"
    return block.group(1)


def _tools() -> None:
    missing = [t for t in ("curl", "jq", "bash", "base64") if not shutil.which(t)]
    if missing:
        reason = f"needs {', '.join(missing)} (apt-get install curl jq)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.mark.timeout(180)
async def test_the_readme_curl_walkthrough_plays_a_whole_neon_reign_match(
    backend: Backend, tmp_path: Path
) -> None:
    _tools()
    async with gateway_for(backend) as running:
        env: dict[str, Any] = {
            **os.environ,
            "GW": running.url,
            "ORG": backend.organiser_token(),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "NEON_VAR_DIR": str(tmp_path / "var"),
        }
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-euo",
            "pipefail",
            "-c",
            walkthrough(),
            cwd=tmp_path,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=150)
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text[-3000:]
    data = (tmp_path / "match.jsonl").read_bytes()
    report = verify_export(data)
    assert report.ok, report.failure
    assert report.outcome is not None and '"placements"' in text
    actions = sum(1 for line in data.splitlines() if b'"ActionAccepted"' in line)
    assert actions >= 10, "a whole match, not a stub"
    assert "OK" in text or "verified" in text.lower(), text[-1500:]


def tournament_block() -> str:
    """The README's curl calls of a player at a tournament table (inside a list item: its
    two spaces of indent taken off)."""
    block = re.search(
        r"<!-- curl-tournament:start -->\n\s*```sh\n(.*?)\s*```\n\s*<!-- curl-tournament:end -->",
        README.read_text(), re.S)
    assert block, "the README's tournament curl calls are missing"
    return textwrap.dedent(block.group(1))


@pytest.mark.timeout(120)
async def test_the_readme_tournament_calls_get_a_player_to_the_start_of_the_match(
        tmp_path: Path, nats_url: str) -> None:
    """Run as written, alice's calls find her table, add her seat's client seed and say she
    is ready: with bob's the same, the match starts at once (not after check_in_seconds),
    on both seats' seeds."""
    _tools()
    if not shutil.which("openssl"):
        (pytest.fail if os.environ.get("CI") else pytest.skip)("needs openssl")
    import grpc

    from services.cli.tournament_commands import format_json
    from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
    from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
    from services.genproto.neon.tournament.v1 import tournament_pb2_grpc as tpb_grpc
    from tests.integration.conftest import make_settings
    from tests.support.gateway import backend_and_gateway

    settings = make_settings(tmp_path, nats_url)
    async with backend_and_gateway(settings, games=["neon-reign"], tournament=True) as (
            b, gateway), grpc.aio.insecure_channel(b.address("tournament")) as channel:
        stub = tpb_grpc.TournamentServiceStub(channel)
        token = {p: b.issuer.issue("player", "*", player=p, ttl=600) for p in ("alice", "bob")}

        def auth(t: str) -> list[tuple[str, str]]:
            return [("authorization", f"Bearer {t}")]

        org = auth(b.organiser_token())
        await stub.CreateTournament(tpb.CreateTournamentRequest(
            tournament_id="spring26", name="spring", game="neon-reign", mode="single",
            format_json=format_json("swiss", 1)), metadata=org)
        await stub.OpenRegistration(tpb.OpenRegistrationRequest(tournament_id="spring26"),
                                    metadata=org)
        for t in token.values():
            await stub.Register(tpb.RegisterRequest(tournament_id="spring26"), metadata=auth(t))
        await stub.StartTournament(tpb.StartTournamentRequest(tournament_id="spring26"),
                                   metadata=org)
        await stub.NextRound(tpb.NextRoundRequest(tournament_id="spring26"), metadata=org)
        seats = {}
        for player in token:  # the table's match is made: each player sees it
            for _ in range(100):
                mine = await stub.MyNextMatch(tpb.MyNextMatchRequest(tournament_id="spring26"),
                                              metadata=auth(token[player]))
                if mine.assignment.match_id:
                    break
                await asyncio.sleep(0.1)
            seats[player] = mine.assignment
        match = seats["alice"].match_id
        assert match and seats["bob"].match_id == match

        env = {**os.environ, "GW": gateway.url, "PLAYER": token["alice"],
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        proc = await asyncio.create_subprocess_exec(
            "bash", "-euo", "pipefail", "-c", tournament_block(), cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=60)
        text = out.decode(errors="replace")
        assert proc.returncode == 0, text
        assert '"seatsWithSeeds": 1' in text and '"seatsReady": 1' in text, text
        assert '"started": false' in text, text  # bob is not ready yet

        # bob does the same over gRPC: the second seed and the second seat ready start it
        async with grpc.aio.insecure_channel(b.address("rules-neon-reign")) as rules_channel:
            rules = rules_pb2_grpc.RulesServiceStub(rules_channel)
            added = await rules.AddClientSeed(rules_pb2.AddClientSeedRequest(
                match_id=match, seed="b0" * 32), metadata=auth(seats["bob"].seat_token))
            assert added.seats_with_seeds == 2  # alice's is there
            ready = await stub.ReadyForMatch(tpb.ReadyForMatchRequest(
                tournament_id="spring26", match_id=match), metadata=auth(token["bob"]))
            assert (ready.seats_ready, ready.started) == (2, True)
            view = await rules.GetView(rules_pb2.GetViewRequest(match_id=match))
            assert view.status == rules_pb2.MATCH_STATUS_RUNNING, view.status
