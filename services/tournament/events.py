"""Public NATS messages for stored tournament events: ``neon.events.tournament.<id>``.

The payload is the event's public record (services.tournament.log) with the tournament id,
which holds nothing secret: seat tokens are never stored. Only ``Created`` names the
tournament id, so the projection learns each aggregate's id from its first event (cached).
"""

from __future__ import annotations

import uuid
from typing import Any

from services.platform import bus
from services.tournament.log import record_of


def subject(tournament_id: str, namespace: str = "") -> str:
    return bus.events_subject(namespace, "tournament", tournament_id)


def projection(namespace: str = "", app: Any = None) -> Any:
    ids: dict[uuid.UUID, str] = {}

    def tournament_id(event: Any) -> str | None:
        found = getattr(event, "tournament_id", None)
        if found is not None:
            ids[event.originator_id] = str(found)
            return str(found)
        if event.originator_id not in ids and app is not None:
            first = list(app.repository.event_store.get(event.originator_id, lte=1))
            if first:
                ids[event.originator_id] = str(first[0].tournament_id)
        return ids.get(event.originator_id)

    def project(event: Any) -> list[tuple[str, dict[str, Any]]]:
        if not type(event).__qualname__.startswith("Tournament."):
            return []
        tid = tournament_id(event)
        if tid is None:
            return []
        return [(subject(tid, namespace), {"tournament_id": tid, **record_of(event)})]

    return project
