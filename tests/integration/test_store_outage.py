"""A PostgreSQL outage (issue 17, defect 4): calls answer UNAVAILABLE within their deadline,
never INTERNAL; health turns NOT_SERVING while the store is down; all recovers by itself.

The test runs its own PostgreSQL cluster (tests/support/pgcluster.py) and stops it: never the
machine's shared one.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform import storehealth
from services.platform.grpc_kit import channel
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.pgcluster import PgCluster, binaries

DEADLINE = 5.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    found = binaries()
    if found is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    made = PgCluster(found).init().start()
    yield made
    made.destroy()


@pytest.fixture
async def backend(tmp_path: Path, nats_url: str, cluster: PgCluster) -> AsyncIterator[Backend]:
    settings = make_settings(tmp_path, nats_url, "postgres", database_url=cluster.url,
                             postgres_schema="")
    b = await start_backend(settings, games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE}, scoring=True)
    yield b
    await b.stop(1)


async def _health(address: str) -> int:
    ch = channel(address)
    try:
        reply = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=2)
        return int(reply.status)
    finally:
        await ch.close()


async def _until(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.2)


async def test_store_outage_is_unavailable_not_serving_then_recovers(
        backend: Backend, cluster: PgCluster) -> None:
    rules = RulesClient(backend.address("rules-toy"), timeout=DEADLINE)
    scoring_address = backend.address("scoring")
    rules_probe = storehealth.watch(backend.settings, backend.services["rules-toy"].handle, "rules-toy",
                                    interval=0.3)
    scoring_ch = channel(scoring_address)
    scoring = scoring_pb2_grpc.ScoringServiceStub(scoring_ch)
    match_id = f"pg-{uuid.uuid4().hex[:8]}"
    try:
        created = await rules.create(backend.organiser_token(), match_id=match_id, mode="race", seats=2)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        view = await rules.view(match_id)
        seat = view.pending[0].seat
        action = json.loads((await rules.legal(tokens[seat], match_id)).decisions[0].legal_json[0])
        SERVING = health_pb2.HealthCheckResponse.SERVING
        assert await _health(scoring_address) == SERVING

        cluster.stop()
        codes: list[grpc.StatusCode] = []
        calls = [
            lambda i: rules.submit(tokens[seat], match_id, f"down-{i}", action),
            lambda i: rules.create(backend.organiser_token(), match_id=f"{match_id}-{i}", mode="race",
                                   seats=2),
            lambda i: scoring.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id=f"x{i}"),
                                             timeout=DEADLINE),
        ]
        for i in range(2):
            for call in calls:
                started = time.monotonic()
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await call(i)
                took = time.monotonic() - started
                codes.append(info.value.code())
                assert info.value.code() == grpc.StatusCode.UNAVAILABLE, (calls.index(call), took, info.value.details())
                assert took < DEADLINE, f"{took:.1f}s: not within the deadline"
            await asyncio.sleep(0.4)  # past the board's refresh, so scoring reads the store
        assert grpc.StatusCode.INTERNAL not in codes

        async def not_serving() -> bool:
            return all([await _health(scoring_address) != SERVING,
                        await _health(backend.address("rules-toy")) != SERVING])

        await _until(not_serving, 10)

        cluster.start()

        async def serving() -> bool:
            return all([await _health(scoring_address) == SERVING,
                        await _health(backend.address("rules-toy")) == SERVING])

        await _until(serving, 15)

        async def submits() -> bool:
            """A client resolves the commands whose answer it never got, by their ids: an
            answer UNAVAILABLE may still have been stored, but never twice."""
            for command_id in ("down-0", "down-1"):
                try:
                    await rules.submit(tokens[seat], match_id, command_id, action)
                    return True
                except grpc.aio.AioRpcError as err:
                    if err.code() == grpc.StatusCode.FAILED_PRECONDITION:
                        continue  # the other one was stored: this one is not this seat's turn
                    assert err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED), err
                    return False
            raise AssertionError("neither command went through after the store came back")

        await _until(submits, 15)
        export = (await rules.export(backend.organiser_token(), match_id)).export_jsonl
        stored = [json.loads(line).get("command_id") for line in export.splitlines()[:-1]]
        assert len([c for c in stored if c in ("down-0", "down-1")]) == 1, stored
        later = await rules.view(match_id)
        assert later.version > view.version
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await scoring.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id="nope"), timeout=DEADLINE)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await rules_probe()
        await rules.close()
        await scoring_ch.close()


def test_outage_errors_are_recognised_through_their_causes() -> None:
    import psycopg
    import psycopg_pool
    from eventsourcing.persistence import OperationalError

    assert storehealth.is_store_outage(psycopg_pool.PoolTimeout("couldn't get a connection"))
    assert storehealth.is_store_outage(OperationalError("server closed the connection"))
    try:
        try:
            raise psycopg.OperationalError("connection refused")
        except psycopg.OperationalError as err:
            raise RuntimeError("saving failed") from err
    except RuntimeError as wrapped:
        assert storehealth.is_store_outage(wrapped)
    assert not storehealth.is_store_outage(ValueError("bad json"))
