"""The outbox relay when what it publishes into, or keeps its place in, goes away (real NATS
JetStream): the event stream deleted (and made again by the relay, or by a consumer such as
scoring), or the positions bucket deleted, or NATS itself killed mid-batch. Every stored
event must end up in the live stream, once each, in order.

Each test has a namespace of its own (its stream and positions bucket), so deleting them
disturbs no other test sharing this NATS.
"""

from __future__ import annotations

import asyncio
import json
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from services.platform import bus
from services.platform.bus import OutboxRelay
from services.platform.leadership import PostgresLead
from services.platform.natsrv import EmbeddedNats
from tests.integration.test_outbox_poison import Note, Notes
from tests.support.namespaces import drop_outbox_names


class Place:
    def __init__(self, js: Any, namespace: str) -> None:
        self.js, self.namespace = js, namespace
        self.stream = bus.stream_name(namespace)
        self.app = Notes()
        self.written = 0

    def write(self, count: int) -> None:
        for _ in range(count):
            self.app.save(Note(f"n{self.written}"))
            self.written += 1

    def project(self, domain_event: Any) -> list[tuple[str, dict[str, Any]]]:
        if not isinstance(domain_event, Note.Written):
            return []  # the store's identity
        return [(bus.events_subject(self.namespace, "notes", "m1"), {"token": domain_event.token})]

    def relay(self) -> OutboxRelay:
        relay = OutboxRelay(self.app, "notes", self.js, self.project, interval=0.01,
                            namespace=self.namespace)
        relay.stream_check = 0.0  # look at the stream before every batch
        return relay

    async def in_stream(self) -> list[str]:
        """The tokens the live stream holds, in stream order."""
        info = await self.js.stream_info(self.stream)
        if not info.state.messages:
            return []
        tokens = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            msg = await self.js.get_msg(self.stream, seq)
            tokens.append(json.loads(msg.data)["token"])
        return tokens

    def expected(self) -> list[str]:
        return [f"n{i}" for i in range(self.written)]


@pytest.fixture
async def place(nats_client: Any) -> AsyncIterator[Place]:
    namespace = f"ob{uuid.uuid4().hex[:10]}"
    js = nats_client.jetstream()  # type: ignore[attr-defined]
    try:
        yield Place(js, namespace)
    finally:
        await drop_outbox_names(js, namespace)


@pytest.mark.parametrize("stream_check", [0.0, 3600.0], ids=["looked at", "publish refused"])
async def test_a_stream_deleted_under_the_relay_is_made_again_with_every_event(
        place: Place, stream_check: float) -> None:
    relay = place.relay()
    relay.stream_check = stream_check  # 3600: found when no stream takes the publishes
    await relay.start()
    try:
        place.write(5)
        await relay.drain()
        assert await place.in_stream() == place.expected()
        await place.js.delete_stream(place.stream)  # JetStream's data lost, nobody remakes it
        place.write(3)
        await relay.drain()
        assert await place.in_stream() == place.expected()
        await relay.drain()
        assert await place.in_stream() == place.expected(), "published once each"
    finally:
        await relay.stop()


async def test_a_stream_made_again_by_another_gets_every_event_from_the_relay(place: Place) -> None:
    """Scoring remakes a deleted stream within seconds (its resync): the relay finds its
    publishes taken again, but what it had published into the old stream is gone with it."""
    relay = place.relay()
    await relay.start()
    try:
        place.write(5)
        await relay.drain()
        await place.js.delete_stream(place.stream)
        await bus.ensure_stream(place.js, namespace=place.namespace)
        place.write(3)
        await relay.drain()
        assert await place.in_stream() == place.expected()
    finally:
        await relay.stop()

    again = place.relay()  # a restart finds its position counts in this very stream
    await again.start()
    try:
        await again.drain()
        assert again.sent == 0
        assert await place.in_stream() == place.expected()
    finally:
        await again.stop()


