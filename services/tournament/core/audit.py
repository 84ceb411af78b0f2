"""Recomputing a tournament from its round events, and naming every difference.

The verifier of an exported tournament hands :func:`recheck` the format and the ordered
round events; it replays them, and before taking each published pairing it asks the
rules (:func:`pair_next_round`) what that round should have been; published standings
are compared with :func:`standings` of the same moment. Each difference becomes a
:class:`Problem` naming the round, table and player.

The events (plain JSON objects, in the order they happened):

- ``{"type": "entrants", "entrants": [{"player_id", "rating", "registered"}, ...]}``:
  the field when the event starts (seeding);
- ``{"type": "late", "player_id", "first_round", "rating", "registered"}``: a late entry;
- ``{"type": "dropped", "player_id", "after_round"}``: a withdrawal;
- ``{"type": "reinstated", "player_id", "from_round"}``: a dropped player plays again from
  round ``from_round`` (Swiss and multiplayer only; checked: the player is dropped, and
  ``from_round`` is the next round, not paired yet);
- ``{"type": "absent", "player_id", "round"}``: sits one round out (zero-point bye);
- ``{"type": "round", "round", "tables": [{"number", "seats", "bye", "note"?, "absent"?}]}``:
  a published pairing;
- ``{"type": "result", "round", "table", "seats", "placements", "kind", "forfeited",
  "game_tiebreak", "match_id"}``: a recorded result; a later result for the same table is
  a correction and replaces it;
- ``{"type": "standings", "round", "rows": [StandingRow.to_dict(), ...]}``: published
  standings after ``round``.

Anything else (``type`` unknown) is ignored, so the service may interleave its own events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from services.tournament.core.codec import (
    entrant_from_dict,
    result_from_dict,
    row_from_dict,
    table_from_dict,
)
from services.tournament.core.formats import pair_next_round, reinstatement_refused
from services.tournament.core.ledger import still_dropped
from services.tournament.core.model import (
    FormatConfig,
    History,
    RoundRecord,
    StandingRow,
    Table,
    TableResult,
    TournamentError,
)
from services.tournament.core.standings import standings

TOLERANCE = 1e-9


@dataclass(frozen=True)
class Problem:
    message: str
    round: int = 0
    table: int = 0
    player: str = ""

    def __str__(self) -> str:
        return self.message


def _seats(t: Table) -> str:
    text = ", ".join(t.seats)
    return f"({text}) bye" if t.bye else f"({text})"


def compare_tables(
    number: int, published: tuple[Table, ...], expected: tuple[Table, ...]
) -> list[Problem]:
    problems = []
    mine = {t.number: t for t in expected}
    theirs = {t.number: t for t in published}
    for n in sorted(set(mine) | set(theirs)):
        a, b = theirs.get(n), mine.get(n)
        if a is None and b is not None:
            problems.append(
                Problem(f"round {number}: table {n} is missing; rules give {_seats(b)}", number, n)
            )
        elif b is None and a is not None:
            problems.append(
                Problem(
                    f"round {number}: table {n} published {_seats(a)}, rules give no such table",
                    number,
                    n,
                )
            )
        elif (
            a is not None and b is not None and (a.seats, a.bye, a.note) != (b.seats, b.bye, b.note)
        ):
            player = next(
                (p for p, q in zip(a.seats, b.seats) if p != q), a.seats[0] if a.seats else ""
            )
            problems.append(
                Problem(
                    f"round {number}: table {n} published {_seats(a)}, rules give {_seats(b)}",
                    number,
                    n,
                    player,
                )
            )
    return problems


def compare_standings(
    after: int, published: list[StandingRow], expected: tuple[StandingRow, ...]
) -> list[Problem]:
    problems = []
    where = f"standings after round {after}"
    if len(published) != len(expected):
        problems.append(
            Problem(f"{where}: {len(published)} rows published, rules give {len(expected)}", after)
        )
    for a, b in zip(published, expected):
        if a.player_id != b.player_id:
            problems.append(
                Problem(
                    f"{where}: rank {b.rank} published {a.player_id}, rules give {b.player_id}",
                    after,
                    player=a.player_id,
                )
            )
            continue
        p = a.player_id
        if a.rank != b.rank:
            problems.append(
                Problem(f"{where}: {p} ranked {a.rank}, rules give {b.rank}", after, player=p)
            )
        columns = {"points": (a.points, b.points), "games": (a.games, b.games),
                   "wins": (a.wins, b.wins)}
        for name, (x, y) in columns.items():
            if abs(x - y) > TOLERANCE:
                problems.append(
                    Problem(
                        f"{where}: {p}'s {name} published {x:g}, rules give {y:g}", after, player=p
                    )
                )
        if a.dropped != b.dropped:
            problems.append(
                Problem(
                    f"{where}: {p} marked dropped={a.dropped}, rules give {b.dropped}",
                    after,
                    player=p,
                )
            )
        theirs, mine = dict(a.tiebreaks), dict(b.tiebreaks)
        for name in [n for n, _ in b.tiebreaks] + [n for n in theirs if n not in mine]:
            x, y = theirs.get(name), mine.get(name)
            if columns.get(name) == (x, y):
                continue  # a tie-break that is a column ("wins"): its difference is named once, above
            if x is None or y is None or abs(x - y) > TOLERANCE:
                shown = "nothing" if x is None else f"{x:g}"
                want = "nothing" if y is None else f"{y:g}"
                problems.append(
                    Problem(
                        f"{where}: {p}'s {name} published {shown}, rules give {want}",
                        after,
                        player=p,
                    )
                )
    return problems


def _with_result(history: History, number: int, result: TableResult) -> History:
    rounds = list(history.rounds)
    for i, record in enumerate(rounds):
        if record.number == number:
            kept = tuple(r for r in record.results if r.table != result.table)
            rounds[i] = replace(record, results=(*kept, result))
            return replace(history, rounds=tuple(rounds))
    raise TournamentError(f"result for round {number}, which was never paired")


def _result_problem(history: History, number: int, result: TableResult) -> Problem | None:
    record = next((r for r in history.rounds if r.number == number), None)
    if record is None:
        return Problem(
            f"round {number}: a result for a round that was never paired", number, result.table
        )
    table = next((t for t in record.tables if t.number == result.table), None)
    if table is None:
        return Problem(
            f"round {number}: a result for table {result.table}, which does not exist",
            number,
            result.table,
        )
    if table.bye:
        return None
    if tuple(result.seats) != tuple(table.seats):
        return Problem(
            f"round {number}: table {result.table} result names ({', '.join(result.seats)}), "
            f"the table seated ({', '.join(table.seats)})",
            number,
            result.table,
        )
    if result.kind != "bye" and len(result.placements) != len(result.seats):
        return Problem(
            f"round {number}: table {result.table} result has {len(result.placements)} placements for {len(result.seats)} seats",
            number,
            result.table,
        )
    return None


def _reinstatement_problem(
    config: FormatConfig, history: History, event: Mapping[str, Any]
) -> Problem | None:
    """What is wrong with a reinstatement at this point of the events, or None: the format
    must pair round by round, the player must be dropped, and the round it names must be
    the next one (not paired yet)."""
    player, first = str(event["player_id"]), int(event["from_round"])
    due = (history.rounds[-1].number if history.rounds else 0) + 1
    what = f"reinstatement of {player} from round {first}"
    if (why := reinstatement_refused(config)) is not None:
        return Problem(f"{what}: {why}", first, player=player)
    if player not in still_dropped(history):
        return Problem(f"{what}: {player} is not dropped", first, player=player)
    if first != due:
        return Problem(f"{what}: the next round to be paired is {due}", first, player=player)
    return None


def replay(events: Iterable[Mapping[str, Any]]) -> History:
    """The History the events describe (no checking against the rules)."""
    history = History(())
    for event in events:
        history = _apply(history, event)
    return history


def _apply(history: History, event: Mapping[str, Any]) -> History:
    kind = event.get("type")
    if kind == "entrants":
        return replace(history, entrants=tuple(entrant_from_dict(e) for e in event["entrants"]))
    if kind == "late":
        entrant = entrant_from_dict(event)
        return replace(
            history,
            entrants=(*history.entrants, entrant),
            late=(*history.late, (entrant.player_id, int(event["first_round"]))),
        )
    if kind == "dropped":
        return replace(
            history,
            dropped=(*history.dropped, (str(event["player_id"]), int(event["after_round"]))),
        )
    if kind == "absent":
        return replace(
            history, absent=(*history.absent, (str(event["player_id"]), int(event["round"])))
        )
    if kind == "reinstated":
        return replace(
            history,
            reinstated=(*history.reinstated,
                        (str(event["player_id"]), int(event["from_round"]))),
        )
    if kind == "round":
        tables = tuple(table_from_dict(t) for t in event["tables"])
        return replace(
            history, rounds=(*history.rounds, RoundRecord(int(event["round"]), tables, ()))
        )
    if kind == "result":
        return _with_result(history, int(event["round"]), result_from_dict(dict(event)))
    return history


def recheck(config: FormatConfig, history_events: Iterable[Mapping[str, Any]]) -> list[Problem]:
    """Every difference between the published rounds and standings and what the format's
    rules give for the same results; an empty list when everything agrees."""
    problems: list[Problem] = []
    history = History(())
    for event in history_events:
        kind = event.get("type")
        try:
            if kind == "round":
                number = int(event["round"])
                published = tuple(table_from_dict(t) for t in event["tables"])
                expected_number = (history.rounds[-1].number if history.rounds else 0) + 1
                if number != expected_number:
                    problems.append(
                        Problem(
                            f"round {number} published where round {expected_number} was due",
                            number,
                        )
                    )
                try:
                    expected = pair_next_round(config, history)
                except TournamentError as err:
                    problems.append(
                        Problem(
                            f"round {number}: published, but the rules pair no round here: {err}",
                            number,
                        )
                    )
                else:
                    problems.extend(compare_tables(number, published, expected))
            elif kind == "result":
                number = int(event["round"])
                result = result_from_dict(dict(event))
                found = _result_problem(history, number, result)
                if found is not None:
                    problems.append(found)
                    continue
            elif kind == "reinstated":
                found = _reinstatement_problem(config, history, event)
                if found is not None:
                    problems.append(found)
                    continue
            elif kind == "standings":
                after = int(event["round"])
                rows = [row_from_dict(r) for r in event["rows"]]
                problems.extend(compare_standings(after, rows, standings(config, history)))
                continue
            history = _apply(history, event)
        except (TournamentError, KeyError, TypeError, ValueError) as err:
            problems.append(
                Problem(
                    f"event {kind!r}: cannot be replayed: {err}", int(event.get("round", 0) or 0)
                )
            )
    return problems


def entrants_event(entrants: Iterable[Any]) -> dict[str, Any]:
    from services.tournament.core.codec import entrant_to_dict

    return {"type": "entrants", "entrants": [entrant_to_dict(e) for e in entrants]}


def round_event(number: int, tables: Iterable[Table]) -> dict[str, Any]:
    from services.tournament.core.codec import table_to_dict

    return {"type": "round", "round": number, "tables": [table_to_dict(t) for t in tables]}


def result_event(number: int, result: TableResult) -> dict[str, Any]:
    from services.tournament.core.codec import result_to_dict

    return {"type": "result", "round": number, **result_to_dict(result)}


def standings_event(after: int, rows: Iterable[StandingRow]) -> dict[str, Any]:
    return {"type": "standings", "round": after, "rows": [r.to_dict() for r in rows]}


def history_events(
    history: History, published: Mapping[int, Iterable[StandingRow]] | None = None
) -> list[dict[str, Any]]:
    """The events of a History, in the order :func:`recheck` reads them: entrants, late
    entries, then per round: absences, reinstatements from it, the pairing, its results,
    withdrawals after it, the published standings (``published``: round -> rows); then
    the reinstatements from a round not paired yet."""
    late = dict(history.late)
    starters = [e for e in history.entrants if e.player_id not in late]
    events: list[dict[str, Any]] = [entrants_event(starters)]
    for e in history.entrants:  # a History does not say when they registered: up front
        if e.player_id in late:
            events.append(
                {
                    "type": "late",
                    "player_id": e.player_id,
                    "first_round": late[e.player_id],
                    "rating": e.rating,
                    "registered": e.registered,
                }
            )
    for p, r in history.dropped:
        if r < 1:
            events.append({"type": "dropped", "player_id": p, "after_round": r})
    for record in history.rounds:
        for p, r in history.absent:
            if r == record.number:
                events.append({"type": "absent", "player_id": p, "round": r})
        for p, r in history.reinstated:
            if r == record.number:
                events.append({"type": "reinstated", "player_id": p, "from_round": r})
        events.append(round_event(record.number, record.tables))
        for result in record.results:
            events.append(result_event(record.number, result))
        for p, r in history.dropped:
            if r == record.number:
                events.append({"type": "dropped", "player_id": p, "after_round": r})
        if published and record.number in published:
            events.append(standings_event(record.number, published[record.number]))
    paired = len(history.rounds)
    for p, r in history.reinstated:
        if r > paired:
            events.append({"type": "reinstated", "player_id": p, "from_round": r})
    return events
