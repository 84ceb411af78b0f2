"""An upgrade: the stores an EARLIER release wrote (tests/fixtures/stores, made by
scripts/make_store_fixture.py) load in the current backend and keep working.

Each fixture is a whole deployment's var dir: SQLite files, dev keys, and the bundled
nats-server's JetStream data. The current backend starts on it as ``neon up`` does (in this
process, every service on its own gRPC port) with a bundled nats-server on the fixture's
JetStream folder, not CI's NATS: a deployment on the embedded defaults upgrades its SQLite
files and its NATS data together (the outbox relays' positions are a JetStream KV bucket,
scoring's and the tournament's durable consumers live in the stream), so a fresh NATS would
be another deployment, not an upgrade. No mocks: real gRPC, real NATS, real SQLite files.

A ``*-postgres`` fixture holds the release's PostgreSQL schema instead of SQLite files
(``postgres.sql``, a pg_dump of it; the manifest names the schema): it is restored under a
fresh schema of this run in DATABASE_URL's database (skipped when DATABASE_URL is not set),
the backend runs on it with persistence postgres, the same checks follow, and the schema is
dropped at the end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import re
import sqlite3
import tarfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.cli.mm_commands import MatchmakingClient, wait_for_match
from services.cli.tournament_commands import TournamentClient, play_round_as, wait_round_complete
from services.genproto.neon.matchmaking.v1.matchmaking_pb2 import TicketStatus
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.matchmaking.config import Config
from services.platform import logs, playing
from services.platform.grpc_kit import call_metadata, channel
from services.platform.settings import DEFAULT_PORTS, Settings
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "stores").glob("*.tar.xz"))
pytestmark = [pytest.mark.timeout(180),
              # the bundled NATS on 4222 when free; on PostgreSQL, 41 connections
              pytest.mark.serial]


def unpack(fixture: Path, into: Path) -> dict[str, Any]:
    with tarfile.open(fixture) as tar:
        tar.extractall(into, filter="data")
    return json.loads((into / "manifest.json").read_text())


def postgres_fixture(fixture: Path) -> bool:
    return fixture.name.endswith("-postgres.tar.xz")


def restore(dump: str, old: str, new: str, url: str) -> None:
    """Load a plain pg_dump of schema ``old`` as schema ``new`` (the name replaced in the
    text, function bodies included), without psql: the statements as one script each, the
    COPY blocks through psycopg's COPY; psql's meta-commands (\\restrict) are skipped."""
    import psycopg

    assert re.search(rf"^CREATE SCHEMA {re.escape(old)};$", dump, re.M), "not this dump's schema"
    lines = dump.replace(old, new).split("\n")
    with psycopg.connect(url, autocommit=True) as conn:
        script: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("\\"):
                continue
            if not (line.startswith("COPY ") and line.endswith(" FROM stdin;")):
                script.append(line)
                continue
            if "".join(script).strip():
                conn.execute("\n".join(script).encode())
            script = []
            end = lines.index("\\.", i)
            with conn.cursor() as cur, cur.copy(line.encode()) as copy:
                copy.write("".join(x + "\n" for x in lines[i:end]))
            i = end + 1
        if "".join(script).strip():
            conn.execute("\n".join(script).encode())


@contextmanager
def store_settings(fixture: Path, manifest: dict[str, Any], var: Path) -> Iterator[Settings]:
    """Settings of the current backend on the fixture's stores, after checking that the long
    tournament's check is one of an old snapshot (read before anything opens the stores)."""
    base = dataclasses.replace(Settings(), var_dir=var, ports={name: 0 for name in DEFAULT_PORTS},
                               log_level="info")
    if not postgres_fixture(fixture):
        with sqlite3.connect(var / "tournament.sqlite") as db:
            assert db.execute("SELECT count(*) FROM stored_snapshots").fetchone()[0] >= 1
        yield dataclasses.replace(base, persistence="sqlite")
        return
    import psycopg

    url = os.environ["DATABASE_URL"]
    schema = f"t_upgrade_{uuid.uuid4().hex[:12]}"
    try:
        restore((var.parent / "postgres.sql").read_text(), manifest["postgres_schema"], schema,
                url)
        with psycopg.connect(url) as conn:
            assert conn.execute(f'SELECT count(*) FROM "{schema}".tournament_snapshots'
                                ).fetchone()[0] >= 1
        yield dataclasses.replace(base, persistence="postgres", database_url=url,
                                  postgres_schema=schema)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def log_file(tmp_path: Path) -> Any:
    """Every structlog line and every standard-library warning (eventsourcing, grpc, nats)
    of the backend go to one file, read at the end for tracebacks and errors."""
    path = tmp_path / "backend.log"
    stream = open(path, "a", buffering=1)  # noqa: SIM115 - closed below
    logs.configure("info", "json", stream=stream)
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    try:
        yield path
    finally:
        logging.getLogger().removeHandler(handler)
        logs.configure()
        stream.close()


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name.split(".")[0] for f in FIXTURES])
async def test_an_earlier_releases_stores_load_and_go_on(fixture: Path, tmp_path: Path,
                                                         log_file: Path) -> None:
    if postgres_fixture(fixture) and not os.environ.get("DATABASE_URL"):
        pytest.skip("PostgreSQL fixture: DATABASE_URL is not set")
    manifest = unpack(fixture, tmp_path)
    with store_settings(fixture, manifest, tmp_path / "var") as settings:
        await stores_go_on(fixture, manifest, settings, log_file)


