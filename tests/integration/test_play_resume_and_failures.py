"""The Play seat stream as a third-party client (and a hostile one) uses it: resumed after a
disconnect, opened past the match, sent garbage, and left when the store fails under it.

Found by the rules API audit; each test failed before its fix:

- A stream resumed from the version the seat last saw (``PlayOpen.from_version`` = the
  match's version) got nothing at all: the seat's decisions came only after an event, so a
  seat that reconnected on its own turn waited for a match that waited for it.
- ``from_version`` beyond the match's version (a client's bug, or a version of another match)
  was a stream that said nothing until the match got there; WatchMatch the same.
- Garbage bytes after the open were answered INVALID_ARGUMENT, but the server's handler
  stayed: its follower task ran on and its open-stream slot was never given back, so a seat
  that did it 64 times could open no stream any more (RESOURCE_EXHAUSTED), and every such
  stream counted toward the process's limit for everyone.
- A stream whose follower met a store failure hung (no message, no status) or, for a
  service error, ended OK after an ActionResult with no command id: never the status.
- An action on its way when the match ended (the seal ended the stream) was never answered.
- A stream without a seat token was refused only after its first message: a caller that
  sent none held a stream, and its slot, until its own deadline (now: within a second).
- Every watched match kept its watchers' wake-up for the process's life after its seal.

Real gRPC over sockets, real NATS, the Hidden Race toy (hidden simultaneous picks, private
hands) on the SQLite store.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from eventsourcing.persistence import OperationalError

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.rules.host import MatchHost

pytestmark = pytest.mark.timeout(120)

PICK = {"type": "pick", "step": 2}
GARBAGE = b"\xff\xff\xff\x07garbage"


def _host(backend: Backend) -> MatchHost:
    host = backend.services["rules-toy"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def _match(backend: Backend, client: RulesClient) -> tuple[str, dict[int, str]]:
    created = await client.create(backend.organiser_token(), mode="race", seats=2, dev_seed="7")
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


def _open(match_id: str, from_version: int = 0) -> rules_pb2.PlayRequest:
    return rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id,
                                                         from_version=from_version))


async def _first_messages(client: RulesClient, token: str, match_id: str, from_version: int,
                          until_update: bool = True, wait: float = 3.0) -> list[Any]:
    """The Play stream's messages up to its first SeatUpdate (or all within ``wait`` s)."""
    async def requests() -> AsyncIterator[Any]:
        yield _open(match_id, from_version)
        await asyncio.sleep(60)

    call = client.stub.Play(requests(), metadata=call_metadata(token))
    got: list[Any] = []
    try:
        async with asyncio.timeout(wait):
            async for message in call:
                got.append(message)
                if until_update and message.WhichOneof("kind") == "update":
                    break
    except TimeoutError:
        pass
    finally:
        call.cancel()
    return got


async def test_a_stream_resumed_where_the_seat_left_gets_its_decisions(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    await client.submit(tokens[1], match_id, "one", PICK)  # seat 1 picked; seat 0 owes
    view = await client.view(match_id, tokens[0])
    at = view.version

    # resumed at the version the seat last saw: no event to send, but its position at once
    got = await _first_messages(client, tokens[0], match_id, at)
    kinds = [m.WhichOneof("kind") for m in got]
    assert kinds == ["update"], kinds
    update = got[0].update
    assert update.version == at and update.status == rules_pb2.MATCH_STATUS_RUNNING
    assert [d.seat for d in update.decisions if not d.standing] == [0]
    assert json.loads(update.view_json)["hand"], "the seat's own view comes with it"

    # resumed one version back: that one event (as seat 0 sees it: no hidden pick of seat 1),
    # then the update; no duplicate, no gap
    got = await _first_messages(client, tokens[0], match_id, at - 1)
    assert [m.WhichOneof("kind") for m in got] == ["event", "update"]
    event = got[0].event
    assert event.version == at and event.seat == 1
    assert "action" not in json.loads(event.payload_json)

    # a spectator's Watch from the same version sends nothing it may not see, as before
    seen = []
    call = client.watch(match_id, from_version=at - 1)
    async with asyncio.timeout(3):
        async for message in call:
            seen.append(message.event)
            break
    call.cancel()
    assert seen[0].version == at and "action" not in json.loads(seen[0].payload_json)

    # the seat answers on the resumed stream, and sees its own pick there
    outbox: asyncio.Queue[Any] = asyncio.Queue()
    await outbox.put(_open(match_id, at))

    async def requests() -> AsyncIterator[Any]:
        while True:
            yield await outbox.get()

    call = client.stub.Play(requests(), metadata=call_metadata(tokens[0]))
    results, events = [], []
    async with asyncio.timeout(10):
        async for message in call:
            kind = message.WhichOneof("kind")
            if kind == "update" and message.update.version == at:
                await outbox.put(rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                    command_id="resumed", action_json=json.dumps(PICK), expected_version=at)))
            elif kind == "result":
                results.append(message.result)
            elif kind == "event":
                events.append(message.event)
            if results and events:
                break
    call.cancel()
    assert results[0].code == "OK" and results[0].version == at + 1
    assert events[0].version == at + 1 and json.loads(events[0].payload_json)["action"] == PICK
    await client.close()


