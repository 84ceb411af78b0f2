"""What each round meant for each player: points, opponents, seat, and whether it was a game.

The ledger is the one place that turns tables and results into scores, so pairings,
standings and tie-breaks all read the same numbers.

Scoring rules:

- A played table: places score ``placement_points`` (place 1 = index 0); seats tied on a
  place share the average of the points of the places they cover; on a two-seat table a
  tie scores ``draw_points`` each. A seat listed in ``forfeited`` of a played table scores
  nothing, and the table is not a game for it; the others are placed among themselves
  (two of a bigger table who tie share the places they cover too; ``scoring_version`` 1,
  the logs before it: ``draw_points`` each).
- A forfeit (no game): the forfeited seats score 0, the others ``forfeit_win_points``.
  Neither side has played a game (FIDE: a forfeit win is not a game for tie-breaks).
- A bye table: ``bye_points``, not a game. A round-robin bye whose scheduled opponent had
  withdrawn scores ``forfeit_win_points`` (kept results) or nothing (annulled results).
- Rounds a late entry missed: 0 or ``bye_points`` each (``late_entry_points``); rounds
  after a player dropped, until a reinstatement (if any), 0. Neither is a game.
- A table still without a result counts for nobody yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.tournament.core.model import (
    OPPONENT_WITHDRAWN,
    FormatConfig,
    History,
    Table,
    TableResult,
    TournamentError,
)

PLAYED = "played"
FORFEIT_WIN = "forfeit-win"
FORFEIT_LOSS = "forfeit-loss"
BYE = "bye"
WITHDRAWN_OPPONENT = "withdrawn-opponent"
LATE = "late"
ABSENT = "absent"
ANNULLED = "annulled"
PENDING = "pending"


@dataclass(frozen=True)
class Round:
    """One round of one player."""

    round: int
    kind: str
    points: float = 0.0
    opponents: tuple[str, ...] = ()
    scores_vs: tuple[float, ...] = ()
    """For each opponent: 1 placed above them, 0.5 level, 0 below (played games only)."""
    seat: int = -1
    table_size: int = 0
    place: int = 0
    win: bool = False
    game_tiebreak: float = 0.0
    paired_bye: bool = False
    """A bye given by the pairing (Swiss: at most one per player)."""

    @property
    def is_game(self) -> bool:
        return self.kind == PLAYED


def share_points(config: FormatConfig, placements: tuple[int, ...],
                 table_size: int = 0) -> list[float]:
    """Points for each placement: tied places share the average of the places they cover.
    A tie of two seats scores ``draw_points``: at a two-seat table (``table_size``; 0: as
    many seats as placements); with ``scoring_version`` 1, also when two seats of a bigger
    table are left to place (the others forfeited), which scored their tie for first below
    the second place of the same table."""
    n = len(placements)
    two_seats = n == 2 if config.scoring_version < 2 else (table_size or n) == 2
    if two_seats and n == 2 and placements[0] == placements[1]:
        return [config.draw_points, config.draw_points]
    table = list(config.placement_points) + [0.0] * max(0, n - len(config.placement_points))
    order = sorted(placements)
    out = []
    for p in placements:
        first = order.index(p)
        count = order.count(p)
        out.append(sum(table[first : first + count]) / count)
    return out


def results_by_table(record_results: tuple[TableResult, ...]) -> dict[int, TableResult]:
    found: dict[int, TableResult] = {}
    for result in record_results:
        found[result.table] = result  # a later result for the same table corrects it
    return found


def _check_result(table: Table, result: TableResult, round_number: int) -> None:
    if tuple(result.seats) != tuple(table.seats):
        raise TournamentError(
            f"round {round_number}: table {table.number} result names seats "
            f"{', '.join(result.seats)} but the table seats {', '.join(table.seats)}"
        )
    if result.kind not in ("played", "forfeit", "bye"):
        raise TournamentError(
            f"round {round_number}: table {table.number}: unknown kind {result.kind!r}"
        )
    if result.kind != "bye" and len(result.placements) != len(result.seats):
        raise TournamentError(
            f"round {round_number}: table {table.number}: {len(result.placements)} placements "
            f"for {len(result.seats)} seats"
        )
    for name in result.forfeited:
        if name not in result.seats:
            raise TournamentError(
                f"round {round_number}: table {table.number}: forfeited {name} is not seated there"
            )


def table_rounds(
    config: FormatConfig,
    round_number: int,
    table: Table,
    result: TableResult | None,
    annulled: frozenset[str] = frozenset(),
) -> dict[str, Round]:
    """What one table meant for each of its seats."""
    if table.bye:
        (player,) = table.seats
        if table.note == OPPONENT_WITHDRAWN:
            kept = not any(a in annulled for a in table.absent)
            points = config.forfeit_win_points if kept else 0.0
            return {player: Round(round_number, WITHDRAWN_OPPONENT, points)}
        return {player: Round(round_number, BYE, config.bye_points, paired_bye=True)}
    if result is None:
        return {p: Round(round_number, PENDING) for p in table.seats}
    _check_result(table, result, round_number)
    if any(p in annulled for p in table.seats):
        return {p: Round(round_number, ANNULLED) for p in table.seats}
    size = len(table.seats)
    if result.kind == "forfeit":
        out = {}
        for seat, p in enumerate(table.seats):
            lost = p in result.forfeited
            out[p] = Round(
                round_number,
                FORFEIT_LOSS if lost else FORFEIT_WIN,
                0.0 if lost else config.forfeit_win_points,
                seat=seat,
                table_size=size,
            )
        return out
    if result.kind == "bye":
        return {
            p: Round(round_number, BYE, config.bye_points, paired_bye=True) for p in table.seats
        }
    present = [i for i, p in enumerate(table.seats) if p not in result.forfeited]
    places = tuple(result.placements[i] for i in present)
    points = share_points(config, places, size) if present else []
    tiebreaks = result.game_tiebreak or (0.0,) * size
    out = {}
    for seat, p in enumerate(table.seats):
        if p in result.forfeited:
            out[p] = Round(round_number, FORFEIT_LOSS, 0.0, seat=seat, table_size=size)
    if len(present) == 1:  # everyone else forfeited: a forfeit win
        (i,) = present
        out[table.seats[i]] = Round(
            round_number, FORFEIT_WIN, config.forfeit_win_points, seat=i, table_size=size
        )
        return out
    for k, i in enumerate(present):
        mine = result.placements[i]
        others = [j for j in present if j != i]
        firsts = sum(1 for j in present if result.placements[j] == min(places))
        out[table.seats[i]] = Round(
            round_number,
            PLAYED,
            points[k],
            opponents=tuple(table.seats[j] for j in others),
            scores_vs=tuple(
                1.0 if mine < result.placements[j] else 0.5 if mine == result.placements[j] else 0.0
                for j in others
            ),
            seat=i,
            table_size=size,
            place=mine,
            win=mine == min(places) and firsts == 1,
            game_tiebreak=float(tiebreaks[i]) if i < len(tiebreaks) else 0.0,
        )
    return out


def first_rounds(history: History) -> dict[str, int]:
    return {p: r for p, r in history.late}


def drop_rounds(history: History) -> dict[str, int]:
    return {p: r for p, r in history.dropped}


def away_spans(history: History) -> dict[str, list[tuple[int, int | None]]]:
    """Per dropped player, each time away: (the round after which they left, the first
    round they play again, or None while still dropped). A player's k-th reinstatement
    ends their k-th drop (drops and reinstatements alternate, see ``History``)."""
    backs: dict[str, list[int]] = {}
    for p, first in history.reinstated:
        backs.setdefault(p, []).append(first)
    spans: dict[str, list[tuple[int, int | None]]] = {}
    for p, after in history.dropped:
        mine = spans.setdefault(p, [])
        back = backs.get(p, [])
        mine.append((after, back[len(mine)] if len(mine) < len(back) else None))
    return spans


def is_away(spans: dict[str, list[tuple[int, int | None]]], player: str,
            round_number: int) -> bool:
    """Whether ``player`` was dropped (and not yet back) for round ``round_number``."""
    return any(after < round_number and (back is None or round_number < back)
               for after, back in spans.get(player, ()))


def still_dropped(history: History) -> frozenset[str]:
    """The players dropped now: their last drop has no reinstatement after it."""
    return frozenset(p for p, mine in away_spans(history).items() if mine[-1][1] is None)


def annulled_players(config: FormatConfig, history: History) -> frozenset[str]:
    """Round robin under "void-if-under-half": players who withdrew before playing half
    their scheduled games; all their results are annulled."""
    if config.format != "round-robin" or config.withdrawal_rule != "void-if-under-half":
        return frozenset()
    n = len(history.entrants)
    scheduled = (n - 1) * (2 if config.double_rounds else 1)
    out = set()
    for player, after in sorted(drop_rounds(history).items()):
        met = 0
        for record in history.rounds:
            if record.number > after:
                continue
            found = results_by_table(record.results)
            for table in record.tables:
                if player in table.seats and not table.bye and table.number in found:
                    met += 1
        if 2 * met < scheduled:
            out.add(player)
    return frozenset(out)


def ledger(config: FormatConfig, history: History) -> dict[str, list[Round]]:
    """Every player's rounds, in round order. Keys follow the entrants' order."""
    annulled = annulled_players(config, history)
    first = first_rounds(history)
    dropped = drop_rounds(history)
    out: dict[str, list[Round]] = {e.player_id: [] for e in history.entrants}
    for record in history.rounds:
        found = results_by_table(record.results)
        seen: dict[str, Round] = {}
        for table in record.tables:
            for p in table.seats:
                if p not in out:
                    raise TournamentError(f"round {record.number}: {p} is not an entrant")
                if p in seen:
                    raise TournamentError(f"round {record.number}: {p} is seated twice")
            seen.update(
                table_rounds(config, record.number, table, found.get(table.number), annulled)
            )
        for p, rounds in out.items():
            if p in seen:
                rounds.append(seen[p])
            elif record.number < first.get(p, 1):
                late_points = config.bye_points if config.late_entry_points == "bye" else 0.0
                rounds.append(Round(record.number, LATE, late_points))
            elif p in dropped and record.number > dropped[p]:
                rounds.append(Round(record.number, ABSENT))
            else:
                rounds.append(Round(record.number, ABSENT))
    return out


def points(rounds: list[Round]) -> float:
    return round(sum(r.points for r in rounds), 9)
