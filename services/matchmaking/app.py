"""The matchmaking Application: the Ticket store, and finding open tickets after a restart."""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson
from eventsourcing.application import AggregateNotFoundError, Application, Repository
from eventsourcing.persistence import JSONTranscoder, Transcoder
from eventsourcing.utils import get_topic

from services.matchmaking.domain import (
    BotMatch,
    Holding,
    Kickoff,
    ProposalBatch,
    Queue,
    Standing,
    Ticket,
    holding_uuid,
    kickoff_uuid,
    standing_uuid,
    ticket_uuid,
)
from services.platform.cached_reads import SerialReads
from services.platform.topics import TrustedTopics

OPENING = ("Ticket.Created",)
CLOSING = ("Ticket.Matched", "Ticket.Cancelled", "Ticket.Expired")
BOTS_OPENING = ("BotMatch.Created",)
BOTS_CLOSING = ("BotMatch.Finished",)
BATCH_OPENING = ("ProposalBatch.Created",)
BATCH_CLOSING = ("ProposalBatch.Closed",)
KICKOFF_OPENING = ("Kickoff.Created",)
KICKOFF_CLOSING = ("Kickoff.Ended",)
QUEUE = (":Queue.Created", ":Queue.Proposed")
PAGE = 5000


@dataclass
class OpenIds:
    """What a restart must load, from the notification log: ids in creation order."""

    tickets: list[uuid.UUID] = field(default_factory=list)
    bots: list[uuid.UUID] = field(default_factory=list)
    batches: list[uuid.UUID] = field(default_factory=list)
    queues: dict[uuid.UUID, int] = field(default_factory=dict)
    """Every queue, with the version its events in the log add up to."""
    kickoffs: list[uuid.UUID] = field(default_factory=list)
    """Matches created to wait for client seeds that have not started yet."""


@dataclass
class OpenState:
    tickets: list[Ticket]
    bots: list[BotMatch]
    batches: list[ProposalBatch]
    """Open proposal batches, oldest first."""
    queues: list[Queue]
    kickoffs: list[Kickoff] = field(default_factory=list)
    """Matches still waiting for client seeds, with the (closed) tickets of each."""
    kickoff_tickets: dict[str, Ticket] = field(default_factory=dict)


class BatchTranscoder(JSONTranscoder):
    """eventsourcing's JSON, but a ProposalBatch's Created event (a cycle's proposals: flat
    lists of hundreds of thousands of strings and ints) is written by orjson, about ten times
    faster than the json module, and stored zlib-compressed (level 1: a 100,000-ticket batch
    is about 0.9 MB instead of 2.9, which PostgreSQL would otherwise escape, parse, compress
    and log as it is). It is the same JSON, read back by the json decoder as ever: datetimes
    and dataclasses still go through the registered transcodings (passed through to
    ``default``), and the event holds no UUID (orjson would write one as a plain string).
    Stored states that are not compressed (every other event, and batches stored before)
    start with ``{``; a zlib stream starts with ``x``."""

    BATCH = get_topic(ProposalBatch)
    OPTIONS = (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
               | orjson.OPT_PASSTHROUGH_SUBCLASS)

    def encode(self, obj: Any) -> bytes:
        if type(obj) is dict and obj.get("originator_topic") == self.BATCH:
            try:
                data = orjson.dumps(obj, default=self._encode_obj, option=self.OPTIONS)
            except TypeError:  # what orjson refuses (an int beyond 64 bits): as ever
                data = super().encode(obj)
            return zlib.compress(data, 1)
        return super().encode(obj)

    def decode(self, data: bytes) -> Any:
        if data[:1] == b"x":
            data = zlib.decompress(data)
        return super().decode(data)


