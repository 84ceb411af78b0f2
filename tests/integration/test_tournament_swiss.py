"""A whole Swiss tournament of Neon Reign through the real services, by bots.

Real NATS (JetStream), a real store, real gRPC sockets: the tournament service creates
each round's matches on the rules service, bots play them through the real match flow
(client seeds, ReadyForMatch, random legal moves), results come back as signed results
on NATS, and the exported bundle verifies offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.backend import start_backend
from services.cli.tournament_commands import format_json, simulate_run
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
async def tournament_backend(tmp_path: Path, nats_url: str):
    settings = make_settings(tmp_path, nats_url)
    settings = type(settings)(**{**settings.__dict__, "ports": {**settings.ports, "tournament": 0}})
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                            tournament=True)
    yield b
    await b.stop(1)


async def test_swiss_16_players_4_rounds_exports_and_verifies(tournament_backend) -> None:
    b = tournament_backend
    report = await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                format_json("swiss", 4), 16, mode="single")
    assert len(report.rounds) == 4
    met: set[frozenset[str]] = set()
    for r in report.rounds:
        seated = [p for t in r.tables for p in t.seats]
        assert sorted(seated) == sorted(set(seated)) and len(seated) == 16
        for t in r.tables:
            assert not t.bye and len(t.seats) == 2
            pair = frozenset(t.seats)
            assert pair not in met, f"rematch {sorted(pair)} in round {r.number}"
            met.add(pair)
            assert t.final_hash and t.result.placements
        assert r.checkpoint.merkle_root and r.checkpoint.leaves == 8
    assert len(report.standings) == 16
    assert [row.rank for row in report.standings] == sorted(row.rank for row in report.standings)
    assert report.verify.ok, report.verify.failures
    assert report.verify.matches == 32
    again = verify_bundle(report.bundle)
    assert again.ok
    lines = [json.loads(x) for x in report.bundle.splitlines()]
    assert sum(1 for x in lines if x["type"] == "MatchExport") == 32
    assert sum(1 for x in lines if x["type"] == "InclusionProof") == 32
    assert sum(1 for x in lines if x["type"] == "RoundCheckpoint") == 4