async def test_a_sealed_match_resumed_at_its_end_gets_the_outcome(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    await client.abandon(toy_backend.organiser_token(), match_id, "audit")
    view = await client.view(match_id)
    got = await _first_messages(client, tokens[0], match_id, view.version, until_update=False)
    assert [m.WhichOneof("kind") for m in got] == ["update"]
    assert got[0].update.status == rules_pb2.MATCH_STATUS_ENDED
    assert json.loads(got[0].update.outcome_json)["abandoned"] is True
    await client.close()


async def test_a_stream_from_beyond_the_match_is_out_of_range(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    version = (await client.view(match_id)).version

    async def requests() -> AsyncIterator[Any]:
        yield _open(match_id, version + 1)
        await asyncio.sleep(60)

    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in client.stub.Play(requests(), metadata=call_metadata(tokens[0]), timeout=5):
            pass
    assert info.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert f"at version {version}" in (info.value.details() or "")

    for token in (tokens[1], None):  # a seat's watch and a spectator's
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in client.stub.WatchMatch(
                    rules_pb2.WatchMatchRequest(match_id=match_id, from_version=10**12),
                    metadata=call_metadata(token), timeout=5):
                pass
        assert info.value.code() == grpc.StatusCode.OUT_OF_RANGE, info.value.details()
    # from the match's own version is fine (nothing yet), and the stream stays open
    call = client.watch(match_id, tokens[1], from_version=version)
    await client.submit(tokens[0], match_id, "after", PICK)
    async with asyncio.timeout(5):
        async for message in call:
            assert message.event.version == version + 1
            break
    call.cancel()
    await client.close()


async def test_garbage_after_the_open_ends_the_stream_and_frees_its_slot(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    limiter = toy_backend.services["rules-toy"].handle.streams
    assert limiter is not None
    key = ("seat", match_id, "1")
    raw = client.channel.stream_stream("/neon.rules.v1.RulesService/Play")
    for _ in range(3):
        async def requests() -> AsyncIterator[bytes]:
            yield _open(match_id).SerializeToString()
            await asyncio.sleep(0.3)
            yield GARBAGE
            await asyncio.sleep(30)

        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in raw(requests(), metadata=call_metadata(tokens[1]), timeout=10):
                pass
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "malformed" in (info.value.details() or "")
    for _ in range(50):  # the handlers end: every slot is given back
        if limiter.counter.open.get(key, 0) == 0:
            break
        await asyncio.sleep(0.1)
    assert limiter.counter.open.get(key, 0) == 0, limiter.counter.open
    leftover = [t for t in asyncio.all_tasks()
                if any(name in repr(t.get_coro()) for name in ("_push", "_read_actions"))]
    assert not leftover, leftover
    # and the seat plays on a new stream as before
    got = await _first_messages(client, tokens[1], match_id, 0)
    assert got[-1].WhichOneof("kind") == "update"
    await client.close()


async def test_a_stream_whose_store_fails_ends_unavailable(toy_backend: Backend,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    host = _host(toy_backend)

    async def requests() -> AsyncIterator[Any]:
        yield _open(match_id)
        await asyncio.sleep(60)

    call = client.stub.Play(requests(), metadata=call_metadata(tokens[0]), timeout=30)
    kinds = []
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for message in call:
            kinds.append(message.WhichOneof("kind"))
            if kinds.count("update") == 1 and len(kinds) == kinds.index("update") + 1:
                # the store goes away, and the match with it from memory (as a commit whose
                # outcome is unknown drops it): the follower's next look rebuilds it, and fails
                def down(*args: Any, **kw: Any) -> Any:
                    raise OperationalError("connection refused")

                monkeypatch.setattr(host.store, "records", down)
                host.live.drop(match_id)
                await host._notify(match_id)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE, (info.value.code(), kinds)
    assert "result" not in kinds, kinds
    await client.close()


async def test_an_action_in_flight_at_the_end_is_still_answered(toy_backend: Backend,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """PlayRequest.action is always answered: an action on its way when the match ends (here an
    organiser's abandon) gets its result before the stream ends, not silence."""
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    host = _host(toy_backend)
    real_submit = host.submit
    started = asyncio.Event()

    async def slow_submit(*args: Any, **kw: Any) -> Any:
        started.set()
        await asyncio.sleep(0.5)  # the abandon lands meanwhile
        return await real_submit(*args, **kw)

    monkeypatch.setattr(host, "submit", slow_submit)
    outbox: asyncio.Queue[Any] = asyncio.Queue()
    await outbox.put(_open(match_id))

    async def requests() -> AsyncIterator[Any]:
        while True:
            yield await outbox.get()

    kinds, results = [], []
    call = client.stub.Play(requests(), metadata=call_metadata(tokens[0]), timeout=20)
    async for message in call:  # ends OK after the seal
        kind = message.WhichOneof("kind")
        kinds.append(kind)
        if kind == "update" and message.update.status == rules_pb2.MATCH_STATUS_RUNNING \
                and not started.is_set():
            await outbox.put(rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                command_id="late", action_json=json.dumps(PICK))))
            await started.wait()
            await client.abandon(toy_backend.organiser_token(), match_id, "audit: ended under an action")
        elif kind == "result":
            results.append(message.result)
    assert [r.command_id for r in results] == ["late"], kinds
    assert results[0].code == "FAILED_PRECONDITION" and "abandoned" in results[0].message
    assert kinds[-1] == "result", kinds  # the ended match's update came before it
    await client.close()


async def test_a_stream_without_a_seat_token_is_refused_without_a_first_message(
        toy_backend: Backend) -> None:
    """No token, or a token of another role, is refused within a second even when no first
    message comes: the stream used to wait for its first message, so a caller that sent none
    held a stream (and its slot) until its own deadline, up to 1024 of them from one address
    without any token."""
    client = RulesClient(toy_backend.address("rules-toy"))
    limiter = toy_backend.services["rules-toy"].handle.streams
    assert limiter is not None

    async def silent() -> AsyncIterator[Any]:
        await asyncio.sleep(30)
        yield _open("never")

    for token, code in ((None, grpc.StatusCode.UNAUTHENTICATED),
                        (toy_backend.organiser_token(), grpc.StatusCode.PERMISSION_DENIED),
                        (toy_backend.issuer.issue("player", "*", player="p", ttl=600),
                         grpc.StatusCode.PERMISSION_DENIED)):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async with asyncio.timeout(5):
                async for _ in client.stub.Play(silent(), metadata=call_metadata(token), timeout=20):
                    pass
        assert info.value.code() == code, info.value.details()
        assert "seat token" in (info.value.details() or "")
    for _ in range(20):
        if limiter.counter.total == 0:
            break
        await asyncio.sleep(0.1)
    assert limiter.counter.total == 0
    await client.close()


async def test_a_sealed_match_leaves_no_wake_up_behind(toy_backend: Backend) -> None:
    """Each followed match had a condition to wake its watchers, kept for the process's life
    after the match was sealed (one more object per match ever watched); now it goes at the
    seal, and a watcher of the sealed match still gets every event and its end."""
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    host = _host(toy_backend)
    watch = client.watch(match_id, tokens[0])
    got = []

    async def follow() -> None:
        async for message in watch:
            got.append(message.event.type)

    following = asyncio.create_task(follow())
    await asyncio.sleep(0.3)
    assert match_id in host._changed  # a watcher waits on it
    await client.submit(tokens[0], match_id, "p", PICK)
    await client.abandon(toy_backend.organiser_token(), match_id, "audit")
    await asyncio.wait_for(following, 10)  # the watch ends at the seal
    assert got[-2:] == ["MatchEnded", "MatchSealed"] and "ActionAccepted" in got
    assert match_id not in host._changed
    again = [m.event.type async for m in client.watch(match_id)]  # a later watcher: all of it
    assert again == got
    assert match_id not in host._changed
    await client.close()
