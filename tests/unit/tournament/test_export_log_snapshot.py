"""The audit bundle's exports follow the log the bundle publishes: a match sealed between
the export's look at the tournament and its read of the log (the round driver sealing it
meanwhile) has its export in the bundle, as the log it carries says it must (``neon
verify``: "the match's export is missing from the bundle"), and the done message's counts
are those of that log."""

from __future__ import annotations

import asyncio
import json
import types
from typing import Any

from services.tournament.director import BundleSummary
from tests.unit.tournament.test_correct_stops_match import _one_round
from tests.unit.tournament.test_director_ended import ORG, StandInRules, director_on


class SealingRules(StandInRules):
    """Matches whose export ends sealed once ``sealed`` is set (before: still playing)."""

    def __init__(self) -> None:
        self.sealed = False

    async def export_match(self, game: str, match_id: str) -> Any:
        lines = [b'{"type":"MatchCreated"}']
        if self.sealed:
            lines.append(b'{"type":"MatchSealed"}')
        lines.append(b'{"type":"Checkpoint"}')
        return types.SimpleNamespace(export_jsonl=b"\n".join(lines) + b"\n",
                                     final_hash=f"hash-{match_id}", event_count=len(lines))


async def test_a_match_sealed_while_the_export_begins_has_its_export_in_the_bundle() -> None:
    rules = SealingRules()
    tid = "snap"
    async with director_on(rules) as d:
        await _one_round(d, tid)
        for _ in range(250):
            if len((await d.get(tid)).round(1)["matches"]) == 2:
                break
            await asyncio.sleep(0.02)
        # table 1 plays, then the organiser decides it: its match is abandoned, and the
        # round's checkpoint waits for its seal (one that never started is never sealed)
        assert await d._start(tid, 1, 1, f"{tid}-r1-t1")
        await d.correct_result(ORG, tid, 1, 1, [1, 2], False, "on paper")
        await asyncio.sleep(0.1)  # the driver looked: its export does not end sealed yet
        assert (await d.get(tid)).round(1)["sealed"] == {}

        real_records = d.records
        armed = True

        async def records(tournament_id: str, upto: int | None = None) -> Any:
            nonlocal armed
            if armed:  # the export found the tournament; the driver seals table 1 now
                armed = False
                rules.sealed = True
                await d.notify(tid)
                for _ in range(250):
                    if "1" in (await d.get(tid)).round(1)["sealed"]:
                        break
                    await asyncio.sleep(0.02)
                else:
                    raise AssertionError("table 1 was not sealed")
            return await real_records(tournament_id, upto)

        d.records = records  # type: ignore[method-assign]
        pieces = [p async for p in d.export_parts(ORG, tid)]
        summary = pieces.pop()
        assert isinstance(summary, BundleSummary)
        rows = [json.loads(x) for x in b"".join(pieces).splitlines()]
        log = [r["record"] for r in rows if r["type"] == "LogRecord"]
        sealed = [r["match_id"] for r in log if r["type"] == "MatchSealed"]
        assert sealed == [f"{tid}-r1-t1"]
        exported = [r["match_id"] for r in rows if r["type"] == "MatchExport"]
        assert exported == sealed  # the log seals it: its export is in the bundle
        assert rows[-1]["seal"]["matches"] == sealed, rows[-1]  # the bundle's seal names it
        assert summary.matches == 1
