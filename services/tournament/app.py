"""The tournament Application: the Tournament store, its log, and finding open tournaments."""

from __future__ import annotations

import pickle
import threading
import uuid
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.utils import get_topic

from services.platform.cached_reads import SerialReads
from services.platform.topics import TrustedTopics
from services.tournament import log as tlog
from services.tournament.domain import ENDED, OPEN, Tournament, tournament_uuid

OPENING = ("Tournament.Created",)
CLOSING = ("Tournament.Finished", "Tournament.ForceEnded")
PAGE = 5000
STATUS_OF = {"Created": "created", "RegistrationOpened": "registration", "Started": "running",
             "Finished": "finished", "ForceEnded": "force-ended"}
"""The events that set a tournament's status, by name, and the status each sets."""
STATUSES = (*OPEN, *ENDED)
LISTED = 200
"""The most tournaments ListTournaments answers (director ``LIST_MAX``): the newest this many
are kept built between its calls."""


class _Listing:
    """ListTournaments' index, kept between calls (:meth:`TournamentApplication.newest`):
    the tournaments in creation order and the newest ones built, as of notification
    ``position``. Each call reads only the notifications after it: a Created adds its
    tournament (saved here or by another replica: they share the store), and any event drops
    its tournament's built copy, built again when next listed. Notification ids are committed
    in their order (SQLite has one writer; PostgreSQL's recorder locks the table for each
    insert), so nothing appears later before the position."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.position: int | None = None
        """The last notification read; None until the first call."""
        self.created: list[uuid.UUID] = []
        self.built: dict[uuid.UUID, Tournament] = {}


def _copied(aggregate: Any) -> Any:
    """A copy of a tournament that shares its rounds: every read of a cached tournament
    makes one, and each command reads it (several times per result).

    Its rounds are most of a big event's state, and grow with each round: copied whole
    (through pickle, 3.7 ms in round 7 of a 256-player Swiss) they made every result cost
    more than the last. No event changes a round in place (``Tournament._changing``: each
    makes the round anew, in the list of the tournament it changes), so the copy takes a
    list of the same rounds, and the rest of the state (the players, entrants, settings:
    plain data, a size set at the start) copied through pickle, 3-4 times faster than
    ``copy.deepcopy``."""
    state = vars(aggregate)
    rest = {k: v for k, v in state.items() if k != "rounds"}
    copy = object.__new__(type(aggregate))
    vars(copy).update(pickle.loads(pickle.dumps(rest, pickle.HIGHEST_PROTOCOL)))
    if "rounds" in state:
        vars(copy)["rounds"] = list(state["rounds"])
    return copy


class TournamentApplication(SerialReads, TrustedTopics, Application):
    name = "tournament"
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Tournament: 200}
    """A long event is rebuilt from its latest snapshot; the log itself stays whole."""

    copy_from_cache = staticmethod(_copied)
    """Reads of a cached tournament one at a time (platform/cached_reads.py), each its own
    copy made through pickle."""

    def find(self, tournament_id: str) -> Tournament | None:
        try:
            return self.repository.get(tournament_uuid(tournament_id))
        except AggregateNotFoundError:
            return None

    def records(self, tournament_id: str, upto: int | None = None) -> list[dict[str, Any]]:
        """The tournament's log as public records with their chain hashes."""
        events = self.repository.event_store.get(tournament_uuid(tournament_id), lte=upto)
        return tlog.chain(tournament_id, (tlog.record_of(e) for e in events))

    _listing: _Listing | None = None

    def newest(self, limit: int) -> list[Tournament]:
        """The ``limit`` most recently created tournaments, newest first, as they are now.

        From the index (:class:`_Listing`) brought up to date with the notifications since
        the last call: the first call reads each tournament's Created; later ones read only
        what was saved since, here or on another replica, and build again only the listed
        tournaments that changed. The answer is the same as reading every Created anew."""
        listing = self._listing
        if listing is None:
            listing = self._listing = _Listing()
        with listing.lock:  # one call at a time: a built copy is never older than position
            self._catch_up(listing)
            wanted = list(reversed(listing.created[-limit:]))
            out = []
            for uid in wanted:
                t = listing.built.get(uid)
                if t is None:
                    t = listing.built[uid] = self.repository.get(uid)
                out.append(t)
            if len(listing.built) > LISTED:
                kept = set(listing.created[-LISTED:])
                for uid in [u for u in listing.built if u not in kept]:
                    del listing.built[uid]
            return out

    def _catch_up(self, listing: _Listing) -> None:
        """Bring ``listing`` up to the notification log's end (see :class:`_Listing`)."""
        created = get_topic(Tournament.Created)  # type: ignore[attr-defined]
        if listing.position is None:  # the first call: every Created, up to the end now
            end = self.recorder.max_notification_id() or 0
            listing.created.extend(n.originator_id  # type: ignore[misc]
                                   for n in self._notifications(topics=[created], stop=end))
            listing.position = end
            return
        for n in self._notifications(listing.position + 1):
            uid: uuid.UUID = n.originator_id  # type: ignore[assignment]
            if n.topic == created:
                listing.created.append(uid)
            listing.built.pop(uid, None)
            listing.position = n.id

    def _notifications(self, start: int = 1, topics: Sequence[str] = (),
                       stop: int | None = None) -> Iterator[Any]:
        """The notification log from ``start`` (to ``stop``), of ``topics`` (every one when
        none), read a page of PAGE at a time."""
        while True:
            page = self.recorder.select_notifications(start, PAGE, stop=stop, topics=topics)
            yield from page
            if len(page) < PAGE:
                return
            start = page[-1].id + 1

    def _originators(self, event_class: type[Any]) -> list[uuid.UUID]:
        """The tournaments with an event of ``event_class``, in the order of those events
        (from the notification log, one topic: a tournament's one Created, ForceEnded or
        AbandonsConfirmed)."""
        return [n.originator_id  # type: ignore[misc]
                for n in self._notifications(topics=[get_topic(event_class)])]

    def statuses(self) -> dict[uuid.UUID, str]:
        """Every tournament's status, from the notification log (the topics of the events
        that set one; the last of each tournament's wins)."""
        topics = [get_topic(getattr(Tournament, name)) for name in STATUS_OF]
        return {n.originator_id: STATUS_OF[n.topic.rpartition(".")[2]]  # type: ignore[misc]
                for n in self._notifications(topics=topics)}

    def open_ids(self) -> list[uuid.UUID]:
        """Tournaments not finished, in creation order, from the notification log's topics."""
        found: dict[uuid.UUID, None] = {}
        start = 1
        while True:
            page = self.recorder.select_notifications(start, PAGE)
            for n in page:
                if n.topic.endswith(OPENING):
                    found[n.originator_id] = None  # type: ignore[index]
                elif n.topic.endswith(CLOSING):
                    found.pop(n.originator_id, None)  # type: ignore[arg-type]
            if len(page) < PAGE:
                return list(found)
            start = page[-1].id + 1

    def force_ended_ids(self) -> list[uuid.UUID]:
        """Force-ended tournaments whose abandons were not all confirmed, in the order they
        were force-ended (from two topics of the notification log: each tournament's one
        ForceEnded and its one AbandonsConfirmed)."""
        confirmed = set(self._originators(Tournament.AbandonsConfirmed))  # type: ignore[attr-defined]
        return [uid for uid in self._originators(Tournament.ForceEnded)  # type: ignore[attr-defined]
                if uid not in confirmed]


class StatusCounts:
    """How many tournaments are in each status (the ``neon_tournaments`` gauge), kept as they
    change: counted once from the store at start (:meth:`TournamentApplication.statuses`, in a
    thread), then moved by each saved event that sets a status (the director reports every
    save: :meth:`saved`). Exact while this process is the store's one writer, as the
    tournament service is (one replica: k8s/README.md). Holds the open tournaments' statuses
    only: an ended one never changes again."""

    def __init__(self, statuses: Mapping[Hashable, str] | None = None) -> None:
        self.counts = dict.fromkeys(STATUSES, 0)
        self._open: dict[Hashable, str] = {}
        for key, status in (statuses or {}).items():
            self.counts[status] += 1
            if status in OPEN:
                self._open[key] = status

    def saved(self, key: Hashable, events: Iterable[str]) -> None:
        """Tournament ``key`` (its id) stored ``events`` (their names, in order)."""
        for name in events:
            status = STATUS_OF.get(name)
            if status is None:
                continue
            before = self._open.pop(key, None)
            if before is not None:
                self.counts[before] -= 1
            self.counts[status] += 1
            if status in OPEN:
                self._open[key] = status
