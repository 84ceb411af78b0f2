"""Round robin: the Berger tables of FIDE Handbook C.05 Annex 1, and withdrawals.

The published tables below are copied from the FIDE Berger tables as reproduced at
c.w.fox.tripod.com/chess/berger.html ("Berger Tables", 3-4, 5-6 and 7-8 players): each
pair is white-black by starting number; with an odd field the highest number is the bye.
"""

from __future__ import annotations

import pytest

from services.tournament.core import (
    OPPONENT_WITHDRAWN,
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    TableResult,
    TournamentError,
    is_finished,
    pair_next_round,
    planned_rounds,
    standings,
)
from services.tournament.core.roundrobin import berger_table

PUBLISHED = {
    4: "1-4 2-3 | 4-3 1-2 | 2-4 3-1",
    6: "1-6 2-5 3-4 | 6-4 5-3 1-2 | 2-6 3-1 4-5 | 6-5 1-4 2-3 | 3-6 4-2 5-1",
    8: (
        "1-8 2-7 3-6 4-5 | 8-5 6-4 7-3 1-2 | 2-8 3-1 4-7 5-6 | 8-6 7-5 1-4 2-3 | "
        "3-8 4-2 5-1 6-7 | 8-7 1-6 2-5 3-4 | 4-8 5-3 6-2 7-1"
    ),
}


def parse(text: str) -> list[list[tuple[int, int]]]:
    return [
        [tuple(int(x) for x in pair.split("-")) for pair in rnd.split()] for rnd in text.split("|")
    ]


@pytest.mark.parametrize("n", [4, 6, 8])
def test_berger_tables_equal_the_published_ones(n: int) -> None:
    assert berger_table(n) == parse(PUBLISHED[n])


def entrants(n: int) -> tuple[Entrant, ...]:
    return tuple(Entrant(f"p{i + 1}", rating=2000 - i, registered=i) for i in range(n))


def play(config: FormatConfig, history: History, outcome=lambda t: (1, 2)) -> History:
    tables = pair_next_round(config, history)
    results = tuple(TableResult(t.number, t.seats, outcome(t)) for t in tables if not t.bye)
    number = len(history.rounds) + 1
    return History(
        history.entrants,
        (*history.rounds, RoundRecord(number, tables, results)),
        history.dropped,
        history.late,
    )


@pytest.mark.parametrize("n", [4, 6, 8])
def test_the_service_pairs_the_berger_table_by_seed(n: int) -> None:
    config = FormatConfig("round-robin")
    history = History(entrants(n))
    for rnd in parse(PUBLISHED[n]):
        tables = pair_next_round(config, history)
        assert [t.seats for t in tables] == [(f"p{w}", f"p{b}") for w, b in rnd]
        history = play(config, history)
    assert is_finished(config, history)
    with pytest.raises(TournamentError, match="finished"):
        pair_next_round(config, history)


def test_five_players_use_the_six_table_and_meeting_six_is_the_bye() -> None:
    config = FormatConfig("round-robin")
    history = History(entrants(5))
    assert planned_rounds(config, 5) == 5
    for rnd in parse(PUBLISHED[6]):
        tables = pair_next_round(config, history)
        games = [(f"p{w}", f"p{b}") for w, b in rnd if 6 not in (w, b)]
        bye = next(w if b == 6 else b for w, b in rnd if 6 in (w, b))
        assert [t.seats for t in tables if not t.bye] == games
        assert [t.seats for t in tables if t.bye] == [(f"p{bye}",)]
        history = play(config, history)
    # every pair met exactly once, each player had exactly one bye
    met = [frozenset(t.seats) for r in history.rounds for t in r.tables if not t.bye]
    assert len(met) == len(set(met)) == 10
    byes = sorted(t.seats[0] for r in history.rounds for t in r.tables if t.bye)
    assert byes == ["p1", "p2", "p3", "p4", "p5"]


def test_double_round_robin_reverses_colours_and_switches_the_last_two_rounds() -> None:
    config = FormatConfig("round-robin", double_rounds=True)
    history = History(entrants(4))
    assert planned_rounds(config, 4) == 6
    seen = []
    for _ in range(6):
        seen.append([t.seats for t in pair_next_round(config, history)])
        history = play(config, history)
    first = parse(PUBLISHED[4])
    as_names = [[(f"p{w}", f"p{b}") for w, b in rnd] for rnd in first]
    assert seen[:3] == [as_names[0], as_names[2], as_names[1]]
    assert seen[3:] == [[(b, w) for w, b in rnd] for rnd in as_names]
    for p in ("p1", "p2", "p3", "p4"):
        colours = [0 if r[i][0] == p else 1 for r in seen for i in range(2) if p in r[i]]
        assert all(colours[k : k + 3] not in ([0, 0, 0], [1, 1, 1]) for k in range(4))


def _finish_with_withdrawal(rule: str, drop_after: int) -> tuple[History, FormatConfig]:
    config = FormatConfig("round-robin", withdrawal_rule=rule, tiebreaks=("sonneborn-berger",))
    history = History(entrants(6))
    for _ in range(drop_after):
        history = play(config, history)
    history = History(history.entrants, history.rounds, (("p1", drop_after),))
    while not is_finished(config, history):
        history = play(config, history)
    return history, config


def test_a_withdrawal_after_half_the_games_keeps_results_and_forfeits_the_rest() -> None:
    history, config = _finish_with_withdrawal("void-if-under-half", 3)
    later = [t for r in history.rounds[3:] for t in r.tables if t.note == OPPONENT_WITHDRAWN]
    assert len(later) == 2 and all(t.absent == ("p1",) for t in later)
    rows = {r.player_id: r for r in standings(config, history)}
    assert rows["p1"].dropped and rows["p1"].games == 3 and rows["p1"].points > 0
    for t in later:  # the scheduled opponents score a forfeit win that is not a game
        assert rows[t.seats[0]].games == 4


def test_a_withdrawal_before_half_the_games_annuls_every_result() -> None:
    history, config = _finish_with_withdrawal("void-if-under-half", 2)
    rows = standings(config, history)
    assert rows[-1].player_id == "p1" and rows[-1].points == 0 and rows[-1].dropped
    by = {r.player_id: r for r in rows}
    assert all(by[p].games == 4 for p in ("p2", "p3", "p4", "p5", "p6"))
    # p1 lost nothing they played (seat 0 always wins in `play`): the games p1 won count
    # for nobody now, nor the forfeits of the rounds after the withdrawal
    assert sum(r.points for r in rows) == 10


def test_keep_rule_keeps_results_even_after_one_game() -> None:
    history, config = _finish_with_withdrawal("keep", 1)
    rows = {r.player_id: r for r in standings(config, history)}
    assert rows["p1"].games == 1 and rows["p1"].points == 1
    forfeits = [t for r in history.rounds for t in r.tables if t.note == OPPONENT_WITHDRAWN]
    assert len(forfeits) == 4
    assert sum(r.points for r in rows.values()) == 15


def test_only_swiss_and_multiplayer_take_late_entries() -> None:
    from services.tournament.core import FormatConfig, late_entries_refused

    assert late_entries_refused(FormatConfig(format="swiss", late_entry_until=2)) is None
    assert late_entries_refused(FormatConfig(format="multiplayer", table_sizes=(3,))) is None
    assert "a round-robin takes no late entries" in (
        late_entries_refused(FormatConfig(format="round-robin")) or "")
    for fmt in ("single-elimination", "double-elimination"):
        assert "an elimination bracket takes no late entries" in (
            late_entries_refused(FormatConfig(format=fmt)) or "")
