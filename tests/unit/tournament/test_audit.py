"""Recomputing a tournament from its events: agreement, and every tampering named."""

from __future__ import annotations

import copy

from services.tournament.core import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    TableResult,
    history_events,
    pair_next_round,
    recheck,
    replay,
    standings,
)

CONFIG = FormatConfig("swiss", rounds=4, tiebreaks=("buchholz", "sonneborn-berger"))
OUTCOMES = [(1, 2), (2, 1), (1, 1)]


def tournament(config: FormatConfig = CONFIG, n: int = 16) -> tuple[History, dict]:
    history = History(tuple(Entrant(f"p{i:02d}", 2000 - 7 * i, i) for i in range(n)))
    published = {}
    for number in range(1, config.rounds + 1):
        tables = pair_next_round(config, history)
        results = tuple(
            TableResult(
                t.number,
                t.seats,
                OUTCOMES[(number * 7 + t.number) % 3],
                match_id=f"m{number}-{t.number}",
            )
            for t in tables
            if not t.bye
        )
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
        published[number] = standings(config, history)
    return history, published


def events() -> list[dict]:
    history, published = tournament()
    return history_events(history, published)


def test_an_honest_tournament_rechecks_clean_and_replays_to_the_same_history() -> None:
    history, published = tournament()
    found = history_events(history, published)
    assert recheck(CONFIG, found) == []
    again = replay(found)
    assert standings(CONFIG, again) == standings(CONFIG, history)


def test_changing_one_result_is_named() -> None:
    found = events()
    i = next(k for k, e in enumerate(found) if e["type"] == "result" and e["round"] == 2)
    found[i]["placements"] = (
        list(reversed(found[i]["placements"]))
        if found[i]["placements"][0] != found[i]["placements"][1]
        else [1, 2]
    )
    problems = [str(p) for p in recheck(CONFIG, found)]
    assert any(p.startswith("standings after round 2:") for p in problems), problems


def test_swapping_two_pairings_is_named_by_round_and_table() -> None:
    found = events()
    i = next(k for k, e in enumerate(found) if e["type"] == "round" and e["round"] == 3)
    tables = found[i]["tables"]
    a, b = tables[0]["seats"][1], tables[1]["seats"][1]
    tables[0]["seats"][1], tables[1]["seats"][1] = b, a
    for e in found[i + 1 :]:  # results follow the published tables
        if e["type"] == "result" and e["round"] == 3 and e["table"] in (1, 2):
            e["seats"] = tables[e["table"] - 1]["seats"]
    problems = [p for p in recheck(CONFIG, found)]
    first = [p for p in problems if p.round == 3 and p.table == 1]
    assert (
        first and f"round 3: table 1 published ({tables[0]['seats'][0]}, {b})" in first[0].message
    )
    assert "rules give" in first[0].message


def test_editing_a_tiebreak_value_is_named() -> None:
    found = events()
    i = max(k for k, e in enumerate(found) if e["type"] == "standings")
    row = found[i]["rows"][0]
    row["tiebreaks"][0][1] += 0.5
    problems = [str(p) for p in recheck(CONFIG, found)]
    assert problems == [
        f"standings after round 4: {row['player_id']}'s buchholz published "
        f"{row['tiebreaks'][0][1]:g}, rules give {row['tiebreaks'][0][1] - 0.5:g}"
    ]


def test_dropping_a_match_result_is_named() -> None:
    found = events()
    i = next(k for k, e in enumerate(found) if e["type"] == "result" and e["round"] == 3)
    del found[i]
    problems = [str(p) for p in recheck(CONFIG, found)]
    assert any(
        "round 4: published, but the rules pair no round here" in p
        and "round 3 is not complete" in p
        for p in problems
    ), problems


def test_a_result_for_other_seats_is_named() -> None:
    found = events()
    i = next(k for k, e in enumerate(found) if e["type"] == "result" and e["round"] == 1)
    found[i]["seats"] = list(reversed(found[i]["seats"]))
    problems = [str(p) for p in recheck(CONFIG, found)]
    assert any(p.startswith(f"round 1: table {found[i]['table']} result names") for p in problems)


