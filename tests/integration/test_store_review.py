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

3. (No defect; kept as a guard.) Two rules processes writing one match on PostgreSQL: the
   one behind conflicts (ABORTED), drops its copy and answers from the log after; the
   other matches of the batch that held the conflicting commit are stored once each.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.rules.host import MatchHost
from services.rules.matchlog import SNAPSHOT_EVERY, snapshot_event
from tests.integration.conftest import make_settings
from tests.support import duel
from tests.support.snapshot_rows import upsert_snapshot_row

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


# ------------------------------------------------------------------------ 2. snapshots

STEP = json.dumps({"type": "step"})



async def _race(backend: Backend, steps: int, actions: int) -> tuple[str, dict[int, str]]:
    """A Counter Race to ``actions`` steps, ``steps`` of them played (the host's own submit:
    the same code as a served call, less time per step)."""
    client = RulesClient(backend.address("rules-longgame"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2,
                                  options={"actions": actions}, dev_seed="5")
    await client.close()
    host = _host(backend, "longgame")
    tokens = {t.seat: t.token for t in created.seat_tokens}
    claims = {s: host.issuer.verify(t) for s, t in tokens.items()}
    for i in range(steps):
        await host.submit(claims[i % 2], created.match_id, f"s{i}", STEP, None)
    return created.match_id, tokens


def _rewrite_snapshot(host: MatchHost, match_id: str, version: int, state: Any = None,
                      blob: bytes | None = None) -> None:
    """Write the snapshot row of ``version`` (replacing it when there is one): ``state``
    pickled and tagged as the service does (with its key: what the later checks catch when
    the tag does not, tests/integration/test_snapshot_trust.py), or the raw stored
    ``blob`` (a corrupt row)."""
    app = host.app
    stored = app.mapper.to_stored_event(
        snapshot_event(match_id, version, host.engine.engine_version, state, host.store.key))
    upsert_snapshot_row(app, match_id, version, stored.topic,
                        stored.state if blob is None else blob)


def _state(host: MatchHost, match_id: str) -> Any:
    live = host.live.get(match_id)
    assert live is not None
    return live.state


def _forget(host: MatchHost, match_id: str) -> None:
    """As after a restart: the match and its kept final view out of memory."""
    host.live.drop(match_id)
    host.finals.clear()


async def test_a_corrupt_snapshot_row_is_replayed_from_the_log(long_backend: Backend) -> None:
    host = _host(long_backend, "longgame")
    match_id, tokens = await _race(long_backend, SNAPSHOT_EVERY + 5, 400)
    client = RulesClient(long_backend.address("rules-longgame"))
    before = await client.view(match_id, tokens[0])
    assert host.store.latest_snapshot(match_id, host.engine.engine_version)[0] == SNAPSHOT_EVERY
    stored = host.app.mapper.to_stored_event(snapshot_event(
        match_id, SNAPSHOT_EVERY, host.engine.engine_version, _state(host, match_id),
        host.store.key))
    for blob in (stored.state[: len(stored.state) // 2], b"\x00\xff not json", b""):
        _rewrite_snapshot(host, match_id, SNAPSHOT_EVERY, blob=blob)
        _forget(host, match_id)
        try:
            after = await client.view(match_id, tokens[0])
        except grpc.aio.AioRpcError as err:
            pytest.fail(f"a corrupt snapshot ({blob[:12]!r}...) failed the match: "
                        f"{err.code()} {err.details()}")
        assert after == before
    # and it goes on from there, in step with the log
    moved = await client.submit(tokens[1], match_id, "after", {"type": "step"})
    assert moved.version == before.version + 1
    await client.close()


def _other(state: Any, how: str) -> Any:
    """Another state than ``state``: one the log after it does not fold on (the dice fall at
    other steps), or one it folds on to another end (the pips)."""
    if how == "count":
        return dataclasses.replace(state, count=max(0, state.count - 50))
    return dataclasses.replace(state, pips=(state.pips[0] + 1, state.pips[1]))


@pytest.mark.parametrize("how", ["count", "pips"])
async def test_a_snapshot_that_loads_another_state_is_not_served(long_backend: Backend,
                                                                 how: str) -> None:
    """A snapshot row that loads, of the match's engine version, but holds another state
    than the one its version recorded (a row of an older build whose state class changed
    without a new engine version; a row nobody but the service should write): the state is
    checked against the stored (keyed) state hash and the match replayed from its log."""
    host = _host(long_backend, "longgame")
    match_id, tokens = await _race(long_backend, SNAPSHOT_EVERY + 5, 400)
    client = RulesClient(long_backend.address("rules-longgame"))
    before = await client.view(match_id, tokens[0])
    state = _state(host, match_id)
    assert json.loads(before.view_json)["count"] == state.count == SNAPSHOT_EVERY + 5
    _rewrite_snapshot(host, match_id, SNAPSHOT_EVERY, _other(state, how))
    _forget(host, match_id)
    after = await client.view(match_id, tokens[0])
    assert json.loads(after.view_json)["count"] == SNAPSHOT_EVERY + 5, "the snapshot's state served"
    assert json.loads(after.view_json)["pips"] == list(state.pips), "the snapshot's state served"
    assert after == before
    await client.close()


@pytest.mark.parametrize("where", ["ahead", "count", "pips"])
async def test_a_sealed_matchs_final_view_takes_no_snapshot_ahead_of_or_beside_its_log(
        long_backend: Backend, where: str) -> None:
    host = _host(long_backend, "longgame")
    actions = 40
    match_id, tokens = await _race(long_backend, actions, actions)
    client = RulesClient(long_backend.address("rules-longgame"))
    for _ in range(100):
        if host.live.get(match_id).status == "sealed":  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.05)
    public, seat = await client.view(match_id), await client.view(match_id, tokens[0])
    assert public.version == actions + 4 and public.outcome_json
    state = _state(host, match_id)
    if where == "ahead":  # a snapshot of a version the log never reached
        _rewrite_snapshot(host, match_id, public.version + 10, dataclasses.replace(state, count=7))
    else:  # a snapshot inside the log, of another state than its version's
        _rewrite_snapshot(host, match_id, 20, _other(state, where))
    _forget(host, match_id)
    assert await client.view(match_id) == public
    _forget(host, match_id)
    assert await client.view(match_id, tokens[0]) == seat
    await client.close()



# ----------------------------------------------- 3. two writers of one match (PostgreSQL)


@pytest.mark.postgres
async def test_a_second_writer_of_a_match_conflicts_and_its_batch_neighbours_go_through_once(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rules processes on one store (a rollout, or one thought dead): the one whose copy
    of a match is behind conflicts (ABORTED) and reloads it, never forks the log; the other
    matches of the batch that held its commit are stored once each."""
    import threading

    from services.platform.store import eventsourcing_env, open_application
    from services.rules.app import rules_application
    from services.rules.dice_client import DiceClient
    from services.rules.main import SERVICE_TOKEN_TTL
    from tests.support import toy

    settings = dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                                   database_url=postgres_url, postgres_schema=postgres_schema)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    client = RulesClient(backend.address("rules-toy"))
    host = _host(backend, "toy")
    other_app = await asyncio.to_thread(open_application, settings, lambda: rules_application(
        "rules-toy", eventsourcing_env(settings, "rules-toy")))
    other = MatchHost(toy.ENGINE, other_app, DiceClient(
        backend.address("dice"), host.issuer.issue("service", "*", ttl=SERVICE_TOKEN_TTL)),
        host.issuer, host.signing_key)
    try:
        organiser = backend.organiser_token()
        matches = {}
        for name in ("contested", "neighbour", "first"):
            made = await client.create(organiser, mode="race", seats=2, dev_seed="3")
            tokens = {t.seat: t.token for t in made.seat_tokens}
            matches[name] = (made.match_id, tokens)
        pick = {"type": "pick", "step": 1}
        contested, tokens = matches["contested"]
        view = await client.view(contested)
        seat = view.pending[0].seat
        # the other process takes the contested match's next version
        theirs = await other.submit(host.issuer.verify(tokens[seat]), contested, "theirs",
                                    json.dumps(pick), None)
        assert theirs.version == view.version + 1

        # this process's commits: the first alone, held in the store until the contested
        # one and its neighbour are queued behind it (one batch of the two)
        real_save = host.store.save
        queued = threading.Event()
        saved: list[int] = []

        def save(events: Any) -> None:
            if not saved:
                queued.wait(10)
            saved.append(len(events))
            real_save(events)

        monkeypatch.setattr(host.store, "save", save)
        first_id, first_tokens = matches["first"]
        first_seat = (await client.view(first_id)).pending[0].seat
        neighbour_id, neighbour_tokens = matches["neighbour"]
        neighbour_seat = (await client.view(neighbour_id)).pending[0].seat
        first = asyncio.create_task(client.submit(first_tokens[first_seat], first_id, "f", pick))
        await asyncio.sleep(0.2)
        mine = asyncio.create_task(client.submit(tokens[seat], contested, "mine", pick))
        neighbour = asyncio.create_task(
            client.submit(neighbour_tokens[neighbour_seat], neighbour_id, "n", pick))
        for _ in range(100):
            if host.committer._queue.qsize() >= 2:
                break
            await asyncio.sleep(0.02)
        assert host.committer._queue.qsize() == 2
        queued.set()
        assert (await first).version == 3
        with pytest.raises(grpc.aio.AioRpcError) as conflict:
            await mine
        assert conflict.value.code() == grpc.StatusCode.ABORTED, conflict.value.details()
        assert (await neighbour).version == 3
        assert saved[:2] == [1, 2], saved  # the contested and its neighbour were one batch

        # the log: the other process's record, once; the neighbour's, once
        records = await asyncio.to_thread(host.store.records, contested)
        assert [r.get("command_id") for r in records if r["type"] == "ActionAccepted"] == ["theirs"]
        records = await asyncio.to_thread(host.store.records, neighbour_id)
        assert [r.get("command_id") for r in records if r["type"] == "ActionAccepted"] == ["n"]
        # this process dropped its copy: it answers from the log now
        assert (await client.view(contested)).version == theirs.version
        again = await client.submit(tokens[seat], contested, "theirs", pick)
        assert again.replayed and again.version == theirs.version
    finally:
        await other.close()
        await other.dice.close()
        other_app.close()
        await client.close()
        await backend.stop(1)
