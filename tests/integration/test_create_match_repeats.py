"""A CreateMatch repeated with the same match id answers with the match only when it asks
for the same match; one that asks for another (a clock, teams, waiting for client seeds)
is ALREADY_EXISTS, like a command id reused for another action, not the old match
answered as if it were the one asked for.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from tests.integration.conftest import make_settings
from tests.support import toy

CLOCK = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=60_000)


@pytest.fixture
async def backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    b = await start_backend(make_settings(tmp_path, nats_url), games=["neon"], embedded_nats=False,
                            engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


async def _create(backend: Backend, client: RulesClient, **kw: Any) -> Any:
    return await client.stub.CreateMatch(
        rules_pb2.CreateMatchRequest(**kw),
        metadata=(("authorization", f"Bearer {backend.organiser_token()}"),), timeout=10)


@pytest.mark.parametrize("first, again", [
    ({}, {"clock": CLOCK}),
    ({"clock": CLOCK}, {}),
    ({}, {"await_client_seeds": True}),
])
async def test_a_repeat_asking_for_another_toy_match_is_already_exists(
        backend: Backend, first: dict[str, Any], again: dict[str, Any]) -> None:
    client = RulesClient(backend.address("rules-toy"))
    same = {"match_id": "again-1", "mode": "race", "seats": 2}
    created = await _create(backend, client, **same, **first)
    repeat = await _create(backend, client, **same, **first)
    assert repeat.match_id == created.match_id and repeat.version == created.version
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await _create(backend, client, **same, **again)
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS, info.value.details()
    await client.close()


async def test_a_repeat_with_other_teams_is_already_exists(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-neon"))
    same = {"match_id": "teams-1", "mode": "coalition", "seats": 4}
    first = [rules_pb2.TeamSeats(seats=[0, 2]), rules_pb2.TeamSeats(seats=[1, 3])]
    await _create(backend, client, **same, teams=first)
    await _create(backend, client, **same, teams=first)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await _create(backend, client, **same,
                      teams=[rules_pb2.TeamSeats(seats=[0, 1]), rules_pb2.TeamSeats(seats=[2, 3])])
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS, info.value.details()
    await client.close()
