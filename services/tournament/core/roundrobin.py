"""Round robin by the Berger tables (FIDE Handbook C.05, Annex 1).

Players are numbered 1..n in seed order; an odd field adds a bye as number n+1 (whoever
meets it that round has the bye). With an even n and m = n - 1, in round r:

- player n meets p = ((r - 1) * n/2 mod m) + 1: p has white in odd rounds, n in even;
- on board k+1 (k = 1 .. n/2 - 1) player p+k (white) meets p-k (black), counted mod m
  in 1..m.

This reproduces the published tables (board 1 is the one with player n). A double round
robin plays the tables twice, the second cycle with colours reversed, and, as FIDE
recommends, with the last two rounds of the first cycle switched (so that nobody gets
the same colour three times running across the two cycles).

Withdrawals: a player who drops out is never seated again; their scheduled opponent gets
a bye table noted :data:`OPPONENT_WITHDRAWN`, scored as a forfeit win when the withdrawn
player's results stand and as nothing when they are annulled (see ``ledger``).
"""

from __future__ import annotations

from services.tournament.core.model import (
    OPPONENT_WITHDRAWN,
    FormatConfig,
    History,
    Table,
    TournamentError,
    seed_order,
)
from services.tournament.core.progress import next_round_number, require_complete


def berger_round(n: int, r: int) -> list[tuple[int, int]]:
    """(white, black) player numbers of round ``r`` (1-based) for an even ``n``."""
    if n % 2 or n < 2:
        raise ValueError("Berger tables need an even number of players")
    m = n - 1
    if not 1 <= r <= m:
        raise ValueError(f"a single round robin of {n} has rounds 1..{m}")
    p = ((r - 1) * (n // 2)) % m + 1
    boards = [(p, n) if r % 2 == 1 else (n, p)]
    for k in range(1, n // 2):
        boards.append(((p + k - 1) % m + 1, (p - k - 1) % m + 1))
    return boards


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Every round of the Berger table for ``n`` players (odd: the bye is n+1)."""
    even = n + (n % 2)
    return [berger_round(even, r) for r in range(1, even)]


def cycle_rounds(n: int) -> int:
    return n + (n % 2) - 1


def round_robin_rounds(config: FormatConfig, n: int) -> int:
    return cycle_rounds(n) * (2 if config.double_rounds else 1)


def pair_round_robin(config: FormatConfig, history: History) -> tuple[Table, ...]:
    require_complete(config, history)
    if history.late:
        raise TournamentError("a round robin takes no late entries")
    if history.reinstated:
        raise TournamentError("a round robin reinstates no dropped player")
    number = next_round_number(history)
    players = [e.player_id for e in seed_order(history.entrants)]
    n = len(players)
    if n < 2:
        raise TournamentError("a round robin needs at least two players")
    total = round_robin_rounds(config, n)
    if number > total:
        raise TournamentError(f"the round robin is finished after {total} rounds")
    cycle = cycle_rounds(n)
    second = number > cycle
    within = number - cycle if second else number
    if config.double_rounds and not second and cycle >= 2 and within >= cycle - 1:
        within = 2 * cycle - 1 - within  # the last two rounds of the first cycle switched
    boards = berger_round(n + n % 2, within)
    dropped = {p: r for p, r in history.dropped}
    gone = {p for p in players if p in dropped and dropped[p] < number}
    tables: list[Table] = []
    byes: list[Table] = []
    for white, black in boards:
        if second:
            white, black = black, white
        seats = [players[x - 1] if x <= n else None for x in (white, black)]
        real = [s for s in seats if s is not None and s not in gone]
        withdrawn = tuple(s for s in seats if s is not None and s in gone)
        if len(real) == 2:
            tables.append(Table(0, (real[0], real[1])))
        elif len(real) == 1:
            note = OPPONENT_WITHDRAWN if withdrawn else ""
            byes.append(Table(0, (real[0],), bye=True, note=note, absent=withdrawn))
    ordered = tables + byes
    return tuple(Table(i, t.seats, t.bye, t.note, t.absent) for i, t in enumerate(ordered, start=1))
