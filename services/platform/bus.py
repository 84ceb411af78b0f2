"""NATS JetStream: connection, the event stream, and the outbox relay.

The relay publishes each stored notification of a service's Application to JetStream
with ``Nats-Msg-Id = "<service>:<notification id>"``: the server drops a re-publish of
the same id inside the stream's duplicate window, and the relay keeps its position in a
JetStream key-value bucket so a restart resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import nats
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import BadRequestError, KeyNotFoundError, NotFoundError

from services.platform.logs import get_logger

STREAM = "NEON_EVENTS"
SUBJECTS = ["neon.events.>"]
POSITIONS_BUCKET = "neon_outbox_positions"
DUPLICATE_WINDOW = 15 * 60.0

log = get_logger("bus")

Projection = Callable[[Any], "list[tuple[str, dict[str, Any]]]"]
"""Maps a stored domain event to the (subject, public payload) messages to publish."""


async def connect(url: str, name: str) -> nats.NATS:
    return await nats.connect(
        url, name=name, connect_timeout=3, max_reconnect_attempts=-1, reconnect_time_wait=0.5
    )


async def ensure_stream(js: JetStreamContext) -> None:
    config = StreamConfig(
        name=STREAM, subjects=SUBJECTS, storage=StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW,
    )
    try:
        await js.add_stream(config)
    except BadRequestError:
        await js.update_stream(config)


async def positions(js: JetStreamContext) -> Any:
    try:
        return await js.key_value(POSITIONS_BUCKET)
    except (NotFoundError, BadRequestError):
        return await js.create_key_value(KeyValueConfig(bucket=POSITIONS_BUCKET, history=1))


def msg_id(service: str, notification_id: int) -> str:
    return f"{service}:{notification_id}"


class OutboxRelay:
    """Publishes an Application's new notifications to JetStream, in order, once each."""

    def __init__(
        self, app: Any, service: str, js: JetStreamContext, project: Projection,
        interval: float = 0.05, batch: int = 200,
    ) -> None:
        self.app, self.service, self.js, self.project = app, service, js, project
        self.interval, self.batch = interval, batch
        self.position = 0
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._kv: Any = None

    def poke(self) -> None:
        self._wake.set()

    async def start(self) -> None:
        await ensure_stream(self.js)
        self._kv = await positions(self.js)
        try:
            entry = await self._kv.get(self.service)
            self.position = int(entry.value.decode())
        except KeyNotFoundError:
            self.position = 0
        self._task = asyncio.create_task(self._run(), name=f"outbox-{self.service}")

    async def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                published = await self.publish_pending()
            except Exception as err:  # keep relaying through NATS or store hiccups
                log.warning("outbox relay error", error=repr(err))
                published = 0
                await asyncio.sleep(0.5)
            if published:
                continue
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self.interval * 20)
            except TimeoutError:
                pass

    async def publish_pending(self) -> int:
        notifications = await asyncio.to_thread(
            self.app.notification_log.select, self.position + 1, self.batch
        )
        for notification in notifications:
            event = self.app.mapper.to_domain_event(notification)
            for subject, payload in self.project(event):
                await self.js.publish(
                    subject,
                    json.dumps(payload, separators=(",", ":"), sort_keys=True).encode(),
                    stream=STREAM,
                    headers={"Nats-Msg-Id": msg_id(self.service, notification.id)},
                )
            self.position = notification.id
            await self._kv.put(self.service, str(self.position).encode())
        return len(notifications)

    async def drain(self, timeout: float = 5.0) -> None:
        """Publish everything stored so far (used at shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if not await self.publish_pending():
                return

    async def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        if self._task:
            await asyncio.gather(self._task, return_exceptions=True)
