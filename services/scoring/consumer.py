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

A position only means something in the stream it was counted in, so the ledger names that
stream too (``Ledger.stream_id``: the stream's creation time, bus.stream_identity). A stream
deleted and made again (JetStream's data lost, the stream recreated, a new NATS cluster) has
another, and its sequences start again at 1: without the name, every result on it at or below
the old position would be acked unscored. At start-up (ScoringApplication.follow_stream), when
the live stream is not the one the ledger names, or the position is beyond the stream's last
sequence, the consumer logs a warning saying so, records the new stream with position 0 in
the ledger, makes its JetStream consumer again and reads the new stream from its first message:
results already recorded are found so and change nothing. A ledger stored before streams were
named adopts the live stream, unless its position is beyond the stream's end (then the stream
was made again). A running consumer notices too: a batch starting at or below its position is
checked against the live stream before anything is acked, and while idle it looks every
``check_interval`` whether its stream was made again or its consumer is gone (a deleted stream
takes its consumers along, and fetching from a missing consumer just times out). A result is
saved only while the ledger follows the stream it came from (else StreamChanged: another
instance moved the ledger to a new stream, so this one finds its place again).

The consumer's name carries the store's identity (bus.store_identity): a new or wiped
store gets a new consumer that starts from the beginning of the stream (or from the
position its ledger holds, should the consumer have been removed), never the position
of another store. The name does not change with the stream: a stream made again has no
consumers, and ours is made on it under the same name, from the position decided above.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from nats import errors as nats_errors
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from services.platform import bus
from services.platform.logs import bound_contextvars, get_logger
from services.platform.settings import switch
from services.platform.signed import SIGNED_RESULT, Untrusted, open_result
from services.scoring.app import Resume, Scored, ScoringApplication, StreamChanged
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
    check_interval: float = 10.0
    """While no message comes, how often (seconds) the consumer makes sure that its stream is
    still the one it reads and its JetStream consumer still exists: a stream deleted takes its
    consumers along, and one made again starts its sequences at 1."""
    deliver_new: bool = False
    """A new consumer starts at the end of the stream rather than its beginning (tests)."""
    stream: str = bus.STREAM
    """The JetStream stream (``<ns>_NEON_EVENTS`` in a namespace)."""
    namespace: str | None = None
    """The deployment's namespace, whose stream start-up makes when it is missing (None:
    NEON_NAMESPACE); in_namespace sets it with ``stream``."""
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
    conflicting: int = 0
    """Results unlike the one recorded under their match id (kept; logged as errors)."""


COMPARED = ("mode", "players", "placements", "scores", "draw", "teams")
"""What a result published again must repeat of the one recorded under its match id."""


def differences(outcome: Any, recorded: Mapping[str, Any]) -> list[str]:
    """The fields of ``outcome`` unlike the result recorded under its match id. A result
    published again (a re-publish, a store published again) has none; another match under
    a recorded id (its rules store restored from a backup that lacked the first) has some."""
    mine = outcome.to_json()
    if not outcome.players:
        mine["players"] = [""] * outcome.seats  # as recorded (ScoringApplication._score)
    return [key for key in COMPARED if key in recorded and mine.get(key) != recorded[key]]


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
        self.stream_id = ""
        """The identity of the stream ``position`` counts in (bus.stream_identity)."""
        self._delivery = -1
        self._checked = 0.0
        self._acked_upto = 0
        """The JetStream consumer's ack floor when we found our place (``_recover``)."""
        self._catch_up_to = 0
        """Read the stream again up to this sequence before the next fetch (0: nothing)."""

    async def start(self) -> None:
        await bus.ensure_stream(self.js, namespace=self.options.namespace)
        store_id = await asyncio.to_thread(bus.store_identity, self.app)
        self.durable = f"{self.options.durable_prefix}-{store_id}"
        for attempt in range(3):
            try:
                await self._sync()
                break
            except StreamChanged:  # another instance moved the ledger on meanwhile: again
                if attempt == 2:
                    raise
        self._sub = await self.js.pull_subscribe_bind(durable=self.durable, stream=self.options.stream)
        self.task = asyncio.create_task(self._run(), name="scoring-consumer")
        log.info("scoring consumer started", durable=self.durable, stream_id=self.stream_id,
                 filter=self.options.filter_subject, recovered=self.stats.recovered)

    async def _sync(self) -> None:
        """Find our place in the live stream, make sure our JetStream consumer reads from it,
        and score what an earlier instance was delivered but never acked.

        The ledger names the stream its position counts in (its creation time). A stream made
        again (deleted and recreated, JetStream's data lost, a new NATS) starts its sequences
        at 1 again: when the live stream is not the one the ledger names, or the position is
        beyond its last sequence, the position is dropped and the stream read from its start
        (ScoringApplication.follow_stream), and a consumer found on it is made again."""
        info = await self.js.stream_info(self.options.stream)
        stream_id = bus.stream_identity(info)
        resume = await asyncio.to_thread(self.app.follow_stream, stream_id, info.state.last_seq)
        self.stream_id = stream_id
        if resume.restarted:
            log.warning("the stream is not the one the scoring position counts in: reading it "
                        "again from its first message (results already recorded change nothing)",
                        reason=resume.restarted, stream=self.options.stream, stream_id=stream_id,
                        first_seq=info.state.first_seq, last_seq=info.state.last_seq)
        elif resume.adopted:
            log.info("the scoring ledger now names the stream it reads", stream=self.options.stream,
                     stream_id=stream_id, position=resume.position)
        consumer = await self._consumer(resume)
        self._delivery = -1
        await self._recover(consumer, resume.position)
        # the ledger's position, not the consumer's ack floor, which a purge moves on too
        if info.state.first_seq > resume.position + 1:
            log.warning("any result the stream held after the scoring position and before its "
                        "first sequence was never scored: it was purged, or limits set on it "
                        "removed them; to score them, delete the rules services' keys in the "
                        "outbox positions bucket and restart them (they publish their stores "
                        "again; results recorded already change nothing)",
                        stream=self.options.stream, after=resume.position,
                        first_seq=info.state.first_seq,
                        bucket=bus.positions_bucket(self.options.namespace))

    async def _consumer(self, resume: Resume) -> Any:
        try:
            found = await self.js.consumer_info(self.options.stream, self.durable)
        except NotFoundError:
            found = None
        if found is not None and not resume.restarted:
            return found
        if found is not None:
            # made on this stream from a position that did not count in it (or by an instance
            # that had not noticed the stream was new): its place means nothing, make it again
            log.warning("remaking the scoring consumer from the stream's start", durable=self.durable)
            try:
                await self.js.delete_consumer(self.options.stream, self.durable)
            except NotFoundError:
                pass
        position = resume.position
        new = self.options.deliver_new and not position and not resume.restarted
        # Room beyond one batch: a crashed instance's deliveries stay pending until ack_wait.
        config = ConsumerConfig(
            durable_name=self.durable, name=self.durable, ack_policy=AckPolicy.EXPLICIT,
            ack_wait=self.options.ack_wait, max_ack_pending=max(1000, 10 * self.options.batch),
            filter_subject=self.options.filter_subject, max_deliver=-1,
            inactive_threshold=self.options.inactive_threshold,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if position else (
                DeliverPolicy.NEW if new else DeliverPolicy.ALL),
            opt_start_seq=position + 1 if position else None,
        )
        return await self.js.add_consumer(self.options.stream, config)

    async def _recover(self, info: Any, position: int) -> None:
        """Where to read from: the ledger's ``position``; and what to read again from the
        stream before the next fetch (``_catch_up``, in the consumer's task): what an earlier
        instance was delivered but never acked (a crash), and what a store restored from a
        backup lost (the consumer acked it, the store no longer holds it).

        The ledger's ``position`` counts, not the consumer's ack floor: the durable's name
        follows the store's identity, which a backup holds too, so a restored store finds the
        consumer acked past results it no longer has, and starting at the ack floor lost them
        for good. What lies between the two is read again, in order: results recorded
        already, and the messages that are not results (skipped, refused), change nothing.
        That can be many (a rules service's store published again: every result a duplicate,
        none moving the ledger), so it is read by the running consumer, not before the
        service serves."""
        self.position = position
        floor = info.ack_floor.stream_seq if info.ack_floor else 0
        delivered = info.delivered.stream_seq if info.delivered else 0
        self._acked_upto = floor
        self._catch_up_to = max(floor, delivered if info.num_ack_pending else 0)
        if self._catch_up_to > position:
            log.info("reading again what the scoring consumer was delivered after the scoring "
                     "position", after=position, acked_upto=floor, upto=self._catch_up_to,
                     pending=info.num_ack_pending)

    async def _catch_up(self) -> None:
        """Score, in order, what ``_recover`` found delivered after our position (stopping
        between messages when the consumer stops; a NATS error is raised, to try again)."""
        floor, upto = self._acked_upto, self._catch_up_to
        if floor > self.position:
            scored = self.stats.scored
            await self._fill(floor + 1, interruptible=True)
            if self.stats.scored > scored:
                log.warning("the scoring consumer had acked results the store does not hold "
                            "(a store restored from a backup?): scored them again from the "
                            "stream", results=self.stats.scored - scored, upto=floor)
        if upto > self.position:
            await self._fill(upto + 1, interruptible=True)
        if not self._stopping:
            self._catch_up_to = 0

    async def _fill(self, before: int, interruptible: bool = False) -> None:
        """Handle, in order, every message on our subjects after our position and before
        ``before`` (``interruptible``: or until the consumer stops; never for a delivery in
        hand, which must not be handled past a gap)."""
        while self.position + 1 < before and not (interruptible and self._stopping):
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
        self._checked = time.monotonic()
        # cancelling(): a cancel that a library swallowed (nats-py's fetch can) still stops us.
        while not self._stopping and not (me and me.cancelling()):
            if self._catch_up_to:
                try:
                    await self._catch_up()
                except StreamChanged as err:  # another instance found the stream made again
                    log.warning("the scoring ledger follows another stream", reason=str(err))
                    await self._resync()
                    continue
                except (nats_errors.Error, OSError) as err:
                    log.warning("could not read the stream, will retry", error=repr(err))
                    await asyncio.sleep(self.options.retry_delay)
                    continue
            self._fetching = True
            try:
                messages = await self._sub.fetch(self.options.batch, timeout=1.0)
            except TimeoutError:
                # Nothing comes: also what a deleted stream (its consumer gone) looks like.
                await self._check()
                continue
            except Exception as err:  # NATS hiccup: the durable consumer keeps our place
                log.warning("fetch failed", error=repr(err))
                await asyncio.sleep(self.options.retry_delay)
                await self._check()
                continue
            finally:
                self._fetching = False
            messages = sorted(messages, key=lambda m: m.metadata.sequence.stream)
            if messages and messages[0].metadata.sequence.stream <= self.position:
                # At or below our position: a redelivery, unless the stream was made again
                # (and our consumer with it, by another instance): never ack those unread.
                try:
                    moved = await self._moved()
                except (nats_errors.Error, OSError) as err:
                    log.warning("could not check the stream, will retry", error=repr(err))
                    await self._give_back(messages)
                    await asyncio.sleep(self.options.retry_delay)
                    continue
                if moved:
                    await self._resync(messages)
                    continue
            for i, msg in enumerate(messages):
                try:
                    await self._deliver(msg)
                except StreamChanged as err:  # another instance found the stream made again
                    log.warning("the scoring ledger follows another stream", reason=str(err))
                    await self._resync(messages[i:])
                    break
                except (nats_errors.Error, OSError) as err:
                    # Reading the stream or acking failed (a NATS hiccup): the message stays
                    # unacked, and the next delivery's gap makes _fill read it again, in order.
                    log.warning("could not handle a delivery, will retry", error=repr(err),
                                stream_seq=msg.metadata.sequence.stream)
                    await asyncio.sleep(self.options.retry_delay)

    async def _moved(self) -> bool:
        """Whether the live stream is another than the one our position counts in."""
        try:
            info = await self.js.stream_info(self.options.stream)
        except NotFoundError:
            return True
        return bus.stream_identity(info) != self.stream_id

    async def _check(self) -> None:
        """Every ``check_interval`` while idle: is our stream still the one we read, and our
        consumer still there? If not, find our place again (_resync)."""
        if time.monotonic() - self._checked < self.options.check_interval:
            return
        self._checked = time.monotonic()
        try:
            moved = await self._moved()
            if not moved:
                await self.js.consumer_info(self.options.stream, self.durable)
        except NotFoundError:
            moved = True
        except (nats_errors.Error, OSError) as err:  # NATS away: ask again next time
            log.info("could not check the stream", error=repr(err))
            return
        if moved:
            log.warning("the scoring consumer or its stream is gone or was made again",
                        stream=self.options.stream, durable=self.durable)
            await self._resync()

    async def _give_back(self, messages: Sequence[Any]) -> None:
        """Deliveries we did not handle, to be delivered again now (not after ack_wait)."""
        for msg in messages:
            try:
                await msg.nak()
            except Exception:  # its consumer (or stream) is gone: nothing to give back
                pass

    async def _resync(self, unhandled: Sequence[Any] = ()) -> None:
        """Find our place in the stream again (_sync); ``unhandled`` deliveries are given back."""
        await self._give_back(unhandled)
        try:
            await bus.ensure_stream(self.js, namespace=self.options.namespace)
            await self._sync()
        except Exception as err:
            # the stream not made yet, NATS or the store away, another instance moving the
            # ledger on: try again at the next check
            log.warning("could not find our place in the stream, will retry", error=repr(err))
            self._checked = time.monotonic() - self.options.check_interval + self.options.retry_delay
            await asyncio.sleep(self.options.retry_delay)
            return
        log.info("scoring consumer back on its stream", stream_id=self.stream_id,
                 position=self.position, recovered=self.stats.recovered)

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
                differs = differences(outcome, scored.data)
                if differs:
                    self.stats.conflicting += 1
                    log.error("another result for a match already recorded: the first is kept. "
                              "Was its rules store restored from a backup that lacked the "
                              "match, and the id used again? (docs/OPERATIONS.md, \"Backups "
                              "and restores\")", differs=differs, sequence=scored.data["sequence"])
                else:
                    log.info("result already recorded", sequence=scored.data["sequence"])
            if self.on_scored is not None:
                await self.on_scored(scored)
            return "scored" if scored.new else "duplicate"

    async def _score(self, outcome: Any, seq: int, msg: Any) -> Scored:
        """Save, retrying through store outages: skipping would reorder the ratings."""
        while True:
            try:
                return await asyncio.to_thread(
                    partial(self.app.score, outcome, seq, stream_id=self.stream_id,
                            rate_organiser_matches=self.options.rate_organiser_matches))
            except StreamChanged:
                raise  # nothing saved: the position is wrong, not the store
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
        return dataclasses.replace(options, namespace="")
    subject = options.filter_subject
    if not subject.startswith(bus.subject_prefix(namespace)):
        subject = f"{namespace}.{subject}"
    return dataclasses.replace(options, stream=bus.stream_name(namespace), filter_subject=subject,
                               durable_prefix=bus.durable_name(namespace, options.durable_prefix),
                               namespace=namespace)
