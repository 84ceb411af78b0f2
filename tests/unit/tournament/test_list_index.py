"""ListTournaments' index (TournamentApplication.newest) on a real SQLite store shared by two
applications, as two replicas of the tournament service share theirs: what one lists is
what a fresh read of every Created gives, also after the other created tournaments and
changed them; and a call after the first reads only the notifications since."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.tournament.app import TournamentApplication
from services.tournament.domain import Tournament
from tests.unit.tournament.support import sqlite_app


def _create(app: TournamentApplication, tid: str) -> None:
    app.save(Tournament(tid, {"name": tid.upper(), "game": "g", "mode": "m",
                              "format": {"format": "swiss", "rounds": 2}, "no_show": "bot",
                              "check_in_seconds": 60, "clock": {}, "options_json": ""}, "org"))


def _seen(found: list[Tournament]) -> list[tuple[str, int, str, int]]:
    return [(t.tournament_id, t.version, t.status, len(t.players)) for t in found]


def _fresh(path: Path, limit: int) -> list[tuple[str, int, str, int]]:
    """What a process that never listed before answers."""
    app = sqlite_app(path, cached=False)
    try:
        return _seen(app.newest(limit))
    finally:
        app.close()


def test_the_index_follows_creations_and_changes_made_by_another_replica(tmp_path: Path) -> None:
    path = tmp_path / "tournament.sqlite"
    a, b = sqlite_app(path, cached=False), sqlite_app(path, cached=False)
    try:
        assert a.newest(50) == []
        for i in range(5):
            _create(b, f"t{i}")
        listed = _seen(a.newest(50))
        assert [x[0] for x in listed] == ["t4", "t3", "t2", "t1", "t0"]
        assert listed == _fresh(path, 50)
        # created on the other replica after this one listed: there, newest first
        _create(b, "t5")
        assert [x[0] for x in _seen(a.newest(2))] == ["t5", "t4"]
        # changed on the other replica: listed as it is now, not as it was built
        t = b.find("t4")
        assert t is not None
        t.open_registration()
        t.register("ann", "org")
        b.save(t)
        listed = _seen(a.newest(50))
        assert listed[1] == ("t4", 3, "registration", 1)
        assert listed == _fresh(path, 50)
        # and by this replica itself
        t = a.find("t0")
        assert t is not None
        t.open_registration()
        a.save(t)
        assert _seen(a.newest(50)) == _fresh(path, 50)
        assert _seen(a.newest(50))[-1][2] == "registration"
        assert _seen(a.newest(1)) == _fresh(path, 1) == [("t5", 1, "created", 0)]
    finally:
        a.close()
        b.close()


def test_a_call_after_the_first_reads_only_what_was_saved_since(tmp_path: Path) -> None:
    path = tmp_path / "tournament.sqlite"
    app = sqlite_app(path, cached=False)
    try:
        for i in range(30):
            _create(app, f"t{i}")
        app.newest(10)
        read: list[int] = []
        select = app.recorder.select_notifications

        def counted(*args: Any, **kw: Any) -> Any:
            page = select(*args, **kw)
            read.extend(n.id for n in page)
            return page

        app.recorder.select_notifications = counted  # type: ignore[method-assign]
        rebuilt: list[Any] = []
        get = app.repository.get

        def built(uid: Any, *args: Any, **kw: Any) -> Any:
            rebuilt.append(uid)
            return get(uid, *args, **kw)

        app.repository.get = built  # type: ignore[method-assign]
        assert [t.tournament_id for t in app.newest(10)] == [f"t{i}" for i in range(29, 19, -1)]
        assert read == [] and rebuilt == []
        _create(app, "t30")
        t = app.find("t25")
        assert t is not None
        t.open_registration()
        app.save(t)
        rebuilt.clear()  # find() built t25 above
        listed = app.newest(10)
        assert [x.tournament_id for x in listed][:2] == ["t30", "t29"]
        assert len(read) == 2  # the Created of t30 and t25's RegistrationOpened
        assert sorted(x.tournament_id for x in listed if x.id in rebuilt) == ["t25", "t30"]
        assert next(x for x in listed if x.tournament_id == "t25").status == "registration"
    finally:
        app.close()
