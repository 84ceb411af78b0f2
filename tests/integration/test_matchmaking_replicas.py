"""Two matchmaking replicas on one store over real gRPC: each game's queue has one owner,
ticket calls sent to the other replica are forwarded there, and the queue is never split."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.matchmaking import main as mm_main
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Config
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.routing import owner_check, replicas_from_env
from services.platform.grpc_kit import call_metadata, channel
from services.platform.keys import load_keys
from services.platform.natsrv import free_port
from services.platform.tokens import TokenIssuer
from services.rules.routing import FORWARDED
from tests.integration.conftest import make_settings

GAMES = [f"game-{i}" for i in range(8)]
FAST = Config(
    interval=0.05,
    ticket_ttl=60,
    accept_timeout=30,
    policy=Policy(partial_after=0, backfill_after=3600),
    client_seeds=False,
)
S = pb.TicketStatus


def catalogue() -> Catalogue:
    c = Catalogue()
    for game in GAMES:
        c.register(GameSpec(game, (ModeSpec("duel", 2, 2),)))
    return c


@dataclass
class Pair:
    """Two matchmaking replicas on one store, each owning some of GAMES' queues
    (:func:`replica_pair` starts both); ``services[i]`` is replica i as last started."""

    settings: Any
    keys: Any
    ports: list[int]
    config: Config = FAST
    services: list[Any] = field(default_factory=lambda: [None, None])
    running: list[Any] = field(default_factory=list)

    @property
    def issuer(self) -> TokenIssuer:
        return TokenIssuer(self.keys.token_secret)

    def environ(self, i: int, peers: str | None = None) -> dict[str, str]:
        """Replica ``i``'s settings (``peers``: another replica list, as in a rollout)."""
        return {"NEON_MATCHMAKING_PEERS": peers or ",".join(f"127.0.0.1:{p}" for p in self.ports),
                "NEON_MATCHMAKING_ORDINAL": str(i)}

    def games(self, i: int) -> list[str]:
        """The games of GAMES whose queues replica ``i`` owns."""
        owns = owner_check(replicas_from_env(self.environ(i)))
        return [g for g in GAMES if owns(g)]

    async def start(self, i: int, keys: Any = None, peers: str | None = None) -> Any:
        """Start replica ``i`` (again: same port, same store), with other ``keys`` or
        ``peers`` if given."""
        service = await mm_main.start(
            dataclasses.replace(self.settings,
                                ports={**self.settings.ports, "matchmaking": self.ports[i]}),
            keys or self.keys, config=self.config, ratings=StaticRatings(),
            catalogue=catalogue(), environ=self.environ(i, peers))
        self.services[i] = service
        self.running.append(service)
        return service

    async def stop(self, i: int) -> None:
        await self.services[i].stop(0.5)
        self.running.remove(self.services[i])

    async def close(self) -> None:
        for service in self.running:
            await service.stop(0.5)
        self.running.clear()


def unstarted_pair(tmp_path: Path, nats_url: str, config: Config = FAST) -> Pair:
    """Two replicas on free ports of 127.0.0.1 over one store (make_settings'), not started."""
    settings = make_settings(tmp_path, nats_url)
    return Pair(settings, load_keys(settings), [free_port(), free_port()], config)


async def replica_pair(tmp_path: Path, nats_url: str, config: Config = FAST) -> Pair:
    """:func:`unstarted_pair`, both started; ``close`` them."""
    pair = unstarted_pair(tmp_path, nats_url, config)
    for i in range(2):
        await pair.start(i)
    return pair


