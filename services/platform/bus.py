"""NATS JetStream: connection, the event stream, and the outbox relay.

The relay publishes each stored notification of a service's Application to JetStream
with ``Nats-Msg-Id = "<service>:<store id>:<notification id>"``: the server drops a
re-publish of the same id inside the stream's duplicate window, and the relay keeps its
position in a JetStream key-value bucket so a restart resumes where it stopped. The
store id (made once, kept in the store itself) keeps a new or wiped store from
colliding with the ids and position of another store of the same service.

A store restored from a backup keeps its identity but numbers its new events again from where
the backup ended, below ids published already. Beside its position the relay keeps marks of
what it published (a digest of the notification at the position, and at older positions spaced
by log age); at start, on taking over and every STREAM_CHECK it checks that the store still
holds them. When not, it logs an error, starts a new publisher epoch (kept in the store's
identity and part of every msg id: ``<service>:<store id>.<epoch>:<notification id>``, so the
new events never repeat the ids of the events the backup lost) and publishes again from the
newest mark the store still holds; consumers find what they have already.

The position counts in one stream, named beside it by the stream's identity (its creation
time): a stream deleted or made again holds nothing published before, so the leading relay
(looking every STREAM_CHECK seconds, and when no stream takes its messages) makes it when it
is missing and publishes the store into it again from its first event. A positions bucket
deleted under a running relay is made again with its position.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import nats
from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import (
    BadRequestError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NoStreamResponseError,
    NotFoundError,
)

from services.platform import settings
from services.platform.leadership import AlwaysLead, Leadership
from services.platform.logs import get_logger
from services.platform.topics import UntrustedTopic
from services.platform.waiting import within

STREAM = "NEON_EVENTS"
SUBJECTS = ["neon.events.>"]
POSITIONS_BUCKET = "neon_outbox_positions"
DUPLICATE_WINDOW = 15 * 60.0
"""The names without a namespace; with ``NEON_NAMESPACE=<ns>`` use the functions below."""
ACK_TIMEOUT = 5.0
"""Seconds the relay waits for one window of JetStream's acks before it gives the batch up
(and publishes it again: the message ids make the second copy a no-op)."""
ACK_WINDOW = 1024
"""Acks in flight at most: a stored event that fans out to 100,000 messages (a matchmaking
cycle's proposals) is published window by window, each within ACK_TIMEOUT."""
STREAM_CHECK = 10.0
"""Seconds between the leading relay's looks at the stream's identity: one made again (its
sequences from 1, what the old one held gone) is filled again from the store's first event."""


def _namespace(where: settings.Settings | str | None) -> str:
    if where is None:
        return settings.load().namespace
    if isinstance(where, str):
        return settings.check_namespace(where)
    return where.namespace


def subject_prefix(where: settings.Settings | str | None = None) -> str:
    """``neon.events``, or ``<ns>.neon.events`` in a namespace (the namespace leads, so one
    NATS permission ``<ns>.>`` covers a whole deployment)."""
    ns = _namespace(where)
    return f"{ns}.neon.events" if ns else "neon.events"


def events_subject(where: settings.Settings | str | None, *parts: str) -> str:
    """A subject under the deployment's prefix: ``events_subject(s, "results", game, id)``."""
    return ".".join([subject_prefix(where), *parts])


def stream_name(where: settings.Settings | str | None = None) -> str:
    """``NEON_EVENTS``, or ``<ns>_NEON_EVENTS`` in a namespace."""
    ns = _namespace(where)
    return f"{ns}_{STREAM}" if ns else STREAM


def stream_for_subject(subject: str) -> str:
    """The stream that captures ``subject`` (its namespace is what precedes ``neon.events``)."""
    head, sep, _ = subject.partition(".neon.events.")
    return stream_name(head) if sep and not subject.startswith("neon.events.") else STREAM


def durable_name(where: settings.Settings | str | None, name: str) -> str:
    """A JetStream durable consumer name: ``name``, or ``<ns>-<name>`` in a namespace."""
    ns = _namespace(where)
    return f"{ns}-{name}" if ns else name


def positions_bucket(where: settings.Settings | str | None = None) -> str:
    """The outbox relays' key-value bucket: ``neon_outbox_positions``, or ``<ns>_...``."""
    ns = _namespace(where)
    return f"{ns}_{POSITIONS_BUCKET}" if ns else POSITIONS_BUCKET

log = get_logger("bus")

MAX_PAYLOAD = 1024 * 1024
"""NATS's default max_payload: a larger message is refused by the server."""
_BLANK = frozenset(" \t\r\n\f\v\0")
"""Characters no subject token may hold."""


def unpublishable(subject: str, body: bytes, max_payload: int = MAX_PAYLOAD) -> str | None:
    """Why NATS would refuse this message whatever the retries (a subject token that is
    empty, holds white space or is a wildcard; a body over ``max_payload``), else None.
    Substring tests in C, not a loop over tokens: the relay asks for every message."""
    dotted = f".{subject}."
    if ".." in dotted or ".*." in dotted or ".>." in dotted or not _BLANK.isdisjoint(subject):
        return f"subject {subject!r} is not a NATS subject"
    if len(body) > max_payload:
        return f"message of {len(body)} bytes is over NATS's max_payload ({max_payload})"
    return None


Projection = Callable[[Any], "list[tuple[str, dict[str, Any]]]"]
"""Maps a stored domain event to the (subject, public payload) messages to publish."""


async def connect(url: str, name: str) -> nats.NATS:
    return await nats.connect(
        url, name=name, connect_timeout=3, max_reconnect_attempts=-1, reconnect_time_wait=0.5
    )


async def ensure_stream(js: JetStreamContext, replicas: int | None = None,
                        namespace: str | None = None) -> None:
    """Create or update the event stream; ``replicas`` defaults to NEON_STREAM_REPLICAS and
    ``namespace`` to NEON_NAMESPACE. What the services need of it (subjects, duplicate window,
    replicas) is set again on a stream that differs; the limits an operator set on it by hand
    (:data:`OPERATOR_LIMITS`: no service sets any) stay."""
    if replicas is None:
        replicas = settings.load().stream_replicas
    config = StreamConfig(
        name=stream_name(namespace), subjects=[f"{subject_prefix(namespace)}.>"],
        storage=StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW, num_replicas=replicas,
    )
    try:
        await js.add_stream(config)
    except BadRequestError:  # there, with another configuration
        try:
            have = (await js.stream_info(config.name)).config
        except NotFoundError:  # deleted meanwhile
            await js.add_stream(config)
            return
        for limit in OPERATOR_LIMITS:
            setattr(config, limit, getattr(have, limit, None))
        await js.update_stream(config)


OPERATOR_LIMITS = ("max_age", "max_bytes", "max_msgs", "max_msgs_per_subject", "max_msg_size",
                   "discard")
"""Stream limits an operator may set by hand (``nats stream edit``; README, "Keeping the event
stream"): kept by :func:`ensure_stream`. The services set none: results reach scoring and
tournaments through this stream, and a consumer away for longer than a limit would miss them
(scoring then logs the gap, and what to do)."""


def stream_identity(info: Any) -> str:
    """What tells one stream from another of the same name made later: its creation time
    (StreamInfo.created, to the microsecond). A stream deleted and made again, or one on a new
    NATS, has another; updating a stream's configuration keeps it. "" when the server gives none."""
    created = getattr(info, "created", None)
    if created is None:
        return ""
    return created.isoformat() if hasattr(created, "isoformat") else str(created)


async def positions(js: JetStreamContext, namespace: str | None = None) -> Any:
    bucket = positions_bucket(namespace)
    try:
        return await js.key_value(bucket)
    except (NotFoundError, BadRequestError):
        return await js.create_key_value(KeyValueConfig(bucket=bucket, history=1))


def msg_id(service: str, notification_id: int, store_id: str = "") -> str:
    """``<service>:<notification id>``, with the store's identity when it has one (and, after
    a restore from a backup, its epoch: ``<store id>.<epoch>``)."""
    return f"{service}:{store_id}:{notification_id}" if store_id else f"{service}:{notification_id}"


class StoreIdentity(Aggregate):
    """Names one event store, so that a wiped store never reuses a live store's msg ids; its
    epoch changes when the store is found restored from a backup (:func:`new_epoch`), so that
    the restored store's new events never reuse the msg ids of the events the backup lost."""

    epoch = ""
    """The publisher epoch ("" until a restore was first found): part of every msg id."""

    @event("Named")
    def __init__(self, store_id: str) -> None:
        self.store_id = store_id

    @event("Reopened")
    def reopen(self, epoch: str) -> None:
        self.epoch = epoch

    @staticmethod
    def create_id(*args: Any, **kwargs: Any) -> uuid.UUID:
        return STORE_IDENTITY


STORE_IDENTITY = uuid.UUID("5e0b4f3a-8c1d-4e27-b6a9-0d3c2f1e4a77")


def _identity(app: Any) -> StoreIdentity:
    """The store's identity aggregate, made on first use (racing replicas agree on the first)."""
    try:
        return app.repository.get(STORE_IDENTITY)  # type: ignore[no-any-return]
    except AggregateNotFoundError:
        try:
            app.save(StoreIdentity(uuid.uuid4().hex[:12]))
        except IntegrityError:
            pass
        return app.repository.get(STORE_IDENTITY)  # type: ignore[no-any-return]


def store_identity(app: Any) -> str:
    """The store's identity, made on first use (racing replicas agree on the first saved)."""
    return str(_identity(app).store_id)


def publisher_identity(app: Any) -> str:
    """What the relay's msg ids name the store by: its identity, and its epoch once it has one."""
    identity = _identity(app)
    return f"{identity.store_id}.{identity.epoch}" if identity.epoch else str(identity.store_id)


def new_epoch(app: Any, seen: str) -> str:
    """Start a new publisher epoch (random: a store restored twice from one backup never
    reuses one) unless another replica's relay did since ``seen`` (publisher_identity) was
    read: then that one's. Returns the new publisher identity."""
    identity = _identity(app)
    if publisher_identity(app) == seen:
        identity.reopen(uuid.uuid4().hex[:8])
        try:
            app.save(identity)
        except IntegrityError:  # another relay of the store started one first: take it
            pass
    return publisher_identity(app)


MARKS = 32
"""How many (position, digest) marks of published notifications the relay keeps beside its
position, spaced more widely the older they are (:func:`thin_marks`)."""


def notification_digest(notification: Any) -> str:
    """What tells a stored notification from another stored at the same id (a store restored
    from a backup numbers its new events again from where the backup ended)."""
    head = (f"{notification.originator_id}:{notification.originator_version}:"
            f"{notification.topic}:").encode()
    return hashlib.sha256(head + bytes(notification.state)).hexdigest()[:24]


def thin_marks(marks: list[tuple[int, str]], limit: int = MARKS) -> list[tuple[int, str]]:
    """At most ``limit`` marks, the newest and oldest kept, the others dropped where they lie
    closest together for their age: the marks end up about evenly spaced in log(age), so a
    restore to last night's backup finds a mark a little before it, however long the store."""
    marks = list(marks)
    while len(marks) > max(limit, 2):
        newest = marks[-1][0]
        drop = min(range(1, len(marks) - 1), key=lambda i: (marks[i + 1][0] - marks[i - 1][0])
                   / max(1, newest - marks[i - 1][0]))
        del marks[drop]
    return marks


class OutboxRelay:
    """Publishes an Application's new notifications to JetStream, in order, once each."""

    def __init__(
        self, app: Any, service: str, js: JetStreamContext, project: Projection,
        interval: float = 0.05, batch: int = 200, namespace: str | None = None,
        leader: Leadership | None = None,
    ) -> None:
        self.app, self.service, self.js, self.project = app, service, js, project
        self.leader: Leadership = leader or AlwaysLead()
        self.leading = False
        self.sent = 0
        """Notifications this relay has published (a follower's stays 0)."""
        self.dropped: set[tuple[int, int]] = set()
        """(notification id, message index) of the messages NATS would never take
        (``unpublishable``): each logged as an error once and passed over, so that one cannot
        hold back every later event. The event stays in the store."""
        self.max_payload = MAX_PAYLOAD
        self.namespace = _namespace(namespace)
        self.interval, self.batch = interval, batch
        self.position = 0
        self.stream_id = ""
        """The identity (stream_identity) of the stream ``position`` counts in."""
        self.stream_check = STREAM_CHECK
        self._revision: int | None = None
        """The revision of the position key this relay last read or wrote (None: none there):
        a save is refused once another relay of the store has saved since, so a relay that
        paused mid-batch while another took over never writes an older position back."""
        self._stream_checked = -float("inf")
        self._turn = asyncio.Lock()
        """Held while the position is read or a batch is published: ``drain`` (at shutdown)
        and the relay's own loop never publish the same notifications at once, which would
        count them twice and could write back an older position after a newer one."""
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._kv: Any = None
        self.store_id = ""
        self.publisher = ""
        """What msg ids name the store by (publisher_identity): its identity and epoch."""
        self._marks: list[tuple[int, str]] = []
        """(position, notification_digest) of published notifications, the newest at
        ``position``: what tells that the store is still the one published from."""

    def poke(self) -> None:
        self._wake.set()

    async def start(self) -> None:
        await ensure_stream(self.js, namespace=self.namespace)
        self.max_payload = getattr(getattr(self.js, "_nc", None), "max_payload", 0) or MAX_PAYLOAD
        self._kv = await positions(self.js, self.namespace)
        self.store_id = await asyncio.to_thread(store_identity, self.app)
        await self._load_position(check=False)  # checked once leading: a follower writes nothing
        self._task = asyncio.create_task(self._run(), name=f"outbox-{self.service}")

    @property
    def _key(self) -> str:
        return f"{self.service}.{self.store_id}"

    @property
    def _marks_key(self) -> str:
        return f"{self._key}.marks"

    @property
    def _stream_key(self) -> str:
        """The identity of the stream the position counts in (a key of its own: releases
        before it read the position key as a bare number)."""
        return f"{self._key}.stream"

    async def _load_position(self, check: bool = True) -> None:
        """The position (and the stream it counts in) another relay of this store saved. None
        saved (a new store, or the bucket deleted): this relay's own, at first 0, so the store
        is published again from its first event; message ids drop what the stream got within
        its duplicate window, and consumers what they have already (a result is per match).
        ``check``: then make sure the store is still the one published (_check_store)."""
        try:
            entry = await self._kv.get(self._key)
            self.position, self._revision = int(entry.value.decode()), entry.revision
        except KeyNotFoundError:
            self._revision = None
            (log.warning if self.position else log.debug)(
                "no saved outbox position: publishing from this relay's own",
                service=self.service, bucket=positions_bucket(self.namespace),
                position=self.position)
        try:
            self.stream_id = (await self._kv.get(self._stream_key)).value.decode()
        except KeyNotFoundError:
            pass
        try:
            self._marks = [(int(p), str(d)) for p, d in
                           json.loads((await self._kv.get(self._marks_key)).value)]
        except KeyNotFoundError:
            self._marks = []
        except (ValueError, TypeError):  # not a list of pairs: none to go by
            log.warning("unreadable outbox marks: taking the store as it is",
                        service=self.service, key=self._marks_key)
            self._marks = []
        self.publisher = await asyncio.to_thread(publisher_identity, self.app)
        self._stream_checked = -float("inf")  # the stream is looked at before the next batch
        if check:
            await self._check_store()

    async def _save_position(self) -> None:
        """Write the position, unless another relay of the store saved one since this one
        read or wrote it (then take that one: the other leads, or led while this one was
        away); a bucket deleted meanwhile is made again with it."""
        value = str(self.position).encode()
        try:
            if self._revision is None:
                self._revision = await self._kv.create(self._key, value)
            else:
                self._revision = await self._kv.update(self._key, value, last=self._revision)
            await self._kv.put(self._marks_key, self._marks_value())
        except KeyWrongLastSequenceError:
            log.warning("another outbox relay of this store saved its position meanwhile: "
                        "going on from that one", service=self.service, position=self.position)
            await self._load_position()
        except (NoStreamResponseError, NotFoundError):
            log.warning("the outbox positions bucket is gone: making it again",
                        service=self.service, bucket=positions_bucket(self.namespace),
                        position=self.position)
            self._kv = await positions(self.js, self.namespace)
            self._revision = await self._kv.put(self._key, value)
            await self._kv.put(self._marks_key, self._marks_value())
            if self.stream_id:
                await self._kv.put(self._stream_key, self.stream_id.encode())

    def _marks_value(self) -> bytes:
        return json.dumps([[p, d] for p, d in self._marks if p <= self.position]).encode()

    def _diverged_at(self) -> int | None:
        """None when the store holds at ``position`` the notification published there (by its
        digest, the newest mark); else the newest position whose mark the store still holds
        (0: none), up to which it is the store that was published: a store restored from a
        backup, or replaced, holds other events (or none) at the position. A position saved
        without a mark (by a release before marks) is taken as it is when the store holds it."""
        recorder = self.app.recorder

        def digest_at(position: int) -> str | None:
            found = recorder.select_notifications(position, 1)
            return notification_digest(found[0]) if found and found[0].id == position else None

        marks = self._marks
        here = digest_at(self.position)
        if marks and marks[-1][0] == self.position:
            if here == marks[-1][1]:
                return None
        elif here is not None:
            self._marks = thin_marks([*(m for m in marks if m[0] < self.position),
                                      (self.position, here)])
            return None
        for position, digest in reversed(marks):
            if position < self.position and digest_at(position) == digest:
                return position
        return 0

    async def _check_store(self) -> None:
        """Make sure the store is the one published up to ``position``. One restored from a
        backup (or replaced) numbers its new events again from where it ends, below ids
        published already: they would be passed over (at or below the position) or dropped by
        JetStream as repeats of the msg ids of the events the backup lost. So the relay starts
        a new publisher epoch (a new part of every msg id) and publishes again from the last
        position the store still shares with what was published; consumers find what they
        have already (a result is per match)."""
        if not self.position:
            return
        resume = await asyncio.to_thread(self._diverged_at)
        if resume is None:
            return
        end = await asyncio.to_thread(self.app.recorder.max_notification_id)
        was = self.publisher
        self.publisher = await asyncio.to_thread(new_epoch, self.app, was)
        log.error("the store is not the one the outbox published up to its position: restored "
                  "from a backup, or replaced? Publishing it again from the last event it shares "
                  "with what was published, under new message ids (consumers find the events "
                  "they have already); events the backup lost are gone from this store "
                  "(docs/OPERATIONS.md, \"Backups and restores\")",
                  service=self.service, position=self.position, store_end=end,
                  publishing_from=resume + 1, publisher=self.publisher, was=was)
        self.position = resume
        self._marks = [m for m in self._marks if m[0] <= resume]
        await self._save_position()

    async def _follow_stream(self) -> None:
        """Make sure the position counts in the live stream (making the stream when it is
        missing). A stream made again (deleted, JetStream's data lost, a new NATS) holds
        nothing this relay published before: the store is published into it again from its
        first event, and message ids drop what it already holds."""
        self._stream_checked = asyncio.get_running_loop().time()
        name = stream_name(self.namespace)
        try:
            info = await self.js.stream_info(name)
        except NotFoundError:
            await ensure_stream(self.js, namespace=self.namespace)
            info = await self.js.stream_info(name)
        live = stream_identity(info)
        while live and live != self.stream_id:
            if self.stream_id:
                log.warning("the event stream was made again: publishing every stored event into "
                            "it again from the first (message ids drop what it holds already)",
                            service=self.service, stream=name, position=self.position,
                            created=live, was_created=self.stream_id)
                self.position = 0
                await self._save_position()
                if self.position:  # another relay saved first: decide again on what it saved
                    continue
            self.stream_id = live
            await self._kv.put(self._stream_key, live.encode())

    async def _lead(self) -> bool:
        """Whether this replica's relay may publish now; on taking over from another, it
        resumes from the position that one wrote, not from its own stale one."""
        leading = await self.leader.lead()
        if leading and not self.leading:
            async with self._turn:
                await self._load_position()
        self.leading = leading
        return leading

    async def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                if not await self._lead():
                    # a follower asks again now and then, not on every poke
                    try:
                        await within(self._stopped.wait(), timeout=self.interval * 20)
                    except TimeoutError:
                        pass
                    continue
                published = await self.publish_pending()
            except Exception as err:  # keep relaying through NATS or store hiccups
                log.warning("outbox relay could not publish (NATS or the store away or slow?); "
                            "retrying from its position", service=self.service,
                            position=self.position, error=repr(err))
                published = 0
                await asyncio.sleep(0.5)
            if published:
                continue
            await self._idle()

    async def _idle(self) -> None:
        self._wake.clear()
        if self._stopped.is_set():
            # a stop that came while a batch was out set _wake before the clear above: the
            # wait would last its whole interval, and the service's stop time out on it
            return
        try:
            async with asyncio.timeout(self.interval * 20):  # no task per wait, unlike wait_for
                await self._wake.wait()
        except TimeoutError:
            pass

    async def publish_pending(self) -> int:
        """Publish the next batch of notifications, then write the position once.

        The batch's publishes go out on one connection (so in order), each with its ack as a
        future (no task or request per message), awaited window by window (ACK_WINDOW
        messages within ACK_TIMEOUT); a failure or a missing ack leaves the position where
        it was, and the re-publish of the whole batch is deduplicated by JetStream through
        the message ids. One batch at a time (``_turn``).
        """
        async with self._turn:
            return await self._publish_pending()

    async def _publish_pending(self, again: bool = True) -> int:
        if asyncio.get_running_loop().time() - self._stream_checked >= self.stream_check:
            await self._follow_stream()
            await self._check_store()
        notifications = await asyncio.to_thread(
            self.app.recorder.select_notifications, self.position + 1, self.batch
        )
        if not notifications:
            return 0
        messages = self._messages(notifications)
        try:
            while window := list(itertools.islice(messages, ACK_WINDOW)):
                await self._publish_window(window)
        except NoStreamResponseError:
            if not again:
                raise
            # no stream took it: deleted (or JetStream still starting); made again when gone
            log.warning("no stream took the outbox's messages: looking for it",
                        service=self.service, stream=stream_name(self.namespace))
            await self._follow_stream()
            return await self._publish_pending(again=False)
        self.position = notifications[-1].id
        self.sent += len(notifications)
        self._marks = thin_marks([*(m for m in self._marks if m[0] < notifications[0].id),
                                  (self.position, notification_digest(notifications[-1]))])
        await self._save_position()
        return len(notifications)

    def _messages(self, notifications: list[Any]) -> Iterator[tuple[str, bytes, dict[str, str]]]:
        """(subject, body, headers) of every message the notifications project to, in order."""
        for notification in notifications:
            ident = msg_id(self.service, notification.id, self.publisher)
            try:
                event = self.app.mapper.to_domain_event(notification)
            except UntrustedTopic as err:  # a row the service did not write: never published
                if (notification.id, -1) not in self.dropped:
                    self.dropped.add((notification.id, -1))
                    log.error("outbox row passed over: not written by this service",
                              service=self.service, notification=notification.id,
                              reason=str(err))
                continue
            for index, (subject, payload) in enumerate(self.project(event)):
                body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
                problem = unpublishable(subject, body, self.max_payload)
                if problem:
                    if (notification.id, index) not in self.dropped:
                        self.dropped.add((notification.id, index))
                        log.error("outbox message passed over", service=self.service,
                                  notification=notification.id, index=index, reason=problem)
                    continue
                yield subject, body, {"Nats-Msg-Id": f"{ident}#{index}" if index else ident}

    async def _publish_window(self, window: list[tuple[str, bytes, dict[str, str]]]) -> None:
        """Publish a window of messages and wait for their acks, all within ACK_TIMEOUT (per
        window, not per batch: one stored event may fan out to 100,000 messages)."""
        acks: list[asyncio.Future[Any]] = []
        try:
            async with asyncio.timeout(ACK_TIMEOUT):
                for subject, body, headers in window:
                    acks.append(await self.js.publish_async(
                        subject, body, stream=stream_for_subject(subject), headers=headers))
                await asyncio.gather(*acks)
        finally:
            for ack in acks:
                ack.cancel()  # acks still out after a failure: nobody waits for them

    async def drain(self, timeout: float = 5.0) -> None:
        """Publish everything stored so far (used at shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if not await self._lead():
            return  # another replica's relay publishes this store
        while loop.time() < deadline:
            if not await self.publish_pending():
                return

    async def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        if self._task:
            await asyncio.gather(self._task, return_exceptions=True)
        await self.leader.close()
