"""JSON the ticket store cannot keep, over the real matchmaking service (gRPC, NATS, real
rules and dice services, SQLite and PostgreSQL): a ticket request holds no JSON object a
caller chooses (CreateTicketRequest is ids, names, numbers and a region, each checked), so
an object of exactly the keys ``_type_`` and ``_data_`` cannot reach a ticket's events; a
region whose text looks like one is kept as text, and after a restart the ticket reads, its
request compares as sent (a repeat is answered, a changed one refused) and it is matched."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from services.matchmaking.ratings import StaticRatings
from tests.integration.test_matchmaking import FAST, Client, Env, S, env, status_is

__all__ = ["env"]  # the fixture, used by the tests below

REGION = '{"_type_":"uuid_hex","_data_":1}'


async def _kept_through_a_restart(env: Env, **store: Any) -> None:
    assert len(REGION) <= 32
    ratings = StaticRatings({env.id("ann"): 0, env.id("bob"): 500})
    svc = await env.start(FAST, ratings, **store)
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    for token, name, who in ((ta, "ta", a), (tb, "tb", b)):
        await mm.call("CreateTicket", token, ticket_id=env.id(name), game="toy", players=[who],
                      region=REGION, rating_window=5)
    await asyncio.sleep(0.2)
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    svc = await env.start(FAST, StaticRatings({a: 0, b: 1}), **store)
    mm = Client(svc.address)
    assert {env.id("ta"), env.id("tb")} <= set(svc.extra["matchmaker"].tickets)
    again = await mm.call("CreateTicket", ta, ticket_id=env.id("ta"), game="toy", players=[a],
                          region=REGION, rating_window=5)
    assert again.ticket_id == env.id("ta")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await mm.call("CreateTicket", ta, ticket_id=env.id("ta"), game="toy", players=[a],
                      region="elsewhere", rating_window=5)
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
    proposed = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_PROPOSED)
    assert {s.player for s in proposed.assignment.seats} == {a, b}
    await mm.channel.close()


async def test_a_region_like_a_typed_object_is_kept_as_text_sqlite(env: Env) -> None:
    await _kept_through_a_restart(env)


@pytest.mark.postgres
async def test_a_region_like_a_typed_object_is_kept_as_text_postgres(
        env: Env, postgres_url: str, postgres_schema: str) -> None:
    await _kept_through_a_restart(env, persistence="postgres", database_url=postgres_url,
                                  postgres_schema=postgres_schema)
