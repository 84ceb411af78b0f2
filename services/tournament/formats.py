"""The pure core as the service calls it: pairings, standings and progress of a format.

One place that names the core's functions, so the service and the offline verifier call
them the same way.
"""

from __future__ import annotations

from typing import Any

from services.tournament.core.model import (
    FormatConfig,
    History,
    StandingRow,
    Table,
    TournamentError,
)

__all__ = [
    "FormatConfig",
    "History",
    "StandingRow",
    "Table",
    "TournamentError",
    "pair",
    "standings",
    "finished",
    "planned",
    "row_json",
]


def pair(config: FormatConfig, history: History) -> tuple[Table, ...]:
    """The tables of the next round (TournamentError when none can be paired)."""
    from services.tournament import core

    out: Any = core.pair_next_round(config, history)
    return tuple(out.tables if hasattr(out, "tables") else out)


def standings(config: FormatConfig, history: History) -> tuple[StandingRow, ...]:
    from services.tournament import core

    return tuple(core.standings(config, history))


def finished(config: FormatConfig, history: History) -> bool:
    from services.tournament import core

    return bool(core.is_finished(config, history))


def planned(config: FormatConfig, history: History) -> int:
    from services.tournament import core

    return int(core.planned_rounds(config, len(history.entrants)))


def row_json(row: StandingRow) -> dict[str, Any]:
    return row.to_dict()