class MatchmakingApplication(SerialReads, TrustedTopics, Application):
    name = "matchmaking"
    snapshotting_intervals = {Queue: 100, Standing: 50, Holding: 50}  # noqa: RUF012 (eventsourcing's class variable)

    def construct_transcoder(self) -> Transcoder:
        transcoder = BatchTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def find(self, ticket_id: str) -> Ticket | None:
        try:
            return self.repository.get(ticket_uuid(ticket_id))
        except AggregateNotFoundError:
            return None

    def find_standing(self, player: str, game: str) -> Standing | None:
        try:
            return self.repository.get(standing_uuid(player, game))  # type: ignore[no-any-return]
        except AggregateNotFoundError:
            return None

    def find_holding(self, player: str) -> Holding | None:
        try:
            return self.repository.get(holding_uuid(player))  # type: ignore[no-any-return]
        except AggregateNotFoundError:
            return None

    def find_kickoff(self, match_id: str) -> Kickoff | None:
        try:
            return self._without_snapshots.get(kickoff_uuid(match_id))
        except AggregateNotFoundError:
            return None

    @cached_property
    def _without_snapshots(self) -> Repository:
        """Only queues have snapshots: tickets, bot matches and batches are read without
        asking the snapshot table first (one query each instead of two)."""
        return Repository(self.events)

    def open_ids(self) -> OpenIds:
        """Open tickets, unfinished bot matches, open proposal batches and every queue.

        Reads only topics and ids (no event bodies), so it stays cheap for long logs.
        """
        tickets: dict[uuid.UUID, None] = {}
        bots: dict[uuid.UUID, None] = {}
        batches: dict[uuid.UUID, None] = {}
        queues: dict[uuid.UUID, int] = {}
        kickoffs: dict[uuid.UUID, None] = {}
        start = 1
        while True:
            page = self.recorder.select_notifications(start, PAGE)
            for n in page:
                topic, oid = n.topic, n.originator_id
                if topic.endswith(OPENING) and not topic.endswith(BOTS_OPENING + BATCH_OPENING):
                    tickets[oid] = None  # type: ignore[index]
                elif topic.endswith(CLOSING):
                    tickets.pop(oid, None)  # type: ignore[arg-type]
                elif topic.endswith(BOTS_OPENING):
                    bots[oid] = None  # type: ignore[index]
                elif topic.endswith(BOTS_CLOSING):
                    bots.pop(oid, None)  # type: ignore[arg-type]
                elif topic.endswith(BATCH_OPENING):
                    batches[oid] = None  # type: ignore[index]
                elif topic.endswith(BATCH_CLOSING):
                    batches.pop(oid, None)  # type: ignore[arg-type]
                elif topic.endswith(QUEUE):
                    queues[oid] = max(queues.get(oid, 0), n.originator_version)  # type: ignore[index,arg-type]
                elif topic.endswith(KICKOFF_OPENING):
                    kickoffs[oid] = None  # type: ignore[index]
                elif topic.endswith(KICKOFF_CLOSING):
                    kickoffs.pop(oid, None)  # type: ignore[arg-type]
            if len(page) < PAGE:
                return OpenIds(list(tickets), list(bots), list(batches), queues, list(kickoffs))
            start = page[-1].id + 1

    def open_ticket_ids(self) -> list[uuid.UUID]:
        return self.open_ids().tickets

    def load_open(self, owns: Callable[[str], bool] = lambda game: True) -> OpenState:
        """Everything open, consistent with the queues' versions.

        The queues are read first and must be at the versions the scan saw: a batch that
        another process saved after the scan would otherwise go unseen while this process
        holds the queue's newer version and could propose the same tickets again. (It
        rescans then; with one owner per queue that does not happen.)
        """
        while True:
            ids = self.open_ids()
            queues = [self.repository.get(i) for i in ids.queues]
            if all(q.version == ids.queues[q.id] for q in queues):
                break
        plain = self._without_snapshots
        tickets = [plain.get(i) for i in ids.tickets]
        bots = [plain.get(i) for i in ids.bots]
        batches = [plain.get(i) for i in ids.batches]
        kickoffs = [k for k in map(plain.get, ids.kickoffs) if not k.ended and owns(k.game)]
        kickoff_tickets = {i: plain.get(ticket_uuid(i)) for k in kickoffs for i in k.tickets}
        return OpenState([t for t in tickets if t.is_open and owns(t.game)],
                         [b for b in bots if not b.finished and owns(b.game)],
                         [b for b in batches if not b.closed and owns(b.game)],
                         [q for q in queues if owns(q.game)], kickoffs, kickoff_tickets)
