"""A rules service that was down does not charge the players' turn clocks for its downtime:
its heartbeat tells the next process when it stopped serving, and the running clocks are
paused for the time in between (services/rules/clockwork.py, ``Clocks.resume``).

Real gRPC, real NATS, a real store (SQLite, and PostgreSQL when DATABASE_URL is set or a
Docker engine answers), the Counter Duel toy; the rules service is stopped and started
again in this process, as test_contract_v2_served.py does. Short times keep it fast: a
heartbeat every 200 ms, a grace of 500 ms (so the grace cannot pass for the pause), a
decision of 8 s, outages of a few seconds. Bounds are timed by the test itself, so a slow
stop or start under load does not fail it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.rules import main as rules_main
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.integration.test_contract_v2_served import create, export_of
from tests.support import duel

DECISION_MS = 8_000
CLOCK = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=DECISION_MS)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def backend(request: pytest.FixtureRequest, tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Dice and the duel's rules service, beating every 200 ms with a 500 ms grace."""
    settings = make_settings(tmp_path, nats_url, persistence=request.param,
                             clock_heartbeat_ms=200, clock_grace_ms=500)
    if request.param == "postgres":
        settings = dataclasses.replace(settings, database_url=request.getfixturevalue("postgres_url"),
                                       postgres_schema=request.getfixturevalue("postgres_schema"))
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"duel": duel.ENGINE})
    yield b
    await b.stop(1)


async def restart(backend: Backend, down_s: float) -> Any:
    """Stop the duel's rules service cleanly, wait ``down_s`` with none running, start it
    again; the new service."""
    old = backend.services.pop("rules-duel")
    await old.stop(1)
    await asyncio.sleep(down_s)
    service = await rules_main.start("duel", backend.settings, backend.keys, backend.nats_client,
                                     duel.ENGINE)
    backend.services[service.name] = service
    return service


def clock_of(message: Any, seat: int) -> Any:
    return {c.seat: c for c in message.clocks}[seat]


async def first_update(client: RulesClient, token: str, match_id: str) -> Any:
    """The first SeatUpdate of the seat's Play stream."""
    async def requests() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
        await asyncio.sleep(30)

    call = client.stub.Play(requests(), metadata=call_metadata(token), timeout=10)
    try:
        async for message in call:
            if message.WhichOneof("kind") == "update":
                return message.update
    finally:
        call.cancel()
    raise AssertionError("the Play stream sent no update")


async def test_a_seat_comes_back_with_the_time_it_had_before_the_outage(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-duel"))
    tokens = await create(backend, client, "paused", CLOCK)
    asked = time.monotonic()
    view = await client.view("paused")
    a = view.pending[0].seat
    b = 1 - a
    before = clock_of(view, a)
    assert before.running and before.remaining_ms > DECISION_MS - 1_000
    await client.close()

    down_s = 3.0
    service = await restart(backend, down_s)
    client = RulesClient(service.address)
    host = service.extra["host"]
    assert host.heartbeat.basis == "stopped", "the previous process's last beat is known"
    view = await client.view("paused")
    after = clock_of(view, a)
    assert after.running
    # charged only while a rules service ran (from the first view to the new service's
    # view, less the outage; timed here, so a slow stop or start under load is allowed for),
    # and paused for at least the outage: the seat has about what it had, not the grace
    charged = before.remaining_ms - after.remaining_ms
    elapsed_ms = (time.monotonic() - asked) * 1000
    assert charged <= elapsed_ms - down_s * 1000 + 50, (charged, elapsed_ms)
    paused = after.deadline_unix_ms - before.deadline_unix_ms
    assert down_s * 1000 <= paused <= elapsed_ms + 50, "paused for the outage, no more"
    assert after.remaining_ms > 1_000, "more than the grace"

    # the same process takes it up again after dropping it: the same clocks, no second pause
    host.live.drop("paused")
    assert clock_of(await client.view("paused"), a).deadline_unix_ms == after.deadline_unix_ms
    # the seat's Play stream shows the paused clock
    update = await first_update(client, tokens[a], "paused")
    assert clock_of(update, a).deadline_unix_ms == after.deadline_unix_ms
    # an any-time action of the other seat: its answer carries the paused clock, and the
    # record it makes stores it
    answer = await client.submit(tokens[b], "paused", "exchange", duel.EXCHANGE)
    assert clock_of(answer, a).deadline_unix_ms == after.deadline_unix_ms
    await client.submit(tokens[a], "paused", "strike", duel.STRIKE)
    await client.submit(tokens[a], "paused", "bye", {"type": "resign"})

    data = await export_of(backend, client, "paused")
    records = [json.loads(line) for line in data.splitlines()[:-1]]
    assert not any(r.get("timeout") for r in records), "nobody was timed out"
    exchange = next(r for r in records if r.get("command_id") == "exchange")
    assert exchange["clocks"]["seats"][a]["deadline_ms"] == after.deadline_unix_ms
    assert records[-1]["type"] == "MatchSealed"
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_a_second_restart_before_any_record_credits_only_its_own_outage(
        backend: Backend) -> None:
    """The pause of a take-up lives in memory until the match's next record. A process that
    stops before that record loses it, and its successor pauses the stored clocks for its own
    outage only (from the last beat of the process before it): never the first outage twice."""
    client = RulesClient(backend.address("rules-duel"))
    tokens = await create(backend, client, "twice", CLOCK)
    view = await client.view("twice")
    a = view.pending[0].seat
    stored = clock_of(view, a).deadline_unix_ms
    await client.close()

    first_s, second_s = 3.0, 0.5
    service = await restart(backend, first_s)
    client = RulesClient(service.address)
    first = clock_of(await client.view("twice"), a).deadline_unix_ms - stored
    await client.close()
    assert first >= first_s * 1000

    service = await restart(backend, second_s)
    client = RulesClient(service.address)
    second = clock_of(await client.view("twice"), a).deadline_unix_ms - stored
    # paused for its own outage; crediting the first one again too would make it at least
    # first + second_s (the first pause, the time the first restart served, this outage)
    assert second_s * 1000 <= second < first + second_s * 1000, (first, second)
    await client.submit(tokens[a], "twice", "bye", {"type": "resign"})
    report = verify_export(await export_of(backend, client, "twice"), engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()
