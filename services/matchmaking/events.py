"""Public NATS messages for stored ticket events: subjects under ``neon.events.matchmaking.``.

Seat tokens never leave the service this way: the assignment is published without them.
"""

from __future__ import annotations

from typing import Any

from services.matchmaking.domain import proposals_of
from services.platform import bus

PREFIX = "neon.events.matchmaking"


def subject(ticket_id: str, namespace: str = "") -> str:
    return bus.events_subject(namespace, "matchmaking", "ticket", ticket_id)


def projection(namespace: str = "") -> Any:
    """The relay's projection for a deployment's namespace (NEON_NAMESPACE)."""
    return lambda event: project(event, namespace)


def project(event: Any, namespace: str = "") -> list[tuple[str, dict[str, Any]]]:
    if type(event).__qualname__ == "ProposalBatch.Created":
        return _proposed(event, namespace)
    if type(event).__qualname__ == "Kickoff.Ended":
        return _kicked_off(event, namespace)
    kind = type(event).__name__
    ticket_id = getattr(event, "ticket_id", None)
    if ticket_id is None or not type(event).__qualname__.startswith("Ticket.") \
            or kind == "ActedFor":  # who acted for the players is the rules service's to say
        return []
    payload: dict[str, Any] = {"type": f"Ticket{kind}", "ticket_id": ticket_id,
                               "timestamp": event.timestamp.isoformat()}
    if kind == "Created":
        r = event.resolved
        payload.update(game=r["game"], modes=r["modes"], players=r["players"],
                       queued_at=event.queued_at)
    elif kind == "Proposed":
        p = event.proposal
        payload.update(match_id=p["match_id"], mode=p["mode"], ticket_ids=p["ticket_ids"],
                       seats=[_public(s) for s in p["seats"]], deadline=p["deadline"])
    elif kind in ("Accepted", "Requeued"):
        payload.update(match_id=event.match_id)
        payload.update(players=event.players) if kind == "Accepted" else payload.update(
            reason=event.reason)
    elif kind == "Matched":
        a = event.assignment
        payload.update(match_id=a["match_id"], game=a["game"], mode=a["mode"],
                       rules_address=a["rules_address"], seats=[_public(s) for s in a["seats"]])
        if "seed_deadline" in a:  # the match waits for client seeds until then at most
            payload.update(seed_deadline=a["seed_deadline"])
    elif kind in ("Cancelled", "Expired"):
        payload.update(reason=event.reason)
    elif kind == "Declined":  # the player's id only: the party's own subject
        payload.update(player=event.player)
    return [(subject(ticket_id, namespace), payload)]


def _public(seat: dict[str, Any]) -> dict[str, Any]:
    return {k: seat[k] for k in ("seat", "player", "bot", "team")}


def _proposed(event: Any, namespace: str) -> list[tuple[str, dict[str, Any]]]:
    """A cycle's batch of proposals: one TicketProposed message per ticket, as before batches."""
    timestamp = event.timestamp.isoformat()
    out = []
    for p in proposals_of(event):
        seats = [_public(s) for s in p["seats"]]
        for ticket_id in p["ticket_ids"]:
            out.append((subject(ticket_id, namespace), {
                "type": "TicketProposed", "ticket_id": ticket_id, "timestamp": timestamp,
                "match_id": p["match_id"], "mode": p["mode"], "ticket_ids": p["ticket_ids"],
                "seats": seats, "deadline": p["deadline"]}))
    return out


def _kicked_off(event: Any, namespace: str) -> list[tuple[str, dict[str, Any]]]:
    """The seed window of a match ended (it started, or will not): one TicketMatchStarted
    message per ticket of the match, ``started`` saying which, and the reason."""
    kind = "TicketMatchStarted" if event.started else "TicketMatchNotStarted"
    timestamp = event.timestamp.isoformat()
    return [(subject(ticket_id, namespace), {
        "type": kind, "ticket_id": ticket_id, "timestamp": timestamp,
        "match_id": event.match_id, "started": event.started, "reason": event.reason})
        for ticket_id in event.tickets]
