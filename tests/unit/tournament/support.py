"""Shared by the tournament unit tests."""

from __future__ import annotations

from pathlib import Path

from services.tournament.app import TournamentApplication


def sqlite_app(path: Path, cached: bool = True) -> TournamentApplication:
    """The tournament application on a SQLite file at ``path``; ``cached``: with the
    aggregate cache the service runs with (its reads are copies of the cached tournament)."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path),
           "SQLITE_LOCK_TIMEOUT": "10"}
    if cached:
        env["AGGREGATE_CACHE_MAXSIZE"] = "1000"
    return TournamentApplication(env=env)