async def stores_go_on(fixture: Path, manifest: dict[str, Any], settings: Settings,
                       log_file: Path) -> None:
    # the waiting ticket was queued when the fixture was made: a long ticket TTL keeps it
    # waiting (the default 600 s would expire it at the first cycle, which says nothing)
    mm_config = Config(interval=0.1, ticket_ttl=10 * 365 * 24 * 3600.0)
    t0 = time.monotonic()
    backend = await start_backend(settings, ["neon-reign", "neon"], embedded_nats=True,
                                  scoring=True, matchmaking=True, matchmaking_config=mm_config,
                                  tournament=True)
    organiser = backend.organiser_token()
    rules = {g: RulesClient(backend.address(f"rules-{g}"), timeout=30) for g in ("neon-reign", "neon")}
    try:
        await finished_matches_unchanged(manifest, rules, organiser)
        before = await leaderboard(backend.address("scoring"))
        ratings_kept(manifest, before)
        await waiting_ticket_matches(manifest, backend)
        await tournament_goes_on(manifest, backend, organiser)
        await long_tournament_from_its_snapshot(manifest, backend, organiser)
        await in_progress_match_goes_on(manifest, backend, rules["neon-reign"], organiser)
        await scoring_goes_on(manifest, backend.address("scoring"))
    finally:
        for client in rules.values():
            await client.close()
        await backend.stop(2)
    wall = time.monotonic() - t0
    text = log_file.read_text()
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    assert "Traceback" not in text, text[text.index("Traceback") - 2000:][:6000]
    errors = [x for x in lines if x.get("level") in ("error", "critical", "exception")
              or "exception" in x]
    assert not errors, errors[:5]
    assert any(x.get("event") == "backend up" for x in lines)  # the log file did catch them
    print(f"{fixture.name}: loaded and continued in {wall:.1f} s")


async def finished_matches_unchanged(manifest: dict[str, Any], rules: dict[str, RulesClient],
                                     organiser: str) -> None:
    for m in manifest["finished"]:
        reply = await rules[m["game"]].export(organiser, m["match_id"])
        assert reply.final_hash == m["final_hash"], m
        assert reply.event_count == m["event_count"], m
        report = verify_export(reply.export_jsonl)
        assert report.ok, (m["match_id"], report.failure)
        assert report.match_id == m["match_id"] and report.outcome


