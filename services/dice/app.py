"""The dice Application: commands over DiceSession aggregates, one lock per session."""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError

from services.dice.domain import MATCH_KEY, DiceSession, dev_seed_bytes, session_id
from services.dice.sessions import SessionTable
from services.platform.draws import OPS, DrawRecord
from services.platform.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from services.platform.logs import get_logger
from services.platform.topics import TrustedTopics

MAX_CLIENT_SEED = 256
UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode categories a client seed may not hold: controls, format characters (bidirectional
overrides, zero-width ones), surrogates, line and paragraph separators."""
MAX_SEATS = 256
"""Client seeds are of seats 0..255 (every block's message holds them all)."""
MAX_REQUEST_ID = 128
MAX_RESERVE = 4096
MAX_COUNTER = 1 << 40
SAVE_ATTEMPTS = 3
DRAW_LIMITS = {"randbelow": (1, 1 << 32), "shuffle": (0, 10_000), "roll": (1, 1 << 16)}
R = TypeVar("R")
log = get_logger("dice")


@dataclass(frozen=True)
class SessionView:
    """What callers see of a session: a copy taken under the session's lock."""

    match_id: str
    stream_id: str
    commitment: str
    client_seeds: tuple[tuple[int, str], ...]
    counter: int
    reserved: int
    closed: bool
    dev: bool
    seed_hex: str
    state_key_hex: str

    for_match: bool = False

    @classmethod
    def of(cls, s: DiceSession) -> SessionView:
        return cls(s.match_id, s.stream_id, s.commitment, tuple(s.seeds), s.next_block,
                   s.reserved, s.closed, s.dev, s.seed_hex, s.state_key.hex(),
                   s.for_match)


def _opened_for_match(session: DiceSession) -> SessionView:
    if not session.for_match and not session.closed:
        if session.counter > 0:
            # An organiser's own session, drawn from by hand (Draw) under the key of a match
            # to come: its first blocks were handed out (and seen), and the match, which
            # reserves from block 0, could never start. It stays the organiser's.
            raise FailedPrecondition(
                f"the dice session {session.match_id!r} was opened by an organiser and drawn "
                f"from by hand (Draw: blocks below {session.counter} handed out) before its "
                "match was created; no match draws from it: create the match under another id")
        session.open_for_match()
    return SessionView.of(session)


@dataclass(frozen=True)
class Blocks:
    first: int
    words: tuple[int, ...]


def check_client_seed(seed: str) -> str:
    """A client seed: 1..MAX_CLIENT_SEED characters of printable text. It is public and
    permanent (MatchStarted, every export and audit bundle, the views and terminals that
    show them), so no control or format character: a NUL, an escape that drives another
    player's terminal, a line break, a bidirectional override or an invisible character
    that makes one seed look like another."""
    if not seed or len(seed) > MAX_CLIENT_SEED:
        raise InvalidArgument(f"client seed must be 1..{MAX_CLIENT_SEED} characters")
    bad = next((ch for ch in seed if unicodedata.category(ch) in UNPRINTABLE), None)
    if bad is not None:
        raise InvalidArgument(f"client seed must be printable text: it holds U+{ord(bad):04X} "
                              "(control and format characters, line breaks included, are refused)")
    return seed


def check_match_key(match_id: str) -> str:
    if not MATCH_KEY.fullmatch(match_id or ""):
        raise InvalidArgument(
            "match_id must be '<game>/<match id>' or a match id: parts of 1-64 letters, "
            "digits, '-' or '_' joined by '/'"
        )
    return match_id


class DiceApplication(TrustedTopics, Application):
    """No aggregate cache (see services/dice/sessions.py): live sessions sit in a table."""

    name = "dice"

    def __init__(
        self,
        env: dict[str, str] | None = None,
        allow_dev_seeds: bool = True,
        dev_secret: bytes | None = None,
        keep_sessions: int = 4096,
    ) -> None:
        env = {k: v for k, v in (env or {}).items() if not k.startswith("AGGREGATE_CACHE")}
        super().__init__(env)
        self.allow_dev_seeds = allow_dev_seeds
        self._dev_secret = dev_secret or secrets.token_bytes(32)
        self._sessions: SessionTable[DiceSession] = SessionTable(keep_sessions)

    def _load(self, match_id: str) -> DiceSession | None:
        try:
            return self.repository.get(session_id(match_id))
        except AggregateNotFoundError:
            return None

    def _read(self, match_id: str, command: Callable[[DiceSession], R]) -> R:
        """Run ``command`` on the session, first brought up to date with the store.

        Another replica may have changed the session since it was loaded here; commands
        find out through the store's version check, reads by reading the newer events.
        """
        with self._sessions.hold(check_match_key(match_id), lambda: self._load(match_id)) as held:
            session = held.value
            if session is None:
                raise _no_session(match_id)
            newer = self.repository.event_store.get(session.id, gt=session.version)
            for domain_event in newer:
                session = domain_event.mutate(session)
            held.set(session)
            return command(session)

    def _change(self, match_id: str, command: Callable[[DiceSession], R]) -> R:
        """Run ``command`` on the session under its lock and save what it changed.

        A concurrent save by another writer (IntegrityError) reloads the session from the
        store and runs the command again; after SAVE_ATTEMPTS it is ABORTED. Any failure
        drops the in-memory copy so it never holds unsaved changes.
        """
        check_match_key(match_id)
        for attempt in range(1, SAVE_ATTEMPTS + 1):
            with self._sessions.hold(match_id, lambda: self._load(match_id)) as held:
                session = held.value
                if session is None:
                    raise _no_session(match_id)
                try:
                    result = command(session)
                    if session.pending_events:
                        self.save(session)
                    return result
                except IntegrityError:
                    held.drop()
                    log.info("dice_save_conflict", match_id=match_id, attempt=attempt)
                except BaseException:
                    held.drop()
                    raise
        raise Aborted(f"dice session {match_id!r} was changed concurrently; try again")

    def open(self, match_id: str, dev_seed: str = "", for_match: bool = False) -> SessionView:
        """The session of ``match_id``, made when there is none. ``for_match``: a rules
        service opens it for its match (a service token), which marks it so (once): its
        draws come from the blocks the service reserves, from block 0, and Draw takes it no
        more (a Draw before StartMatch's first reservation moved the counter, and the match
        could not start)."""
        view = self._open(match_id, dev_seed, for_match)
        if for_match and not view.for_match and not view.closed:
            view = self._change(match_id, _opened_for_match)
        return view

    def _open(self, match_id: str, dev_seed: str, for_match: bool) -> SessionView:
        check_match_key(match_id)
        if dev_seed and not self.allow_dev_seeds:
            raise FailedPrecondition("dev seeds are refused in tournament mode")
        if len(dev_seed) > MAX_CLIENT_SEED:
            raise InvalidArgument(f"dev seed must be at most {MAX_CLIENT_SEED} characters")
        with self._sessions.hold(match_id, lambda: self._load(match_id)) as held:
            if held.value is None:
                session = DiceSession.open(match_id, dev_seed, self._dev_secret)
                if for_match:  # saved with its Opened: CreateMatch's open is one write
                    session.open_for_match()
                try:
                    self.save(session)
                except IntegrityError:
                    session = self._load(match_id)
                    if session is None:
                        raise Aborted(f"dice session {match_id!r} is being opened; try again") from None
                held.set(session)
            elif dev_seed and held.value.seed != dev_seed_bytes(self._dev_secret, dev_seed):
                # opened before from another seed (another dev seed, or none): the caller
                # would record and draw from a seed it did not ask for
                raise FailedPrecondition(f"dice session {match_id!r} was opened before from "
                                         "another seed than this dev seed")
            if held.value.closed:
                # Its seed is public (RevealSeed): a match opened on it again (its id reused
                # after a rules store lost the first match) would draw what anyone computes.
                raise FailedPrecondition(f"dice session {match_id!r} is closed and its seed "
                                         "revealed; no match may draw from it again")
            return SessionView.of(held.value)

    def add_client_seed(self, match_id: str, seat: int, seed: str) -> SessionView:
        check_client_seed(seed)
        if not 0 <= seat < MAX_SEATS:
            raise InvalidArgument(f"seat must be in 0..{MAX_SEATS - 1}, got {seat}")

        def add(session: DiceSession) -> SessionView:
            if session.closed:
                raise FailedPrecondition("dice session is closed")
            if session.next_block > 0:
                raise FailedPrecondition("client seeds must be added before the first draw or reservation")
            session.add_client_seed(seat, seed)
            return SessionView.of(session)

        return self._change(match_id, add)

    def draw(self, match_id: str, request_id: str, op: str, n: int, count: int) -> DrawRecord:
        if op not in OPS:
            raise InvalidArgument(f"unknown draw op {op!r}")
        if not request_id or len(request_id) > MAX_REQUEST_ID:
            raise InvalidArgument(f"request_id must be 1-{MAX_REQUEST_ID} characters")
        low, high = DRAW_LIMITS[op]
        if not low <= n <= high:
            raise InvalidArgument(f"{op} needs n in {low}..{high}, got {n}")
        if op == "roll" and not 1 <= count <= 100:
            raise InvalidArgument(f"roll needs count in 1..100, got {count}")

        def draw(session: DiceSession) -> DrawRecord:
            previous = session.draws.get(request_id)
            if previous is not None:
                record = DrawRecord.from_json(previous)
                if (record.op, record.n) != (op, n) or (op == "roll" and record.count != count):
                    raise InvalidArgument(f"request id {request_id!r} was used for another draw")
                return record
            if session.closed:
                raise FailedPrecondition("dice session is closed")
            if session.reserved:
                # Its match draws from reserved blocks; a Draw here would be the blocks of its
                # next reservation: its future rolls, seen before its players see them.
                raise FailedPrecondition("this session's match draws from reserved blocks; "
                                         "Draw takes no session that reserves")
            if session.for_match:
                # Not reserving yet (its match created, not started): a Draw would take the
                # blocks its first ReserveBlocks, from block 0, asks for, and the match could
                # never start (nor its seats add their client seeds).
                raise FailedPrecondition(
                    "this session was opened by a rules service for its match, which draws "
                    "from the blocks it reserves (ReserveBlocks, from block 0 at the match's "
                    "start); Draw takes only a session an organiser opened for itself")
            return session.draw(request_id, op, n, count)

        return self._change(match_id, draw)

    def reserve_blocks(self, match_id: str, first: int, count: int) -> Blocks:
        """The words of blocks [first, first + count); raises the high-water mark."""
        if not 1 <= count <= MAX_RESERVE:
            raise InvalidArgument(f"count must be in 1..{MAX_RESERVE}, got {count}")
        if not 0 <= first <= MAX_COUNTER - count:
            raise InvalidArgument(f"first must be in 0..{MAX_COUNTER - count}, got {first}")

        def reserve(session: DiceSession) -> tuple[Callable[[int, int], list[int]], int]:
            if session.closed:
                # Blocks reserved before the close may be read again (fewer than asked,
                # up to the mark): a rules service that crashed between sealing a match
                # and saving it replays the last action with the same blocks. Nothing new
                # is handed out once the seed is public.
                if first >= session.reserved:
                    raise FailedPrecondition("dice session is closed")
                return session.words, min(count, session.reserved - first)
            if first < session.counter:
                # every block handed out once: those were drawn (and seen) through Draw
                raise FailedPrecondition(f"blocks below {session.counter} were handed out by Draw; "
                                         "a session draws either through Draw or from reserved blocks")
            if first + count > session.reserved:
                session.reserve(first + count)
            return session.words, count

        words, given = self._change(match_id, reserve)
        return Blocks(first, tuple(words(first, given)))

    def close_session(self, match_id: str) -> SessionView:
        def close(session: DiceSession) -> SessionView:
            if not session.closed:
                session.close()
            return SessionView.of(session)

        return self._change(match_id, close)

    def session(self, match_id: str) -> SessionView:
        return self._read(match_id, SessionView.of)


def _no_session(match_id: str) -> NotFound:
    """NOT_FOUND for a session not opened; a bare match id is told how a rules service names
    its match's session (the match id alone, as a client author first tries, names none)."""
    hint = ("" if "/" in match_id else
            ": a match's dice session is named <game>/<match id>, e.g. neon-reign/" + match_id)
    return NotFound(f"no dice session for match {match_id!r}{hint}")
