"""Defects found by the organisers' audit of the tournament core, each worked by hand.

1. A format setting of the wrong kind (NaN, a string for points, 2.5 seats, a negative
   late-entry round) was accepted at creation and broke the event later (an unhashable log,
   a standings call that raised, a pairing of 2.5 seats).
2. A multiplayer table where a seat never came and the two who played tied: they scored
   ``draw_points`` (0.5) each, less than the loser of the same table would have had
   (2 of 4, 2, 1), because the "two seats tie" rule looked at the seats left, not the table.
"""

from __future__ import annotations

import json
import math

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
from services.tournament.core.audit import history_events, recheck, standings_event

# -- 1. format settings are checked for their kind when an event is created -------------


@pytest.mark.parametrize("setting,named", [
    ({"bye_points": float("nan")}, "bye_points"),
    ({"draw_points": float("inf")}, "draw_points"),
    ({"bye_points": "x"}, "bye_points"),
    ({"forfeit_win_points": True}, "forfeit_win_points"),
    ({"placement_points": [4, "two", 1]}, "placement_points"),
    ({"placement_points": [1e400]}, "placement_points"),
    ({"placement_points": 4}, "placement_points"),
    ({"rounds": 2.5}, "rounds"),
    ({"rounds": "3"}, "rounds"),
    ({"rounds": True}, "rounds"),
    ({"late_entry_until": -1}, "late_entry_until"),
    ({"late_entry_until": 1.5}, "late_entry_until"),
    ({"double_rounds": "yes"}, "double_rounds"),
    ({"grand_final_reset": 0}, "grand_final_reset"),
    ({"tiebreaks": "buchholz"}, "tiebreaks"),
    ({"pairing_version": True}, "pairing_version"),
    ({"bye_points": 1e300}, "bye_points"),
])
def test_a_format_setting_of_the_wrong_kind_is_refused_at_creation(
        setting: dict, named: str) -> None:
    base = {"format": "swiss", "rounds": 2}
    text = json.dumps({**base, **setting})  # NaN and Infinity are what json.dumps writes
    with pytest.raises(TournamentError) as caught:
        FormatConfig.from_json(text)
    assert named in str(caught.value), str(caught.value)


def test_multiplayer_table_sizes_must_be_whole_numbers() -> None:
    with pytest.raises(TournamentError, match="table_sizes"):
        FormatConfig.from_json('{"format": "multiplayer", "table_sizes": [2.5, 3]}')


def test_good_settings_still_pass_and_a_stored_format_is_read_as_before() -> None:
    ok = FormatConfig.from_json(json.dumps({
        "format": "multiplayer", "rounds": 3, "table_sizes": [3, 4],
        "placement_points": [4, 2.5, 1, 0], "draw_points": 0.5, "bye_points": 1,
        "tiebreaks": ["placement-points"], "late_entry_until": 2}))
    assert ok.placement_points == (4, 2.5, 1, 0)
    # the log of an earlier release is read without the creation's checks (as published)
    assert FormatConfig.from_stored({"format": "swiss", "rounds": 2}).rounds == 2


# -- 2. a tie of the seats left at a multiplayer table ------------------------------------

PLAYERS = (Entrant("A", 0, 0), Entrant("B", 0, 1), Entrant("C", 0, 2))


def _one_table(placements: tuple[int, ...], forfeited: tuple[str, ...]) -> History:
    table = Table(1, ("A", "B", "C"))
    result = TableResult(1, ("A", "B", "C"), placements, forfeited=forfeited)
    return History(PLAYERS, (RoundRecord(1, (table,), (result,)),))


def _points(config: FormatConfig, history: History) -> dict[str, float]:
    return {r.player_id: r.points for r in standings(config, history)}


def test_two_players_left_at_a_three_seat_table_who_tie_share_first_and_second() -> None:
    """Placement points 4, 2, 1. C never came (forfeited); A and B tie for first: they
    cover places 1 and 2, so (4 + 2) / 2 = 3 each, as at the full table (a played tie of A
    and B with C third also gives 3 each). Before the fix: 0.5 each (draw_points)."""
    config = FormatConfig.from_json(json.dumps({
        "format": "multiplayer", "rounds": 2, "table_sizes": [3],
        "placement_points": [4, 2, 1]}))
    assert _points(config, _one_table((1, 1, 3), ("C",))) == {"A": 3.0, "B": 3.0, "C": 0.0}
    # and as before: the two left placed 1 and 2, and a full table's tie
    assert _points(config, _one_table((1, 2, 3), ("C",))) == {"A": 4.0, "B": 2.0, "C": 0.0}
    assert _points(config, _one_table((1, 1, 3), ())) == {"A": 3.0, "B": 3.0, "C": 1.0}


def test_a_two_seat_draw_still_scores_draw_points() -> None:
    config = FormatConfig.from_json('{"format": "swiss", "rounds": 1}')
    history = History(PLAYERS[:2], (RoundRecord(
        1, (Table(1, ("A", "B")),), (TableResult(1, ("A", "B"), (1, 1)),)),))
    assert _points(config, history) == {"A": 0.5, "B": 0.5}


def test_an_event_stored_before_the_fix_scores_and_verifies_as_published() -> None:
    """A format stored without ``scoring_version`` (every log before the fix) keeps the
    old scoring, so its published standings recompute the same; a new event names 2."""
    stored = FormatConfig.from_stored({"format": "multiplayer", "rounds": 2,
                                       "table_sizes": [3], "placement_points": [4, 2, 1]})
    assert stored.scoring_version == 1
    history = _one_table((1, 1, 3), ("C",))
    assert _points(stored, history) == {"A": 0.5, "B": 0.5, "C": 0.0}
    published = standings(stored, history)
    events = history_events(history) + [standings_event(1, published)]
    assert recheck(stored, events) == []
    new = FormatConfig.from_json('{"format": "multiplayer", "rounds": 2, "table_sizes": [3], '
                                 '"placement_points": [4, 2, 1]}')
    assert new.scoring_version == 2 and new.to_dict()["scoring_version"] == 2
    # the new scoring of the same results is not what the old log published
    assert recheck(new, events) != []
    assert math.isclose(_points(new, history)["A"], 3.0)
