"""Where an event stands before its next round: who plays, on what score, in what order."""

from __future__ import annotations

from services.tournament.core.ledger import (
    PENDING,
    Round,
    away_spans,
    first_rounds,
    is_away,
    ledger,
    points,
)
from services.tournament.core.model import FormatConfig, History, TournamentError, seed_order


def next_round_number(history: History) -> int:
    return (history.rounds[-1].number if history.rounds else 0) + 1


def require_complete(config: FormatConfig, history: History) -> dict[str, list[Round]]:
    """The ledger, or :class:`TournamentError` when the last round still waits for results."""
    book = ledger(config, history)
    for player, rounds in book.items():
        for r in rounds:
            if r.kind == PENDING:
                raise TournamentError(
                    f"round {r.round} is not complete: {player}'s table has no result yet"
                )
    return book


def active_players(history: History, round_number: int) -> list[str]:
    """Players who play in ``round_number``: registered (late entries from their first
    round on), not dropped before it (or reinstated from it or earlier) and not sitting
    this round out; in seed order."""
    first = first_rounds(history)
    spans = away_spans(history)
    away = {p for p, r in history.absent if r == round_number}
    return [
        e.player_id
        for e in seed_order(history.entrants)
        if first.get(e.player_id, 1) <= round_number
        and not is_away(spans, e.player_id, round_number)
        and e.player_id not in away
    ]


def pairing_order(
    players: list[str], book: dict[str, list[Round]], history: History
) -> list[tuple[str, float]]:
    """Players by score (highest first), then seed order: FIDE's pairing numbers."""
    seeds = {e.player_id: i for i, e in enumerate(seed_order(history.entrants))}
    scored = [(p, points(book[p])) for p in players]
    return sorted(scored, key=lambda item: (-item[1], seeds[item[0]]))


def check_late_entries(config: FormatConfig, history: History, round_number: int) -> None:
    """Late entries may first play no later than ``late_entry_until``."""
    for player, first in sorted(history.late):
        if first == round_number and first > config.late_entry_until:
            raise TournamentError(
                f"round {round_number}: {player} enters late, but late entries may only "
                f"start up to round {config.late_entry_until}"
            )
