"""ListTournaments on two replicas of the tournament service sharing one PostgreSQL store,
over real gRPC: a replica that listed before answers what it would answer fresh, with the
tournaments created on the other replica since (newest first) and their changes there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import start_backend
from services.cli.tournament_commands import TournamentClient
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import bus
from services.tournament import main as tournament_main
from tests.integration.conftest import make_settings
from tests.support import toy

pytestmark = pytest.mark.timeout(120)


def _listed(reply: Any) -> list[tuple[str, int, int, int]]:
    return [(t.tournament_id, t.status, t.players, t.rounds_paired) for t in reply.tournaments]


@pytest.mark.postgres
async def test_a_replica_lists_what_another_created_and_changed(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    settings = make_settings(tmp_path, nats_url, persistence="postgres",
                             database_url=postgres_url, postgres_schema=postgres_schema)
    b = await start_backend(settings, games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE}, tournament=True)
    nc_b = await bus.connect(b.settings.nats_url, "tournament-replica-b")
    replica_b = await tournament_main.start(b.settings, b.keys, nc_b)
    a = TournamentClient(b.address("tournament"))
    on_b = TournamentClient(replica_b.address)
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)

    async def create(tid: str) -> None:
        await a.call("CreateTournament", org, tournament_id=tid, game="toy", mode="race", format_json=json.dumps({"format": "swiss", "rounds": 1}),
                     no_show=pb.NO_SHOW_POLICY_BOT)

    fresh: Any = None
    try:
        await create("first")
        assert _listed(await on_b.call("ListTournaments")) == \
            [("first", pb.TOURNAMENT_STATUS_CREATED, 0, 0)]
        for tid in ("second", "third"):
            await create(tid)
        await a.call("OpenRegistration", org, tournament_id="first")
        for n in ("ann", "ben"):
            await a.call("Register", org, tournament_id="first", player_id=n)
        listed = _listed(await on_b.call("ListTournaments"))
        assert listed == [("third", pb.TOURNAMENT_STATUS_CREATED, 0, 0),
                          ("second", pb.TOURNAMENT_STATUS_CREATED, 0, 0),
                          ("first", pb.TOURNAMENT_STATUS_REGISTRATION, 2, 0)]
        assert _listed(await on_b.call("ListTournaments", limit=2)) == listed[:2]
        assert _listed(await a.call("ListTournaments")) == listed
        # a third replica that never listed answers the same
        nc_fresh = await bus.connect(b.settings.nats_url, "tournament-replica-c")
        fresh = (await tournament_main.start(b.settings, b.keys, nc_fresh), nc_fresh)
        on_fresh = TournamentClient(fresh[0].address)
        try:
            assert _listed(await on_fresh.call("ListTournaments")) == listed
        finally:
            await on_fresh.close()
    finally:
        await a.close()
        await on_b.close()
        await replica_b.stop(1)
        if not nc_b.is_closed:
            await nc_b.close()
        if fresh is not None:
            await fresh[0].stop(1)
            if not fresh[1].is_closed:
                await fresh[1].close()
        await b.stop(1)
