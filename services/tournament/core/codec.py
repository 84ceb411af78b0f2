"""Plain JSON forms of the core's values, for events, exports and the verifier."""

from __future__ import annotations

from typing import Any

from services.tournament.core.model import (
    Entrant,
    StandingRow,
    Table,
    TableResult,
    TournamentError,
)


def entrant_to_dict(e: Entrant) -> dict[str, Any]:
    return {"player_id": e.player_id, "rating": e.rating, "registered": e.registered}


def entrant_from_dict(d: dict[str, Any]) -> Entrant:
    try:
        return Entrant(
            str(d["player_id"]), float(d.get("rating", 0.0)), int(d.get("registered", 0))
        )
    except (KeyError, TypeError, ValueError) as err:
        raise TournamentError(f"bad entrant {d!r}: {err}") from err


def table_to_dict(t: Table) -> dict[str, Any]:
    out: dict[str, Any] = {"number": t.number, "seats": list(t.seats), "bye": t.bye}
    if t.note:
        out["note"] = t.note
    if t.absent:
        out["absent"] = list(t.absent)
    return out


def table_from_dict(d: dict[str, Any]) -> Table:
    try:
        return Table(
            int(d["number"]),
            tuple(str(s) for s in d["seats"]),
            bool(d.get("bye", False)),
            str(d.get("note", "")),
            tuple(str(s) for s in d.get("absent", ())),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise TournamentError(f"bad table {d!r}: {err}") from err


def result_to_dict(r: TableResult) -> dict[str, Any]:
    return {
        "table": r.table,
        "seats": list(r.seats),
        "placements": list(r.placements),
        "kind": r.kind,
        "forfeited": list(r.forfeited),
        "game_tiebreak": list(r.game_tiebreak),
        "match_id": r.match_id,
    }


def result_from_dict(d: dict[str, Any]) -> TableResult:
    try:
        return TableResult(
            int(d["table"]),
            tuple(str(s) for s in d["seats"]),
            tuple(int(p) for p in d.get("placements", ())),
            str(d.get("kind", "played")),
            tuple(str(s) for s in d.get("forfeited", ())),
            tuple(float(x) for x in d.get("game_tiebreak", ())),
            str(d.get("match_id", "")),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise TournamentError(f"bad result {d!r}: {err}") from err


def row_to_dict(row: StandingRow) -> dict[str, Any]:
    return row.to_dict()


def row_from_dict(d: dict[str, Any]) -> StandingRow:
    try:
        return StandingRow(
            int(d["rank"]),
            str(d["player_id"]),
            float(d["points"]),
            int(d.get("games", 0)),
            int(d.get("wins", 0)),
            tuple((str(n), float(v)) for n, v in d.get("tiebreaks", ())),
            bool(d.get("dropped", False)),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise TournamentError(f"bad standings row {d!r}: {err}") from err
