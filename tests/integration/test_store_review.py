"""Defects found in the review of the rules service's persistence and concurrency (branch
revstore), over real gRPC, real NATS and the SQLite store (PostgreSQL where named). Each
test failed before its fix.

1. A call waiting for a match's lock while another call's commit failed went on with the
   match the failure had dropped from memory: its action was stored from that orphan copy
   while the next call rebuilt a second copy from the store, which then stayed behind the
   log (GetView answered an older version, and an action sent at that version was ABORTED
   "the match changed concurrently"). Now a call that takes the lock of a match no longer
   held takes the held one (rebuilt when need be) instead.
2. A snapshot row that no longer decodes (truncated, corrupt) failed the match's rebuild
   (INTERNAL on every call) instead of a replay from the log. A snapshot that loads but
   holds another state than its version's (keyed state hashes were not checked on a
   rebuild) was served as the match's state. A snapshot ahead of the log (a version the
   events do not reach) made the final view of a sealed match from it. Now a snapshot is
   taken only when it decodes, is not ahead of the log, and its state hashes as recorded
   (keyed or not); else the match is replayed from its log.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.rules.host import MatchHost
from tests.support import duel

pytestmark = pytest.mark.timeout(120)


def _host(backend: Backend, game: str) -> MatchHost:
    host = backend.services[f"rules-{game}"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


# ------------------------------------------------------- 1. a failed commit's waiters


async def test_a_call_waiting_behind_a_failed_commit_leaves_one_copy_in_step_with_the_log(
        duel_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    host = _host(duel_backend, "duel")
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="9")
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    before = await client.view(match_id)
    owing = before.pending[0].seat
    other = 1 - owing

    real_commit = host.committer.commit
    calls: list[int] = []
    landing = asyncio.Event()

    async def commit(events: Any) -> Any:
        calls.append(len(calls))
        if len(calls) == 1:  # the first commit fails after a while (the store went away)
            await asyncio.sleep(0.5)
            raise OSError("connection to the store lost")
        if len(calls) == 2:  # the second one (the waiter's) is slow to land
            await landing.wait()
        return await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)
    first = asyncio.create_task(client.submit(tokens[owing], match_id, "rest", duel.REST))
    await asyncio.sleep(0.1)
    # the other seat's any-time exchange waits for the match's lock, held by the first
    second = asyncio.create_task(client.submit(tokens[other], match_id, "swap", duel.EXCHANGE))
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await first
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
    for _ in range(100):  # the waiter's commit is under way
        if len(calls) == 2:
            break
        await asyncio.sleep(0.02)
    assert len(calls) == 2
    # a spectator meanwhile: the match is read from the store (the exchange is not stored)
    assert (await client.view(match_id)).version == before.version
    landing.set()
    answer = await second
    assert answer.version == before.version + 1

    # one copy, in step with the log: the view shows the exchange, and an action sent at
    # the version the view gives goes through
    after = await client.view(match_id)
    assert after.version == answer.version, "a copy behind the log answered"
    live = host.live.get(match_id)
    assert live is not None and live.version == answer.version
    owing = after.pending[0].seat
    try:
        moved = await client.submit(tokens[owing], match_id, "next", duel.REST,
                                    expected_version=after.version)
    except grpc.aio.AioRpcError as err:
        pytest.fail(f"an action at the version shown was refused: {err.code()} {err.details()}")
    assert moved.version == after.version + 1
    assert host.live.total == sum(m.size() for m in host.live._matches.values())
    await client.close()
