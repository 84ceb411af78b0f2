"""The tournament's log as public records, hash-chained like a match's log.

Each stored event of a Tournament becomes one record: ``{"type", "n", "timestamp",
...the event's fields}``, chained by the core's log hash (core/checkpoint.py:
``hash_n = SHA-256(canonical JSON of [domain, n-1, hash_n-1, record])``). A round
checkpoint signs the log's length and head hash, so an edit anywhere before a checkpoint
breaks its signature.

Also turns the records back into the core's values (:func:`replay_log`): the service and
the offline verifier read the same records the same way. Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.tournament.core import checkpoint
from services.tournament.core.codec import (
    result_from_dict,
    result_to_dict,
    table_from_dict,
    table_to_dict,
)
from services.tournament.core.model import (
    Entrant,
    FormatConfig,
    History,
    RoundRecord,
    Table,
    TableResult,
)

SKIP = {"originator_id", "originator_version", "timestamp", "originator_topic"}
GENESIS = checkpoint.GENESIS
END = 10**12
"""A log position after every record."""


def record_of(event: Any) -> dict[str, Any]:
    """One stored domain event as its public record (without the hash)."""
    kind = type(event).__name__
    body = {k: v for k, v in vars(event).items() if k not in SKIP}
    return {
        "type": kind,
        "n": int(event.originator_version),
        "timestamp": event.timestamp.isoformat(),
        **_plain(body),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def link(tournament_id: str, n: int, previous: str, record: Mapping[str, Any]) -> str:
    """The core's log chain (core/checkpoint.py): record n is event n-1 of the chain."""
    return checkpoint.log_link(previous, n - 1, dict(record))


