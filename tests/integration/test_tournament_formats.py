"""Single elimination of Neon Reign and a NEON event at tables of 3-4, through the real
services by bots, each exported and verified offline."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from services.cli.backend import Backend, start_backend
from services.cli.tournament_commands import format_json, simulate_run
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.timeout(300)


async def _backend(tmp_path: Path, nats_url: str, game: str) -> Backend:
    settings = make_settings(tmp_path, nats_url)
    settings = dataclasses.replace(settings, ports={**settings.ports, "tournament": 0})
    return await start_backend(settings, games=[game], embedded_nats=False, tournament=True)


async def test_single_elimination_of_8_neon_reign(tmp_path: Path, nats_url: str) -> None:
    b = await _backend(tmp_path, nats_url, "neon-reign")
    try:
        report = await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                    format_json("single-elimination", 0), 8, mode="single")
    finally:
        await b.stop(1)
    assert [len([t for t in r.tables if not t.bye]) for r in report.rounds] == [4, 2, 1]
    alive = {p for t in report.rounds[0].tables for p in t.seats}
    assert len(alive) == 8
    for r in report.rounds:  # only the winners of a round play the next
        seated = {p for t in r.tables for p in t.seats}
        assert seated <= alive
        alive = {t.seats[list(t.result.placements).index(min(t.result.placements))]
                 for t in r.tables if not t.bye}
    champion = report.standings[0].player_id
    assert alive == {champion}
    bracket = json.loads(report.tournament.bracket_json)
    assert bracket["champion"] == champion
    assert sum(1 for m in bracket["matches"] if m["status"] == "decided") == 7
    assert report.verify.ok, report.verify.failures
    assert report.verify.matches == 7
    assert verify_bundle(report.bundle).ok


async def test_neon_event_of_7_at_tables_of_4_and_3(tmp_path: Path, nats_url: str) -> None:
    """Seven players only fit at a table of 4 and one of 3, so every round mixes the sizes."""
    b = await _backend(tmp_path, nats_url, "neon")
    fmt = format_json("multiplayer", 2, table_sizes="3,4", points="4,2,1,0")
    try:
        report = await simulate_run(b.address("tournament"), b.issuer.issue, "neon", fmt, 7,
                                    mode="rebirth")
    finally:
        await b.stop(1)
    assert len(report.rounds) == 2
    for r in report.rounds:
        sizes = sorted(len(t.seats) for t in r.tables)
        assert sizes == [3, 4]
        for t in r.tables:
            assert sorted(t.result.placements)[0] == 1 and t.final_hash
    rows = report.standings
    assert len(rows) == 7
    assert [tb.name for tb in rows[0].tiebreaks][:2] == ["placement-points", "game-tiebreak"]
    total = sum(row.points for row in rows)
    assert total > 0
    assert report.verify.ok, report.verify.failures
    lines = [json.loads(x) for x in report.bundle.splitlines()]
    assert sum(1 for x in lines if x["type"] == "MatchExport") == sum(len(r.tables) for r in report.rounds)


async def test_round_robin_of_5_and_double_elimination_of_4(tmp_path: Path, nats_url: str) -> None:
    """Every pairing once with a bye a round (Berger, odd field); a double elimination with a
    losers' bracket. Both verify offline."""
    b = await _backend(tmp_path, nats_url, "neon-reign")
    try:
        rr = await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                format_json("round-robin", 0), 5, mode="single")
        de = await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                format_json("double-elimination", 0), 4, mode="single")
    finally:
        await b.stop(1)
    assert len(rr.rounds) == 5
    pairs = [frozenset(t.seats) for r in rr.rounds for t in r.tables if not t.bye]
    assert len(pairs) == len(set(pairs)) == 10
    assert all(sum(t.bye for t in r.tables) == 1 for r in rr.rounds)
    assert rr.verify.ok, rr.verify.failures
    assert de.verify.ok, de.verify.failures
    bracket = json.loads(de.tournament.bracket_json)
    assert {m["bracket"] for m in bracket["matches"]} >= {"winners", "losers"}
    assert bracket["champion"] == de.standings[0].player_id
