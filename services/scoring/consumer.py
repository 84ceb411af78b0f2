"""Match results from JetStream: a durable pull consumer, applied in stream order, once.

Order matters (openskill is path dependent), so results are scored one at a time in
stream order, and each message is acked only after its result is saved. A redelivery,
or the same result re-published under another Nats-Msg-Id, finds the match already
recorded and is acked without effect (see domain.MatchRecord).

JetStream does not promise that order across a crash: messages delivered to a dead
instance (in its last batch, or to a pull request still open when it died) come back
only after ``ack_wait``, after newer ones. So the consumer keeps its own position, the
stream sequence it has handled up to (persisted with each result in the ledger), and
treats the JetStream consumer as a durable doorbell: whenever a delivery may have
skipped something (the consumer sequence jumped, or at start-up), it first reads the
skipped range straight from the stream (``next_by_subj``) and scores it, in order; a
delivery at or below its position is acked at once.

The consumer's name carries the store's identity (bus.store_identity): a new or wiped
store gets a new consumer that starts from the beginning of the stream (or from the
position its ledger holds, should the consumer have been removed), never the position
of another store.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from nats import errors as nats_errors
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from services.platform import bus
from services.platform.logs import bound_contextvars, get_logger
from services.platform.signed import SIGNED_RESULT, Untrusted, open_result
from services.scoring.app import Scored, ScoringApplication
from services.scoring.domain import LEDGER_ID
from services.scoring.results import MalformedResult, abandoned, parse_match_ended

FILTER = "neon.events.results.>"
log = get_logger("scoring")


@dataclass
class ConsumerOptions:
    filter_subject: str = FILTER
    durable_prefix: str = "scoring"
    batch: int = 100
    ack_wait: float = 30.0
    inactive_threshold: float = 14 * 24 * 3600.0
    """A consumer unused this long is removed by the server; ours is remade from the ledger."""
    retry_delay: float = 0.5
    deliver_new: bool = False
    """A new consumer starts at the end of the stream rather than its beginning (tests)."""
    stream: str = bus.STREAM
    """The JetStream stream (``<ns>_NEON_EVENTS`` in a namespace)."""
    trusted_keys: tuple[str, ...] = ()
    """Hex Ed25519 public keys whose signed results are scored (NEON_TRUSTED_RESULT_KEYS);
    empty means the deployment's own signing key (scoring/main.py fills it in)."""
    rate_organiser_matches: bool = False
    """Rate the results of matches an organiser created (NEON_SCORING_RATE_ORGANISER_MATCHES);
    by default they are recorded but not rated (results.creator_refusal)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ConsumerOptions:
        """``NEON_SCORING_FILTER``, ``_DURABLE_PREFIX``, ``_BATCH``, ``_ACK_WAIT`` and
        ``_RATE_ORGANISER_MATCHES``."""
        e = os.environ if environ is None else environ
        return cls(
            filter_subject=e.get("NEON_SCORING_FILTER") or FILTER,
            durable_prefix=e.get("NEON_SCORING_DURABLE_PREFIX") or "scoring",
            batch=int(e.get("NEON_SCORING_BATCH") or 100),
            ack_wait=float(e.get("NEON_SCORING_ACK_WAIT") or 30.0),
            trusted_keys=trusted_keys_from(e.get("NEON_TRUSTED_RESULT_KEYS", "")),
            rate_organiser_matches=switch(e, "NEON_SCORING_RATE_ORGANISER_MATCHES"),
        )


def switch(environ: Mapping[str, str], name: str) -> bool:
    """An on/off setting: 1, true, yes, on; 0, false, no, off or unset. Anything else is an
    error at start-up, not a guess (a typo must not quietly decide what is rated)."""
    value = (environ.get(name) or "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}: {value!r} is neither on (1, true, yes, on) nor off "
                     "(0, false, no, off)")


def trusted_keys_from(text: str) -> tuple[str, ...]:
    """A comma list of hex public keys; a key that is not 32 bytes of hex is an error."""
    keys = tuple(k.strip().lower() for k in text.split(",") if k.strip())
    for key in keys:
        try:
            ok = len(bytes.fromhex(key)) == 32
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"NEON_TRUSTED_RESULT_KEYS: {key[:16]!r}... is not a hex Ed25519 public key")
    return keys


@dataclass
class Stats:
    scored: int = 0
    duplicates: int = 0
    skipped: int = 0
    rejected: int = 0
    refused: int = 0
    """Results not signed by a trusted key: acked, logged, never rated."""
    recovered: int = 0
    errors: int = 0


def subject_matches(pattern: str, subject: str) -> bool:
    """NATS subject matching with ``*`` and a trailing ``>``."""
    want, got = pattern.split("."), subject.split(".")
    for i, token in enumerate(want):
        if token == ">":
            return len(got) > i
        if i >= len(got) or (token != "*" and token != got[i]):
            return False
    return len(want) == len(got)


class ResultConsumer:
    def __init__(self, app: ScoringApplication, js: JetStreamContext,
                 options: ConsumerOptions | None = None,
                 on_scored: Callable[[Scored], Awaitable[None]] | None = None) -> None:
        self.app, self.js = app, js
        self.options = options or ConsumerOptions.from_env()
        self.on_scored = on_scored
        self.stats = Stats()
        self.durable = ""
        self.task: asyncio.Task[None] | None = None
        self._sub: Any = None
        self._stopping = False
        self._fetching = False
        self.position = 0
        """Stream sequence handled up to: everything on our subjects at or before it is done."""
        self._delivery = -1

    async def start(self) -> None:
        await bus.ensure_stream(self.js)
        store_id = await asyncio.to_thread(bus.store_identity, self.app)
        self.durable = f"{self.options.durable_prefix}-{store_id}"
        info = await self._consumer()
        await self._recover(info)
        self._sub = await self.js.pull_subscribe_bind(durable=self.durable, stream=self.options.stream)
        self.task = asyncio.create_task(self._run(), name="scoring-consumer")
        log.info("scoring consumer started", durable=self.durable,
                 filter=self.options.filter_subject, recovered=self.stats.recovered)

    async def _consumer(self) -> Any:
        try:
            return await self.js.consumer_info(self.options.stream, self.durable)
        except NotFoundError:
            pass
        ledger = await asyncio.to_thread(self.app.find, LEDGER_ID)
        position = ledger.stream_seq if ledger is not None else 0
        # Room beyond one batch: a crashed instance's deliveries stay pending until ack_wait.
        config = ConsumerConfig(
            durable_name=self.durable, name=self.durable, ack_policy=AckPolicy.EXPLICIT,
            ack_wait=self.options.ack_wait, max_ack_pending=max(1000, 10 * self.options.batch),
            filter_subject=self.options.filter_subject, max_deliver=-1,
            inactive_threshold=self.options.inactive_threshold,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if position else (
                DeliverPolicy.NEW if self.options.deliver_new else DeliverPolicy.ALL),
            opt_start_seq=position + 1 if position else None,
        )
        return await self.js.add_consumer(self.options.stream, config)

    async def _recover(self, info: Any) -> None:
        """Score what an earlier instance was delivered but never acked (a crash)."""
        ledger = await asyncio.to_thread(self.app.find, LEDGER_ID)
        stored = ledger.stream_seq if ledger is not None else 0
        self.position = max(stored, info.ack_floor.stream_seq if info.ack_floor else 0)
        delivered = info.delivered.stream_seq if info.delivered else 0
        if info.num_ack_pending and delivered > self.position:
            log.info("recovering unacked results", after=self.position, upto=delivered,
                     pending=info.num_ack_pending)
            await self._fill(delivered + 1)

    async def _fill(self, before: int) -> None:
        """Handle, in order, every message on our subjects after our position and before ``before``."""
        while self.position + 1 < before:
            try:
                raw = await self.js.get_msg(self.options.stream, seq=self.position + 1,
                                            subject=self.options.filter_subject, next=True)
            except NotFoundError:
                return
            if raw.seq >= before:
                return
            if await self._handle(raw.data or b"", raw.seq) not in ("rejected", "refused"):
                self.stats.recovered += 1
            self.position = raw.seq

    async def _run(self) -> None:
        me = asyncio.current_task()
        # cancelling(): a cancel that a library swallowed (nats-py's fetch can) still stops us.
        while not self._stopping and not (me and me.cancelling()):
            self._fetching = True
            try:
                messages = await self._sub.fetch(self.options.batch, timeout=1.0)
            except TimeoutError:
                continue
            except Exception as err:  # NATS hiccup: the durable consumer keeps our place
                log.warning("fetch failed", error=repr(err))
                await asyncio.sleep(self.options.retry_delay)
                continue
            finally:
                self._fetching = False
            for msg in sorted(messages, key=lambda m: m.metadata.sequence.stream):
                try:
                    await self._deliver(msg)
                except (nats_errors.Error, OSError) as err:
                    # Reading the stream or acking failed (a NATS hiccup): the message stays
                    # unacked, and the next delivery's gap makes _fill read it again, in order.
                    log.warning("could not handle a delivery, will retry", error=repr(err),
                                stream_seq=msg.metadata.sequence.stream)
                    await asyncio.sleep(self.options.retry_delay)

    async def _deliver(self, msg: Any) -> None:
        seq, delivery = msg.metadata.sequence.stream, msg.metadata.sequence.consumer
        if seq <= self.position:
            await msg.ack()  # handled already (a redelivery, or read from the stream)
            return
        if delivery != self._delivery + 1:
            await self._fill(seq)  # something may have been delivered elsewhere: read it
        self._delivery = delivery
        outcome = await self._handle(msg.data, seq, msg)
        self.position = seq
        if outcome == "rejected":
            await msg.term()
        else:
            await msg.ack()

    async def _handle(self, data: bytes, seq: int, msg: Any = None) -> str:
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested beyond the parser's limit
            payload = None
        if not isinstance(payload, dict):
            self.stats.rejected += 1
            log.error("result event is not a JSON object", stream_seq=seq)
            return "rejected"
        if payload.get("type") not in ("MatchEnded", SIGNED_RESULT):
            self.stats.skipped += 1
            return "skipped"
        inner = payload.get("result")
        match_id = inner.get("match_id", "") if isinstance(inner, dict) else payload.get("match_id", "")
        with bound_contextvars(match_id=str(match_id), stream_seq=seq):
            try:
                result = open_result(payload, self.options.trusted_keys)
            except Untrusted as err:
                self.stats.refused += 1
                log.warning("untrusted result refused", reason=str(err))
                return "refused"
            if abandoned(result):  # an organiser ended it with no result: nothing to rate
                self.stats.skipped += 1
                outcome_of = result.get("outcome") or {}
                log.info("abandoned match: no result to record or rate",
                         reason=str(outcome_of.get("reason", "")), by=str(outcome_of.get("by", "")))
                return "skipped"
            try:
                outcome = parse_match_ended(result)
            except MalformedResult as err:
                self.stats.rejected += 1
                log.error("malformed match result refused", reason=str(err))
                return "rejected"
            scored = await self._score(outcome, seq, msg)
            if scored.new:
                self.stats.scored += 1
                log.info("match scored", game=outcome.game, mode=outcome.mode,
                         sequence=scored.data["sequence"], rated=scored.data["rated"],
                         unrated_reason=scored.data["unrated_reason"])
            else:
                self.stats.duplicates += 1
                log.info("result already recorded", sequence=scored.data["sequence"])
            if self.on_scored is not None:
                await self.on_scored(scored)
            return "scored" if scored.new else "duplicate"

    async def _score(self, outcome: Any, seq: int, msg: Any) -> Scored:
        """Save, retrying through store outages: skipping would reorder the ratings."""
        while True:
            try:
                return await asyncio.to_thread(
                    partial(self.app.score, outcome, seq,
                            rate_organiser_matches=self.options.rate_organiser_matches))
            except Exception as err:
                self.stats.errors += 1
                log.warning("could not save result, retrying", error=repr(err))
                if self._stopping:
                    raise asyncio.CancelledError from err
                if msg is not None:
                    try:
                        await msg.in_progress()
                    except Exception:  # the ack deadline is only a courtesy here
                        pass
                await asyncio.sleep(self.options.retry_delay)

    async def stop(self) -> None:
        """Finish the message in hand, then stop (nothing unacked is lost either way)."""
        self._stopping = True
        if self.task is None:
            return
        if self._fetching:
            self.task.cancel()
        done, _ = await asyncio.wait({self.task}, timeout=self.options.ack_wait / 2)
        if not done:
            self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:  # connection already gone
                pass


def in_namespace(options: ConsumerOptions, namespace: str) -> ConsumerOptions:
    """The options of a deployment in ``namespace`` (NEON_NAMESPACE): its stream, its
    results subject and its own durable, so deployments sharing a NATS never meet."""
    if not namespace:
        return options
    subject = options.filter_subject
    if not subject.startswith(bus.subject_prefix(namespace)):
        subject = f"{namespace}.{subject}"
    return dataclasses.replace(options, stream=bus.stream_name(namespace), filter_subject=subject,
                               durable_prefix=bus.durable_name(namespace, options.durable_prefix))