async def test_the_positions_bucket_deleted_under_the_relay_is_made_again(place: Place) -> None:
    relay = place.relay()
    await relay.start()
    try:
        place.write(4)
        await relay.drain()
        await place.js.delete_key_value(bus.positions_bucket(place.namespace))
        place.write(2)
        await relay.drain()
        position = relay.position
    finally:
        await relay.stop()

    again = place.relay()  # a restart resumes where the first stopped: nothing sent again
    await again.start()
    try:
        assert again.position == position == place.app.recorder.max_notification_id()
        await again.drain()
        assert again.sent == 0
    finally:
        await again.stop()
    assert await place.in_stream() == place.expected()


async def test_nats_killed_and_restarted_mid_batch_loses_and_doubles_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A NATS server of this test's own (the shared one must stay up), killed (SIGKILL) while
    the relay is part way through a large store and started again on its data: every event
    reaches the stream once, and each subject (a match) holds its events in order."""
    monkeypatch.setattr(bus, "ACK_TIMEOUT", 1.0)  # the window cut short is given up sooner
    total, subjects = 3000, 4
    app = Notes()
    for i in range(total):
        app.save(Note(f"{i}"))

    def project(domain_event: Any) -> list[tuple[str, dict[str, Any]]]:
        if not isinstance(domain_event, Note.Written):
            return []
        token = int(domain_event.token)
        return [(bus.events_subject("own", "m", str(token % subjects)), {"token": token})]

    server = EmbeddedNats(tmp_path / "nats").start()
    nc = await bus.connect(server.url, "relay")
    relay = OutboxRelay(app, "notes", nc.jetstream(), project, interval=0.01, batch=250,
                        namespace="own")
    try:
        await relay.start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while relay.position < total // 4 and loop.time() < deadline:
            await asyncio.sleep(0.005)
        assert relay.position < total, "the relay finished before NATS could be killed"
        server.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
        server.process.wait()  # type: ignore[union-attr]
        await asyncio.sleep(0.5)
        server = EmbeddedNats(tmp_path / "nats", port=server.port).start()
        stored = app.recorder.max_notification_id()
        deadline = loop.time() + 60
        while relay.position < stored and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert relay.position == stored
        js = nc.jetstream()
        info = await js.stream_info(bus.stream_name("own"))
        seen = [json.loads((await js.get_msg(bus.stream_name("own"), seq)).data)["token"]
                for seq in range(info.state.first_seq, info.state.last_seq + 1)]
    finally:
        await relay.stop()
        await nc.close()
        server.stop()
    assert sorted(seen) == list(range(total)), "each event once"
    for k in range(subjects):
        mine = [t for t in seen if t % subjects == k]
        assert mine == sorted(mine), f"subject {k} out of order"


@pytest.mark.postgres
async def test_leadership_lost_and_regained_publishes_each_event_once_in_order(
        place: Place, postgres_url: str) -> None:
    """Two relays on one store, elected by a PostgreSQL advisory lock. The leader's session
    is killed (a partition): the other takes over where it stopped. Then that one goes, and
    the first leads again: it resumes from the position the other saved, not its own stale
    one, so it sends only what is new, and the stream holds every event once, in order."""
    name = f"test-relay-{uuid.uuid4().hex}"
    first, second = place.relay(), place.relay()
    first.leader = PostgresLead(postgres_url, name, recheck=0)
    second.leader = PostgresLead(postgres_url, name, recheck=0)
    await first.start()
    try:
        # the first takes the lock before the second asks for it: started together, either
        # may win it (under load the second's first look came first, and the first never led)
        await _leads(first)
        await second.start()
        place.write(5)
        await _published(place, first)
        assert first.leading and not second.leading
        before = first.sent
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first.leader._conn.info.backend_pid,))
        for _ in range(500):  # the session's end takes a moment to be seen
            if second.leading:
                break
            await asyncio.sleep(0.02)
        place.write(5)
        await _published(place, second)
        assert second.leading and second.sent == 5
        await second.stop()  # the other replica goes away
        place.write(5)
        await _published(place, first)
        assert first.sent - before == 5, "resumed from the other's position, not its own"
        assert await place.in_stream() == place.expected()
    finally:
        await first.stop()
        await second.stop()


async def _leads(relay: OutboxRelay, timeout: float = 30) -> None:
    """Until ``relay`` leads (its run loop took the lock)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not relay.leading and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert relay.leading


