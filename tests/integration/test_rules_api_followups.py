"""Follow-ups of the rules API audit, over real gRPC, real NATS and the Hidden Race toy.

Each test failed before its fix:

- A Play stream kept taking actions (and pushing the seat's hand) after the seat token it was
  opened with had expired; a unary call with that token was UNAUTHENTICATED.
- ListMatches, said to list ended matches "most recently finished" first, listed them most
  recently used first: a GetView of an old match (or its rebuild into memory) brought it to
  the top.
- The client library (services/platform/playing.py) retried every RESOURCE_EXHAUSTED for a
  minute, a message too large for the server as well, which fails the same way every time.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.platform.playing import SeatEvent, SeatTurn, play_seat
from services.rules.host import MatchHost
from tests.integration.test_stream_limits import limited
from tests.support import toy

pytestmark = pytest.mark.timeout(120)

PICK = {"type": "pick", "step": 2}


def _host(backend: Backend) -> MatchHost:
    host = backend.services["rules-toy"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def _match(backend: Backend, client: RulesClient, match_id: str = "") -> tuple[str, dict[int, str]]:
    created = await client.create(backend.organiser_token(), match_id=match_id, mode="race",
                                  seats=2, dev_seed="7")
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


# ----------------------------------------------------------------------------- 1. expiry


async def test_a_play_stream_ends_unauthenticated_when_its_seat_token_expires(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    host = _host(toy_backend)
    short = host.issuer.issue("seat", match_id, 0, "", ttl=1, game="toy")
    exp = host.issuer.verify(short).exp
    outbox: asyncio.Queue[Any] = asyncio.Queue()
    await outbox.put(rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)))

    async def requests() -> AsyncIterator[Any]:
        while True:
            yield await outbox.get()

    call = client.stub.Play(requests(), metadata=call_metadata(short), timeout=30)
    got: list[Any] = []
    acted = False
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for message in call:
            got.append((time.time(), message))
            if message.WhichOneof("kind") == "update" and not acted:
                acted = True  # an action while the token is valid is taken
                await outbox.put(rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                    command_id="before", action_json=json.dumps(PICK))))
    ended = time.time()
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "seat token expired" in (info.value.details() or "")
    # it ends when a unary call with the token would first be refused, not before, not much after
    assert exp + 1 <= ended < exp + 4
    results = [m.result for _, m in got if m.WhichOneof("kind") == "result"]
    assert [(r.command_id, r.code) for r in results] == [("before", "OK")]
    assert all(at < exp + 1 for at, _ in got), "nothing is pushed after the expiry"
    # the same token on a unary call is refused as well; a fresh one reopens the stream
    with pytest.raises(grpc.aio.AioRpcError) as unary:
        await client.view(match_id, short)
    assert unary.value.code() == grpc.StatusCode.UNAUTHENTICATED
    version = max(m.event.version for _, m in got if m.WhichOneof("kind") == "event")

    async def reopen() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id, from_version=version))
        await asyncio.sleep(30)

    again = client.stub.Play(reopen(), metadata=call_metadata(tokens[0]), timeout=10)
    first = await asyncio.wait_for(again.read(), 5)
    assert first.WhichOneof("kind") == "update" and first.update.version == version
    again.cancel()
    await client.close()


async def test_an_action_sent_after_the_expiry_is_not_applied(toy_backend: Backend) -> None:
    """The action arrives as the token expires: it is answered UNAUTHENTICATED, never taken."""
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, _ = await _match(toy_backend, client)
    host = _host(toy_backend)
    short = host.issuer.issue("seat", match_id, 0, "", ttl=1, game="toy")
    exp = host.issuer.verify(short).exp

    async def requests() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
        await asyncio.sleep(max(0.0, exp + 1 - time.time()))
        yield rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
            command_id="late", action_json=json.dumps(PICK)))
        await asyncio.sleep(30)

    got: list[Any] = []
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for message in client.stub.Play(requests(), metadata=call_metadata(short), timeout=30):
            got.append(message)
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "seat token expired" in (info.value.details() or "")
    # the late action was either answered UNAUTHENTICATED or never read: never applied
    late = [m.result for m in got if m.WhichOneof("kind") == "result"]
    assert all(r.code == "UNAUTHENTICATED" for r in late), late
    stored = await asyncio.to_thread(host.store.records, match_id)
    assert not [r for r in stored if r.get("command_id") == "late"]
    await client.close()


# ----------------------------------------------------------------------------- 2. order


async def test_list_matches_running_first_then_most_recently_finished(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    tag = uuid.uuid4().hex[:6]
    ids = {name: f"{name}-{tag}" for name in ("run-old", "first", "second", "third", "run-new")}
    seat_tokens = {}
    for name in ("run-old", "first", "second", "third"):
        seat_tokens[name] = (await _match(toy_backend, client, ids[name]))[1]
    for name in ("first", "third", "second"):  # finished in this order
        await client.abandon(organiser, ids[name], "test")
        await asyncio.sleep(0.01)
    _, tokens = await _match(toy_backend, client, ids["run-new"])
    await client.submit(tokens[0], ids["run-new"], "m", PICK)
    # asked about since, the oldest finished one and the older running one; "first" is even
    # dropped from memory and rebuilt from the store by its seat's GetView (a spectator's is
    # answered from its kept final view, without a rebuild)
    host = _host(toy_backend)
    host.live.drop(ids["first"])
    await client.view(ids["first"], seat_tokens["first"][0])
    await client.view(ids["run-old"])

    listed = await client.stub.ListMatches(rules_pb2.ListMatchesRequest(), timeout=10)
    order = [m.match_id for m in listed.matches if m.match_id.endswith(tag)]
    assert order == [ids["run-new"], ids["run-old"], ids["second"], ids["third"], ids["first"]]
    statuses = {m.match_id: m.status for m in listed.matches}
    assert statuses[ids["run-new"]] == rules_pb2.MATCH_STATUS_RUNNING
    assert statuses[ids["first"]] == rules_pb2.MATCH_STATUS_ENDED
    assert all(m.abandoned for m in listed.matches if m.match_id in (ids["first"], ids["second"]))
    await client.close()


# ----------------------------------------------------------------------------- 3. retries


async def test_a_message_too_large_fails_at_once_with_the_servers_reason(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    asked: list[int] = []

    def huge(turn: SeatTurn) -> dict[str, Any]:
        asked.append(turn.version)
        return {"type": "pick", "step": 2, "pad": "x" * (9 * 1024 * 1024)}

    started = time.monotonic()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await asyncio.wait_for(play_seat(client.stub, tokens[0], match_id, huge, seat=0,
                                         retry_for=60.0), 30)
    assert time.monotonic() - started < 10, "refused at once, not retried for a minute"
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "larger than max" in (info.value.details() or ""), info.value.details()
    assert asked == [asked[0]], "one try"
    await client.close()


@pytest.fixture
async def toy1(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """The toy's rules service with one open stream per token."""
    b = await limited(tmp_path, nats_url, {"toy": toy.ENGINE}, max_streams_per_caller=1)
    yield b
    await b.stop(1)


