"""The matchmaking Application: the Ticket store, and finding open tickets after a restart."""

from __future__ import annotations

import uuid

from eventsourcing.application import AggregateNotFoundError, Application

from services.matchmaking.domain import Ticket, ticket_uuid

OPENING = ("Ticket.Created",)
CLOSING = ("Ticket.Matched", "Ticket.Cancelled", "Ticket.Expired")
PAGE = 5000


class MatchmakingApplication(Application):
    name = "matchmaking"

    def find(self, ticket_id: str) -> Ticket | None:
        try:
            return self.repository.get(ticket_uuid(ticket_id))
        except AggregateNotFoundError:
            return None

    def open_ticket_ids(self) -> list[uuid.UUID]:
        """Tickets created and not yet ended, in creation order, from the notification log.

        Reads only topics and ids (no event bodies), so it stays cheap for long logs.
        """
        open_ids: dict[uuid.UUID, None] = {}
        start = 1
        while True:
            page = self.recorder.select_notifications(start, PAGE)
            for n in page:
                if n.topic.endswith(OPENING):
                    open_ids[n.originator_id] = None  # type: ignore[index]
                elif n.topic.endswith(CLOSING):
                    open_ids.pop(n.originator_id, None)  # type: ignore[arg-type]
            if len(page) < PAGE:
                return list(open_ids)
            start = page[-1].id + 1

    def load_open(self) -> list[Ticket]:
        tickets = [self.repository.get(i) for i in self.open_ticket_ids()]
        return [t for t in tickets if t.is_open]
