"""One match whose export stays broken does not hold up the other tables of its round: the
director seals every table it can on each pass, logs the broken one with its match id, and
asks for it again on the next pass until it heals.

Over real gRPC, NATS and the real rules service of Neon Reign, whose ExportMatchChunks is
replaced (before the backend starts) by one that breaks the stream of the matches named in a
set, and streams the others whole."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, play_round_as
from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
from tests.integration.conftest import start_tournament_backend, started_swiss
from tests.integration.test_tournament_export_chunks import break_rules_exports, until

pytestmark = pytest.mark.timeout(240)


@dataclasses.dataclass
class Breaker:
    """The match ids whose ExportMatchChunks stream arrives broken now, and every match id
    the stream was asked for, in order."""

    broken: set[str] = dataclasses.field(default_factory=set)
    asked: list[str] = dataclasses.field(default_factory=list)


def break_exports(monkeypatch: pytest.MonkeyPatch, breaker: Breaker) -> None:
    def broken_for(match_id: str) -> bool:
        breaker.asked.append(match_id)
        return match_id in breaker.broken

    break_rules_exports(monkeypatch, broken_for)


async def test_a_broken_export_leaves_the_other_tables_sealing(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Four players, one Swiss round of two tables. Table 1 finishes first (its result is
    the first the director has to seal) and its export stream stays broken: table 2 is
    sealed all the same, table 1 is asked again pass after pass and logged with its match
    id, and once its stream is whole it is sealed and the round's checkpoint published."""
    breaker = Breaker()
    break_exports(monkeypatch, breaker)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    names = ("ann", "ben", "cat", "dan")
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    rules: dict[str, RulesClient] = {}
    tid = f"isolated_{uuid.uuid4().hex[:8]}"

    async def round_1() -> Any:
        return (await c.call("GetRound", tournament_id=tid, round=1)).round

    try:
        await started_swiss(c, org, tokens, tid)
        r = await round_1()
        first, second = sorted((t for t in r.tables if not t.bye), key=lambda t: t.number)
        breaker.broken.add(first.match_id)
        # table 1 plays, and its result is recorded, before table 2 plays
        assert await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                                      for n in first.seats)) == ["played", "played"]

        async def first_done() -> bool:
            t = next(t for t in (await round_1()).tables if t.number == first.number)
            return t.status == tpb.TABLE_STATUS_DONE

        await until(first_done, "result of table 1")
        assert await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=60)
                                      for n in second.seats)) == ["played", "played"]

        async def second_sealed() -> Any:
            r = await round_1()
            t = next(t for t in r.tables if t.number == second.number)
            return r if t.final_hash else None

        r = await until(second_sealed, "seal of table 2 beside a broken table 1", timeout=30)
        sealed = {t.number: t.final_hash for t in r.tables}
        assert sealed[first.number] == "", "sealed from a broken stream"
        assert not r.complete

        async def asked_again() -> bool:
            return breaker.asked.count(first.match_id) >= 3

        await until(asked_again, "the broken export asked again")
        assert not (await round_1()).complete
        breaker.broken.clear()
        r = await until(lambda: _complete(round_1), "complete round once the stream healed")
        assert all(t.final_hash for t in r.tables)
    finally:
        await c.close()
        for rc in rules.values():
            await rc.close()
        await b.stop(1)
    lines = []
    for line in capsys.readouterr().err.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    sealing = [x for x in lines if x.get("event", "").startswith("sealing a match failed")]
    failed = [x for x in sealing if x.get("match_id") == first.match_id]
    assert failed, "the broken export was not logged with its match id"
    assert all("arrived broken" in x["error"] and x["level"] == "warning"
               and x["tournament_id"] == tid and x["table"] == first.number for x in failed)
    assert [x for x in sealing if x not in failed] == []


async def _complete(round_1: Any) -> Any:
    r = await round_1()
    return r if r.complete else None
