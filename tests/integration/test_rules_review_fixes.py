"""Defects found in the review of the rules service's late-action, final-view and export
changes, over real gRPC, real NATS and the SQLite store. Each test failed before its fix.

1. An action that reached the service before its seat's deadline but waited for the match's
   lock (another call's commit was under way) was judged when it got the lock, after the
   deadline: refused "too late ... ran out N ms before this action", a timeout applied in
   its place. The service's own queueing decided a player's turn. Now an action is judged
   (and its clock charged) at the time it reached the service.
2. Callers who asked for the same thing at once (a sealed match's final view, a match being
   rebuilt) shared the first caller's work, run in the first caller's own call: when that
   call was cancelled (its client gave up, or its deadline passed), every other caller
   waiting for the same result was handed that cancellation, and its call never answered
   (its client waited to its own deadline). A spectator who hangs up left the others
   hanging. Now the shared work runs on its own, and each caller waits for it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.export import parse_export
from services.rules.host import MatchHost
from services.rules.verify import verify_export
from tests.support import duel
from tests.support.client import play_match

pytestmark = pytest.mark.timeout(120)


def _host(backend: Backend, game: str) -> MatchHost:
    host = backend.services[f"rules-{game}"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


def _hold_timers(host: MatchHost) -> asyncio.Event:
    """Turn timers that fire but wait for the event before they act (a late timer)."""
    release = asyncio.Event()
    real = host.clockwork._on_expire

    async def late(match_id: str, token: object) -> None:
        await release.wait()
        await real(match_id, token)

    host.clockwork._on_expire = late
    return release


async def _sleep_until(unix_ms: int) -> None:
    await asyncio.sleep(max(0.0, unix_ms / 1000 - time.time()))


async def test_an_action_sent_before_its_deadline_that_waits_for_a_commit_is_in_time(
        duel_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    host = _host(duel_backend, "duel")
    release = _hold_timers(host)
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=3000)
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="9", clock=clock)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    view = await client.view(match_id)
    owing = view.pending[0].seat
    other = 1 - owing
    deadline = next(c.deadline_unix_ms for c in view.clocks if c.seat == owing)
    assert deadline - time.time() * 1000 > 2000, "the test needs its margin"

    # the other seat's any-time exchange, whose commit is slow: it holds the match's lock
    # from before the owing seat's deadline until well after it
    real_commit = host.committer.commit
    slow = {"once": True}

    async def slow_commit(events: Any) -> Any:
        if slow.pop("once", False):
            await _sleep_until(deadline + 1000)
        return await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", slow_commit)
    exchange = asyncio.create_task(client.submit(tokens[other], match_id, "swap", duel.EXCHANGE))
    await asyncio.sleep(0.3)
    assert time.time() * 1000 < deadline - 1000
    sent_at = time.time() * 1000
    # the owing seat answers a second and more before its deadline; it waits for the lock
    try:
        answer = await client.submit(tokens[owing], match_id, "in-time", duel.REST)
    except grpc.aio.AioRpcError as err:
        pytest.fail(f"an action sent {deadline - sent_at:.0f} ms before its deadline was "
                    f"refused: {err.code()} {err.details()}")
    assert time.time() * 1000 > deadline  # it was answered after the deadline
    assert (await exchange).version == 3
    assert answer.version == 4 and not answer.replayed
    clocks = {c.seat: c for c in answer.clocks}
    assert clocks[owing].timeouts == 0

    await client.abandon(organiser, match_id, "test: enough")
    release.set()  # the held timer finds its deadline gone: no timeout
    await asyncio.sleep(0.3)
    data = (await client.export(organiser, match_id)).export_jsonl
    records, _ = parse_export(data)
    assert [(r["seat"], r["command_id"]) for r in records if r["type"] == "ActionAccepted"] \
        == [(other, "swap"), (owing, "in-time")]
    assert not any(r.get("timeout") for r in records)
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_a_cancelled_caller_does_not_cancel_the_others_waiting_for_the_same_view(
        toy_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    host = _host(toy_backend, "toy")
    created = await client.create(toy_backend.organiser_token(), mode="race", seats=2,
                                  dev_seed="4")
    match_id = created.match_id
    await play_match(client, match_id, {t.seat: t.token for t in created.seat_tokens})
    for _ in range(100):
        if host.live.get(match_id).status == "sealed":  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.05)
    public = await client.view(match_id)
    host.live.drop(match_id)
    host.finals.clear()

    made = host._final_from_store

    def slow(match: str) -> Any:
        time.sleep(1.0)  # a slow store
        return made(match)

    monkeypatch.setattr(host, "_final_from_store", slow)
    # the first spectator gives up after 0.3 s; the second asked a moment later and waits
    first = asyncio.create_task(client.call(
        "GetView", rules_pb2.GetViewRequest(match_id=match_id), None, timeout=0.3))
    await asyncio.sleep(0.1)
    second = asyncio.create_task(client.call(
        "GetView", rules_pb2.GetViewRequest(match_id=match_id), None, timeout=10))
    with pytest.raises(grpc.aio.AioRpcError) as gave_up:
        await first
    assert gave_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    try:
        answer = await second
    except grpc.aio.AioRpcError as err:
        pytest.fail(f"the second spectator got {err.code()} {err.details()}")
    assert answer == public
    await client.close()


async def test_a_store_failure_tells_the_caller_to_retry_without_the_stores_own_words(
        duel_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit that fails with the store's OSError (whose text names an internal host and
    port) is UNAVAILABLE with a reason that names neither; the same command id then goes
    through once, as the reason says."""
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    host = _host(duel_backend, "duel")
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="9")
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    owing = (await client.view(match_id)).pending[0].seat
    real_commit = host.committer.commit
    fail = {"once": True}

    async def failing_commit(events: Any) -> Any:
        if fail.pop("once", False):
            raise OSError("connection to server at 10.9.8.7, port 5432 failed: refused")
        return await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", failing_commit)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.submit(tokens[owing], match_id, "c1", duel.REST)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "10.9.8.7" not in (refused.value.details() or "")
    assert "5432" not in (refused.value.details() or "")
    assert "retry with the same command id" in (refused.value.details() or "")
    answer = await client.submit(tokens[owing], match_id, "c1", duel.REST)
    assert not answer.replayed
    again = await client.submit(tokens[owing], match_id, "c1", duel.REST)
    assert again.replayed and again.version == answer.version  # stored once
    await client.close()
