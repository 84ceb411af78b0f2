"""The Ticket aggregate: one per client-chosen ticket id, from queued to its end.

Statuses: waiting -> proposed -> (matched | back to waiting) ; waiting or proposed ->
cancelled | expired. ``queued_at`` never changes, so a ticket sent back to the queue keeps
its waiting time. A player the party named without their consent may decline (``Declined``):
they leave its players, and the ticket goes on without them (a proposed one is sent back to
the queue first, ``Requeued``, in the same transaction; matchmaker.py, "Declining"). A matched ticket's assignment holds seat tokens of its own players only
(and each player is shown only its own: matchmaker.shown_to).

Proposals are not events of the tickets: a matchmaking cycle proposes thousands of matches
at once, so it records them all in one :class:`ProposalBatch` (with a :class:`Queue` event
that orders the cycles of one queue). A ticket is proposed when the latest batch naming it
proposed it and the ticket has not been sent back from that match since (``released``).
Stores written before batches hold ``Ticket.Proposed`` events, which still load.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from itertools import accumulate, repeat
from typing import Any

from eventsourcing.domain import Aggregate, event

NAMESPACE = uuid.UUID("3d1f7b9e-5a42-4c8e-9b6d-7e0a2c4f8b15")
OPEN = ("waiting", "proposed")
FINAL = ("matched", "cancelled", "expired")


def ticket_uuid(ticket_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"ticket:{ticket_id}")


class Ticket(Aggregate):
    @event("Created")
    def __init__(self, ticket_id: str, requested: dict[str, Any], resolved: dict[str, Any],
                 queued_at: float, created_by: str) -> None:
        self.ticket_id = ticket_id
        self.requested = requested
        """The request as the client sent it (for idempotency)."""
        self.resolved = resolved
        """game, modes (defaults filled in), players, seat limits, region, window, bots."""
        self.queued_at = queued_at
        self.created_by = created_by
        self.status = "waiting"
        self.reason = ""
        self.proposal: dict[str, Any] | None = None
        self.accepted: list[str] = []
        self.assignment: dict[str, Any] | None = None
        self.ended_at = 0.0
        self.released = ""
        """The match this ticket was last sent back from (its proposal no longer holds)."""
        self.joined: list[str] = []
        """Players who ever accepted one of this ticket's matches (kept when it is requeued)."""
        self.declined: tuple[str, ...] = ()
        """Players the party named who declined its invitation, in the order they did: no
        longer in ``players`` (tickets stored before declines replay with none). A tuple: the
        empty one is shared, not one more list per ticket held."""
        self.acted_for: tuple[str, ...] = ()
        """Organisers who acted for its players without queueing it as organisers
        (``ActedFor``): accepted its match for them, or queued or accepted with a player token
        they minted. Its matches are made on their behalf (:attr:`organisers`)."""

    @staticmethod
    def create_id(ticket_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return ticket_uuid(ticket_id)

    @property
    def players(self) -> list[str]:
        return list(self.resolved["players"])

    @property
    def game(self) -> str:
        return str(self.resolved["game"])

    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    @property
    def consented(self) -> list[str]:
        """The players this ticket holds: those who agreed to play in it. Its creator (a player
        token's own player; every player when an organiser or a service queued it) and every
        player who accepted one of its matches. The others were only named by its creator: the
        ticket does not keep them from queueing elsewhere (matchmaker.py, "Consent")."""
        role, _, creator = self.created_by.partition(":")
        players = self.resolved["players"]
        if role in ("organiser", "service"):
            return list(players)
        joined = self.joined
        if not joined:
            return [creator] if creator in players else []
        return [p for p in players if p == creator or p in joined]

    @property
    def organisers(self) -> tuple[str, ...]:
        """Every organiser who acted for this ticket's players: the one who queued it (an
        organiser token) and those of ``acted_for``. A match with such a ticket is made on
        their behalf: the rules service records it as theirs, and scoring does not rate it by
        default (matchmaker.py, "Organisers")."""
        role, _, creator = self.created_by.partition(":")
        if role != "organiser":
            return self.acted_for
        return self.acted_for if creator in self.acted_for else (creator, *self.acted_for)

    @property
    def fully_accepted(self) -> bool:
        return self.status == "proposed" and set(self.players) <= set(self.accepted)

    @event("Proposed")
    def propose(self, ticket_id: str, proposal: dict[str, Any]) -> None:
        """``proposal``: match_id, mode, seats (public), ticket_ids, deadline."""
        self.status = "proposed"
        self.proposal = proposal
        self.accepted = []
        self.reason = ""

    @event("Accepted")
    def accept(self, ticket_id: str, match_id: str, players: list[str]) -> None:
        self.accepted = sorted(set(self.accepted) | set(players))
        self.joined = sorted(set(self.joined) | set(players))

    @event("ActedFor")
    def act_for(self, ticket_id: str, organiser: str) -> None:
        """``organiser`` acted for this ticket's players (accepted its match for them, or
        queued or accepted it with a player token it minted): recorded once per organiser."""
        if organiser not in self.acted_for:
            self.acted_for = (*self.acted_for, organiser)

    @event("Requeued")
    def requeue(self, ticket_id: str, match_id: str, reason: str) -> None:
        self.released = match_id
        self.status = "waiting"
        self.proposal = None
        self.accepted = []
        self.reason = reason

    @event("Declined")
    def decline(self, ticket_id: str, player: str, reason: str) -> None:
        """``player``, whom the party named without their consent, declined its invitation:
        the party is its other players from now on (its modes and seat limits are kept: a
        smaller party fits every table the larger one did). Only for a waiting ticket."""
        self.resolved = {**self.resolved,
                         "players": [p for p in self.resolved["players"] if p != player]}
        self.declined = (*self.declined, player)
        self.reason = reason

    @event("Matched")
    def match(self, ticket_id: str, assignment: dict[str, Any], at: float) -> None:
        self.status = "matched"
        self.assignment = assignment
        self.reason = ""
        self.ended_at = at

    @event("Cancelled")
    def cancel(self, ticket_id: str, reason: str, at: float) -> None:
        self.status = "cancelled"
        self.reason = reason
        self.ended_at = at

    @event("Expired")
    def expire(self, ticket_id: str, reason: str, at: float) -> None:
        self.status = "expired"
        self.reason = reason
        self.ended_at = at


def bot_match_uuid(match_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"bots:{match_id}")


class BotMatch(Aggregate):
    """The bot seats of a backfilled match, which matchmaking plays until the match ends.

    Saved with the tickets' ``Matched`` events (one transaction), so that after a restart
    the bots take their seats again. ``seats`` maps the seat number (as text) to its token.
    """

    @event("Created")
    def __init__(self, match_id: str, game: str, seats: dict[str, str]) -> None:
        self.match_id = match_id
        self.game = game
        self.seats = seats
        self.finished = False
        self.reason = ""

    @staticmethod
    def create_id(match_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return bot_match_uuid(match_id)

    @event("Finished")
    def finish(self, reason: str) -> None:
        self.finished = True
        self.reason = reason


def kickoff_uuid(match_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"kickoff:{match_id}")


class Kickoff(Aggregate):
    """A match created to wait for its seats' client seeds (Config.client_seeds), until it
    starts: its seed window's deadline, its human seats, and the players who said they are
    ready (ReadyForMatch). Saved with the tickets' ``Matched`` events (one transaction), so a
    restart finds every match still waiting and starts it (matchmaker.py, "Client seeds").

    ``seats`` maps each human seat (as text) to its player; bots add no seed and are not
    waited for. ``tickets``: the match's tickets, whose watchers are told of each change.
    """

    @event("Created")
    def __init__(self, match_id: str, game: str, deadline: float, seats: dict[str, str],
                 tickets: list[str]) -> None:
        self.match_id = match_id
        self.game = game
        self.deadline = deadline
        self.seats = seats
        self.tickets = tickets
        self.ready: list[str] = []
        self.ended = False
        self.started = False
        self.reason = ""

    @staticmethod
    def create_id(match_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return kickoff_uuid(match_id)

    @property
    def players(self) -> list[str]:
        """The human players of the match, in seat order."""
        return [self.seats[k] for k in sorted(self.seats, key=int)]

    @property
    def waiting_for(self) -> list[str]:
        return [p for p in self.players if p not in self.ready]

    @property
    def everyone_ready(self) -> bool:
        return not self.waiting_for

    @event("Ready")
    def say_ready(self, players: list[str]) -> None:
        self.ready = sorted(set(self.ready) | set(players))

    @event("Ended")
    def end(self, started: bool, reason: str, match_id: str, tickets: list[str]) -> None:
        """The match started (``started``), or the rules service will never start it (it
        was abandoned meanwhile, or refuses for good): ``reason`` says which and why.
        ``match_id`` and ``tickets`` (the match's, as created) let the event be published per
        ticket."""
        self.ended = True
        self.started = started
        self.reason = reason


def queue_uuid(game: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"queue:{game}")


class Queue(Aggregate):
    """One game's queue: a version per cycle that proposed matches.

    Its only job is ordering: each batch of proposals is saved with the next version of its
    queue, so two processes that both believe they own a queue cannot both propose from it
    (the store refuses the second writer of a version). Snapshots keep it cheap to load.
    """

    @event("Created")
    def __init__(self, game: str) -> None:
        self.game = game
        self.batches = 0
        self.last_batch = ""

    @staticmethod
    def create_id(game: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return queue_uuid(game)

    @event("Proposed")
    def proposed(self, batch_id: str, matches: int) -> None:
        self.batches += 1
        self.last_batch = batch_id


def batch_uuid(batch_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"batch:{batch_id}")


class ProposalBatch(Aggregate):
    """Every match one cycle proposed for one game, in one event, as flat columns.

    Match ``k`` has the id ``f"{batch_id}{k:08x}"``, mode ``modes[mode_of[k]]``, the tickets
    ``tickets[...]`` (``parties[k]`` of them, in the group's order) and ``seat_counts[k]``
    seats. All share one ``deadline``; ``accepted``: proposed with auto-accept on, so each
    ticket was accepted for the players its creator acts for (matchmaker.self_accepted: a
    player token's own player, every player for an organiser or service token; batches written
    before this rule are read by it too). The batch is closed when none of its proposals is
    open any more.

    The seats are written one of two ways. Without ``party_sizes`` (batches written before
    it): ``players``, ``seat_tickets`` (empty for a bot) and ``teams`` (0 without teams) give
    every seat in seat order. With ``party_sizes`` (the players of each party of
    ``tickets``): ``players`` lists each match's seats in party order (its parties' players,
    then its bots), so that a seat's ticket follows from the sizes and ``seat_tickets`` is
    empty; the matches ``reordered`` (seated in teams) are seated in another order, given,
    for their seats one after the other, by ``seat_order`` (each seat's place in the party
    order) and ``teams`` (its team, from 1). Every other seat is in team 0.
    """

    @event("Created")
    def __init__(self, batch_id: str, game: str, deadline: float, accepted: bool,
                 modes: list[str], mode_of: list[int], parties: list[int], tickets: list[str],
                 seat_counts: list[int], players: list[str], seat_tickets: list[str],
                 teams: list[int], party_sizes: list[int] | None = None,
                 reordered: list[int] | None = None, seat_order: list[int] | None = None) -> None:
        self.batch_id, self.game, self.deadline, self.accepted = batch_id, game, deadline, accepted
        self.modes, self.mode_of, self.parties, self.tickets = modes, mode_of, parties, tickets
        self.seat_counts, self.players, self.seat_tickets = seat_counts, players, seat_tickets
        self.teams = teams
        self.party_sizes, self.reordered, self.seat_order = party_sizes, reordered, seat_order
        self.closed = False
        self.tries: dict[str, int] = {}
        """CreateMatch tries that failed transiently so far, by match id (``Tried``): a
        restarted matchmaker goes on counting from them, not from zero."""

    @staticmethod
    def create_id(batch_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return batch_uuid(batch_id)

    @event("Closed")
    def close(self) -> None:
        self.closed = True

    @event("Tried")
    def tried(self, match_id: str, attempts: int) -> None:
        """The CreateMatch of ``match_id`` failed transiently for the ``attempts``-th time
        (it is tried again): stored so that a restart does not try it from zero."""
        self.tries[match_id] = attempts

    def proposals(self) -> list[BatchProposal]:
        return rows_of(self)


class BatchProposal(Mapping[str, Any]):
    """One proposal of a ProposalBatch, read from the batch's columns when asked: the same
    keys as a proposal stored on a ticket (match_id, mode, seats, ticket_ids, deadline).
    A cycle makes one per match; the seats are only spelled out for whoever looks."""

    __slots__ = ("batch", "k", "first_ticket", "first_seat", "match_id", "first_order")
    KEYS = ("match_id", "mode", "seats", "ticket_ids", "deadline")

    def __init__(self, batch: Any, k: int, first_ticket: int, first_seat: int,
                 first_order: int = -1) -> None:
        self.batch, self.k, self.first_ticket, self.first_seat = batch, k, first_ticket, first_seat
        self.match_id = f"{batch.batch_id}{k:08x}"
        self.first_order = first_order
        """Where this match's seats start in ``seat_order`` (-1: not reordered)."""

    def __getitem__(self, key: str) -> Any:
        b, k = self.batch, self.k
        if key == "match_id":
            return self.match_id
        if key == "mode":
            return b.modes[b.mode_of[k]]
        if key == "deadline":
            return b.deadline
        if key == "ticket_ids":
            return b.tickets[self.first_ticket:self.first_ticket + b.parties[k]]
        if key == "seats":
            s, count = self.first_seat, b.seat_counts[k]
            sizes = getattr(b, "party_sizes", None)
            if sizes is None:
                return [{"seat": n, "player": b.players[s + n], "bot": not b.seat_tickets[s + n],
                         "team": b.teams[s + n], "ticket_id": b.seat_tickets[s + n]}
                        for n in range(count)]
            players = b.players[s:s + count]
            first = self.first_ticket
            tickets = [i for j in range(first, first + b.parties[k])
                       for i in [b.tickets[j]] * sizes[j]]
            tickets += [""] * (count - len(tickets))
            if self.first_order < 0:
                teams = [0] * count
            else:
                o = self.first_order
                order = b.seat_order[o:o + count]
                teams = b.teams[o:o + count]
                players = [players[i] for i in order]
                tickets = [tickets[i] for i in order]
            return [{"seat": n, "player": players[n], "bot": not tickets[n], "team": teams[n],
                     "ticket_id": tickets[n]} for n in range(count)]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def __deepcopy__(self, memo: dict[int, Any]) -> BatchProposal:
        """Rows never change: a copied ticket (eventsourcing's cache copies what it hands out)
        shares its row rather than copying the whole batch."""
        return self


def rows_of(batch: Any, row: type[BatchProposal] | None = None) -> list[Any]:
    """The proposals of a ProposalBatch (or of its Created event), in order, as ``row``s."""
    tickets = [0, *accumulate(batch.parties)]
    seats = [0, *accumulate(batch.seat_counts)]
    rows = list(map(row or BatchProposal, repeat(batch), range(len(batch.parties)), tickets, seats))
    reordered = getattr(batch, "reordered", None)
    if reordered:
        counts = batch.seat_counts
        for k, first in zip(reordered, accumulate(map(counts.__getitem__, reordered), initial=0)):
            rows[k].first_order = first
    return rows


def proposals_of(batch: Any) -> list[dict[str, Any]]:
    """The proposals of a ProposalBatch (or of its Created event) as plain dicts."""
    return [dict(row) for row in rows_of(batch)]


def standing_uuid(player: str, game: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"standing:{game}\x00{player}")


class Standing(Aggregate):
    """A player's recent record in one game's queue, for the limits on queueing (matchmaker.py,
    "Queueing limits"): when they queued a ticket with their own player token (``Joined``), and
    when a proposed match fell through because of them (``Struck``: a ticket that held them
    timed out without their accept, or they cancelled it while a match was proposed). Per game,
    so that only the replica that owns the game's queue ever writes it. Each event carries how
    far back it keeps (``horizon``, seconds): older times are dropped as it is applied, so
    replay gives the same state whatever the configuration is now. Snapshotted (the app's
    ``snapshotting_intervals``): a long-lived player's history loads in a few reads."""

    @event("Created")
    def __init__(self, player: str, game: str) -> None:
        self.player = player
        self.game = game
        self.joins: list[float] = []
        self.strikes: list[float] = []

    @staticmethod
    def create_id(player: str, game: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return standing_uuid(player, game)

    @event("Joined")
    def joined(self, at: float, horizon: float) -> None:
        self.joins = [t for t in self.joins if t > at - horizon] + [at]

    @event("Struck")
    def struck(self, at: float, match_id: str, horizon: float) -> None:
        self.strikes = [t for t in self.strikes if t > at - horizon] + [at]


def holding_uuid(player: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"holding:{player}")


class Holding(Aggregate):
    """The last ticket that held a player (matchmaker.py, "Consent"), written only by
    matchmaking replicas (several share the store, each owning some games' queues): each ticket
    that comes to hold the player (its creator, every player of an organiser's or a service's
    ticket, a player who accepts one of its matches) is recorded here in the transaction that
    holds them, by whichever replica owns its queue. A replica holding a player first reads it,
    and while that ticket is open and holds them, refuses, as one replica refuses from memory:
    a player waits in one ticket at a time across replicas too. Nothing is written when a
    ticket ends (whether it still holds them is read from the ticket itself); two replicas
    holding one player at once write the same version, and the store refuses the second."""

    @event("Created")
    def __init__(self, player: str) -> None:
        self.player = player
        self.ticket_id = ""
        self.game = ""

    @staticmethod
    def create_id(player: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return holding_uuid(player)

    @event("Held")
    def hold(self, ticket_id: str, game: str) -> None:
        self.ticket_id = ticket_id
        self.game = game
