"""A tournament run on the Tournament aggregate in memory, without any service, for tests of
its log, its replay and the bundle check: the log so far, a tournament started, a round's
checkpoint published, the final standings published. The test pairs and enters the rounds
itself; ``events`` is its list of the events collected so far, handed to each of these."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.tournament import formats, proofs
from services.tournament import log as tlog
from services.tournament.domain import Tournament

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
"""The key the round checkpoints are signed with (and the tests' bundles)."""


def log_records(t: Tournament, events: list[Any]) -> list[dict[str, Any]]:
    """The log so far, chained: ``events`` extended with those ``t`` emitted since."""
    events.extend(t.collect_events())
    return tlog.chain(t.tournament_id, (tlog.record_of(e) for e in events))


def started(players: list[str], fmt: dict[str, Any], tid: str = "unit", game: str = "g",
            mode: str = "m") -> Tournament:
    """Tournament ``tid`` of ``game`` (``mode``, no clock, no-shows forfeited) in the format
    ``fmt``: registration opened, ``players`` registered by the organiser "org" in order,
    started with them all (rating 0)."""
    settings = {"name": "", "game": game, "mode": mode, "clock": {"kind": "none"},
                "no_show": "forfeit", "check_in_seconds": 60, "options_json": "",
                "seed_from_ratings": False, "format": fmt}
    t = Tournament(tid, settings, "org")
    t.open_registration()
    for p in players:
        t.register(p, "org")
    t.start([{"player_id": p, "rating": 0.0, "registered": i} for i, p in enumerate(players)])
    return t


def publish_checkpoint(t: Tournament, events: list[Any], number: int,
                       leaves: list[tuple[str, str]] | None = None, key: Any = KEY) -> None:
    """Round ``number``'s checkpoint over the log so far and its sealed matches' ``leaves``
    ((match id, final hash); none by default), signed with ``key`` (KEY by default)."""
    records = log_records(t, events)
    t.publish_checkpoint(number, proofs.round_checkpoint(
        t.tournament_id, number, leaves or [], len(records), tlog.head(records), key))


def record_played(t: Tournament, number: int, table: Any, match_id: str,
                  match: list[dict[str, Any]], key: Any) -> tuple[str, str]:
    """Table ``table`` (a core Table) of round ``number`` played as the export records
    ``match`` say: its result from their MatchEnded, signed with the rules ``key``, and the
    match sealed; the round checkpoint's leaf (match id, final hash)."""
    from services.rules.results import sign_result
    from services.tournament.core.model import TableResult

    ended = next(r for r in match if r["type"] == "MatchEnded")
    result = TableResult(
        table=table.number, seats=table.seats,
        placements=tuple(ended["outcome"]["placements"]),
        game_tiebreak=tuple(float(x) for x in ended["outcome"]["scores"]),
        match_id=match_id)
    t.record_result(number, table.number, tlog.result_json(result), sign_result(ended, key))
    t.match_sealed(number, table.number, match_id, match[-1]["hash"], len(match))
    return match_id, match[-1]["hash"]


def finish(t: Tournament, events: list[Any]) -> list[dict[str, Any]]:
    """The standings recomputed from the log published as final, the tournament finished:
    its whole log."""
    replayed = tlog.replay_log(log_records(t, events))
    rows = [formats.row_json(r) for r in formats.standings(replayed.config, replayed.history())]
    t.publish_standings(rows, True)
    t.finish()
    return log_records(t, events)
