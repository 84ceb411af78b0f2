"""Swiss pairing for two-seat games: a maximum-weight matching over score groups.

Absolute rules (never broken; :class:`TournamentError` when they cannot all hold):

- no two players meet twice (no edge between them in the graph);
- a player gets at most one pairing bye; the bye goes to the lowest player of the
  pairing order (score, then seed) who has not had one and whose absence leaves the rest
  pairable (FIDE C.04.1 c-d). A bye scores ``bye_points`` and is not a game;
- dropped players are never paired again; late entries join from their first round.

Every other wish is a penalty on an edge; networkx's ``max_weight_matching`` (with
``maxcardinality``) finds the pairing of least total penalty. With integer weights it
computes exactly, and the graph is built in pairing order, so the result is the same on
every machine. Penalties, from heaviest to lightest:

1. two players with the same absolute colour preference (colour difference beyond +-1,
   or the same colour twice running) - FIDE C.04.3 C3;
2. the square of how many score groups apart the two are (pair within the score group;
   when someone must float, float as little as possible);
3. same strong or mild colour preference (seat balance);
4. within a score group, how far the pair is from "top half against bottom half"
   (S1 against S2, the Dutch system's order); across groups, their distance in the order.

Round 1 therefore pairs seed 1 against seed n/2+1, 2 against n/2+2, ... Colours (seat 0
is white) follow FIDE C.04.3 E: both preferences granted; else the stronger one; else
alternate from the last round in which the two had different colours; else the higher
ranked player's preference; in round 1 the higher ranked player gets white on odd
boards and black on even boards (FIDE draws the first colour by lot; here it is fixed
so that the pairing is reproducible).

Cost: O(n^2) edges and networkx's O(n^3) blossom algorithm; 256 players take well
under a second (see tests/unit/tournament/test_swiss.py).
"""

from __future__ import annotations

import networkx as nx

from services.tournament.core.ledger import Round
from services.tournament.core.model import FormatConfig, History, Table, TournamentError
from services.tournament.core.progress import (
    active_players,
    next_round_number,
    pairing_order,
    require_complete,
)

WHITE, BLACK = 0, 1
NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3

ORDER_UNIT = 1
COLOUR_UNIT = 1_000
SCORE_UNIT = 100_000
ABSOLUTE_CLASH = 100_000_000
BASE = 10**13


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


def _edge_penalty(
    i: int,
    j: int,
    groups: list[int],
    positions: list[int],
    group_sizes: dict[int, int],
    prefs: list[tuple[int | None, int]],
) -> int:
    (ca, sa), (cb, sb) = prefs[i], prefs[j]
    penalty = 0
    if ca is not None and ca == cb:
        if sa == ABSOLUTE and sb == ABSOLUTE:
            penalty += ABSOLUTE_CLASH
        else:
            penalty += COLOUR_UNIT * (2 if min(sa, sb) >= STRONG else 1)
    gap = groups[j] - groups[i]
    penalty += SCORE_UNIT * gap * gap
    if gap == 0:
        half = group_sizes[groups[i]] // 2
        penalty += ORDER_UNIT * abs((positions[j] - positions[i]) - half)
    else:
        penalty += ORDER_UNIT * (j - i)
    return penalty


def _match(
    order: list[str], book: dict[str, list[Round]], scores: list[float]
) -> list[tuple[int, int]] | None:
    """Pairs of indices into ``order``, or None when no pairing without a rematch exists."""
    values = sorted(set(scores), reverse=True)
    groups = [values.index(s) for s in scores]
    sizes: dict[int, int] = {}
    positions = []
    for g in groups:
        positions.append(sizes.get(g, 0))
        sizes[g] = sizes.get(g, 0) + 1
    prefs = [colour_preference(colour_history(book[p])) for p in order]
    met = [opponents(book[p]) for p in order]
    graph = nx.Graph()
    graph.add_nodes_from(range(len(order)))
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            if order[j] in met[i]:
                continue
            weight = BASE - _edge_penalty(i, j, groups, positions, sizes, prefs)
            graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(order):
        return None
    return sorted((min(a, b), max(a, b)) for a, b in matching)


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
    if len(players) < 2:
        raise TournamentError(f"round {number}: fewer than two players left to pair")
    ranked = pairing_order(players, book, history)
    bye_player = None
    pairs = None
    if len(ranked) % 2 == 1:
        for k in range(len(ranked) - 1, -1, -1):
            candidate = ranked[k][0]
            if had_pairing_bye(book[candidate]):
                continue
            rest = ranked[:k] + ranked[k + 1 :]
            pairs = _match([p for p, _ in rest], book, [s for _, s in rest])
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
        pairs = _match([p for p, _ in ranked], book, [s for _, s in ranked])
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
