"""The Ticket aggregate: one per client-chosen ticket id, from queued to its end.

Statuses: waiting -> proposed -> (matched | back to waiting) ; waiting or proposed ->
cancelled | expired. ``queued_at`` never changes, so a ticket sent back to the queue keeps
its waiting time. A matched ticket's assignment holds seat tokens of its own players only.
"""

from __future__ import annotations

import uuid
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

    @event("Requeued")
    def requeue(self, ticket_id: str, match_id: str, reason: str) -> None:
        self.status = "waiting"
        self.proposal = None
        self.accepted = []
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
