"""Tournaments by status (the ``neon_tournaments`` gauge): the Director moves its StatusCounts on
every save, and at every step the counts equal what a fresh read of the store counts (what a
restart starts from); the metrics refresh shows them."""

from __future__ import annotations

import json
from collections import Counter

from services.platform import metrics
from services.tournament.app import STATUSES, StatusCounts
from services.tournament.director import Director
from tests.unit.tournament.test_director_ended import (
    ORG,
    StandInRules,
    _play_round_on_paper,
    _running,
    director_on,
)

SWISS_1 = {"game": "g", "mode": "single", "format_json": json.dumps({"format": "swiss",
                                                                      "rounds": 1})}


def stored(d: Director) -> dict[str, int]:
    """Tournaments by status as a fresh read of the store counts them."""
    return StatusCounts(d.app.statuses()).counts


def counts(**by_status: int) -> dict[str, int]:
    return {status: by_status.get(status.replace("-", "_"), 0) for status in STATUSES}


async def test_counts_follow_every_save_and_equal_a_fresh_read_of_the_store() -> None:
    async with director_on(StandInRules()) as d:
        d.statuses = StatusCounts(d.app.statuses())
        assert d.statuses.counts == counts() == stored(d)
        for tid in ("c1", "c2", "r1", "e1"):
            await d.create(ORG, tid, SWISS_1)
        assert d.statuses.counts == counts(created=4) == stored(d)
        await d.create(ORG, "c1", SWISS_1)  # a repeat: nothing saved, nothing counted
        for tid in ("r1", "e1"):
            await d.open_registration(ORG, tid)
        await d.open_registration(ORG, "r1")  # a repeat
        assert d.statuses.counts == counts(created=2, registration=2) == stored(d)
        for tid in ("u1", "u2", "u3", "f1", "e2"):
            await _running(d, tid, 1)  # created, registration, four players, started
        assert d.statuses.counts == counts(created=2, registration=2, running=5) == stored(d)
        await _play_round_on_paper(d, "f1", 1)
        await d.finish(ORG, "f1")
        await d.finish(ORG, "f1")  # a repeat
        await d.force_end(ORG, "e1", "venue closed")  # from registration
        await d.force_end(ORG, "e2", "venue closed")  # from running
        await d.force_end(ORG, "e2", "again")  # a repeat: abandons again, no status event
        await d.force_end(ORG, "f1", "too late")  # finished stays finished
        expected = counts(created=2, registration=1, running=3, finished=1, force_ended=2)
        assert d.statuses.counts == expected == stored(d)
        every = [await d.get(t) for t in ("c1", "c2", "r1", "u1", "u2", "u3", "f1", "e1", "e2")]
        assert Counter(t.status for t in every) == {s: n for s, n in expected.items() if n}

        forget = metrics.watch(metrics.tournaments("tournament-unit", d), "tournament-unit",
                               metrics.TOURNAMENT_ROUNDS, metrics.TOURNAMENTS)
        try:
            await metrics.refresh_all()
            shown = {status: metrics.REGISTRY.get_sample_value(
                "neon_tournaments", {"service": "tournament-unit", "status": status})
                for status in STATUSES}
            assert shown == {status: float(n) for status, n in expected.items()}
        finally:
            forget()
        assert metrics.REGISTRY.get_sample_value(
            "neon_tournaments", {"service": "tournament-unit", "status": "running"}) is None


def test_a_tournament_counts_once_whatever_its_saves_repeat() -> None:
    statuses = StatusCounts({"a": "running", "b": "finished", "c": "registration"})
    assert statuses.counts == counts(registration=1, running=1, finished=1)
    statuses.saved("d", ["Created", "RegistrationOpened"])  # one save, two status events
    statuses.saved("d", ["Registered", "Registered", "CheckedIn"])  # no status event
    statuses.saved("a", ["StandingsPublished", "Finished"])
    statuses.saved("a", ["AbandonsConfirmed"])
    statuses.saved("c", ["StandingsPublished", "ForceEnded"])
    assert statuses.counts == counts(registration=1, finished=2, force_ended=1)