async def leaderboard(address: str) -> dict[str, Any]:
    ch = channel(address)
    try:
        reply = await scoring_pb2_grpc.ScoringServiceStub(ch).GetLeaderboard(
            scoring_pb2.GetLeaderboardRequest(game="neon-reign", limit=1000),
            metadata=call_metadata(), timeout=10)
    finally:
        await ch.close()
    return {e.rating.player: e.rating for e in reply.entries}


def ratings_kept(manifest: dict[str, Any], board: dict[str, Any]) -> None:
    for row in manifest["ratings"]["board"]:
        got = board.get(row["player"])
        assert got is not None, f"{row['player']} is no longer on the leaderboard"
        assert (got.mu, got.sigma, got.matches, got.wins) == pytest.approx(
            (row["mu"], row["sigma"], row["matches"], row["wins"])), row


async def waiting_ticket_matches(manifest: dict[str, Any], backend: Any) -> None:
    """The ticket left queued is still queued, and a newcomer is matched with it."""
    w = manifest["waiting_ticket"]
    mm = MatchmakingClient(backend.address("matchmaking"))
    issue = backend.issuer.issue
    waiter = issue("player", "*", player=w["player"], ttl=600)
    joiner = issue("player", "*", player="fx-joiner", ttl=600)
    try:
        ticket = await mm.call("GetTicket", waiter, ticket_id=w["ticket_id"])
        assert ticket.status == TicketStatus.TICKET_STATUS_WAITING, ticket
        await mm.call("CreateTicket", joiner, ticket_id="fx-joiner-t", game=w["game"],
                      modes=w["modes"], players=["fx-joiner"], allow_bots=False)

        async def yes(_: Any) -> bool:
            return True

        a, b = await asyncio.gather(
            wait_for_match(mm, waiter, w["ticket_id"], w["player"], yes, 30),
            wait_for_match(mm, joiner, "fx-joiner-t", "fx-joiner", yes, 30))
        assert a.assignment.match_id and a.assignment.match_id == b.assignment.match_id
        assert {s.player for s in a.assignment.seats} == {w["player"], "fx-joiner"}
    finally:
        await mm.close()


async def tournament_goes_on(manifest: dict[str, Any], backend: Any, organiser: str) -> None:
    t = manifest["tournament"]
    tid = t["tournament_id"]
    client = TournamentClient(backend.address("tournament"), timeout=60)
    issue = backend.issuer.issue
    tokens = {p: issue("player", "*", player=p, ttl=3600) for p in t["players"]}
    clients: dict[str, RulesClient] = {}
    try:
        rows = (await client.call("GetStandings", tournament_id=tid)).rows
        assert [{"rank": r.rank, "player_id": r.player_id, "points": r.points, "games": r.games,
                 "wins": r.wins} for r in rows] == t["standings_at_stop"]
        one = (await client.call("GetRound", tournament_id=tid, round=1)).round
        assert one.complete and one.checkpoint.merkle_root == t["round1"]["checkpoint_root"]
        for table, was in zip(one.tables, t["round1"]["tables"], strict=True):
            assert (table.match_id, table.final_hash, list(table.seats)) == (
                was["match_id"], was["final_hash"], was["seats"])
        two = (await client.call("GetRound", tournament_id=tid, round=2)).round
        assert not two.complete
        abandoned = t["round2"]["abandoned"]
        for table in two.tables:
            if table.bye:
                continue
            want = (pb.TABLE_STATUS_ABANDONED if table.number == abandoned.get("table")
                    else pb.TABLE_STATUS_RUNNING)
            assert table.status == want, (table.number, pb.TableStatus.Name(table.status))
        if abandoned:
            reply = await client.call("RematchTable", organiser, tournament_id=tid, round=2,
                                      table=abandoned["table"], reason="upgrade test: play again")
            assert reply is not None
        results = await asyncio.gather(*(play_round_as(client, clients, tokens[p], tid, p,
                                                       timeout=60) for p in t["players"]))
        assert sorted(results).count("played") == 4 and "bye" in results, results
        done = await wait_round_complete(client, tid, 2, 60)
        assert all(x.status == pb.TABLE_STATUS_DONE for x in done.tables if not x.bye)
        if abandoned:
            table = done.tables[abandoned["table"] - 1]
            assert table.match_id == f"{abandoned['match_id']}-g2", table
        finished = await client.call("FinishTournament", organiser, tournament_id=tid)
        assert sum(r.games for r in finished.rows) == 8  # 4 tables of two seats
        bundle = (await client.call("ExportTournament", organiser, tournament_id=tid)).bundle_jsonl
    finally:
        await client.close()
        for c in clients.values():
            await c.close()
    report = verify_bundle(bundle, jobs=1)
    assert report.ok, report.failures
    # round 1's two, round 2's two, and the abandoned match a rematch replaced
    assert report.matches == 4 + bool(abandoned), report.checks
    roots = [json.loads(x) for x in bundle.splitlines() if b'"RoundCheckpoint"' in x]
    assert t["round1"]["checkpoint_root"] in json.dumps(roots)


