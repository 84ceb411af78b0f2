"""Reinstating a dropped player (``History.reinstated``): paired again from the round it
names, the missed rounds unplayed, more than once, and checked by the audit."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.tournament.core import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    TableResult,
    TournamentError,
    history_events,
    pair_next_round,
    recheck,
    reinstatement_refused,
    standings,
)
from services.tournament.core.ledger import ABSENT, ledger, still_dropped

SWISS = FormatConfig("swiss", rounds=5, tiebreaks=("buchholz",))
MULTI = FormatConfig("multiplayer", rounds=4, table_sizes=(3,),
                     placement_points=(3.0, 1.0, 0.0))


def field(n: int) -> tuple[Entrant, ...]:
    return tuple(Entrant(f"p{i:02d}", 2000 - 10 * i, i) for i in range(n))


def play(config: FormatConfig, history: History) -> History:
    """Pair the next round and give every table's first seat the win."""
    number = len(history.rounds) + 1
    tables = pair_next_round(config, history)
    results = tuple(
        TableResult(t.number, t.seats, tuple(range(1, len(t.seats) + 1)),
                    match_id=f"m{number}-{t.number}")
        for t in tables if not t.bye)
    return replace(history, rounds=(*history.rounds, RoundRecord(number, tables, results)))


def seated(history: History, number: int) -> set[str]:
    return {p for t in history.rounds[number - 1].tables for p in t.seats}


def drop(history: History, player: str) -> History:
    return replace(history, dropped=(*history.dropped, (player, len(history.rounds))))


def reinstate(history: History, player: str) -> History:
    return replace(history,
                   reinstated=(*history.reinstated, (player, len(history.rounds) + 1)))


@pytest.mark.parametrize("config,n", [(SWISS, 8), (MULTI, 9)])
def test_a_reinstated_player_is_paired_again_from_the_round_it_names(config, n) -> None:
    h = play(config, History(field(n)))
    h = drop(h, "p03")
    h = play(config, h)
    assert "p03" not in seated(h, 2)
    assert "p03" in still_dropped(h)
    h = reinstate(h, "p03")
    assert "p03" not in still_dropped(h)
    h = play(config, h)
    assert "p03" in seated(h, 3)
    rows = {r.player_id: r for r in standings(config, h)}
    assert rows["p03"].dropped is False


def test_the_missed_rounds_count_as_unplayed_zero_points_and_own_score_for_buchholz() -> None:
    h = play(SWISS, History(field(8)))
    h = drop(h, "p00")  # p00 won round 1 (first seat of table 1)
    h = play(SWISS, h)
    h = reinstate(h, "p00")
    h = play(SWISS, h)
    book = ledger(SWISS, h)
    assert [r.kind for r in book["p00"]][1] == ABSENT
    assert book["p00"][1].points == 0.0 and not book["p00"][1].is_game
    rows = {r.player_id: r for r in standings(SWISS, h)}
    row = rows["p00"]
    totals = {p: r.points for p, r in rows.items()}
    met = [o for r in book["p00"] if r.is_game for o in r.opponents]
    assert row.games == 2
    # two games' opponents, and the own-score rule for the missed round (as for a drop)
    assert dict(row.tiebreaks)["buchholz"] == pytest.approx(
        sum(totals[o] for o in met) + totals["p00"])


def test_drop_reinstate_drop_again_and_reinstate_once_more() -> None:
    h = play(SWISS, History(field(8)))
    h = drop(h, "p05")
    h = play(SWISS, h)                   # round 2 without p05
    h = reinstate(h, "p05")
    h = play(SWISS, h)                   # round 3 with p05
    h = drop(h, "p05")
    h = play(SWISS, h)                   # round 4 without
    assert "p05" in still_dropped(h)
    h = reinstate(h, "p05")
    h = play(SWISS, h)                   # round 5 with
    assert ["p05" in seated(h, k) for k in range(1, 6)] == [True, False, True, False, True]
    kinds = [r.kind for r in ledger(SWISS, h)["p05"]]
    assert kinds[1] == kinds[3] == ABSENT
    assert recheck(SWISS, history_events(h, {5: standings(SWISS, h)})) == []


def test_a_drop_and_reinstatement_before_the_next_round_changes_nothing() -> None:
    h = play(SWISS, History(field(8)))
    again = play(SWISS, reinstate(drop(h, "p02"), "p02"))
    assert again.rounds[-1] == play(SWISS, h).rounds[-1]
    dropped_again = drop(reinstate(drop(h, "p02"), "p02"), "p02")
    assert "p02" not in seated(play(SWISS, dropped_again), 2)


def test_a_history_without_reinstatements_pairs_and_scores_as_before() -> None:
    h = play(SWISS, History(field(7)))
    h = drop(h, "p01")
    h = play(SWISS, play(SWISS, h))
    assert all("p01" not in seated(h, k) for k in (2, 3))
    rows = {r.player_id: r for r in standings(SWISS, h)}
    assert rows["p01"].dropped is True


@pytest.mark.parametrize("fmt", ["round-robin", "single-elimination", "double-elimination"])
def test_fixed_schedules_refuse_reinstatements(fmt: str) -> None:
    config = FormatConfig(fmt)
    assert "reinstates no dropped player" in (reinstatement_refused(config) or "")
    h = reinstate(drop(History(field(4)), "p01"), "p01")
    with pytest.raises(TournamentError, match="reinstates no dropped player"):
        pair_next_round(config, h)
    assert reinstatement_refused(SWISS) is None and reinstatement_refused(MULTI) is None


def _genuine() -> tuple[History, list[dict]]:
    h = play(SWISS, History(field(8)))
    h = drop(h, "p04")
    h = play(SWISS, h)
    h = reinstate(h, "p04")
    h = play(SWISS, h)
    return h, history_events(h, {3: standings(SWISS, h)})


def test_the_audit_accepts_a_genuine_reinstatement() -> None:
    _, events = _genuine()
    assert any(e["type"] == "reinstated" for e in events)
    assert recheck(SWISS, events) == []


def test_the_audit_names_a_pairing_of_a_dropped_player_without_a_reinstatement() -> None:
    _, events = _genuine()
    forged = [e for e in events if e["type"] != "reinstated"]
    problems = [str(p) for p in recheck(SWISS, forged)]
    assert any(p.startswith("round 3: table") for p in problems), problems


def test_the_audit_names_a_reinstatement_of_a_player_who_is_not_dropped() -> None:
    _, events = _genuine()
    at = next(i for i, e in enumerate(events) if e["type"] == "reinstated")
    events.insert(at, {"type": "reinstated", "player_id": "p06", "from_round": 3})
    problems = [str(p) for p in recheck(SWISS, events)]
    assert "reinstatement of p06 from round 3: p06 is not dropped" in problems


def test_the_audit_names_a_reinstatement_from_a_round_already_paired() -> None:
    _, events = _genuine()
    at = next(i for i, e in enumerate(events) if e["type"] == "reinstated")
    events[at]["from_round"] = 2
    problems = [str(p) for p in recheck(SWISS, events)]
    assert ("reinstatement of p04 from round 2: the next round to be paired is 3"
            in problems), problems


def test_the_audit_names_a_reinstatement_in_a_round_robin() -> None:
    config = FormatConfig("round-robin")
    h = play(config, History(field(4)))
    h = drop(h, "p01")
    events = [*history_events(h), {"type": "reinstated", "player_id": "p01", "from_round": 2}]
    problems = [str(p) for p in recheck(config, events)]
    assert any(p.startswith("reinstatement of p01 from round 2: a round-robin reinstates")
               for p in problems), problems
