"""Standings: points, then the tournament's tie-breaks in order, then seed order.

Tie-breaks (values shown in every row, in the configured order):

- ``buchholz``: the sum of the final points of every opponent met in a played game, plus,
  for every round the player did not play (bye, forfeit either way, late-entry round,
  round after dropping out, including the rounds between a drop and a reinstatement),
  the player's own final points: the "own score" rule for
  unplayed rounds (a virtual opponent with the player's own score), a simplification of
  FIDE C.07 (2023) article 16, which this core does not implement in full. Opponents count
  with their actual points, unplayed rounds included.
- ``median-buchholz``: the same contributions with the highest and the lowest cut (when
  there are more than two).
- ``sonneborn-berger``: for each played game, the opponent's points times the result
  against them (1, 1/2, 0). Unplayed rounds add nothing.
- ``head-to-head``: points scored against players finishing on the same points, played
  games only (1, 1/2, 0 per game; multiplayer: per table-mate placed below / level).
- ``wins``: games won over the board; forfeit wins and byes excluded, as FIDE counts them.
  A shared first place is not a win.
- ``placement-points``: the points themselves (multiplayer events list it for clarity).
- ``game-tiebreak``: the sum of the game's own tie-break values (``TableResult.game_tiebreak``).
  Multiplayer events always apply it first, before the configured ones.

Elimination formats rank first by how far a player got in the bracket (the champion, then
the last one knocked out, ...), then by points (wins) and the tie-breaks.

Players still level after all tie-breaks are ranked by seed order (rating, then
registration order, then player id), so ranks are always 1..n without gaps or repeats.
Players whose round-robin results were annulled (withdrawal before half their games) are
listed last with no points.
"""

from __future__ import annotations

from services.tournament.core.elimination import exit_levels
from services.tournament.core.ledger import Round, annulled_players, ledger, points, still_dropped
from services.tournament.core.model import (
    FormatConfig,
    History,
    StandingRow,
    seed_order,
)

UNPLAYED_FOR_BUCHHOLZ = (
    "bye",
    "forfeit-win",
    "forfeit-loss",
    "late",
    "absent",
    "withdrawn-opponent",
)


def _buchholz_parts(rounds: list[Round], totals: dict[str, float], own: float) -> list[float]:
    parts: list[float] = []
    for r in rounds:
        if r.is_game:
            parts.extend(totals[o] for o in r.opponents)
        elif r.kind in UNPLAYED_FOR_BUCHHOLZ:
            parts.append(own)
    return parts


def tiebreak_value(
    name: str, player: str, book: dict[str, list[Round]], totals: dict[str, float]
) -> float:
    rounds = book[player]
    own = totals[player]
    if name == "buchholz":
        return round(sum(_buchholz_parts(rounds, totals, own)), 9)
    if name == "median-buchholz":
        parts = sorted(_buchholz_parts(rounds, totals, own))
        if len(parts) > 2:
            parts = parts[1:-1]
        return round(sum(parts), 9)
    if name == "sonneborn-berger":
        return round(
            sum(
                totals[o] * s for r in rounds if r.is_game for o, s in zip(r.opponents, r.scores_vs)
            ),
            9,
        )
    if name == "head-to-head":
        return round(
            sum(
                s
                for r in rounds
                if r.is_game
                for o, s in zip(r.opponents, r.scores_vs)
                if totals[o] == own
            ),
            9,
        )
    if name == "wins":
        return float(sum(1 for r in rounds if r.win))
    if name == "placement-points":
        return own
    if name == "game-tiebreak":
        return round(sum(r.game_tiebreak for r in rounds), 9)
    raise ValueError(f"unknown tie-break {name!r}")


def effective_tiebreaks(config: FormatConfig) -> tuple[str, ...]:
    """The configured tie-breaks; multiplayer events always break ties by the game's own
    tie-break first."""
    if config.format == "multiplayer" and "game-tiebreak" not in config.tiebreaks:
        return ("game-tiebreak", *config.tiebreaks)
    return tuple(config.tiebreaks)


def standings(config: FormatConfig, history: History) -> tuple[StandingRow, ...]:
    book = ledger(config, history)
    totals = {p: points(rounds) for p, rounds in book.items()}
    annulled = annulled_players(config, history)
    for p in annulled:
        totals[p] = 0.0
    dropped = still_dropped(history)
    seeds = {e.player_id: i for i, e in enumerate(seed_order(history.entrants))}
    levels: dict[str, int] = {}
    if config.is_elimination:
        levels = exit_levels(config, history)
    rows = []
    for player in book:
        tbs = tuple(
            (name, tiebreak_value(name, player, book, totals))
            for name in effective_tiebreaks(config)
        )
        rows.append((player, tbs))
    rows.sort(
        key=lambda row: (
            row[0] in annulled,
            -levels.get(row[0], 0),
            -totals[row[0]],
            tuple(-v for _, v in row[1]),
            seeds[row[0]],
        )
    )
    return tuple(
        StandingRow(
            rank=i + 1,
            player_id=player,
            points=totals[player],
            games=0 if player in annulled else sum(1 for r in book[player] if r.is_game),
            wins=0 if player in annulled else sum(1 for r in book[player] if r.win),
            tiebreaks=tbs,
            dropped=player in dropped,
        )
        for i, (player, tbs) in enumerate(rows)
    )
