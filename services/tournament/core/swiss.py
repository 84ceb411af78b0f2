"""Swiss pairing for two-seat games: a maximum-weight matching over score groups.

Absolute rules (never broken; :class:`TournamentError` when they cannot all hold):

- no two players meet twice (no edge between them in the graph);
- a player gets at most one pairing bye; the bye goes to the lowest player of the
  pairing order (score, then seed) who has not had one and whose absence leaves the rest
  pairable (FIDE C.04.1 c-d). A bye scores ``bye_points`` and is not a game;
- dropped players are not paired again unless reinstated (from the round their
  reinstatement names); late entries join from their first round.

Every other wish is a penalty on an edge; networkx's ``max_weight_matching`` (with
``maxcardinality``) finds the pairing of least total penalty. With integer weights it
computes exactly, and the graph is built in pairing order, so the result is the same on
every machine. Penalties, from heaviest to lightest:

1. two players with the same absolute colour preference (colour difference beyond +-1,
   or the same colour twice running) - FIDE C.04.3 C3;
2. floating: the square of how many score groups apart the two are, and a float from
   a higher group costing more than one from a lower group (the higher groups are
   paired completely first);
3. same strong or mild colour preference, weighted by the score group in which the pair
   is made (the lower player's), higher groups first, as the Dutch system settles its
   brackets top down;
4. the same float as last round or as two rounds before (FIDE B5/B6; a bye or a forfeit
   win counts as a downfloat);
5. order: within a score group, how far the pair is from "top half against bottom half"
   (S1 against S2), an exchange between the halves costing more than any transposition;
   a player moved down meets the highest resident it can, and the one moved down is the
   lowest of its group it can be.

The units (:class:`Units`) are scaled to the field so that each criterion outweighs all
the lighter ones together. With these, the engine reproduces the five rounds of a
published Dutch-system example exactly (tests/unit/tournament/test_swiss_published.py);
it is not a complete implementation of every Dutch rule (no acceleration, no D.4
heterogeneous-bracket special cases, no requested half-point byes).

The graph is complete (every pair that has not met) for fields of up to
:data:`COMPLETE_UP_TO` players, so the pairing is the one of least total penalty. A
larger field is paired on the promising edges only (:func:`_candidates`; when that graph
has no perfect matching, the candidate width doubles until it is complete, so a pairing is
found whenever one exists): faster, but it can miss the best pairing, e.g. float down the
player who floated last round when another could go. ``FormatConfig.pairing_version`` 1
(the logs of earlier releases) pairs every field that way, so their rounds recompute as
they were published.

Round 1 therefore pairs seed 1 against seed n/2+1, 2 against n/2+2, ... Colours (seat 0
is white) follow FIDE C.04.3 E: both preferences granted; else the stronger one; else
alternate from the last round in which the two had different colours; else the higher
ranked player's preference; in round 1 the higher ranked player gets white on odd
boards and black on even boards (FIDE draws the first colour by lot; here it is fixed
so that the pairing is reproducible).

Cost: networkx's blossom algorithm on O(n^2) edges up to COMPLETE_UP_TO, O(n * width)
beyond. Measured on the shared 2-core machine (CPU time per round, rounds 2-7): 128
players 0.24-0.38 s on the complete graph (0.03-0.04 s on the promising edges); 256 players
on the promising edges 0.11-0.14 s (the complete graph would take 1.9-2.5 s).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from services.tournament.core.ledger import Round
from services.tournament.core.model import FormatConfig, History, Table, TournamentError
from services.tournament.core.progress import (
    active_players,
    check_late_entries,
    next_round_number,
    pairing_order,
    require_complete,
)

WHITE, BLACK = 0, 1
NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3

DOWN, UP = -1, 1

COMPLETE_UP_TO = 128
"""The largest field paired on the complete graph (``pairing_version`` 2)."""


@dataclass(frozen=True)
class Units:
    """Penalty units, each larger than every sum of the units below it can reach, so
    the matching honours the criteria in order (an integer lexicographic weight)."""

    order: int
    float_: int
    colour: int
    score: int
    absolute: int
    base: int

    @classmethod
    def for_field(cls, n: int, n_groups: int) -> Units:
        order = 1
        float_ = order * (n + 1) ** 3 * 4
        colour = float_ * 8 * (n + 1)
        score = colour * 4 * (n + 1) * (n_groups + 1)
        absolute = score * (2 * n_groups**3 + 2 * n_groups + 1) * (n + 1)
        return cls(order, float_, colour, score, absolute, absolute * (n + 1) * 2)


def totals_before_each_round(book: dict[str, list[Round]]) -> dict[int, dict[str, float]]:
    """Round -> every player's points before that round."""
    out: dict[int, dict[str, float]] = {}
    running = dict.fromkeys(book, 0.0)
    rounds = sorted({r.round for rs in book.values() for r in rs})
    for number in rounds:
        out[number] = dict(running)
        for p, rs in book.items():
            for r in rs:
                if r.round == number:
                    running[p] += r.points
    return out


