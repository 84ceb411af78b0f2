"""The tournament service killed (SIGKILL) during a round, restarted: the round completes,
nothing is lost or doubled, and the checkpoint and the bundle still verify.

dice and the Neon Reign rules service run in this process; the tournament service runs as
its own OS process (``neon serve tournament``) on PostgreSQL, so it can be killed for real.
Real NATS carries the signed results that arrive while it is dead.
"""

from __future__ import annotations

import asyncio
import collections
import json
from pathlib import Path

import pytest

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import (
    TournamentClient,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import playing
from services.platform.natsrv import free_port
from services.tournament.bundle import verify_bundle
from tests.e2e.procs import ServiceProcess, service_env
from tests.integration.conftest import make_settings, registered_swiss

pytestmark = [pytest.mark.timeout(240), pytest.mark.postgres]
PLAYERS = 8


async def _seat_up(client: TournamentClient, rules: dict[str, RulesClient], token: str,
                   tid: str) -> pb.MatchAssignment:
    """MyNextMatch, a client seed, ReadyForMatch: the seat is ready to play."""
    while True:
        a = (await client.call("MyNextMatch", token, tournament_id=tid)).assignment
        if a.match_id and a.seat_token:
            break
        await asyncio.sleep(0.05)
    rc = rules.setdefault(a.rules_address, RulesClient(a.rules_address))
    await rc.call("AddClientSeed", rules_pb2.AddClientSeedRequest(match_id=a.match_id, seed=f"s-{a.seat}"),
                  a.seat_token)
    await client.call("ReadyForMatch", token, tournament_id=tid, match_id=a.match_id)
    return a


async def _play(rules: dict[str, RulesClient], a: pb.MatchAssignment, who: str) -> None:
    await playing.play_seat(rules[a.rules_address].stub, a.seat_token, a.match_id,
                            playing.random_choice(f"{who}:{a.match_id}"), seat=a.seat, wait=5.0)


async def test_killed_mid_round_the_round_completes_once(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    settings = make_settings(tmp_path, nats_url)
    backend = await start_backend(settings, games=["neon-reign"], embedded_nats=False)
    port = free_port()
    env = service_env({
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(settings.var_dir), "DATABASE_URL": postgres_url,
        "NEON_PERSISTENCE": "postgres", "NEON_POSTGRES_SCHEMA": postgres_schema,
        "POSTGRES_PASSWORD": "", "NEON_TOURNAMENT_PORT": str(port),
        "NEON_RULES_NEON_REIGN_ADDR": backend.address("rules-neon-reign"),
        "NEON_DICE_ADDR": backend.address("dice"), "NEON_SCORING_ADDR": "127.0.0.1:1",
        "NEON_LOG_LEVEL": "info"})
    service = ServiceProcess("tournament", env, f"127.0.0.1:{port}", tmp_path).start()
    client = TournamentClient(f"127.0.0.1:{port}")
    rules: dict[str, RulesClient] = {}
    issue = backend.issuer.issue
    organiser = issue("organiser", "*", player="organiser", ttl=3600)
    names = [f"k{i}" for i in range(PLAYERS)]
    tokens = {n: issue("player", "*", player=n, ttl=3600) for n in names}
    tid = "killed_once"
    try:
        await registered_swiss(client, organiser, tid, names, 3, check_in_seconds=120)
        # round 1 as usual
        await client.call("NextRound", organiser, tournament_id=tid)
        await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n) for n in names))
        await wait_round_complete(client, tid, 1, 60)

        # round 2: every seat ready; half the tables play; the service dies; the rest play
        paired = (await client.call("NextRound", organiser, tournament_id=tid)).round
        seats = dict(zip(names, await asyncio.gather(
            *(_seat_up(client, rules, tokens[n], tid) for n in names))))
        first = {p for t in paired.tables[:2] for p in t.seats}
        await asyncio.gather(*(_play(rules, seats[n], n) for n in first))
        for _ in range(200):
            r = (await client.call("GetRound", tournament_id=tid, round=2)).round
            if sum(t.status == pb.TABLE_STATUS_DONE for t in r.tables) >= 2:
                break
            await asyncio.sleep(0.05)
        service.kill()
        await asyncio.gather(*(_play(rules, seats[n], n) for n in names if n not in first))
        service.start()
        done = await wait_round_complete(client, tid, 2, 60)
        assert all(t.status == pb.TABLE_STATUS_DONE and t.final_hash for t in done.tables)
        assert done.checkpoint.leaves == 4

        # round 3 after the restart, then the end
        await client.call("NextRound", organiser, tournament_id=tid)
        await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n) for n in names))
        await wait_round_complete(client, tid, 3, 60)
        finished = await client.call("FinishTournament", organiser, tournament_id=tid)
        assert sum(row.points for row in finished.rows) == 12  # 12 matches, 1 point each
        client.timeout = 60
        bundle = (await client.call("ExportTournament", organiser, tournament_id=tid)).bundle_jsonl
    finally:
        await client.close()
        for rc in rules.values():
            await rc.close()
        service.stop()
        await backend.stop(1)

    report = verify_bundle(bundle)
    assert report.ok, report.failures
    assert report.matches == 12
    records = [json.loads(x)["record"] for x in bundle.splitlines()
               if json.loads(x)["type"] == "LogRecord"]
    per_table = collections.Counter((r["type"], r["round"], r["table"]) for r in records
                                    if r["type"] in ("MatchCreated", "ResultRecorded",
                                                     "MatchStarted", "MatchSealed"))
    assert set(per_table.values()) == {1}, [k for k, v in per_table.items() if v != 1]
    assert len(per_table) == 4 * 12
    assert sum(1 for r in records if r["type"] == "CheckpointPublished") == 3
    assert sum(1 for r in records if r["type"] == "RoundPaired") == 3
