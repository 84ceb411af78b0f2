"""Multiplayer rounds (filled in below the first interface commit)."""

from __future__ import annotations

from services.tournament.core.model import FormatConfig, History, Table, TournamentError


def pair_multiplayer(config: FormatConfig, history: History) -> tuple[Table, ...]:
    raise TournamentError("multiplayer seating is not implemented yet")
