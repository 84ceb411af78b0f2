"""Loose ends of the rules service, over real gRPC, real NATS and the SQLite store.

Each test failed before its fix:

1. A repeated StartMatch (a client's retry after a lost answer) was FAILED_PRECONDITION
   "the match has already started", which the tournament service recognised by its words.
   Now a repeat is answered the first call's MatchStarted version and state hash, with
   ``already_started``, and writes nothing.
2. An action that came after its seat's deadline, before the turn timer fired (a late timer,
   or one waiting for the match's lock), was taken as in time (a Fischer seat even got its
   increment). Now the deadline is the authority: the timeout goes in first, as the timer
   would have written it, and the late action is refused.
3. A spectator's GetView of a sealed match no longer in memory rebuilt the whole match from
   its log (every record read) and put it back in memory. Now its final public view is kept,
   and made from the latest snapshot and the records after it.
4. An export larger than a client's receive limit (gRPC's default 4 MiB) could not be
   fetched by that client. ExportMatchChunks streams it in chunks of at most 1 MiB, and
   ``neon export`` uses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata
from services.rules.export import parse_export
from services.rules.host import MatchHost
from services.rules.matchlog import SNAPSHOT_EVERY
from services.rules.verify import verify_export
from services.tournament.rules_port import RulesGateway
from tests.support import duel
from tests.support.client import play_match

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
STEP = json.dumps({"type": "step"})
MiB = 1024 * 1024


def _host(backend: Backend, game: str) -> MatchHost:
    host = backend.services[f"rules-{game}"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def _code(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as err:
        return err.code(), err.details() or ""
    return grpc.StatusCode.OK, ""



async def _race(backend: Backend, client: RulesClient, actions: int,
                served: bool = True, pad: int = 0) -> tuple[str, dict[int, str]]:
    """A Counter Race of ``actions`` steps, played to its seal: over gRPC when ``served``,
    else through the host's own submit (the same code, less time per step); ``pad``
    characters added to each step's event."""
    options = {"actions": actions, **({"pad": pad} if pad else {})}
    created = await client.create(backend.organiser_token(), mode="race", seats=2,
                                  options=options, dev_seed="5")
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    host = _host(backend, "longgame")
    claims = {s: host.issuer.verify(t) for s, t in tokens.items()}
    for i in range(actions):
        if served:
            await client.submit(tokens[i % 2], match_id, f"s{i}", {"type": "step"})
        else:
            await host.submit(claims[i % 2], match_id, f"s{i}", STEP, None)
    for _ in range(100):
        if (await client.view(match_id)).version == actions + 4:  # created, started, ended, sealed
            break
        await asyncio.sleep(0.05)
    return match_id, tokens


# ----------------------------------------------------------------------- 1. StartMatch


