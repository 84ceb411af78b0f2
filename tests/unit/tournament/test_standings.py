"""Standings and tie-breaks on a worked crosstable, values computed by hand.

Four players, round robin (Berger table for 4): round 1 A-D 1-0, B-C draw; round 2 D-C
won by D by forfeit (C did not show), A-B 0-1; round 3 B-D 1-0, C-A draw.
Points: A 1.5, B 2.5, C 1, D 1. Games: A 3, B 3, C 2, D 2 (a forfeit is not a game).

Buchholz with the own-score rule for unplayed rounds: A = D 1 + B 2.5 + C 1 = 4.5;
B = C 1 + A 1.5 + D 1 = 3.5; C = B 2.5 + own 1 + A 1.5 = 5; D = A 1.5 + own 1 + B 2.5 = 5.
Median Buchholz (highest and lowest cut): A 1, B 1, C 1.5, D 1.5.
Sonneborn-Berger (played games): A = 1x1 + 0 + 1/2x1 = 1.5; B = 1/2x1 + 1x1.5 + 1x1 = 3;
C = 1/2x2.5 + 1/2x1.5 = 2; D = 0.
"""

from __future__ import annotations

import pytest

from services.tournament.core import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    Table,
    TableResult,
    TournamentError,
    standings,
)

ALL = ("buchholz", "median-buchholz", "sonneborn-berger", "head-to-head", "wins")
PEOPLE = (
    Entrant("A", 2000, 0),
    Entrant("B", 1900, 1),
    Entrant("C", 1800, 2),
    Entrant("D", 1700, 3),
)


def crosstable() -> History:
    r1 = (Table(1, ("A", "D")), Table(2, ("B", "C")))
    r2 = (Table(1, ("D", "C")), Table(2, ("A", "B")))
    r3 = (Table(1, ("B", "D")), Table(2, ("C", "A")))
    return History(
        PEOPLE,
        (
            RoundRecord(
                1, r1, (TableResult(1, ("A", "D"), (1, 2)), TableResult(2, ("B", "C"), (1, 1)))
            ),
            RoundRecord(
                2,
                r2,
                (
                    TableResult(1, ("D", "C"), (1, 2), kind="forfeit", forfeited=("C",)),
                    TableResult(2, ("A", "B"), (2, 1)),
                ),
            ),
            RoundRecord(
                3, r3, (TableResult(1, ("B", "D"), (1, 2)), TableResult(2, ("C", "A"), (1, 1)))
            ),
        ),
    )


def test_points_games_wins_and_every_tiebreak_value() -> None:
    rows = {
        r.player_id: r for r in standings(FormatConfig("round-robin", tiebreaks=ALL), crosstable())
    }
    assert {p: (r.points, r.games, r.wins) for p, r in rows.items()} == {
        "A": (1.5, 3, 1),
        "B": (2.5, 3, 2),
        "C": (1.0, 2, 0),
        "D": (1.0, 2, 0),  # the forfeit win scores but is neither a game nor a win
    }
    assert {p: dict(r.tiebreaks) for p, r in rows.items()} == {
        "A": {"buchholz": 4.5, "median-buchholz": 1.0, "sonneborn-berger": 1.5, "head-to-head": 0.0, "wins": 1.0},
        "B": {"buchholz": 3.5, "median-buchholz": 1.0, "sonneborn-berger": 3.0, "head-to-head": 0.0, "wins": 2.0},
        "C": {"buchholz": 5.0, "median-buchholz": 1.5, "sonneborn-berger": 2.0, "head-to-head": 0.0, "wins": 0.0},
        "D": {"buchholz": 5.0, "median-buchholz": 1.5, "sonneborn-berger": 0.0, "head-to-head": 0.0, "wins": 0.0},
    }  # fmt: skip


def test_tiebreaks_apply_in_the_configured_order() -> None:
    by_sb = standings(
        FormatConfig("round-robin", tiebreaks=("buchholz", "sonneborn-berger")), crosstable()
    )
    assert [r.player_id for r in by_sb] == ["B", "A", "C", "D"]
    assert [r.rank for r in by_sb] == [1, 2, 3, 4]


def test_players_level_after_every_tiebreak_are_ranked_by_seed() -> None:
    people = (Entrant("C", 1800, 2), Entrant("D", 1900, 3), *PEOPLE[:2])
    history = History(people, crosstable().rounds)
    rows = standings(FormatConfig("round-robin", tiebreaks=("buchholz",)), history)
    assert [r.player_id for r in rows][2:] == ["D", "C"]  # D now seeded above C


def test_head_to_head_counts_games_between_the_tied() -> None:
    # round 3's C-A becomes a win for C: A and D finish level on 1 point, and A beat D
    history = crosstable()
    r3 = history.rounds[2]
    changed = RoundRecord(3, r3.tables, (r3.results[0], TableResult(2, ("C", "A"), (1, 2))))
    seeded_d_first = (PEOPLE[3], PEOPLE[1], PEOPLE[2], Entrant("A", 1000, 9))
    history = History(seeded_d_first, (*history.rounds[:2], changed))
    without = standings(FormatConfig("round-robin"), history)
    assert [r.player_id for r in without][2:] == ["D", "A"]  # level: seed order
    rows = standings(FormatConfig("round-robin", tiebreaks=("head-to-head",)), history)
    assert [r.player_id for r in rows][2:] == ["A", "D"]
    assert rows[2].tiebreaks == (("head-to-head", 1.0),) and rows[3].tiebreaks == (
        ("head-to-head", 0.0),
    )


def test_a_correction_replaces_the_earlier_result_of_a_table() -> None:
    history = crosstable()
    r1 = history.rounds[0]
    corrected = RoundRecord(1, r1.tables, (*r1.results, TableResult(1, ("A", "D"), (2, 1))))
    history = History(PEOPLE, (corrected, *history.rounds[1:]))
    rows = {r.player_id: r.points for r in standings(FormatConfig("round-robin"), history)}
    assert rows["A"] == 0.5 and rows["D"] == 2.0


def test_a_result_for_the_wrong_seats_is_refused() -> None:
    history = crosstable()
    r1 = history.rounds[0]
    wrong = RoundRecord(1, r1.tables, (TableResult(1, ("D", "A"), (1, 2)), r1.results[1]))
    with pytest.raises(TournamentError, match="table 1 result names seats D, A"):
        standings(FormatConfig("round-robin"), History(PEOPLE, (wrong,)))


def test_format_config_round_trips_through_json_and_refuses_nonsense() -> None:
    config = FormatConfig(
        "multiplayer",
        rounds=3,
        table_sizes=(3, 4),
        placement_points=(4, 2, 1, 0),
        tiebreaks=("buchholz",),
    )
    assert FormatConfig.from_json(config.to_json()) == config
    assert FormatConfig.from_json('{"format": "swiss"}') == FormatConfig("swiss")
    for bad, reason in [
        ('{"format": "knockout"}', "unknown format"),
        ('{"format": "swiss", "tiebreaks": ["coin"]}', "unknown tie-break"),
        ('{"format": "swiss", "colour": 1}', "unknown format setting"),
        ('{"format": "swiss", "table_sizes": [3]}', "two-seat"),
        ('{"format": "multiplayer", "table_sizes": [7]}', "between 2 and 6"),
        ("[1]", "JSON object"),
        ("{", "not JSON"),
    ]:
        with pytest.raises(TournamentError, match=reason):
            FormatConfig.from_json(bad)
