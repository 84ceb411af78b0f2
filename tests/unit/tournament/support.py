"""Shared by the tournament unit tests."""

from __future__ import annotations

from pathlib import Path

from services.tournament.app import TournamentApplication
from services.tournament.domain import Tournament


def sqlite_app(path: Path, cached: bool = True) -> TournamentApplication:
    """The tournament application on a SQLite file at ``path``; ``cached``: with the
    aggregate cache the service runs with (its reads are copies of the cached tournament)."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path),
           "SQLITE_LOCK_TIMEOUT": "10"}
    if cached:
        env["AGGREGATE_CACHE_MAXSIZE"] = "1000"
    return TournamentApplication(env=env)


def started_swiss(tid: str, players: int, rounds: int, rating: float = 0.0) -> tuple[Tournament, list[str]]:
    """A Swiss of ``players`` players (``p00``, ``p01``, ...; ``p000``, ... past 100 players)
    registered and started, not saved; the tournament and its players' ids."""
    t = Tournament(tid, {"name": tid, "game": "g", "mode": "m",
                         "format": {"format": "swiss", "rounds": rounds}, "no_show": "bot",
                         "check_in_seconds": 60, "clock": {}, "options_json": ""}, "org")
    t.open_registration()
    digits = 3 if players > 100 else 2
    names = [f"p{i:0{digits}d}" for i in range(players)]
    for n in names:
        t.register(n, n)
    t.start([{"player_id": n, "rating": rating, "registered": i} for i, n in enumerate(names)])
    return t, names
