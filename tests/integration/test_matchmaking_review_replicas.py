"""A player waits in one ticket at a time across matchmaking replicas, over real gRPC and one
real store (review of matchmaking; matchmaker.py, "Consent").

Before: each replica knew only the tickets of the queues it owns, so a player queued for a
game whose queue one replica owns, and for another game whose queue the other replica owns,
waited in both tickets at once (one replica refuses the second) and could be seated in two
matches at once. Now each ticket that holds a player is recorded on the player's own
``Holding`` in the shared store, which every replica reads before holding the player: a
second ticket, queued or accepted through either replica, is FAILED_PRECONDITION naming the
first (always the player's own ticket), as on one replica, until that one ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.test_matchmaking_replicas import unstarted_pair

S = pb.TicketStatus


async def _one_ticket_across_replicas(pair: Any) -> None:
    for i in range(2):
        await pair.start(i)
    g0, g1 = pair.games(0)[0], pair.games(1)[0]
    channels = [channel(s.address) for s in pair.services]
    stubs = [pb_grpc.MatchmakingServiceStub(ch) for ch in channels]
    issuer = pair.issuer
    ann, bob, cy = (issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "bob", "cy"))
    organiser = issuer.issue("organiser", "*", player="olga", ttl=600)

    async def call(i: int, name: str, token: str, **kw: Any) -> Any:
        request = getattr(pb, f"{name}Request")(**kw)
        reply = await getattr(stubs[i], name)(request, metadata=call_metadata(token), timeout=10)
        return reply.ticket

    async def refused(i: int, name: str, token: str, **kw: Any) -> grpc.aio.AioRpcError:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call(i, name, token, **kw)
        return info.value

    try:
        first = await call(0, "CreateTicket", ann, ticket_id="t-ann-0", game=g0, players=["ann"])
        assert first.status == S.TICKET_STATUS_WAITING
        for i in (0, 1):  # through either replica, to the owner of g1's queue
            err = await refused(i, "CreateTicket", ann, ticket_id=f"t-ann-1-{i}", game=g1,
                                players=["ann"])
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
            assert err.details() == "player 'ann' already waits in ticket 't-ann-0'"
        # an organiser's party naming her is refused the same way (it would hold her)
        err = await refused(1, "CreateTicket", organiser, ticket_id="t-org", game=g1,
                            players=["ann", "cy"])
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
        # bob's party in g1 only invites her: queued; she cannot accept its match meanwhile
        party = await call(1, "CreateTicket", bob, ticket_id="t-bob", game=g1,
                           players=["bob", "ann"])
        assert party.status == S.TICKET_STATUS_WAITING
        for _ in range(200):
            party = await call(1, "GetTicket", bob, ticket_id="t-bob")
            if party.status == S.TICKET_STATUS_PROPOSED:
                break
            await asyncio.sleep(0.05)
        assert party.status == S.TICKET_STATUS_PROPOSED
        err = await refused(0, "AcceptMatch", ann, ticket_id="t-bob",
                            match_id=party.assignment.match_id)
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
        assert "player 'ann' already waits in ticket 't-ann-0'" in (err.details() or "")
        # once her first ticket ends she may wait in another game's ticket
        await call(1, "CancelTicket", ann, ticket_id="t-ann-0")
        again = await call(0, "CreateTicket", ann, ticket_id="t-ann-2", game=g1,
                           players=["ann"])
        assert again.status == S.TICKET_STATUS_WAITING
        err = await refused(1, "CreateTicket", ann, ticket_id="t-ann-3", game=g0,
                            players=["ann"])
        assert err.details() == "player 'ann' already waits in ticket 't-ann-2'"
        # a repeat of her ticket is answered as ever
        same = await call(0, "CreateTicket", ann, ticket_id="t-ann-2", game=g1, players=["ann"])
        assert same.status == S.TICKET_STATUS_WAITING
        # two replicas holding one player at once: the store takes one, the other is refused
        for n in range(5):
            dee = issuer.issue("player", "*", player=f"dee{n}", ttl=600)
            both = await asyncio.gather(
                *(call(i, "CreateTicket", dee, ticket_id=f"t-dee{n}-{i}", game=g,
                       players=[f"dee{n}"]) for i, g in ((0, g0), (1, g1))),
                return_exceptions=True)
            made = [t for t in both if not isinstance(t, BaseException)]
            assert len(made) == 1, both
            err = next(e for e in both if isinstance(e, grpc.aio.AioRpcError))
            assert err.code() in (grpc.StatusCode.FAILED_PRECONDITION,
                                  grpc.StatusCode.UNAVAILABLE), err.details()
            made_id = made[0].ticket_id
            other_id = ({f"t-dee{n}-0", f"t-dee{n}-1"} - {made_id}).pop()
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await call(0, "GetTicket", dee, ticket_id=other_id)
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND, "nothing else stored"
    finally:
        for ch in channels:
            await ch.close()
        await pair.close()


async def test_a_player_waits_in_one_ticket_across_replicas_sqlite(tmp_path: Path,
                                                                   nats_url: str) -> None:
    await _one_ticket_across_replicas(unstarted_pair(tmp_path, nats_url))


@pytest.mark.postgres
async def test_a_player_waits_in_one_ticket_across_replicas_postgres(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    pair = unstarted_pair(tmp_path, nats_url)
    pair.settings = dataclasses.replace(pair.settings, persistence="postgres",
                                        database_url=postgres_url, postgres_schema=postgres_schema)
    await _one_ticket_across_replicas(pair)
