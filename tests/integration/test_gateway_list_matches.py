"""ListMatches (the spectator's list, issue 16): public, only what GetView tells anyone, and
across the replicas of a game (each lists its own; the one asked merges the others')."""

from __future__ import annotations

import dataclasses

import grpc

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.natsrv import free_port
from services.platform.replicas import owner_of
from services.rules import main as rules_main
from tests.support import duel


def owned_by(replica: int, prefix: str) -> str:
    return next(m for m in (f"{prefix}-{i}" for i in range(100)) if owner_of(m, 2) == replica)


async def test_list_matches_merges_the_replicas_and_leaves_out_one_that_is_down(
    duel_backend: Backend,
) -> None:
    await duel_backend.services.pop("rules-duel").stop(1)
    ports = [free_port(), free_port()]
    peers = tuple(f"127.0.0.1:{p}" for p in ports)
    replicas = []
    for ordinal, port in enumerate(ports):
        settings = dataclasses.replace(
            duel_backend.settings,
            persistence="memory",
            rules_peers=peers,
            rules_ordinal=ordinal,
            ports={**duel_backend.settings.ports, "rules-duel": port},
        )
        replicas.append(
            await rules_main.start(
                "duel", settings, duel_backend.keys, duel_backend.nats_client, duel.ENGINE
            )
        )
    organiser = (("authorization", f"Bearer {duel_backend.organiser_token()}"),)
    try:
        async with (
            grpc.aio.insecure_channel(peers[0]) as ch0,
            grpc.aio.insecure_channel(peers[1]) as ch1,
        ):
            first, second = (
                rules_pb2_grpc.RulesServiceStub(ch0),
                rules_pb2_grpc.RulesServiceStub(ch1),
            )
            ids = [owned_by(0, "listed"), owned_by(1, "listed")]
            for match_id in ids:  # both created through replica 0, which forwards one
                await first.CreateMatch(
                    rules_pb2.CreateMatchRequest(
                        match_id=match_id, mode="duel", seats=2, dev_seed="1"
                    ),
                    metadata=organiser,
                )
            for stub in (first, second):  # no token: public
                listed = await stub.ListMatches(rules_pb2.ListMatchesRequest())
                assert sorted(m.match_id for m in listed.matches) == sorted(ids)
                assert all(
                    m.game_id == "duel"
                    and m.mode == "duel"
                    and m.seats == 2
                    and m.status == rules_pb2.MATCH_STATUS_RUNNING
                    for m in listed.matches
                )
            assert (
                len((await first.ListMatches(rules_pb2.ListMatchesRequest(limit=1))).matches) == 1
            )
            try:
                await first.ListMatches(rules_pb2.ListMatchesRequest(limit=-1))
                raise AssertionError("a negative limit is refused")
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
            await replicas.pop(1).stop(1)
            alone = await first.ListMatches(rules_pb2.ListMatchesRequest(), timeout=10)
            assert [m.match_id for m in alone.matches] == [ids[0]]
    finally:
        for replica in replicas:
            await replica.stop(1)