async def long_tournament_from_its_snapshot(manifest: dict[str, Any], backend: Any,
                                            organiser: str) -> None:
    """A finished tournament past 200 events loads from the snapshot the old release took
    (its Tournament as that release shaped it): same final standings, its bundle verifies."""
    t = manifest["long_tournament"]
    client = TournamentClient(backend.address("tournament"), timeout=60)
    try:
        reply = await client.call("GetStandings", tournament_id=t["tournament_id"])
        bundle = (await client.call("ExportTournament", organiser,
                                    tournament_id=t["tournament_id"])).bundle_jsonl
    finally:
        await client.close()
    assert reply.final
    assert [{"rank": r.rank, "player_id": r.player_id, "points": r.points, "games": r.games,
             "wins": r.wins} for r in reply.rows] == t["standings"]
    report = verify_bundle(bundle, jobs=1)
    assert report.ok, report.failures
    assert report.matches == t["matches"]
    records = [json.loads(x) for x in bundle.splitlines()]
    assert sum(1 for r in records if r.get("type") == "LogRecord") == t["log_records"] > 200


async def in_progress_match_goes_on(manifest: dict[str, Any], backend: Any, client: RulesClient,
                                    organiser: str) -> None:
    live = manifest["in_progress"]
    match_id = live["match_id"]
    tokens = {seat: backend.issuer.issue("seat", match_id, seat, player, 3600)
              for seat, player in enumerate(live["players"])}
    view = await client.view(match_id, tokens[0])
    assert view.version == live["version"], view
    assert view.state_hash == live["state_hash"] and not view.outcome_json
    owing = sorted({p.seat for p in view.pending})
    assert owing, "the match in progress owes no decision"
    legal = await client.legal(tokens[owing[0]], match_id)
    assert legal.version == live["version"]
    assert any(d.legal_json for d in legal.decisions), legal
    answers: list[Any] = []
    outcome = await playing.play_table(client.stub, match_id, tokens,
                                       playing.random_choice("upgrade"), on_answer=answers.append,
                                       command_prefix="after-upgrade-")
    assert answers and answers[0].version == live["version"] + 1, answers[:1]
    assert outcome is not None
    reply = await client.export(organiser, match_id)
    report = verify_export(reply.export_jsonl)
    assert report.ok, report.failure
    assert reply.event_count > live["version"]


async def scoring_goes_on(manifest: dict[str, Any], address: str) -> None:
    """The match finished after the upgrade is rated; the old ones are not counted again."""
    players = manifest["in_progress"]["players"]
    deadline = time.monotonic() + 20
    while True:
        board = await leaderboard(address)
        if all(p in board for p in players) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert all(board[p].matches == 1 for p in players), {p: board.get(p) for p in players}
    ratings_kept(manifest, board)