def colour_history(rounds: list[Round]) -> list[int]:
    """Colours of the games played (seat 0 white, seat 1 black), in order."""
    return [r.seat for r in rounds if r.is_game and r.table_size == 2]


def colour_preference(colours: list[int]) -> tuple[int | None, int]:
    """(preferred colour or None, strength) after FIDE C.04.3 A.6."""
    if not colours:
        return None, NONE
    diff = colours.count(WHITE) - colours.count(BLACK)
    last = colours[-1]
    if diff > 1:
        return BLACK, ABSOLUTE
    if diff < -1:
        return WHITE, ABSOLUTE
    if len(colours) >= 2 and colours[-1] == colours[-2]:
        return 1 - last, ABSOLUTE
    if diff == 1:
        return BLACK, STRONG
    if diff == -1:
        return WHITE, STRONG
    return 1 - last, MILD


def opponents(rounds: list[Round]) -> set[str]:
    return {o for r in rounds if r.is_game for o in r.opponents}


def had_pairing_bye(rounds: list[Round]) -> bool:
    return any(r.paired_bye or r.kind == "forfeit-win" for r in rounds)


def floats(
    rounds: list[Round], totals_before: dict[int, dict[str, float]], me: str
) -> dict[int, int]:
    """Round -> DOWN or UP for the rounds in which the player floated. A pairing bye and
    a forfeit win count as a downfloat (FIDE C.04.3 A.4)."""
    out: dict[int, int] = {}
    for r in rounds:
        if r.paired_bye or r.kind == "forfeit-win":
            out[r.round] = DOWN
        elif r.is_game and r.table_size == 2:
            mine = totals_before[r.round][me]
            theirs = totals_before[r.round][r.opponents[0]]
            if mine > theirs:
                out[r.round] = DOWN
            elif mine < theirs:
                out[r.round] = UP
    return out


def _edge_penalty(
    i: int,
    j: int,
    groups: list[int],
    positions: list[int],
    group_sizes: dict[int, int],
    prefs: list[tuple[int | None, int]],
    float_history: list[dict[int, int]],
    this_round: int,
    units: Units,
) -> int:
    (ca, sa), (cb, sb) = prefs[i], prefs[j]
    penalty = 0
    if ca is not None and ca == cb:
        if sa == ABSOLUTE and sb == ABSOLUTE:
            penalty += units.absolute
        else:
            # a clash weighs more in a higher score bracket (where the pair is made:
            # the lower player's), as the Dutch system settles brackets top down
            weight = len(group_sizes) - groups[j]
            penalty += units.colour * (2 if min(sa, sb) >= STRONG else 1) * weight
    gap = groups[j] - groups[i]
    size = group_sizes[groups[i]]
    if gap == 0:
        half = size // 2
        penalty += units.order * abs((positions[j] - positions[i]) - half)
        if (positions[i] < half) == (positions[j] < half):
            penalty += units.order * size  # an exchange between S1 and S2 comes last
        return penalty
    # Floating as few score groups as possible, and from as low a group as possible
    # (the higher groups are paired completely first).
    n_groups = len(group_sizes)
    penalty += units.score * (2 * n_groups * gap * gap + n_groups - groups[i])
    # The same float as last round, or as two rounds before (FIDE B5, B6).
    for back, weight in ((1, 2), (2, 1)):
        if float_history[i].get(this_round - back) == DOWN:
            penalty += units.float_ * weight
        if float_history[j].get(this_round - back) == UP:
            penalty += units.float_ * weight
    # A player moved down meets the highest resident it can, and the player moved down
    # is the lowest of its group it can be.
    penalty += units.order * (
        (group_sizes[groups[j]] + 1) * positions[j] + size * size * (size - 1 - positions[i])
    )
    return penalty


