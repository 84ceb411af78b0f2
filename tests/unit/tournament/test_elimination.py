"""Single and double elimination: seeding, byes to top seeds, losers' bracket, finals."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament.core import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    TableResult,
    TournamentError,
    bracket,
    is_finished,
    pair_next_round,
    standings,
)
from services.tournament.core.elimination import bracket_order


def seeds(n: int) -> tuple[Entrant, ...]:
    return tuple(Entrant(f"s{i + 1}", rating=100.0 - i, registered=i) for i in range(n))


def play_out(config: FormatConfig, n: int, winner=lambda t: t.seats[0]) -> tuple[History, list]:
    """Play to the end; ``winner(table)`` picks who wins each table."""
    history = History(seeds(n))
    rounds = []
    while not is_finished(config, history):
        tables = pair_next_round(config, history)
        rounds.append([t.seats for t in tables])
        results = tuple(
            TableResult(t.number, t.seats, (1, 2) if winner(t) == t.seats[0] else (2, 1))
            for t in tables
            if not t.bye
        )
        number = len(history.rounds) + 1
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
        assert number < 40
    return history, rounds


def test_standard_seeding_puts_one_against_sixteen_and_eight_against_nine() -> None:
    order = bracket_order(16)
    pairs = [tuple(order[i : i + 2]) for i in range(0, 16, 2)]
    assert pairs[0] == (1, 16) and pairs[1] == (8, 9)
    assert sorted(a + b for a, b in pairs) == [17] * 8
    assert order.index(1) < 8 <= order.index(2)  # 1 and 2 only meet in the final


def test_single_elimination_of_eight_favourites_win() -> None:
    config = FormatConfig("single-elimination")
    history, rounds = play_out(config, 8)
    assert rounds == [
        [("s1", "s8"), ("s4", "s5"), ("s2", "s7"), ("s3", "s6")],
        [("s1", "s4"), ("s2", "s3")],
        [("s1", "s2")],
    ]
    assert bracket(config, history)["champion"] == "s1"
    assert [r.player_id for r in standings(config, history)][:2] == ["s1", "s2"]
    with pytest.raises(TournamentError, match="finished"):
        pair_next_round(config, history)


def test_byes_go_to_the_top_seeds_when_the_field_is_not_a_power_of_two() -> None:
    config = FormatConfig("single-elimination")
    tables = pair_next_round(config, History(seeds(6)))
    assert [t.seats for t in tables if not t.bye] == [("s4", "s5"), ("s3", "s6")]
    assert [t.seats for t in tables if t.bye] == [("s1",), ("s2",)]


def test_upsets_advance_the_winner_and_the_bracket_shows_who_plays_next() -> None:
    config = FormatConfig("single-elimination")
    history = History(seeds(4))
    r1 = pair_next_round(config, history)
    results = (TableResult(1, r1[0].seats, (2, 1)),)  # s4 beats s1; s2-s3 still playing
    history = History(history.entrants, (RoundRecord(1, r1, results),))
    view = bracket(config, history)
    final = next(m for m in view["matches"] if m["id"] == "W2-1")
    assert final["players"] == ["s4", None] and final["status"] == "pending"
    assert json.loads(json.dumps(view)) == view


def test_double_elimination_losers_bracket_and_grand_final_reset() -> None:
    config = FormatConfig("double-elimination", grand_final_reset=True)
    # s4 loses round 1 to s5 (an upset), then wins everything through the losers' bracket,
    # including the first grand final against s1: a reset final decides
    met = set()

    def pick(t):
        if set(t.seats) == {"s4", "s5"} and "s4-s5" not in met:
            met.add("s4-s5")
            return "s5"
        return "s4" if "s4" in t.seats else t.seats[0]

    history, rounds = play_out(config, 8, pick)
    view = bracket(config, history)
    by_id = {m["id"]: m for m in view["matches"]}
    assert by_id["W1-2"]["winner"] == "s5"
    assert by_id["GF1"]["players"] == ["s1", "s4"] and by_id["GF1"]["winner"] == "s4"
    assert by_id["GF2"]["status"] == "decided" and by_id["GF2"]["winner"] == "s4"
    assert view["champion"] == "s4"
    # every player but the champion lost twice (s1 in the reset final)
    losses = {}
    for m in view["matches"]:
        if m["loser"]:
            losses[m["loser"]] = losses.get(m["loser"], 0) + 1
    assert all(losses[p] == 2 for p in losses if p != "s4") and "s4" in losses
    assert [r.player_id for r in standings(config, history)][:2] == ["s4", "s1"]


def test_no_reset_when_the_winners_bracket_champion_wins_the_final() -> None:
    config = FormatConfig("double-elimination")
    history, rounds = play_out(config, 8)
    view = bracket(config, history)
    gf2 = next(m for m in view["matches"] if m["id"] == "GF2")
    assert gf2["status"] == "not needed" and view["champion"] == "s1"
    met = [frozenset(t) for r in rounds for t in r if len(t) == 2]
    assert len(met) == 14  # 7 in the winners' bracket, 6 in the losers', 1 final


def test_a_dropped_player_loses_by_walkover() -> None:
    config = FormatConfig("single-elimination")
    history = History(seeds(4))
    r1 = pair_next_round(config, history)
    results = tuple(TableResult(t.number, t.seats, (1, 2)) for t in r1)
    history = History(history.entrants, (RoundRecord(1, r1, results),), dropped=(("s2", 1),))
    assert bracket(config, history)["champion"] == "s1"
    assert is_finished(config, history)
    with pytest.raises(TournamentError, match="finished"):
        pair_next_round(config, history)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(2, 20),
    double=st.booleans(),
    upsets=st.lists(st.booleans(), min_size=1, max_size=40),
)
def test_any_bracket_ends_with_one_champion(n, double, upsets) -> None:
    config = FormatConfig("double-elimination" if double else "single-elimination")
    history = History(seeds(n))
    k = 0
    while not is_finished(config, history):
        tables = pair_next_round(config, history)
        seated = [p for t in tables for p in t.seats]
        assert len(seated) == len(set(seated))
        results = []
        for t in tables:
            if not t.bye:
                results.append(
                    TableResult(t.number, t.seats, (2, 1) if upsets[k % len(upsets)] else (1, 2))
                )
                k += 1
        number = len(history.rounds) + 1
        history = History(
            history.entrants, (*history.rounds, RoundRecord(number, tables, tuple(results)))
        )
        assert number <= 2 * n + 2
    champion = bracket(config, history)["champion"]
    rows = standings(config, history)
    assert rows[0].player_id == champion
    games = sum(1 for r in history.rounds for t in r.tables if not t.bye)
    if not double:
        assert games == n - 1
    else:
        assert games in (2 * n - 2, 2 * n - 1)  # without or with the reset final
