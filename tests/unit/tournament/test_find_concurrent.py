"""TournamentApplication.find from several threads while the tournament is saved, as the
director reads it (``asyncio.to_thread``) for every call: 128 players asking MyNextMatch
while their matches start and end.

The store keeps each tournament built (its aggregate cache) and brings it up to date with
the events saved since (fast-forward), then hands out a deep copy. The fast-forward of one
read mutated the cached tournament while another read was deep-copying it: "RuntimeError:
dictionary changed size during iteration", an INTERNAL answer to MyNextMatch (seen in
round 3 of a 128-player ``neon tournament simulate``), or a copy with an event half applied.
On a real SQLite store, with the cache as the service sets it (services/tournament/main.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.tournament.app import TournamentApplication
from services.tournament.domain import Tournament
from tests.support.concurrent_reads import reads_while_saved
from tests.unit.tournament.support import sqlite_app, started_swiss

PLAYERS = 256


def _big(app: TournamentApplication) -> Tournament:
    t, names = started_swiss("big", PLAYERS, 8, rating=1500.0)
    for number in (1, 2, 3, 4, 5):
        t.pair_round(number, [{"number": k + 1, "seats": [names[2 * k], names[2 * k + 1]],
                               "bye": False, "note": ""} for k in range(PLAYERS // 2)])
        for k in range(PLAYERS // 2):
            t.match_created(number, k + 1, f"big-r{number}-t{k + 1}", "127.0.0.1:1", "c" * 64,
                            0.0)
    app.save(t)
    return t


def test_reads_while_the_tournament_is_saved_never_fail_nor_see_half_an_event(
        tmp_path: Path) -> None:
    app = sqlite_app(tmp_path / "tournament.sqlite")
    try:
        writer = _big(app)
        assert app.find("big") is not None  # cached from here on
        writer_base = writer.version

        def read() -> Any:
            t = app.find("big")
            assert t is not None
            return t

        def torn(t: Any) -> Any:
            # every SeatReady adds a table key with one seat in it: a copy made while
            # another read applied it would show a version that does not match its state
            ready = t.round(5)["ready"]
            if sum(len(v) for v in ready.values()) != t.version - writer_base:
                return (t.version, len(ready))
            return None

        def save(seat: int, k: int) -> None:
            writer.seat_ready(5, k + 1, seat, f"p{2 * k + seat:03d}")
            app.save(writer)

        errors, torn_reads = reads_while_saved(
            read, torn, (lambda s=seat, k=k: save(s, k) for seat in (0, 1)
                         for k in range(PLAYERS // 2)), readers=6)
        assert not errors, f"{len(errors)} reads failed: {errors[0]!r}"
        assert not torn_reads, (f"{len(torn_reads)} reads saw a state that is not their "
                                f"version's: {torn_reads[:3]}")
        last = app.find("big")
        assert last is not None and len(last.round(5)["ready"]) == PLAYERS // 2
    finally:
        app.close()


def test_each_read_is_a_copy_of_its_own(tmp_path: Path) -> None:
    """A command changes the tournament it read (by its events): never the cached one, nor
    another read's. The copies share their rounds, which no event changes in place (each
    makes the round it changes anew: test_copies_share_rounds.py); the rest of the state is
    each copy's own."""
    app = sqlite_app(tmp_path / "tournament.sqlite")
    try:
        _big(app)
        a, b = app.find("big"), app.find("big")
        assert a is not None and b is not None and a is not b
        assert a.rounds == b.rounds and a.version == b.version and a.id == b.id
        a.table_rematched(1, 1, "big-r1-t1", "h" * 64, 3, "again", "org")  # not saved
        a.seat_ready(1, 2, 0, "p002")
        a.players["p000"]["status"] = "dropped"
        assert "1" not in a.round(1)["matches"] and a.round(1)["ready"] == {"2": [0]}
        c = app.find("big")
        assert c is not None
        for other in (b, c):
            assert other.round(1)["matches"]["1"]["match_id"] == "big-r1-t1"
            assert "earlier" not in other.round(1) and other.round(1)["ready"] == {}
            assert other.players["p000"]["status"] == "playing"
        # a copy saves like the original: the next event lands on top of the stored ones
        c.seat_ready(1, 1, 0, "p000")
        app.save(c)
        d = app.find("big")
        assert d is not None and d.version == c.version and d.round(1)["ready"] == {"1": [0]}
    finally:
        app.close()