async def test_each_queue_has_one_owner_and_the_other_replica_forwards(
    tmp_path: Path, nats_url: str
) -> None:
    pair = await replica_pair(tmp_path, nats_url)
    issuer, services = pair.issuer, pair.services
    mine = {i: pair.games(i) for i in range(2)}
    assert all(mine.values()) and not set(mine[0]) & set(mine[1])
    game = mine[0][0]  # replica 0's queue; every call below goes to replica 1
    ch, zero = channel(services[1].address), channel(services[0].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    try:
        tokens = {p: issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "bob")}
        for p in ("ann", "bob"):
            made = await stub.CreateTicket(
                pb.CreateTicketRequest(ticket_id=f"t-{p}", game=game, players=[p]),
                metadata=call_metadata(tokens[p]),
                timeout=10,
            )
            assert made.ticket.status == S.TICKET_STATUS_WAITING
        owner, other = (s.extra["matchmaker"] for s in services)
        assert {"t-ann", "t-bob"} <= set(owner.tickets) and not other.tickets

        async def proposed() -> Any:
            for _ in range(100):
                got = await stub.GetTicket(
                    pb.GetTicketRequest(ticket_id="t-ann"),
                    metadata=call_metadata(tokens["ann"]),
                    timeout=10,
                )
                if got.ticket.status == S.TICKET_STATUS_PROPOSED:
                    return got.ticket
                await asyncio.sleep(0.05)
            raise AssertionError("never proposed")

        ticket = await proposed()
        assert {s.player for s in ticket.assignment.seats} == {"ann", "bob"}
        accepted = await stub.AcceptMatch(
            pb.AcceptMatchRequest(ticket_id="t-ann", match_id=ticket.assignment.match_id),
            metadata=call_metadata(tokens["ann"]),
            timeout=10,
        )
        assert list(accepted.ticket.accepted) == ["ann"]
        assert owner.tickets["t-ann"].accepted == ["ann"] and not other.tickets
        # a watch through the other replica streams the owner's view
        watch = stub.WatchTicket(
            pb.WatchTicketRequest(ticket_id="t-bob"),
            metadata=call_metadata(tokens["bob"]),
            timeout=10,
        )
        first = await anext(aiter(watch))
        assert first.ticket.status == S.TICKET_STATUS_PROPOSED
        watch.cancel()
        # an unknown ticket is answered where it was asked
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await stub.GetTicket(
                pb.GetTicketRequest(ticket_id="t-nobody"),
                metadata=call_metadata(tokens["ann"]),
                timeout=10,
            )
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        # a decline sent to the other replica is the owner's: the party goes on without eve
        dee, eve = (issuer.issue("player", "*", player=p, ttl=600) for p in ("dee", "eve"))
        await stub.CreateTicket(
            pb.CreateTicketRequest(ticket_id="t-party", game=game, players=["dee", "eve"]),
            metadata=call_metadata(dee),
            timeout=10,
        )
        declined = await stub.DeclineInvite(
            pb.DeclineInviteRequest(ticket_id="t-party"), metadata=call_metadata(eve), timeout=10
        )
        assert declined.ticket.status == S.TICKET_STATUS_DECLINED
        assert owner.tickets["t-party"].players == ["dee"] and not other.tickets
        # a call forwarded to a replica that does not own the queue is refused, not forwarded
        to_zero = pb_grpc.MatchmakingServiceStub(zero)
        fingerprint = replicas_from_env(pair.environ(0)).fingerprint  # type: ignore[union-attr]
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await to_zero.CreateTicket(
                pb.CreateTicketRequest(ticket_id="t-cy", game=mine[1][0], players=["cy"]),
                metadata=(
                    *call_metadata(issuer.issue("player", "*", player="cy", ttl=600)),
                    (FORWARDED, fingerprint),
                ),
                timeout=10,
            )
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "who owns this queue" in (refused.value.details() or "")
        assert not owner.tickets.keys() & {"t-cy"}
    finally:
        await ch.close()
        await zero.close()
        await pair.close()


async def test_a_call_for_a_queue_whose_owner_is_down_is_unavailable_without_its_address(
    tmp_path: Path, nats_url: str
) -> None:
    """The replica that owns a queue is down: a call for it sent to the other replica is
    UNAVAILABLE, saying that the queue's replica does not answer and to try again, and never
    gRPC's transport text, which named the owner's internal address and port ("ipv4:10.x.y.z:
    50052: Failed to connect to remote host"). (No replica takes the queue over: its tickets
    wait in the store until the owner is back, as its restart test shows.)"""
    pair = await replica_pair(tmp_path, nats_url)
    issuer, services, ports = pair.issuer, pair.services, pair.ports
    game = pair.games(0)[0]
    ch = channel(services[1].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    ann = call_metadata(issuer.issue("player", "*", player="ann", ttl=600))
    bob = call_metadata(issuer.issue("player", "*", player="bob", ttl=600))
    try:
        await stub.CreateTicket(
            pb.CreateTicketRequest(ticket_id="t-ann", game=game, players=["ann"]),
            metadata=ann,
            timeout=10,
        )
        await pair.stop(0)
        calls = [
            stub.GetTicket(pb.GetTicketRequest(ticket_id="t-ann"), metadata=ann, timeout=10),
            stub.CreateTicket(
                pb.CreateTicketRequest(ticket_id="t-bob", game=game, players=["bob"]),
                metadata=bob,
                timeout=10,
            ),
        ]
        watch = stub.WatchTicket(pb.WatchTicketRequest(ticket_id="t-ann"), metadata=ann,
                                 timeout=10)
        for call in [*calls, anext(aiter(watch))]:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call
            details = info.value.details() or ""
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE, details
            assert "does not answer" in details and "try again" in details, details
            assert "127.0.0.1" not in details and "ipv4" not in details, details
            assert str(ports[0]) not in details, details
    finally:
        await ch.close()
        await pair.close()