async def test_a_repeated_start_match_answers_the_first_start_and_writes_nothing(
        toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    host = _host(toy_backend, "toy")
    created = await client.create(organiser, mode="race", seats=2, await_client_seeds=True)
    match_id = created.match_id
    start = rules_pb2.StartMatchRequest(match_id=match_id)

    # two at once (a retry racing the first call): one starts it, the other is its repeat
    first, second = await asyncio.gather(client.call("StartMatch", start, organiser),
                                         client.call("StartMatch", start, organiser))
    assert (first.version, first.state_hash) == (second.version, second.state_hash)
    assert first.version == 2 and first.state_hash
    assert sorted([first.already_started, second.already_started]) == [False, True]

    # later, after the match moved on and was dropped from memory: the same answer
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await client.submit(tokens[0], match_id, "a", {"type": "pick", "step": 2})
    host.live.drop(match_id)
    again = await client.call("StartMatch", start, organiser)
    assert (again.version, again.state_hash, again.already_started) == (2, first.state_hash, True)
    assert (await client.view(match_id)).version == 3  # nothing written by the repeats

    # the tournament service's port: no words to match, a flag
    port = RulesGateway(lambda game: toy_backend.address("rules-toy"), organiser, 10.0)
    try:
        assert await port.start_match("toy", match_id) is True
        waiting = (await client.create(organiser, mode="race", seats=2,
                                       await_client_seeds=True)).match_id
        assert await port.start_match("toy", waiting) is False
        assert await port.start_match("toy", waiting) is True

        # once it has ended, a repeat is still the start's answer
        await client.abandon(organiser, match_id, "test: enough")
        ended = await client.call("StartMatch", start, organiser)
        assert (ended.version, ended.already_started) == (2, True)

        # a match that ended before it started was never started: refused, in words
        never = (await client.create(organiser, mode="race", seats=2,
                                     await_client_seeds=True)).match_id
        await client.abandon(organiser, never, "nobody came")
        code, why = await _code(client.call(
            "StartMatch", rules_pb2.StartMatchRequest(match_id=never), organiser))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "abandoned" in why
        # a seat may still not start a match, repeat or not
        code, _ = await _code(client.call("StartMatch", start, tokens[0]))
        assert code == grpc.StatusCode.PERMISSION_DENIED
    finally:
        await port.close()
    records, _ = parse_export((await client.export(organiser, match_id)).export_jsonl)
    assert [r["type"] for r in records].count("MatchStarted") == 1
    await client.close()


# ------------------------------------------------------------------- 2. late actions


def _hold_timers(host: MatchHost) -> tuple[asyncio.Event, list[object]]:
    """Turn timers that fire but wait for ``release`` before they act (a late timer)."""
    release = asyncio.Event()
    fired: list[object] = []
    real = host.clockwork._on_expire

    async def late(match_id: str, token: object) -> None:
        fired.append(token)
        await release.wait()
        await real(match_id, token)

    host.clockwork._on_expire = late
    return release, fired


async def _owing(client: RulesClient, match_id: str) -> tuple[int, int]:
    """The seat that owes the duel's first turn, and the other."""
    pending = (await client.view(match_id)).pending
    assert len(pending) == 1
    return pending[0].seat, 1 - pending[0].seat


def _timeouts(records: list[dict[str, Any]]) -> list[tuple[int, int, dict[str, Any]]]:
    return [(r["n"], r["seat"], r["action"]) for r in records
            if r["type"] == "ActionAccepted" and r.get("timeout") is True]


async def test_an_action_after_its_deadline_is_refused_and_the_timeout_goes_in_first(
        duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    host = _host(duel_backend, "duel")
    release, fired = _hold_timers(host)
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=1000)
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="9", clock=clock)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    late, other = await _owing(client, match_id)
    await asyncio.sleep(1.3)  # the late seat's deadline has passed; its timer fired but waits
    assert fired, "the timer fired (and is held)"
    assert (await client.view(match_id)).version == 2  # nothing applied it yet

    code, why = await _code(client.submit(tokens[late], match_id, "late", duel.STRIKE))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert why.startswith(f"too late: seat {late}'s time ran out") and "version 3" in why
    # the other seat, whose clock started with the timeout, acts in time
    answer = await client.submit(tokens[other], match_id, "in-time", duel.REST)
    assert answer.version == 4 and not answer.replayed

    await client.abandon(organiser, match_id, "test: enough")
    release.set()  # the held timer finds its deadline gone: no second timeout
    await asyncio.sleep(0.3)
    data = (await client.export(organiser, match_id)).export_jsonl
    records, _ = parse_export(data)
    assert _timeouts(records) == [(3, late, duel.REST)]  # the decision's default, once
    assert [(r["seat"], r["command_id"]) for r in records if r["type"] == "ActionAccepted"] \
        == [(late, "timeout:3"), (other, "in-time")]  # the late action was never taken
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_a_seat_acting_after_another_seats_deadline_comes_after_that_timeout(
        duel_backend: Backend) -> None:
    """A seat's any-time exchange, sent after the other seat's deadline passed: that
    timeout goes in first (the log the timer would have written), then the exchange."""
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    host = _host(duel_backend, "duel")
    release, _ = _hold_timers(host)
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_FISCHER, bank_ms=800)
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="9", clock=clock)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    late, other = await _owing(client, match_id)
    await asyncio.sleep(1.1)
    answer = await client.submit(tokens[other], match_id, "swap", duel.EXCHANGE)
    assert answer.version == 4
    clocks = {c.seat: c for c in answer.clocks}
    assert clocks[late].timeouts == 1 and clocks[other].timeouts == 0
    await client.abandon(organiser, match_id, "test: enough")
    release.set()
    await asyncio.sleep(0.3)
    data = (await client.export(organiser, match_id)).export_jsonl
    records, _ = parse_export(data)
    acted = [(r["n"], r["seat"], r["command_id"]) for r in records if r["type"] == "ActionAccepted"]
    assert acted == [(3, late, "timeout:3"), (4, other, "swap")]
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


# --------------------------------------------------------------------- 3. final views


