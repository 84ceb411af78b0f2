"""The pure core of the tournament service: pairings, standings and the audit pieces.

No I/O, no clock, no randomness: everything is computed from its inputs, so a verifier
recomputes exactly what the service published.

- ``model``: the values (Entrant, Table, TableResult, RoundRecord, FormatConfig, History,
  StandingRow, TournamentError);
- ``ledger``: what each round meant for each player (points, games, opponents, seats);
- ``formats``: ``pair_next_round``, ``is_finished``, ``planned_rounds``, ``too_many_rounds``,
  ``late_entries_refused``, ``reinstatement_refused``, ``bracket``;
  per format ``swiss``, ``roundrobin``, ``elimination``, ``multiplayer``;
- ``standings``: points, tie-breaks, ranks;
- ``merkle`` (RFC 9162), ``checkpoint`` (signed round checkpoints), ``audit`` (recheck a
  tournament's events against the rules), ``codec`` (JSON forms).
"""

from services.tournament.core.audit import (  # noqa: E402 (needs the functions above)
    Problem,
    history_events,
    recheck,
    replay,
)
from services.tournament.core.formats import (
    bracket,
    is_finished,
    late_entries_refused,
    pair_next_round,
    planned_rounds,
    reinstatement_refused,
    too_many_rounds,
)
from services.tournament.core.model import (
    FORMATS,
    OPPONENT_WITHDRAWN,
    TIEBREAKS,
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    StandingRow,
    Table,
    TableResult,
    TournamentError,
    seed_order,
)
from services.tournament.core.standings import standings

__all__ = [
    "Problem",
    "history_events",
    "recheck",
    "replay",
    "FORMATS",
    "OPPONENT_WITHDRAWN",
    "TIEBREAKS",
    "Entrant",
    "FormatConfig",
    "History",
    "RoundRecord",
    "StandingRow",
    "Table",
    "TableResult",
    "TournamentError",
    "bracket",
    "is_finished",
    "pair_next_round",
    "planned_rounds",
    "seed_order",
    "standings",
    "too_many_rounds",
    "late_entries_refused",
    "reinstatement_refused",
]
