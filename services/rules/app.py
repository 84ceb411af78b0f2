"""The Match aggregate and the rules Application (the event-sourced match log)."""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event

from services.platform.errors import NotFound
from services.platform.topics import TrustedTopics

NAMESPACE = uuid.UUID("0f7a3c52-4b8e-4f5c-9f0a-2a7d5e9c1b33")


def match_uuid(match_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"match:{match_id}")


class Match(Aggregate):
    """The log of one match: a list of chained records (see records.py)."""

    @event("MatchCreated")
    def __init__(self, match_id: str, record: dict[str, Any]) -> None:
        self.match_id = match_id
        self.records: list[dict[str, Any]] = []
        self.commands: dict[str, dict[str, Any]] = {}
        self.status = "created"
        self._add(record)

    @staticmethod
    def create_id(match_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return match_uuid(match_id)

    def _add(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    @event("MatchStarted")
    def start(self, record: dict[str, Any]) -> None:
        self.status = "running"
        self._add(record)

    @event("ActionAccepted")
    def accept(self, record: dict[str, Any]) -> None:
        self.commands[record["command_id"]] = {"n": record["n"]}
        self._add(record)

    @event("MatchEnded")
    def end(self, record: dict[str, Any]) -> None:
        self.status = "ended"
        self._add(record)

    @event("MatchSealed")
    def seal(self, record: dict[str, Any]) -> None:
        self.status = "sealed"
        self._add(record)

    @property
    def created(self) -> dict[str, Any]:
        return self.records[0]


class RulesApplication(TrustedTopics, Application):
    """One per game; the name (and so the table) comes from the service name."""

    def get_match(self, match_id: str) -> Match:
        try:
            return self.repository.get(match_uuid(match_id))
        except AggregateNotFoundError:
            raise NotFound(f"no match {match_id!r}") from None

    def has_match(self, match_id: str) -> bool:
        try:
            self.repository.get(match_uuid(match_id))
        except AggregateNotFoundError:
            return False
        return True


def rules_application(service: str, env: dict[str, str]) -> RulesApplication:
    cls = type(f"RulesApplication_{service}", (RulesApplication,), {"name": service.replace("-", "_")})
    return cls(env=env)