async def test_a_full_stream_slot_is_waited_for(toy1: Backend) -> None:
    """The seat's watch stream is refused while another of its streams holds the slot
    (RESOURCE_EXHAUSTED "too many open streams..."); the loop retries it, and a unary call
    answered with that refusal (a forwarding replica relays it unchanged) is retried too."""
    client = RulesClient(toy1.address("rules-toy"))
    match_id, tokens = await _match(toy1, client)
    holder = client.watch(match_id, tokens[0])
    await asyncio.wait_for(holder.read(), 10)
    refused = client.watch(match_id, tokens[0])
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await asyncio.wait_for(refused.read(), 10)
    slot_refusal = info.value
    assert slot_refusal.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too many open streams" in (slot_refusal.details() or "")

    calls: list[str] = []

    class Proxy:
        def __getattr__(self, name: str) -> Any:
            real = getattr(client.stub, name)
            if name == "WatchMatch":
                return real

            async def call(request: Any, **kw: Any) -> Any:
                calls.append(name)
                if name == "GetView" and calls.count("GetView") <= 2:
                    raise slot_refusal
                return await real(request, **kw)

            return call

    seen: list[SeatEvent] = []
    task = asyncio.create_task(play_seat(Proxy(), tokens[0], match_id,
                                         lambda turn: PICK, seat=0, on_event=seen.append))
    await asyncio.sleep(1.0)
    assert not task.done()
    holder.cancel()  # the slot is given back: the seat's stream gets it
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.05)
    assert seen and seen[0].version == 1, "the watch stream got the slot once it was free"
    assert calls.count("GetView") >= 3, calls  # refused twice, then answered
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await client.close()


async def test_a_watch_stream_with_a_seat_token_ends_when_the_token_expires(
        toy_backend: Backend) -> None:
    """WatchMatch followed with a seat token shows that seat's hidden events: it ends
    UNAUTHENTICATED when the token expires (it went on for ever), while the same watch
    without a token (the spectator's) goes on."""
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    host = _host(toy_backend)
    short = host.issuer.issue("seat", match_id, 0, "", ttl=1, game="toy")
    exp = host.issuer.verify(short).exp
    seat_watch = client.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id),
                                        metadata=call_metadata(short), timeout=30)
    spectator = client.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id), timeout=30)
    got = 0
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in seat_watch:
            got += 1
    ended = time.time()
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "seat token expired" in (info.value.details() or "")
    assert got >= 1  # the stored events came while the token was good
    assert exp + 1 <= ended < exp + 4  # at its expiry, not at the call's deadline
    # the spectator's watch is still open: an event played now reaches it
    first = await asyncio.wait_for(spectator.read(), 5)
    assert first.event.version >= 1
    spectator.cancel()
    await client.close()
