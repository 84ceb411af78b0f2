"""The matchmaking Application: the Ticket store, and finding open tickets after a restart."""

from __future__ import annotations

import uuid

from eventsourcing.application import AggregateNotFoundError, Application

from services.matchmaking.domain import BotMatch, Ticket, ticket_uuid

OPENING = ("Ticket.Created",)
CLOSING = ("Ticket.Matched", "Ticket.Cancelled", "Ticket.Expired")
BOTS_OPENING = ("BotMatch.Created",)
BOTS_CLOSING = ("BotMatch.Finished",)
PAGE = 5000


class MatchmakingApplication(Application):
    name = "matchmaking"

    def find(self, ticket_id: str) -> Ticket | None:
        try:
            return self.repository.get(ticket_uuid(ticket_id))
        except AggregateNotFoundError:
            return None

    def open_ids(self) -> tuple[list[uuid.UUID], list[uuid.UUID]]:
        """Open tickets and unfinished bot matches, in creation order, from the notification log.

        Reads only topics and ids (no event bodies), so it stays cheap for long logs.
        """
        tickets: dict[uuid.UUID, None] = {}
        bots: dict[uuid.UUID, None] = {}
        start = 1
        while True:
            page = self.recorder.select_notifications(start, PAGE)
            for n in page:
                topic = n.topic
                if topic.endswith(OPENING) and not topic.endswith(BOTS_OPENING):
                    tickets[n.originator_id] = None  # type: ignore[index]
                elif topic.endswith(CLOSING):
                    tickets.pop(n.originator_id, None)  # type: ignore[arg-type]
                elif topic.endswith(BOTS_OPENING):
                    bots[n.originator_id] = None  # type: ignore[index]
                elif topic.endswith(BOTS_CLOSING):
                    bots.pop(n.originator_id, None)  # type: ignore[arg-type]
            if len(page) < PAGE:
                return list(tickets), list(bots)
            start = page[-1].id + 1

    def open_ticket_ids(self) -> list[uuid.UUID]:
        return self.open_ids()[0]

    def load_open(self) -> tuple[list[Ticket], list[BotMatch]]:
        ticket_ids, bot_ids = self.open_ids()
        tickets = [self.repository.get(i) for i in ticket_ids]
        bots = [self.repository.get(i) for i in bot_ids]
        return [t for t in tickets if t.is_open], [b for b in bots if not b.finished]
