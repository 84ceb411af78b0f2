"""The queueing limits over real gRPC, real NATS and a real store (PostgreSQL and SQLite),
through a restart of matchmaking (matchmaker.py, "Queueing limits"):

- a player who cancels the tickets of their proposed matches (each time stalling the other
  player's match) is refused CreateTicket for the cooldown: FAILED_PRECONDITION, the reason
  saying when they may queue again; the other player is not;
- a player queueing and cancelling in a loop is refused past the churn limit:
  RESOURCE_EXHAUSTED, saying when.

Before: neither was limited; every round was stored events and a fall-through for others.
Game: the toy engine ("toy", mode "race", exactly 2 seats)."""

from __future__ import annotations

import dataclasses
from typing import Any

import grpc
import pytest

from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
)
from tests.integration.test_matchmaking_party_block import refused

C = grpc.StatusCode
LIMITED = dataclasses.replace(FAST, accept_timeout=60, decline_limit=2, decline_window=600,
                              decline_cooldown=600, join_limit=3, join_window=600)


async def _limits_hold_through_a_restart(env: Env, **store: Any) -> None:  # noqa: F811
    svc = await env.start(LIMITED, **store)
    mm = Client(svc.address)
    ann, bob, cy = env.id("ann"), env.id("bob"), env.id("cy")
    ta, tb, tc = env.player(ann), env.player(bob), env.player(cy)
    for n in range(3):  # cy queues and cancels in a loop (alone: never proposed)
        await mm.call("CreateTicket", tc, ticket_id=env.id(f"cy-{n}"), game="toy",
                      players=[cy])
        await mm.call("CancelTicket", tc, ticket_id=env.id(f"cy-{n}"))
    await mm.call("CreateTicket", tb, ticket_id=env.id("bob"), game="toy", players=[bob])
    for n in range(2):  # ann's ticket is proposed with bob's, and ann cancels it
        mine = env.id(f"ann-{n}")
        await mm.call("CreateTicket", ta, ticket_id=mine, game="toy", players=[ann])
        await status_is(mm, ta, mine, S.TICKET_STATUS_PROPOSED)
        cancelled = await mm.call("CancelTicket", ta, ticket_id=mine)
        assert cancelled.status == S.TICKET_STATUS_CANCELLED
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    svc = await env.start(LIMITED, **store)
    mm = Client(svc.address)
    err = await refused(mm, ta, "CreateTicket", ticket_id=env.id("ann-2"), game="toy",
                        players=[ann])
    assert err.code() == C.FAILED_PRECONDITION, err.details()
    assert f"player {ann!r} may queue for toy again in " in (err.details() or "")
    assert "2 proposed matches fell through because of them" in (err.details() or "")
    err = await refused(mm, tc, "CreateTicket", ticket_id=env.id("cy-3"), game="toy",
                        players=[cy])
    assert err.code() == C.RESOURCE_EXHAUSTED, err.details()
    assert "queued 3 tickets for toy within 600 s (at most 3): they may queue again in " \
        in (err.details() or "")
    for ticket_id, token in ((env.id("ann-2"), ta), (env.id("cy-3"), tc)):  # nothing stored
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call("GetTicket", token, ticket_id=ticket_id)
        assert info.value.code() == C.NOT_FOUND
    # bob, whose matches fell through, waits on and may queue anew
    await mm.call("CancelTicket", tb, ticket_id=env.id("bob"))
    again = await mm.call("CreateTicket", tb, ticket_id=env.id("bob-2"), game="toy",
                          players=[bob])
    assert again.status == S.TICKET_STATUS_WAITING
    await mm.channel.close()


async def test_queueing_limits_hold_through_a_restart_sqlite(env: Env) -> None:  # noqa: F811
    await _limits_hold_through_a_restart(env)


@pytest.mark.postgres
async def test_queueing_limits_hold_through_a_restart_postgres(
    env: Env,  # noqa: F811
    postgres_url: str,
    postgres_schema: str,
) -> None:
    await _limits_hold_through_a_restart(
        env, persistence="postgres", database_url=postgres_url, postgres_schema=postgres_schema
    )
