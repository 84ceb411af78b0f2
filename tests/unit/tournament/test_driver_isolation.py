"""The round driver takes each match on its own: a rules service that keeps failing one
table's match (its creation, its start) holds up neither the round's other tables nor the
driver, and the failed one is tried again on the following passes until it goes through.
(Sealing, the same over real gRPC: tests/integration/test_tournament_seal_isolated.py.)"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from services.platform.errors import Unavailable
from services.tournament.director import Director
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on


class FailingRules(StandInRules):
    """Creates and starts matches, except those named in ``no_create`` / ``no_start``
    (UNAVAILABLE, as a rules service that does not answer); counts every try."""

    def __init__(self) -> None:
        self.no_create: set[str] = set()
        self.no_start: set[str] = set()
        self.tries: Counter[tuple[str, str]] = Counter()

    async def create_match(self, game: str, match_id: str, *args: Any,
                           **kw: Any) -> tuple[dict[int, str], str]:
        self.tries["create", match_id] += 1
        if match_id in self.no_create:
            raise Unavailable(f"the rules service does not answer for {match_id}")
        return await super().create_match(game, match_id, *args, **kw)

    async def start_match(self, game: str, match_id: str) -> None:
        self.tries["start", match_id] += 1
        if match_id in self.no_start:
            raise Unavailable(f"the rules service does not answer for {match_id}")


async def _until(check: Callable[[], Any], what: str) -> None:
    for _ in range(400):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {what}")


async def test_one_tables_failures_leave_the_others_going() -> None:
    rules = FailingRules()
    tid = "iso"
    t1, t2 = f"{tid}-r1-t1", f"{tid}-r1-t2"
    rules.no_create.add(t1)
    async with director_on(rules) as d:
        await d.create(ORG, tid, {"game": "g", "mode": "single", "check_in_seconds": 1,
                                  "format_json": json.dumps({"format": "swiss", "rounds": 1})})
        await d.open_registration(ORG, tid)
        for p in ("p0", "p1", "p2", "p3"):
            await d.register(ORG, tid, p)
        await d.start(ORG, tid)
        view = await d.next_round(ORG, tid, 0)  # table 1's creation fails, table 2's not
        assert [k["number"] for k in view["tables"]] == [1, 2]

        async def matches() -> dict[str, Any]:
            return dict((await d.get(tid)).round(1)["matches"])

        assert set(await matches()) == {"2"}

        async def asked_again() -> bool:
            return rules.tries["create", t1] >= 3

        await _until(asked_again, "creation of table 1 tried again")
        assert set(await matches()) == {"2"}
        assert _driving(d, tid)

        # table 2's match, the first the round knows, fails to start; table 1's is created
        # now and starts when its check-in window ends all the same
        rules.no_start.add(t2)
        rules.no_create.clear()

        async def started_1() -> bool:
            return "1" in (await d.get(tid)).round(1)["started"]

        await _until(started_1, "start of table 1 beside a failing table 2")
        assert list(await matches()) == ["2", "1"]
        assert "2" not in (await d.get(tid)).round(1)["started"]
        assert rules.tries["start", t2] >= 1
        assert _driving(d, tid)
        rules.no_start.clear()

        async def started_2() -> bool:
            return "2" in (await d.get(tid)).round(1)["started"]

        await _until(started_2, "start of table 2 once its rules service answers")


def _driving(d: Director, tid: str) -> bool:
    task = d._drivers.get(tid)
    return task is not None and not task.done()
