"""Results of the tournament's matches from JetStream: the rules services' signed results.

A durable pull consumer on ``neon.events.results.>``. A message is acted on only when it
is a result signed by a trusted rules key (platform/signed.py) of a match whose id names
one of our tables (``<tournament>-r<round>-t<table>``); anything else is acked and left.
Recording is idempotent (a table's first result stands; a redelivery is a duplicate), so
messages are acked after the result is saved and a crash before the ack only repeats it.
Order does not matter here: each table's result stands alone.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from nats import errors as nats_errors
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import BadRequestError, NotFoundError

from services.platform import bus
from services.platform.logs import bound_contextvars, get_logger
from services.platform.signed import SIGNED_RESULT, Untrusted, open_result
from services.tournament.director import MATCH_OF, Director

FILTER = "neon.events.results.>"
log = get_logger("tournament")


@dataclass
class Stats:
    recorded: int = 0
    duplicates: int = 0
    ignored: int = 0
    refused: int = 0
    errors: int = 0


class ResultConsumer:
    def __init__(
        self,
        director: Director,
        js: JetStreamContext,
        trusted_keys: Collection[str],
        namespace: str = "",
        batch: int = 50,
        ack_wait: float = 30.0,
        check_interval: float = 10.0,
        sweep_interval: float = 30.0,
    ) -> None:
        self.director, self.js = director, js
        self.trusted = tuple(trusted_keys)
        self.namespace = namespace
        self.stream = bus.stream_name(namespace)
        self.filter = f"{namespace}.{FILTER}" if namespace else FILTER
        self.batch, self.ack_wait = batch, ack_wait
        self.check_interval = check_interval
        self.sweep_interval = sweep_interval
        """Seconds between looks on the stream for the results of the matches the driven
        rounds still wait for (:meth:`sweep`); the first look comes at the first idle fetch."""
        self._swept = -float("inf")
        self.position = 0
        """The last stream sequence acked (here, since start): a consumer made again starts after it."""
        self.stream_id = ""
        """The identity of the stream ``position`` counts in (bus.stream_identity)."""
        self._checked = 0.0
        self.stats = Stats()
        self.durable = ""
        self._sub: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        await bus.ensure_stream(self.js, namespace=self.namespace)
        store_id = await asyncio.to_thread(bus.store_identity, self.director.app)
        self.durable = bus.durable_name(self.namespace, f"tournament-{store_id}")
        self.stream_id = bus.stream_identity(await self.js.stream_info(self.stream))
        try:
            await self.js.consumer_info(self.stream, self.durable)
        except NotFoundError:
            await self._add_consumer()
        self._sub = await self.js.pull_subscribe_bind(durable=self.durable, stream=self.stream)
        self._task = asyncio.create_task(self._run(), name="tournament-results")
        log.info("tournament results consumer started", durable=self.durable)

    async def _add_consumer(self) -> None:
        """Our durable consumer, from the message after the last one handled (from the
        stream's first message when none was, or the stream is not the one it was)."""
        await self.js.add_consumer(
            self.stream,
            ConsumerConfig(
                durable_name=self.durable,
                name=self.durable,
                ack_policy=AckPolicy.EXPLICIT,
                ack_wait=self.ack_wait,
                max_ack_pending=1000,
                filter_subject=self.filter,
                max_deliver=-1,
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE if self.position else DeliverPolicy.ALL,
                opt_start_seq=self.position + 1 if self.position else None,
                inactive_threshold=14 * 24 * 3600.0,
            ),
        )

    async def _run(self) -> None:
        self._checked = time.monotonic()
        while not self._stopping:
            try:
                messages = await self._sub.fetch(self.batch, timeout=1.0)
            except TimeoutError:
                # Nothing comes: also what a consumer that is gone looks like.
                await self._check()
                await self.sweep()
                continue
            except asyncio.CancelledError:
                raise
            except Exception as err:  # NATS hiccup: the durable consumer keeps our place
                log.warning("results fetch failed", error=repr(err))
                await asyncio.sleep(0.5)
                await self._check()
                continue
            for msg in messages:
                try:
                    await self.handle(msg.data)
                except asyncio.CancelledError:
                    raise
                except Exception as err:  # the store is down: redelivered later
                    self.stats.errors += 1
                    log.warning(
                        "could not record a result; it will be redelivered", error=repr(err),
                        subject=msg.subject, stream_seq=msg.metadata.sequence.stream,
                    )
                    await msg.nak(delay=1.0)
                    continue
                await msg.ack()
                self.position = max(self.position, msg.metadata.sequence.stream)

    async def _check(self) -> None:
        """Every ``check_interval`` while idle: is our JetStream consumer still there, on the
        stream we read? The server removes a consumer idle for its ``inactive_threshold``,
        and a stream deleted takes its consumers along; fetching from either only times out."""
        if time.monotonic() - self._checked < self.check_interval:
            return
        self._checked = time.monotonic()
        try:
            try:
                info = await self.js.stream_info(self.stream)
            except NotFoundError:
                info = None
            if info is not None and bus.stream_identity(info) == self.stream_id:
                try:
                    await self.js.consumer_info(self.stream, self.durable)
                    return
                except NotFoundError:
                    pass
            await self._remake(info)
        except (nats_errors.Error, OSError) as err:  # NATS away: look again next time
            log.info("could not check the results consumer", error=repr(err))

    async def sweep(self, force: bool = False) -> int:
        """Every ``sweep_interval`` while idle (or now, ``force``): the last result on the
        stream of each match a driven round still waits for (its subject,
        ``neon.events.results.<game>.<match id>``), handled as a delivery is; the number
        recorded. A result is delivered to our durable consumer once: one it acked that the
        store no longer holds (a store restored from a backup keeps its identity, so its
        consumer) would otherwise never come again, and its round would wait for ever."""
        if not force and time.monotonic() - self._swept < self.sweep_interval:
            return 0
        self._swept = time.monotonic()
        recorded = 0
        try:
            awaiting = await self.director.awaiting_results()
        except Exception as err:  # the store is down: look again next time
            log.info("could not list the results the rounds wait for", error=repr(err))
            return 0
        prefix = f"{self.namespace}." if self.namespace else ""
        for game, match_id in awaiting:
            subject = f"{prefix}neon.events.results.{game}.{match_id}"
            try:
                msg = await self.js.get_last_msg(self.stream, subject)
            except NotFoundError:
                continue  # not ended yet
            except (nats_errors.Error, OSError) as err:  # NATS away: look again next time
                log.info("could not look for a result on the stream", error=repr(err))
                return recorded
            try:
                outcome = await self.handle(msg.data)
            except Exception as err:  # the store is down: look again next time
                log.warning("could not record a result found on the stream",
                            match_id=match_id, error=repr(err))
                return recorded
            if outcome == "recorded":
                recorded += 1
                log.warning("a result the consumer was never delivered was found on the "
                            "stream and recorded (a store restored from a backup?)",
                            match_id=match_id, stream_seq=msg.seq)
        return recorded

    async def _remake(self, info: Any) -> None:
        """Make our consumer again: where we stood on the same stream, from the first
        message on a stream made again (a result recorded already is a duplicate)."""
        same = info is not None and bus.stream_identity(info) == self.stream_id
        log.warning(
            "the tournament results consumer is gone (removed by NATS after its inactive "
            "threshold, or its stream deleted or made again): making it again",
            durable=self.durable, stream=self.stream, same_stream=same,
            resume_after=self.position if same else 0)
        if not same:
            await bus.ensure_stream(self.js, namespace=self.namespace)
            info = await self.js.stream_info(self.stream)
            self.stream_id, self.position = bus.stream_identity(info), 0
        elif self.position and info.state.first_seq > self.position + 1:
            log.warning("results the stream no longer holds were never read: the stream was "
                        "purged or its limits removed them",
                        stream=self.stream, after=self.position, first_seq=info.state.first_seq)
        try:  # our subscription fetches by the durable's name: it reads the new one
            await self._add_consumer()
        except BadRequestError:  # made meanwhile by another replica on this store
            pass

    async def handle(self, data: bytes) -> str:
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested past the parser's limit
            payload = None
        if not isinstance(payload, dict) or payload.get("type") != SIGNED_RESULT:
            self.stats.ignored += 1
            return "ignored"
        inner = payload.get("result")
        match_id = str(inner.get("match_id", "")) if isinstance(inner, dict) else ""
        if not MATCH_OF.match(match_id):
            self.stats.ignored += 1
            return "ignored"
        with bound_contextvars(match_id=match_id):
            try:
                result = open_result(payload, self.trusted)
            except Untrusted as err:
                self.stats.refused += 1
                log.warning("untrusted result refused", reason=str(err))
                return "refused"
            outcome = await self.director.record_signed_result(result, payload)
        if outcome == "recorded":
            self.stats.recorded += 1
        elif outcome == "duplicate":
            self.stats.duplicates += 1
        else:
            self.stats.ignored += 1
        return outcome

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:  # connection already gone
                pass
