"""A restarted rules replica rearms the turn clocks of its own matches only: a deadline is
applied by the match's owner, never also by another replica."""

from __future__ import annotations

import asyncio
import dataclasses

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.replicas import owner_of
from services.rules import main as rules_main
from tests.support import duel


def owned_by(replica: int) -> str:
    return next(m for m in (f"clocked-{i}" for i in range(100)) if owner_of(m, 2) == replica)


async def test_a_restarted_replica_applies_the_expiries_of_its_own_matches_only(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    # 3 s: long enough that the first process is surely stopped before either deadline (at 1 s a
    # loaded machine let the single-replica process apply both expiries itself before it stopped)
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=3_000)
    ours, theirs = owned_by(0), owned_by(1)
    for match_id in (ours, theirs):
        request = rules_pb2.CreateMatchRequest(match_id=match_id, mode="duel", seats=2, dev_seed="7")
        request.clock.CopyFrom(clock)
        await client.stub.CreateMatch(request, metadata=(
            ("authorization", f"Bearer {duel_backend.organiser_token()}"),), timeout=10)
    await client.close()
    stopped = duel_backend.services.pop("rules-duel")
    before = {m: sum(bool(r.get("timeout")) for r in stopped.extra["host"].store.records(m)) for m in (ours, theirs)}
    await stopped.stop(1)
    assert before == {ours: 0, theirs: 0}, "no deadline passed while the first process ran"
    await asyncio.sleep(3.5)  # both deadlines pass while no rules service runs
    settings = dataclasses.replace(duel_backend.settings, rules_peers=("127.0.0.1:1", "127.0.0.1:2"),
                                   rules_ordinal=0)  # replica 0 of two; replica 1 is not running
    service = await rules_main.start("duel", settings, duel_backend.keys, duel_backend.nats_client, duel.ENGINE)
    duel_backend.services[service.name] = service
    host = service.extra["host"]

    async def timeouts(match_id: str) -> int:
        records = await asyncio.to_thread(host.store.records, match_id)
        return sum(bool(r.get("timeout")) for r in records)

    for _ in range(200):  # up to 20 s: a loaded machine rearms late (it failed at 5 s now and then)
        if await timeouts(ours):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    assert await timeouts(ours) >= 1, "the owner applies its match's expiry"
    assert await timeouts(theirs) == 0, "the other replica's match was left to its owner"
    assert host.live.get(theirs) is None, "never loaded by a replica that does not own it"