async def test_a_spectator_of_an_evicted_sealed_match_gets_its_final_view_cheaply(
        long_backend: Backend, toy_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    client = RulesClient(long_backend.address("rules-longgame"))
    host = _host(long_backend, "longgame")
    actions = 3 * SNAPSHOT_EVERY + 50
    match_id, tokens = await _race(long_backend, client, actions)
    in_memory = await client.view(match_id)
    assert in_memory.status == rules_pb2.MATCH_STATUS_ENDED and in_memory.version == actions + 4
    assert json.loads(in_memory.view_json)["count"] == actions and in_memory.outcome_json

    read: list[int] = []
    records = host.store.records

    def counted(match: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        got = records(match, after, upto)
        read.append(len(got))
        return got

    monkeypatch.setattr(host.store, "records", counted)
    rebuilt: list[str] = []
    rebuild = host._rebuild

    async def counted_rebuild(match: str) -> Any:
        rebuilt.append(match)
        return await rebuild(match)

    monkeypatch.setattr(host, "_rebuild", counted_rebuild)

    # out of memory, and its kept view forgotten too (a restart): made from the store
    host.live.drop(match_id)
    host.finals.clear()
    views = await asyncio.gather(*(client.view(match_id) for _ in range(8)))
    assert all(v == in_memory for v in views)  # the same answer, every field
    assert rebuilt == [] and host.live.get(match_id) is None  # not rebuilt, not in memory
    assert sum(read) <= SNAPSHOT_EVERY + 4, read  # the snapshot's tail, not the whole log

    # kept from then on: anonymous calls read nothing
    read.clear()
    for _ in range(20):
        assert await client.view(match_id) == in_memory
    assert read == [] and rebuilt == []

    # a seat's own view still comes from the match (rebuilt once), as before
    seat_view = await client.view(match_id, tokens[0])
    assert seat_view.viewer == 0 and rebuilt == [match_id]
    assert json.loads(seat_view.view_json) == json.loads(in_memory.view_json)

    # unknown matches and bad ids are answered as before
    code, _ = await _code(client.view("no-such-match"))
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await _code(client.view("bad id!"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    await client.close()

    # a match with hidden hands (the toy's): the kept view is the spectator's, no hand in it
    toy_client = RulesClient(toy_backend.address("rules-toy"))
    toy_host = _host(toy_backend, "toy")
    created = await toy_client.create(toy_backend.organiser_token(), mode="race", seats=2,
                                      dev_seed="4")
    toy_tokens = {t.seat: t.token for t in created.seat_tokens}
    await play_match(toy_client, created.match_id, toy_tokens)
    for _ in range(100):
        public = await toy_client.view(created.match_id)
        if toy_host.live.get(created.match_id).status == "sealed":  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.05)
    toy_host.live.drop(created.match_id)
    toy_host.finals.clear()
    kept = await toy_client.view(created.match_id)
    assert kept == await toy_client.view(created.match_id)
    assert json.loads(kept.view_json)["hand"] is None and kept.state_hash == ""
    assert kept.version == public.version and kept.outcome_json == public.outcome_json
    await toy_client.close()


# -------------------------------------------------------------------------- 4. exports


async def test_an_export_over_4_mib_streams_in_chunks_and_neon_export_writes_it(
        long_backend: Backend, tmp_path: Path) -> None:
    client = RulesClient(long_backend.address("rules-longgame"))  # 64 MiB receive limit
    organiser = long_backend.organiser_token()
    # steps of 4 KiB events: past 4 MiB in 1,100 steps (it took 8,400 of the bare race)
    match_id, _ = await _race(long_backend, client, 1100, served=False, pad=4096)
    whole = (await client.export(organiser, match_id)).export_jsonl
    assert len(whole) > 4 * MiB, len(whole)
    print(f"export of a 1,100-step Counter Race: {len(whole)} bytes")

    # a client with gRPC's default limits cannot take it in one message...
    async with grpc.aio.insecure_channel(long_backend.address("rules-longgame")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        code, why = await _code(stub.ExportMatch(
            rules_pb2.ExportMatchRequest(match_id=match_id), metadata=call_metadata(organiser),
            timeout=30))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, why
        # ...but takes it in chunks: the same bytes
        messages = [m async for m in stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id=match_id),
            metadata=call_metadata(organiser), timeout=60)]
        # the same access rules as ExportMatch: a seat may not
        code, _ = await _code(_drain(stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id=match_id), timeout=10)))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = await _code(_drain(stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id="no-such-match"),
            metadata=call_metadata(organiser), timeout=10)))
        assert code == grpc.StatusCode.NOT_FOUND
    assert len(messages) == -(-len(whole) // MiB) >= 5
    assert all(len(m.chunk) <= MiB for m in messages)
    assert b"".join(m.chunk for m in messages) == whole
    assert messages[0].total_bytes == len(whole) and messages[0].event_count == 1104
    records, checkpoint = parse_export(whole)
    assert messages[0].final_hash == checkpoint["final_hash"] == records[-1]["hash"]

    # the command line exports it, and verifies it
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(long_backend.settings.var_dir),
               NEON_NAMESPACE=long_backend.settings.namespace, COLUMNS="200",
               NEON_ENGINES="longgame=bench.longgame",
               NEON_RULES_LONGGAME_ADDR=long_backend.address("rules-longgame"))

    def neon(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env,
                              cwd=ROOT, capture_output=True, text=True, timeout=120)

    path = tmp_path / "long.jsonl"
    out = await asyncio.to_thread(neon, "export", match_id, "-o", str(path), "--game", "longgame")
    assert out.returncode == 0, out.stderr
    assert "1104 events" in out.stdout
    assert path.read_bytes() == whole and not path.with_name("long.jsonl.part").exists()
    out = await asyncio.to_thread(neon, "verify", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    await client.close()


async def _drain(call: Any) -> None:
    async for _ in call:
        pass


async def test_neon_export_asks_export_match_of_a_service_without_chunks(
        toy_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rules service of an earlier release answers ExportMatchChunks UNIMPLEMENTED: the
    command's export falls back to ExportMatch; a cut stream leaves no file behind."""
    from services.cli.main import save_export

    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    created = await client.create(organiser, mode="race", seats=2, dev_seed="2")
    whole = (await client.export(organiser, created.match_id)).export_jsonl
    path = tmp_path / "x.jsonl"
    assert await save_export(client, organiser, created.match_id, path) == 2
    assert path.read_bytes() == whole

    def refusing(code: grpc.StatusCode) -> Callable[..., Any]:
        def chunks(organiser: str, match_id: str) -> Any:
            async def fail() -> AsyncIterator[Any]:
                raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                           details="no")
                yield  # pragma: no cover

            return fail()
        return chunks

    old = tmp_path / "old.jsonl"
    monkeypatch.setattr(client, "export_chunks", refusing(grpc.StatusCode.UNIMPLEMENTED))
    assert await save_export(client, organiser, created.match_id, old) == 2
    assert old.read_bytes() == whole
    cut = tmp_path / "cut.jsonl"
    monkeypatch.setattr(client, "export_chunks", refusing(grpc.StatusCode.UNAVAILABLE))
    with pytest.raises(grpc.aio.AioRpcError):
        await save_export(client, organiser, created.match_id, cut)
    assert list(tmp_path.glob("cut.jsonl*")) == []
    await client.close()


async def two_replicas(backend: Backend) -> tuple[list[Any], tuple[str, str]]:
    """The backend's duel rules service replaced by two replicas (in memory) on free ports of
    127.0.0.1: the replicas (stop them) and their addresses, by ordinal."""
    from services.platform.natsrv import free_port
    from services.rules import main as rules_main

    await backend.services.pop("rules-duel").stop(1)
    ports = [free_port(), free_port()]
    peers = (f"127.0.0.1:{ports[0]}", f"127.0.0.1:{ports[1]}")
    replicas = []
    for ordinal, port in enumerate(ports):
        settings = dataclasses.replace(
            backend.settings, persistence="memory", rules_peers=peers, rules_ordinal=ordinal,
            ports={**backend.settings.ports, "rules-duel": port})
        replicas.append(await rules_main.start("duel", settings, backend.keys,
                                               backend.nats_client, duel.ENGINE))
    return replicas, peers


async def test_a_replica_forwards_export_match_chunks_to_the_matchs_owner(
        duel_backend: Backend) -> None:
    """With two replicas, ExportMatchChunks asked of the one that does not own the match is
    relayed from its owner, chunk for chunk; a repeated StartMatch is forwarded the same way."""
    from services.platform.replicas import owner_of

    replicas, peers = await two_replicas(duel_backend)
    organiser = call_metadata(duel_backend.organiser_token())
    match_id = next(m for m in (f"chunks-{i}" for i in range(100)) if owner_of(m, 2) == 1)
    try:
        async with grpc.aio.insecure_channel(peers[0]) as ch0, \
                grpc.aio.insecure_channel(peers[1]) as ch1:
            forwarder, owner = rules_pb2_grpc.RulesServiceStub(ch0), rules_pb2_grpc.RulesServiceStub(ch1)
            await forwarder.CreateMatch(rules_pb2.CreateMatchRequest(
                match_id=match_id, mode="duel", seats=2, await_client_seeds=True),
                metadata=organiser, timeout=10)
            start = rules_pb2.StartMatchRequest(match_id=match_id)
            first = await forwarder.StartMatch(start, metadata=organiser, timeout=10)
            again = await owner.StartMatch(start, metadata=organiser, timeout=10)
            assert (again.version, again.state_hash) == (first.version, first.state_hash)
            assert (first.already_started, again.already_started) == (False, True)
            whole = (await owner.ExportMatch(rules_pb2.ExportMatchRequest(match_id=match_id),
                                             metadata=organiser, timeout=10)).export_jsonl
            relayed = [m async for m in forwarder.ExportMatchChunks(
                rules_pb2.ExportMatchChunksRequest(match_id=match_id), metadata=organiser,
                timeout=10)]
            assert b"".join(m.chunk for m in relayed) == whole
            assert relayed[0].total_bytes == len(whole) and relayed[0].event_count == 2
            assert replicas[0].extra["host"].live.get(match_id) is None  # served by its owner
    finally:
        for replica in replicas:
            await replica.stop(1)


@dataclasses.dataclass
class OwnedElsewhere:
    """A match that replica 1 owns, created through replica 0 (:func:`owned_by_replica_1`)."""

    replicas: list[Any]
    peers: tuple[str, str]
    forwarder: Any
    """A RulesService stub of replica 0."""
    match_id: str
    organiser: Any
    running: list[Any]

    async def stop_owner(self, grace: float) -> None:
        await self.replicas[1].stop(grace)
        self.running.remove(self.replicas[1])


@contextlib.asynccontextmanager
async def owned_by_replica_1(backend: Backend, prefix: str) -> AsyncIterator[OwnedElsewhere]:
    from services.platform.replicas import owner_of

    replicas, peers = await two_replicas(backend)
    organiser = call_metadata(backend.organiser_token())
    match_id = next(m for m in (f"{prefix}-{i}" for i in range(100)) if owner_of(m, 2) == 1)
    running = list(replicas)
    try:
        async with grpc.aio.insecure_channel(peers[0]) as ch0:
            forwarder = rules_pb2_grpc.RulesServiceStub(ch0)
            await forwarder.CreateMatch(rules_pb2.CreateMatchRequest(
                match_id=match_id, mode="duel", seats=2), metadata=organiser, timeout=10)
            yield OwnedElsewhere(replicas, peers, forwarder, match_id, organiser, running)
    finally:
        for replica in running:
            await replica.stop(1)


OWNER_DOWN = ("the rules replica that holds this match does not answer (it may be restarting); "
              "try again shortly")


async def test_a_call_for_a_match_whose_replica_is_down_is_unavailable_without_its_address(
        duel_backend: Backend) -> None:
    """With two replicas, the owner of a match is down: a call for the match asked of the
    other (unary, and a stream) is UNAVAILABLE saying the match's replica does not answer and
    to try again, never gRPC's transport text, which named the owner's internal address and
    port ("ipv4:10.x.y.z:50061: Failed to connect to remote host")."""
    async with owned_by_replica_1(duel_backend, "gone") as m:
        await m.stop_owner(0.5)
        calls = [
            m.forwarder.ExportMatch(rules_pb2.ExportMatchRequest(match_id=m.match_id),
                                    metadata=m.organiser, timeout=10),
            anext(aiter(m.forwarder.ExportMatchChunks(
                rules_pb2.ExportMatchChunksRequest(match_id=m.match_id), metadata=m.organiser,
                timeout=10))),
        ]
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call
            details = info.value.details() or ""
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE, details
            assert details == OWNER_DOWN, details
            assert "127.0.0.1" not in details and m.peers[1].split(":")[1] not in details


async def test_a_relayed_stream_whose_replica_stops_ends_unavailable_without_gRPCs_words(
        duel_backend: Backend) -> None:
    """A WatchMatch asked of the replica that does not own the match is relayed from its
    owner; when the owner stops, gRPC cancels its open calls ("Cancelling all calls"): the
    watcher is told the match's replica does not answer and to try again, as when it was
    never reached, not the stopping server's words as if they were the owner's reason."""
    async with owned_by_replica_1(duel_backend, "stop") as m:
        watch = m.forwarder.WatchMatch(rules_pb2.WatchMatchRequest(match_id=m.match_id),
                                       metadata=m.organiser, timeout=30)
        assert (await anext(aiter(watch))).event.type == "MatchCreated"
        await m.stop_owner(0.2)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in watch:
                pass
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert info.value.details() == OWNER_DOWN