def _candidates(
    i: int,
    groups: list[int],
    positions: list[int],
    starts: dict[int, int],
    sizes: dict[int, int],
    n: int,
    width: int,
) -> list[int]:
    """Opponents worth an edge for ``i`` (indices above ``i``): its neighbours in the
    order and the players near its ideal opponent in its score group."""
    near = set(range(i + 1, min(n, i + 1 + width)))
    g = groups[i]
    half = sizes[g] // 2
    ideal = starts[g] + positions[i] + half
    for j in range(ideal - width // 2, ideal + width // 2 + 1):
        if i < j < n and groups[j] == g:
            near.add(j)
    return sorted(near)


def _match(
    order: list[str],
    book: dict[str, list[Round]],
    scores: list[float],
    float_history: dict[str, dict[int, int]],
    this_round: int,
    complete: bool = True,
) -> list[tuple[int, int]] | None:
    """Pairs of indices into ``order``, or None when no pairing without a rematch exists.

    On the complete graph when ``complete``. Else the graph first holds only the promising
    edges (:func:`_candidates`, width 4): the neighbours in the order and those near the
    "top half against bottom half" opponent. When that graph has no perfect matching, the
    width doubles until the graph is complete, so a pairing is found whenever one exists."""
    n = len(order)
    values = sorted(set(scores), reverse=True)
    groups = [values.index(s) for s in scores]
    sizes: dict[int, int] = {}
    starts: dict[int, int] = {}
    positions = []
    for i, g in enumerate(groups):
        starts.setdefault(g, i)
        positions.append(sizes.get(g, 0))
        sizes[g] = sizes.get(g, 0) + 1
    prefs = [colour_preference(colour_history(book[p])) for p in order]
    met = [opponents(book[p]) for p in order]
    floated = [float_history[p] for p in order]
    units = Units.for_field(n, len(values))
    width = n if complete else 4
    while True:
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        complete = width >= n
        for i in range(n):
            others = (
                range(i + 1, n)
                if complete
                else _candidates(i, groups, positions, starts, sizes, n, width)
            )
            for j in others:
                if order[j] in met[i]:
                    continue
                penalty = _edge_penalty(
                    i, j, groups, positions, sizes, prefs, floated, this_round, units
                )
                graph.add_edge(i, j, weight=units.base - penalty)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == n:
            return sorted((min(a, b), max(a, b)) for a, b in matching)
        if complete:
            return None
        width *= 2


def _colours(high: str, low: str, book: dict[str, list[Round]], board: int) -> tuple[str, str]:
    """(white, black) for a pair whose ``high`` is ranked above ``low`` (FIDE C.04.3 E)."""
    ch, cl = colour_history(book[high]), colour_history(book[low])
    (ph, sh), (pl, sl) = colour_preference(ch), colour_preference(cl)
    if ph is None and pl is None:
        return (high, low) if board % 2 == 1 else (low, high)
    if ph is None:
        return (high, low) if pl == BLACK else (low, high)
    if pl is None or ph != pl:
        return (high, low) if ph == WHITE else (low, high)
    if sh != sl:
        winner, pref = (high, ph) if sh > sl else (low, pl)
        other = low if winner == high else high
        return (winner, other) if pref == WHITE else (other, winner)
    if sh == ABSOLUTE:
        dh = abs(ch.count(WHITE) - ch.count(BLACK))
        dl = abs(cl.count(WHITE) - cl.count(BLACK))
        if dh != dl:
            winner, pref = (high, ph) if dh > dl else (low, pl)
            other = low if winner == high else high
            return (winner, other) if pref == WHITE else (other, winner)
    for a, b in zip(reversed(ch), reversed(cl)):
        if a != b:
            return (high, low) if a == BLACK else (low, high)
    return (high, low) if ph == WHITE else (low, high)


def pair_swiss(config: FormatConfig, history: History) -> tuple[Table, ...]:
    book = require_complete(config, history)
    number = next_round_number(history)
    players = active_players(history, number)
    check_late_entries(config, history, number)
    if len(players) < 2:
        raise TournamentError(f"round {number}: fewer than two players left to pair")
    ranked = pairing_order(players, book, history)
    complete = config.pairing_version >= 2 and len(ranked) <= COMPLETE_UP_TO
    before = totals_before_each_round(book)
    float_history = {p: floats(book[p], before, p) for p in players}
    bye_player = None
    pairs = None
    if len(ranked) % 2 == 1:
        for k in range(len(ranked) - 1, -1, -1):
            candidate = ranked[k][0]
            if had_pairing_bye(book[candidate]):
                continue
            rest = ranked[:k] + ranked[k + 1 :]
            pairs = _match([p for p, _ in rest], book, [s for _, s in rest], float_history,
                           number, complete)
            if pairs is not None:
                bye_player = candidate
                ranked = rest
                break
        if bye_player is None:
            raise TournamentError(
                f"round {number}: no pairing gives the bye to a player without one "
                "and avoids every rematch"
            )
    else:
        pairs = _match([p for p, _ in ranked], book, [s for _, s in ranked], float_history,
                       number, complete)
    if pairs is None:
        raise TournamentError(f"round {number}: every pairing would repeat an opponent")
    # Boards: the pair with the higher top score first, then higher sum, then higher rank.
    scores = [s for _, s in ranked]
    pairs.sort(
        key=lambda ij: (-max(scores[ij[0]], scores[ij[1]]), -(scores[ij[0]] + scores[ij[1]]), ij[0])
    )
    tables = []
    for board, (i, j) in enumerate(pairs, start=1):
        white, black = _colours(ranked[i][0], ranked[j][0], book, board)
        tables.append(Table(board, (white, black)))
    if bye_player is not None:
        tables.append(Table(len(tables) + 1, (bye_player,), bye=True))
    return tuple(tables)