def bodies(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records without their hashes: the events the core's log head is made of."""
    return [{k: v for k, v in r.items() if k != "hash"} for r in records]


def chain(tournament_id: str, records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records with their ``hash`` fields."""
    out, previous = [], GENESIS
    for record in records:
        body = {k: v for k, v in record.items() if k != "hash"}
        previous = link(tournament_id, int(body["n"]), previous, body)
        out.append({**body, "hash": previous})
    return out


def head(records: list[Mapping[str, Any]]) -> str:
    return str(records[-1]["hash"]) if records else GENESIS


def check_chain(tournament_id: str, records: list[Mapping[str, Any]]) -> str | None:
    """The first broken link in words, or None."""
    previous = GENESIS
    for index, record in enumerate(records, start=1):
        if record.get("n") != index:
            return f"tournament log record {index}: numbered {record.get('n')!r}"
        body = {k: v for k, v in record.items() if k != "hash"}
        try:
            expected = link(tournament_id, index, previous, body)
        except (ValueError, RecursionError) as err:  # NaN, infinity, nesting too deep
            return (f"tournament log record {index} ({record.get('type')}): holds a value "
                    f"canonical JSON cannot encode ({type(err).__name__}: {err})")
        if record.get("hash") != expected:
            return (
                f"tournament log record {index} ({record.get('type')}): its hash does not "
                "match its content and the record before it"
            )
        previous = expected
    return None


# -- back to the core's values ------------------------------------------------------


def table_of(data: Mapping[str, Any]) -> Table:
    return table_from_dict(dict(data))


def table_json(table: Table) -> dict[str, Any]:
    return table_to_dict(table)


def result_of(data: Mapping[str, Any]) -> TableResult:
    return result_from_dict(dict(data))


def result_json(result: TableResult) -> dict[str, Any]:
    return result_to_dict(result)


LOG_VERSION = "log_version"
"""The settings key of the rules a tournament's log was recorded under, for what the service
came to record differently (a verifier holds each log to its own): absent in a tournament
created before 7 December 2026 (version 1); since, 2:

- under the no-show policy "forfeit", an absent seat is forfeited only if its match's signed
  result names it among the seats that never made a move (``no_move_seats``,
  rules/noshow.py): a player who missed the check-in but came and played is no no-show, and
  keeps the game's result (version 1 forfeited every absent seat, whatever its match said:
  :func:`from_signed` with ``no_move`` None);
- nothing that changes the standings is recorded after ``Finished`` (a service before 4
  December 2026 recorded a late result there; the final standings never counted it)."""

CURRENT_LOG_VERSION = 2


def log_version(settings: Mapping[str, Any]) -> int:
    """The version of the rules the tournament's log was recorded under (LOG_VERSION)."""
    value = settings.get(LOG_VERSION)
    return value if type(value) is int and value > 1 else 1


def forfeits_by_moves(settings: Mapping[str, Any]) -> bool:
    """Whether the tournament forfeits only absent seats that never moved (LOG_VERSION 2)."""
    return log_version(settings) >= 2


def no_move_of(signed_body: Mapping[str, Any], seats: int) -> list[int] | None:
    """The ``no_move_seats`` of a signed result's body, as seats of a table of ``seats``;
    None when it names none (a result from before the rules service wrote it) or names them
    in a shape no rules service writes (then the absent seats are taken, as before)."""
    value = signed_body.get("no_move_seats")
    if not isinstance(value, list) or not all(
            type(v) is int and 0 <= v < seats for v in value):
        return None
    return sorted(set(value))


def from_signed(seats: Sequence[str], absent: Sequence[int], no_show: str,
                scores: Sequence[Any], no_move: Sequence[int] | None = None,
                ) -> tuple[str, list[str], tuple[float, ...]]:
    """What the service records of a table's signed result besides its placements: the kind
    ("forfeit" for a two-seat table whose match started without a seat the no-show policy
    forfeits, else "played"), the forfeited players (those absent seats' players, under
    ``no_show`` "forfeit"; with ``no_move`` given, only the absent seats among them: a seat
    that came late and played is not forfeited) and the game's scores as the tie-break
    values. The director records results so, and a bundle's check expects them so."""
    gone = [s for s in absent if no_move is None or s in no_move]
    forfeited = [seats[s] for s in gone] if no_show == "forfeit" else []
    kind = "forfeit" if forfeited and len(seats) == 2 else "played"
    return kind, forfeited, tuple(float(x) for x in scores)


@dataclass
class Replayed:
    """What a tournament log says, in the core's terms."""

    tournament_id: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    config: FormatConfig | None = None
    entrants: list[Entrant] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    """Per round: number, tables (Table), results (table -> TableResult), matches (table ->
    match id), sealed (table -> final hash), checkpoint, log_length_before (records before
    its RoundPaired), absent (table -> the seats its current match started without),
    started (match id -> (log position of its MatchStarted, the seats it started without)),
    and where tables were rematched, earlier (table -> its abandoned matches: match_id,
    final_hash, abandoned and reason)."""
    dropped: list[tuple[str, int]] = field(default_factory=list)
    """Every drop, the organiser's or a player's (PlayerDropped) and the format's
    (NoShowDropped): (player, the round after which they left)."""
    dropped_at: list[int] = field(default_factory=list)
    """The log position (0-based) of each drop's record, beside ``dropped``."""
    reinstatements: list[dict[str, Any]] = field(default_factory=list)
    """The PlayerReinstated records: player_id, from_round, reason, by, and at (the record's
    log position, 0-based)."""
    no_show_drops: list[dict[str, Any]] = field(default_factory=list)
    """The NoShowDropped records: player_id, after_round, table, match_id, and at (the
    record's log position, 0-based)."""
    late: list[tuple[str, int]] = field(default_factory=list)
    standings: list[dict[str, Any]] | None = None
    status: str = ""
    at: dict[str, int] = field(default_factory=dict)
    """Log position (0-based) of each late entry's and each drop's record, by player (a
    player dropped more than once: the last; ``dropped_at`` holds each)."""
    audit_events: list[dict[str, Any]] = field(default_factory=list)
    """The log in the terms of the core's audit (core/audit.py ``recheck``)."""
    reason: str = ""
    """Why the tournament was force-ended (ForceEnded)."""
    confirmed: list[str] | None = None
    """The matches without a result whose abandon every rules service answered, once the
    log records it (AbandonsConfirmed, after a ForceEnded)."""

    @property
    def reinstated(self) -> list[tuple[str, int]]:
        """Every reinstatement (PlayerReinstated): (player, the first round they play again)."""
        return [(r["player_id"], r["from_round"]) for r in self.reinstatements]

    def history(self, before_round: int | None = None) -> History:
        """The core's History: everything, or what the log held when round
        ``before_round`` was paired (the rounds before it, and the drops, reinstatements and
        late entries recorded before its RoundPaired)."""
        if before_round is None:
            rounds, cut = self.rounds, END
        else:
            rounds = self.rounds[: before_round - 1]
            cut = (
                self.rounds[before_round - 1]["log_length_before"]
                if before_round <= len(self.rounds)
                else END
            )
        records = tuple(
            RoundRecord(
                number=r["number"],
                tables=tuple(r["tables"]),
                results=tuple(
                    found
                    for k in sorted(r["results_at"])
                    if (found := _last_before(r["results_at"][k], cut)) is not None
                ),
            )
            for r in rounds
        )
        late = tuple((p, first) for p, first in self.late if self.at[f"late:{p}"] < cut)
        late_ids = {p for p, _ in self.late} - {p for p, _ in late}
        return History(
            entrants=tuple(e for e in self.entrants if e.player_id not in late_ids),
            rounds=records,
            dropped=tuple(drop for drop, at in zip(self.dropped, self.dropped_at) if at < cut),
            late=late,
            reinstated=tuple((r["player_id"], r["from_round"]) for r in self.reinstatements
                             if r["at"] < cut),
        )


def result_before(rnd: Mapping[str, Any], table: int, cut: int | None = None) -> TableResult | None:
    """Table ``table``'s result in a replayed round as the log stood before its record
    ``cut`` (0-based; None: the whole log): the last result or correction before it."""
    return _last_before(rnd["results_at"].get(table, []), END if cut is None else cut)


def _last_before(entries: list[tuple[int, TableResult]], cut: int) -> TableResult | None:
    found = None
    for index, result in entries:
        if index < cut:
            found = result
    return found


def _audit_event(out: Replayed, r: Mapping[str, Any]) -> None:
    kind = r.get("type")
    if kind == "Started":
        out.audit_events.append({"type": "entrants", "entrants": list(r["entrants"])})
    elif kind == "LateEntry":
        out.audit_events.append({"type": "late", "player_id": r["player_id"],
                                 "first_round": r["first_round"], "rating": r["rating"],
                                 "registered": r["registered"]})
    elif kind in ("PlayerDropped", "NoShowDropped"):
        out.audit_events.append({"type": "dropped", "player_id": r["player_id"],
                                 "after_round": r["after_round"]})
    elif kind == "PlayerReinstated":
        out.audit_events.append({"type": "reinstated", "player_id": r["player_id"],
                                 "from_round": r["from_round"]})
    elif kind == "RoundPaired":
        out.audit_events.append({"type": "round", "round": r["round"], "tables": list(r["tables"])})
    elif kind in ("ResultRecorded", "ResultCorrected"):
        out.audit_events.append({"type": "result", "round": r["round"], **dict(r["result"])})
    elif kind == "StandingsPublished":
        out.audit_events.append({"type": "standings", "round": len(out.rounds),
                                 "rows": list(r["rows"])})


def replay_log(records: Iterable[Mapping[str, Any]]) -> Replayed:
    """Fold the public records into :class:`Replayed` (ValueError on a malformed record)."""
    out = Replayed()
    for index, r in enumerate(records):
        kind = r.get("type")
        try:
            _audit_event(out, r)
            if kind == "Created":
                out.tournament_id = str(r["tournament_id"])
                out.settings = dict(r["settings"])
                out.config = FormatConfig.from_stored(dict(r["settings"]["format"]))
                out.status = "created"
            elif kind == "Started":
                out.entrants = [
                    Entrant(str(e["player_id"]), float(e["rating"]), int(e["registered"]))
                    for e in r["entrants"]
                ]
                out.status = "running"
            elif kind == "RoundPaired":
                out.rounds.append(
                    {
                        "number": int(r["round"]),
                        "tables": [table_of(t) for t in r["tables"]],
                        "results": {},
                        "results_at": {},
                        "matches": {},
                        "sealed": {},
                        "absent": {},
                        "started": {},
                        "corrected": {},
                        "checkpoint": None,
                        "log_length_before": index,
                    }
                )
            elif kind == "MatchCreated":
                out.rounds[int(r["round"]) - 1]["matches"][int(r["table"])] = str(r["match_id"])
            elif kind in ("ResultRecorded", "ResultCorrected"):
                rnd, table, result = (
                    out.rounds[int(r["round"]) - 1],
                    int(r["table"]),
                    result_of(r["result"]),
                )
                rnd["results"][table] = result
                rnd["results_at"].setdefault(table, []).append((index, result))
                if kind == "ResultCorrected":
                    rnd["corrected"][table] = str(r.get("reason", ""))
                else:
                    rnd.setdefault("signed", {})[table] = r.get("signed")
            elif kind == "MatchStarted":
                rnd, table = out.rounds[int(r["round"]) - 1], int(r["table"])
                absent = [int(x) for x in r["absent"]]
                rnd["absent"][table] = absent
                if table in rnd["matches"]:
                    rnd["started"][rnd["matches"][table]] = (index, absent)
            elif kind == "MatchAbandoned":
                out.rounds[int(r["round"]) - 1].setdefault("abandoned", {})[int(r["table"])] = \
                    str(r["reason"])
            elif kind == "TableRematched":
                rnd, table = out.rounds[int(r["round"]) - 1], int(r["table"])
                if rnd["matches"].get(table) != str(r["match_id"]):
                    raise ValueError(f"rematches {r['match_id']}, which is not the table's match")
                rnd.setdefault("earlier", {}).setdefault(table, []).append({
                    "match_id": str(r["match_id"]),
                    "final_hash": str(r["final_hash"]),
                    "abandoned": str(rnd.get("abandoned", {}).pop(table, "")),
                    "reason": str(r["reason"]),
                })
                for part in ("matches", "sealed", "absent"):
                    rnd[part].pop(table, None)
            elif kind == "MatchSealed":
                out.rounds[int(r["round"]) - 1]["sealed"][int(r["table"])] = str(r["final_hash"])
            elif kind == "CheckpointPublished":
                out.rounds[int(r["round"]) - 1]["checkpoint"] = dict(r["checkpoint"])
            elif kind == "PlayerDropped":
                out.dropped.append((str(r["player_id"]), int(r["after_round"])))
                out.dropped_at.append(index)
                out.at[f"drop:{r['player_id']}"] = index
            elif kind == "PlayerReinstated":
                back = {"player_id": str(r["player_id"]), "from_round": int(r["from_round"]),
                        "reason": str(r["reason"]), "by": str(r["by"]), "at": index}
                out.reinstatements.append(back)
            elif kind == "NoShowDropped":
                drop = {"player_id": str(r["player_id"]), "after_round": int(r["after_round"]),
                        "table": int(r["table"]), "match_id": str(r["match_id"]), "at": index}
                out.dropped.append((drop["player_id"], drop["after_round"]))
                out.dropped_at.append(index)
                out.at[f"drop:{drop['player_id']}"] = index
                out.no_show_drops.append(drop)
            elif kind == "LateEntry":
                out.entrants.append(
                    Entrant(str(r["player_id"]), float(r["rating"]), int(r["registered"]))
                )
                out.late.append((str(r["player_id"]), int(r["first_round"])))
                out.at[f"late:{r['player_id']}"] = index
            elif kind == "StandingsPublished":
                out.standings = list(r["rows"])
            elif kind == "Finished":
                out.status = "finished"
            elif kind == "ForceEnded":
                out.status = "force-ended"
                out.reason = str(r["reason"])
            elif kind == "AbandonsConfirmed":
                out.confirmed = [str(m) for m in r["matches"]]
        except (KeyError, IndexError, TypeError, ValueError, OverflowError) as err:
            raise ValueError(
                f"tournament log record {index + 1} ({kind}): malformed ({err!r})"
            ) from err
    return out
