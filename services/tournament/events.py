"""Public NATS messages for stored tournament events: ``neon.events.tournament.<id>``.

The payload is the event's public record (services.tournament.log), which holds nothing
secret: seat tokens are never stored.
"""

from __future__ import annotations

from typing import Any

from services.platform import bus
from services.tournament.log import record_of


def subject(tournament_id: str, namespace: str = "") -> str:
    return bus.events_subject(namespace, "tournament", tournament_id)


def projection(namespace: str = "") -> Any:
    return lambda event: project(event, namespace)


def project(event: Any, namespace: str = "") -> list[tuple[str, dict[str, Any]]]:
    if not type(event).__qualname__.startswith("Tournament."):
        return []
    record = record_of(event)
    tournament_id = getattr(event, "tournament_id", None)
    if tournament_id is None:
        return []
    return [(subject(tournament_id, namespace), {"tournament_id": tournament_id, **record})]
