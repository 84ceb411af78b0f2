"""Rounds of 3-6 seat tables, as board-game events run them.

1. Who plays: the active players, ranked by the current standings (points, the game's
   tie-break, the configured tie-breaks, then seed order); round 1 in seed order.
2. Table sizes (:func:`table_sizes`): the fewest tables whose sizes are all allowed,
   as even as possible, larger tables first (12 at 3-4: 4,4,4; 10 at 3-4: 4,3,3). When
   no split exists (5 at 3-4), the lowest-ranked players who have not had a bye yet sit
   the round out with a bye until one does.
3. Grouping by standing: the ranking is cut into consecutive tables (the top players
   together). Then players of two tables are swapped, one pair at a time, while a swap
   lowers the repeated table-mates (for each pair at a table, the square of the times
   they already shared one), the largest gain first, then the smallest move in the
   ranking; a deterministic hill climb (at most 50 swaps).
4. Seats: filled from seat 0 (the first player) on; each seat goes to the player who has
   sat there least often before, then the one whose seats so far were latest on average,
   then the better ranked. Nobody is first player every round.
"""

from __future__ import annotations

from itertools import combinations

from services.tournament.core.ledger import Round
from services.tournament.core.model import FormatConfig, History, Table, TournamentError
from services.tournament.core.progress import (
    active_players,
    check_late_entries,
    next_round_number,
    require_complete,
)
from services.tournament.core.standings import standings

MAX_SWAP_PASSES = 50


def table_sizes(n: int, allowed: tuple[int, ...]) -> list[int] | None:
    """Sizes of the tables for ``n`` players, larger first, or None when none fit."""
    sizes = sorted(set(allowed))
    best: list[int] | None = None
    for count in range(1, n + 1):
        if count * sizes[0] > n:
            break
        if count * sizes[-1] < n:
            continue
        base, extra = divmod(n, count)
        split = [base + 1] * extra + [base] * (count - extra)
        if all(s in sizes for s in split):
            return split
        found = _split(n, count, sizes)
        if found is not None:
            best = found
            break
    return best


def _split(n: int, count: int, sizes: list[int]) -> list[int] | None:
    """Any split of ``n`` into ``count`` allowed sizes, the most even one, larger first."""
    options = []

    def walk(left: int, slots: int, top: int, acc: list[int]) -> None:
        if slots == 0:
            if left == 0:
                options.append(list(acc))
            return
        for s in reversed(sizes):
            if s <= top and s * slots >= left >= s:
                walk(left - s, slots - 1, s, [*acc, s])

    walk(n, count, sizes[-1], [])
    if not options:
        return None
    return min(options, key=lambda o: (max(o) - min(o), [-x for x in o]))


def _met(book: dict[str, list[Round]]) -> dict[frozenset[str], int]:
    out: dict[frozenset[str], int] = {}
    for p, rounds in book.items():
        for r in rounds:
            for o in r.opponents:
                if p < o:
                    key = frozenset((p, o))
                    out[key] = out.get(key, 0) + 1
    return out


def _repeats(table: list[str], met: dict[frozenset[str], int]) -> int:
    """Prior meetings among a table's players, squared per pair (a third meeting is much
    worse than a second)."""
    return sum(met.get(frozenset(pair), 0) ** 2 for pair in combinations(table, 2))


def _improve(tables: list[list[str]], rank: dict[str, int], met: dict) -> None:
    """Swap players between tables while a swap lowers the repeats; of the swaps that do,
    the largest gain, then the smallest move in the ranking, then the highest ranked."""
    for _ in range(MAX_SWAP_PASSES):
        best = None
        for t, u in combinations(range(len(tables)), 2):
            a_table, b_table = tables[t], tables[u]
            before = _repeats(a_table, met) + _repeats(b_table, met)
            if before == 0:
                continue
            for i, a in enumerate(a_table):
                for j, b in enumerate(b_table):
                    new_a = a_table[:i] + [b] + a_table[i + 1 :]
                    new_b = b_table[:j] + [a] + b_table[j + 1 :]
                    gain = before - _repeats(new_a, met) - _repeats(new_b, met)
                    if gain <= 0:
                        continue
                    key = (-gain, abs(rank[a] - rank[b]), rank[a], rank[b])
                    if best is None or key < best[0]:
                        best = (key, t, u, i, j)
        if best is None:
            return
        _, t, u, i, j = best
        tables[t][i], tables[u][j] = tables[u][j], tables[t][i]


def _seat(
    players: list[str], book: dict[str, list[Round]], rank: dict[str, int]
) -> tuple[str, ...]:
    def history(p: str) -> list[Round]:
        return [r for r in book.get(p, []) if r.seat >= 0 and r.table_size > 1]

    left = list(players)
    seats: list[str] = []
    for s in range(len(players)):

        def key(p: str, s: int = s) -> tuple[int, float, int]:
            past = history(p)
            here = sum(1 for r in past if r.seat == s)
            late = sum(r.seat / max(1, r.table_size - 1) for r in past) / len(past) if past else 0.0
            return (here, -late, rank[p])

        chosen = min(left, key=key)
        seats.append(chosen)
        left.remove(chosen)
    return tuple(seats)


def pair_multiplayer(config: FormatConfig, history: History) -> tuple[Table, ...]:
    book = require_complete(config, history)
    number = next_round_number(history)
    players = active_players(history, number)
    check_late_entries(config, history, number)
    if number == 1:
        ranked = players
    else:
        order = [row.player_id for row in standings(config, history)]
        position = {p: i for i, p in enumerate(order)}
        ranked = sorted(players, key=lambda p: position[p])
    if len(ranked) < min(config.table_sizes):
        raise TournamentError(
            f"round {number}: {len(ranked)} players cannot fill a table of "
            f"{min(config.table_sizes)}"
        )
    rank = {p: i for i, p in enumerate(ranked)}
    byes: list[str] = []
    seated = list(ranked)
    sizes = table_sizes(len(seated), config.table_sizes)
    while sizes is None:
        had = {p for p in seated if any(r.paired_bye for r in book[p])}
        fresh = [p for p in reversed(seated) if p not in had]
        out = fresh[0] if fresh else seated[-1]
        seated.remove(out)
        byes.append(out)
        if len(seated) < min(config.table_sizes):
            raise TournamentError(f"round {number}: no table split for {len(ranked)} players")
        sizes = table_sizes(len(seated), config.table_sizes)
    groups: list[list[str]] = []
    start = 0
    for size in sizes:
        groups.append(seated[start : start + size])
        start += size
    _improve(groups, rank, _met(book))
    tables = [
        Table(i + 1, _seat(sorted(g, key=lambda p: rank[p]), book, rank))
        for i, g in enumerate(groups)
    ]
    for p in byes:
        tables.append(Table(len(tables) + 1, (p,), bye=True))
    return tuple(tables)