def test_a_reordered_standings_row_is_named() -> None:
    found = events()
    i = max(k for k, e in enumerate(found) if e["type"] == "standings")
    rows = found[i]["rows"]
    rows[0], rows[1] = copy.deepcopy(rows[1]), copy.deepcopy(rows[0])
    problems = [str(p) for p in recheck(CONFIG, found)]
    assert any("standings after round 4: rank 1 published" in p for p in problems)


def test_round_robin_and_multiplayer_events_recheck_clean() -> None:
    rr = FormatConfig("round-robin", tiebreaks=("sonneborn-berger",))
    history = History(tuple(Entrant(f"p{i}", 100 - i, i) for i in range(5)))
    for number in range(1, 6):
        tables = pair_next_round(rr, history)
        results = tuple(TableResult(t.number, t.seats, (1, 2)) for t in tables if not t.bye)
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
    assert recheck(rr, history_events(history, {5: standings(rr, history)})) == []
    mp = FormatConfig("multiplayer", rounds=3, table_sizes=(3, 4), placement_points=(4, 2, 1, 0))
    history = History(tuple(Entrant(f"p{i}", 100 - i, i) for i in range(10)))
    for number in range(1, 4):
        tables = pair_next_round(mp, history)
        results = tuple(
            TableResult(
                t.number,
                t.seats,
                tuple(range(1, len(t.seats) + 1)),
                game_tiebreak=tuple(float(len(t.seats)) for _ in t.seats),
            )
            for t in tables
        )
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
    assert recheck(mp, history_events(history, {3: standings(mp, history)})) == []


def test_withdrawals_late_entries_absences_and_brackets_recheck_clean() -> None:
    swiss = FormatConfig("swiss", rounds=4, late_entry_until=2, late_entry_points="bye")
    people = (*(Entrant(f"p{i:02d}", 2000 - i, i) for i in range(9)), Entrant("late", 2100, 9))
    history = History(people, late=(("late", 2),), absent=(("p03", 3),))
    published = {}
    for number in range(1, 5):
        tables = pair_next_round(swiss, history)
        results = tuple(TableResult(t.number, t.seats, (1, 2)) for t in tables if not t.bye)
        dropped = (("p05", 1),)  # withdraws after round 1
        history = History(
            history.entrants,
            (*history.rounds, RoundRecord(number, tables, results)),
            dropped,
            history.late,
            history.absent,
        )
        published[number] = standings(swiss, history)
    assert not any("p05" in t.seats for r in history.rounds[1:] for t in r.tables)
    assert not any("p03" in t.seats for t in history.rounds[2].tables)
    assert any("late" in t.seats for t in history.rounds[1].tables)
    assert recheck(swiss, history_events(history, published)) == []

    elim = FormatConfig("double-elimination")
    history = History(tuple(Entrant(f"s{i}", 100 - i, i) for i in range(6)))
    number = 0
    while True:
        try:
            tables = pair_next_round(elim, history)
        except Exception:
            break
        number += 1
        results = tuple(
            TableResult(t.number, t.seats, (2, 1) if number == 2 else (1, 2))
            for t in tables
            if not t.bye
        )
        history = History(history.entrants, (*history.rounds, RoundRecord(number, tables, results)))
    assert number >= 5
    assert recheck(elim, history_events(history, {number: standings(elim, history)})) == []


def test_a_wrong_wins_count_is_named_once_when_wins_is_also_a_tiebreak() -> None:
    config = FormatConfig("swiss", rounds=4, tiebreaks=("wins", "buchholz"))
    history, published = tournament(config)
    found = history_events(history, published)
    i = max(k for k, e in enumerate(found) if e["type"] == "standings")
    row = found[i]["rows"][0]
    row["wins"] += 1
    row["tiebreaks"] = [[n, v + 1 if n == "wins" else v] for n, v in row["tiebreaks"]]
    problems = [str(p) for p in recheck(config, found)]
    assert problems == [
        f"standings after round 4: {row['player_id']}'s wins published "
        f"{row['wins']:g}, rules give {row['wins'] - 1:g}"
    ]
