"""A tournament created with seed_from_ratings says so in every Tournament it is answered
with (Tournament.seed_from_ratings), as it says ``unrated``: over real gRPC against the
tournament service, from the create, a repeat of it, the calls that follow and a later
GetTournament; one created without it says false."""

from __future__ import annotations

import uuid

import pytest

from services.cli.backend import Backend
from services.cli.tournament_commands import TournamentClient, format_json

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("seeded", [True, False])
async def test_seed_from_ratings_is_echoed(reign_tournament_backend: Backend,
                                           seeded: bool) -> None:
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    ann = b.issuer.issue("player", "*", player="ann", ttl=600)
    tid = f"seeded_{uuid.uuid4().hex[:8]}"
    create = dict(tournament_id=tid, game="neon-reign", mode="single",
                  format_json=format_json("single-elimination", 0), seed_from_ratings=seeded)
    try:
        created = (await c.call("CreateTournament", org, **create)).tournament
        again = (await c.call("CreateTournament", org, **create)).tournament  # a repeat
        opened = (await c.call("OpenRegistration", org, tournament_id=tid)).tournament
        registered = (await c.call("Register", ann, tournament_id=tid)).tournament
        got = (await c.call("GetTournament", tournament_id=tid)).tournament
    finally:
        await c.close()
    for t in (created, again, opened, registered, got):
        assert t.tournament_id == tid
        assert t.seed_from_ratings is seeded
        assert t.HasField("clock") and not t.unrated  # the other settings still as they were