async def _published(place: Place, relay: OutboxRelay, timeout: float = 30) -> None:
    """Until ``relay`` has published the whole store."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    stored = place.app.recorder.max_notification_id()
    while (relay.position < stored or not relay.leading) and loop.time() < deadline:
        relay.poke()
        await asyncio.sleep(0.02)
    assert relay.position == stored and relay.leading


@pytest.mark.postgres
async def test_a_leader_paused_mid_batch_loses_and_doubles_nothing(
        place: Place, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The leader stops between publishing a batch and saving its position (a pause, a GC, a
    frozen VM) and its session ends meanwhile: the other relay takes over from the position
    saved before, publishes that batch again (its message ids drop it) and more. The paused
    one then wakes: its older position is refused (the key moved on since it wrote it; once
    it was saved over the newer one, 7 over 10), and it finds it leads no more."""
    name = f"test-relay-{uuid.uuid4().hex}"
    first, second = place.relay(), place.relay()
    first.leader = PostgresLead(postgres_url, name, recheck=0)
    second.leader = PostgresLead(postgres_url, name, recheck=0)
    await first.start()
    place.write(3)
    await _published(place, first)
    paused, resume = asyncio.Event(), asyncio.Event()
    save = first._save_position

    async def pause_then_save() -> None:
        paused.set()
        await resume.wait()
        await save()

    monkeypatch.setattr(first, "_save_position", pause_then_save)
    place.write(3)
    first.poke()
    await asyncio.wait_for(paused.wait(), 10)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (first.leader._conn.info.backend_pid,))
    await second.start()
    try:
        place.write(3)
        await _published(place, second)
        resume.set()
        for _ in range(500):
            if not first.leading:
                break
            first.poke()
            await asyncio.sleep(0.02)
        assert not first.leading
        kv = await place.js.key_value(bus.positions_bucket(place.namespace))
        saved = int((await kv.get(second._key)).value)
        assert saved == second.position == place.app.recorder.max_notification_id()
        assert await place.in_stream() == place.expected()
    finally:
        resume.set()
        await first.stop()
        await second.stop()
    again = place.relay()  # from whatever position was saved last
    await again.start()
    try:
        await again.drain()
        assert again.position == place.app.recorder.max_notification_id()
        assert await place.in_stream() == place.expected(), "nothing lost, nothing doubled"
    finally:
        await again.stop()


async def test_a_stale_relays_save_never_carries_an_old_streams_position_into_a_new_one(
        place: Place) -> None:
    """The stream is made again just as another relay of the store (one that led a moment
    ago) saves its position, counted in the old stream, over the one this relay read: this
    relay's reset to 0 is refused, so it takes the saved one, sees that it counts in the old
    stream, and resets it again; the saved position then never names the new stream with
    an old position (a restart would skip every event below it)."""
    relay, stale = place.relay(), place.relay()
    await relay.start()
    try:
        place.write(4)
        await relay.drain()
        # the other relay, not running: it only saves the position it counted in the old stream
        stale._kv, stale.store_id = relay._kv, relay.store_id
        await stale._load_position()
        stale.position = relay.position
        await stale._save_position()  # a stale leader's write, in the old stream
        await place.js.delete_stream(place.stream)
        await bus.ensure_stream(place.js, namespace=place.namespace)
        await relay.drain()
        kv = await place.js.key_value(bus.positions_bucket(place.namespace))
        stream_id = bus.stream_identity(await place.js.stream_info(place.stream))
        assert (await kv.get(relay._stream_key)).value.decode() == stream_id
        assert int((await kv.get(relay._key)).value) == relay.position
        assert await place.in_stream() == place.expected()
    finally:
        await relay.stop()
