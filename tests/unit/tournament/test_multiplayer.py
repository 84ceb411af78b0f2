"""Multiplayer rounds for the 3-6 seat games: table sizes, grouping, seats, points."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from services.tournament.core import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    TableResult,
    TournamentError,
    pair_next_round,
    standings,
)
from services.tournament.core.multiplayer import table_sizes

NEON = FormatConfig("multiplayer", rounds=3, table_sizes=(3, 4), placement_points=(4, 2, 1, 0))


@pytest.mark.parametrize(
    ("n", "allowed", "sizes"),
    [
        (12, (3, 4), [4, 4, 4]),
        (10, (3, 4), [4, 3, 3]),
        (9, (3, 4), [3, 3, 3]),
        (7, (3, 4), [4, 3]),
        (5, (3, 4), None),
        (14, (3, 4, 5, 6), [5, 5, 4]),
        (13, (4,), None),
        (6, (3, 4, 5, 6), [6]),
    ],
)
def test_table_sizes_are_the_fewest_tables_as_even_as_possible(n, allowed, sizes) -> None:
    assert table_sizes(n, allowed) == sizes


def players(n: int) -> tuple[Entrant, ...]:
    return tuple(Entrant(f"p{i:02d}", rating=100.0 - i, registered=i) for i in range(n))


def play(config: FormatConfig, history: History, places=None) -> History:
    tables = pair_next_round(config, history)
    results = []
    for t in tables:
        if t.bye:
            continue
        order = places(t) if places else tuple(range(1, len(t.seats) + 1))
        results.append(
            TableResult(t.number, t.seats, order, game_tiebreak=tuple(float(10 - i) for i in order))
        )
    number = len(history.rounds) + 1
    return History(history.entrants, (*history.rounds, RoundRecord(number, tables, tuple(results))))


def test_twelve_players_three_rounds_group_by_standing_and_avoid_repeats() -> None:
    history = History(players(12))
    first = pair_next_round(NEON, history)
    assert [sorted(t.seats) for t in first] == [
        ["p00", "p01", "p02", "p03"],
        ["p04", "p05", "p06", "p07"],
        ["p08", "p09", "p10", "p11"],
    ]
    for _ in range(3):
        history = play(NEON, history)
    mates = Counter(
        frozenset(pair)
        for r in history.rounds
        for t in r.tables
        for pair in combinations(t.seats, 2)
    )
    # with 3 tables of 4 before, each table of round 2 must hold two who met (pigeonhole):
    # exactly one such pair per table is the best possible, and nobody meets three times
    second = history.rounds[1].tables
    first_mates = {frozenset(p) for t in history.rounds[0].tables for p in combinations(t.seats, 2)}
    assert [sum(frozenset(p) in first_mates for p in combinations(t.seats, 2)) for t in second] == [
        1,
        1,
        1,
    ]
    assert max(mates.values()) == 2
    # round 2's top table holds round 1's three table winners (4 points each)
    after_one = {
        r.player_id: r.points
        for r in standings(NEON, History(history.entrants, history.rounds[:1]))
    }
    assert sorted(after_one[p] for p in second[0].seats)[1:] == [4, 4, 4]


def test_seats_rotate_so_nobody_is_first_player_every_round() -> None:
    history = History(players(12))
    for _ in range(3):
        history = play(NEON, history)
    firsts = Counter(t.seats[0] for r in history.rounds for t in r.tables)
    assert max(firsts.values()) == 1


def test_placement_points_with_ties_splitting() -> None:
    history = History(players(4))
    tables = pair_next_round(NEON, history)
    seats = tables[0].seats
    result = TableResult(1, seats, (1, 2, 2, 4), game_tiebreak=(5.0, 3.0, 7.0, 1.0))
    history = History(history.entrants, (RoundRecord(1, tables, (result,)),))
    rows = standings(NEON, history)
    points = {r.player_id: r.points for r in rows}
    assert [points[p] for p in seats] == [4.0, 1.5, 1.5, 0.0]
    # equal on points: the game's own tie-break decides (7 beats 3)
    assert [r.player_id for r in rows][1:3] == [seats[2], seats[1]]
    assert rows[1].tiebreaks[0] == ("game-tiebreak", 7.0)


def test_a_field_that_cannot_be_split_gives_byes_to_the_lowest() -> None:
    history = History(players(5))
    tables = pair_next_round(NEON, history)
    assert [len(t.seats) for t in tables] == [4, 1] and tables[1].bye
    assert tables[1].seats == ("p04",)
    history = play(NEON, history)
    second = pair_next_round(NEON, history)
    assert second[1].bye and second[1].seats != ("p04",)


@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(3, 30),
    sizes=st.sampled_from([(3, 4), (3, 4, 5, 6), (4, 5), (3,)]),
    seed=st.integers(0, 10**6),
)
def test_every_player_sits_once_a_round_at_an_allowed_table(n, sizes, seed) -> None:
    assume(n >= min(sizes))  # fewer players than the smallest table: refused (test below)
    config = FormatConfig("multiplayer", rounds=3, table_sizes=sizes, placement_points=(4, 2, 1, 0))
    history = History(players(n))
    for number in range(1, 4):
        tables = pair_next_round(config, history)
        seated = Counter(p for t in tables for p in t.seats)
        assert set(seated.values()) == {1} and len(seated) == n
        assert all(t.bye or len(t.seats) in sizes for t in tables)
        results = tuple(
            TableResult(
                t.number,
                t.seats,
                tuple(1 + (seed * (i + 3) * number) % len(t.seats) for i in range(len(t.seats))),
            )
            for t in tables
            if not t.bye
        )
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
    rows = standings(config, history)
    assert [r.rank for r in rows] == list(range(1, n + 1))


def test_a_seat_that_never_showed_scores_nothing_and_the_rest_are_placed_among_themselves() -> None:
    history = History(players(4))
    tables = pair_next_round(NEON, history)
    seats = tables[0].seats
    result = TableResult(1, seats, (4, 1, 2, 3), forfeited=(seats[0],))
    history = History(history.entrants, (RoundRecord(1, tables, (result,)),))
    rows = {r.player_id: r for r in standings(NEON, history)}
    assert [rows[p].points for p in seats] == [0.0, 4.0, 2.0, 1.0]
    assert [rows[p].games for p in seats] == [0, 1, 1, 1]


def test_fewer_players_than_the_smallest_table_are_refused_with_the_reason() -> None:
    config = FormatConfig("multiplayer", rounds=3, table_sizes=(4, 5), placement_points=(4, 2, 1, 0))
    with pytest.raises(TournamentError, match="3 players cannot fill a table of 4"):
        pair_next_round(config, History(players(3)))
