"""ForceEnd landing between a match's creation on its rules service and its record in the
tournament (MatchCreated): the match is abandoned all the same, never left waiting for its
seats with nobody to play it.

The round driver creates a table's match, then records it. The organiser's ForceEnd saved in
between used to cancel the driver mid-way, and its abandons (of the recorded matches) did not
know the match. Here the real rules service's CreateMatch is held at a gate for the
tournament's one match (the first try, NextRound's own, is refused, so the round driver
makes the next), and the test lands ForceEnd while it is held:

* "after": the match is created and its answer held;
* "before": the call is held before the match is created, and the creation goes on even if
  the tournament service hangs up (as a rules service past its last check would);
* "lost": every answer is lost after the match was created (a stop between the creation and
  the record, or an answer that never came back): ForceEnd abandons it by its deterministic
  id.

Over real gRPC, with the real tournament and rules services."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from services.rules.service import RulesServicer
from tests.integration.conftest import start_tournament_backend, started_swiss

pytestmark = pytest.mark.timeout(120)
TID = "gate"
MATCH_ID = f"{TID}-r1-t1"
REASON = "the venue closed"


@dataclasses.dataclass
class Gate:
    """How the rules service answers CreateMatch of ``MATCH_ID`` (see the module's text)."""

    how: str
    calls: int = 0
    held: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    go: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    created: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)


def gate_creation(monkeypatch: pytest.MonkeyPatch, gate: Gate) -> None:
    """RulesServicer.CreateMatch through ``gate`` for ``MATCH_ID``. Before the backend
    starts: the server takes the servicer's methods when it is built."""
    real = RulesServicer.CreateMatch

    async def create(self: RulesServicer, request: Any, context: Any) -> Any:
        if request.match_id != MATCH_ID:
            return await real(self, request, context)
        gate.calls += 1
        if gate.how == "lost":
            await real(self, request, context)
            gate.created.set()
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the answer was lost")
        if gate.calls == 1:  # NextRound's own try: the round driver makes the next
            await context.abort(grpc.StatusCode.UNAVAILABLE, "not yet")

        async def held() -> Any:
            if gate.how == "before":
                gate.held.set()
                await gate.go.wait()
            answer = await real(self, request, context)
            gate.created.set()
            if gate.how == "after":
                gate.held.set()
                await gate.go.wait()
            return answer

        # runs to its end even if the caller hangs up (its answer then goes nowhere)
        return await asyncio.shield(asyncio.ensure_future(held()))

    monkeypatch.setattr(RulesServicer, "CreateMatch", create)


async def until(check: Any, what: str, timeout: float = 30) -> None:
    for _ in range(int(timeout / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {what} after {timeout:g} s")


@pytest.mark.parametrize("how", ["after", "before", "lost"])
async def test_force_end_between_a_matchs_creation_and_its_record_abandons_it(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    gate = Gate(how)
    gate_creation(monkeypatch, gate)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    rules = RulesClient(b.address("rules-neon-reign"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    director = b.services["tournament"].extra["director"]

    async def status() -> int:
        return (await c.call("GetTournament", tournament_id=TID)).tournament.status

    async def force_ended() -> bool:
        return await status() == tournament_pb2.TOURNAMENT_STATUS_FORCE_ENDED

    try:
        await started_swiss(c, org, tokens, TID)
        if how == "lost":
            await asyncio.wait_for(gate.created.wait(), 30)
            await c.call("ForceEnd", org, tournament_id=TID, reason=REASON)
        else:
            await asyncio.wait_for(gate.held.wait(), 30)  # the round driver's try, held
            ending = asyncio.create_task(
                c.call("ForceEnd", org, tournament_id=TID, reason=REASON))
            await until(force_ended, "ForceEnd saved")  # while the creation is held
            gate.go.set()
            await asyncio.wait_for(ending, 30)
            await asyncio.wait_for(gate.created.wait(), 30)
        assert await force_ended()
        rnd = (await c.call("GetRound", tournament_id=TID, round=1)).round
        assert [t.match_id for t in rnd.tables] == [""]  # never recorded
        # abandoned by the time ForceEnd answered: no match waits with nobody to play it
        view = await rules.view(MATCH_ID)
        assert view.status == rules_pb2.MATCH_STATUS_ENDED, view
        outcome = json.loads(view.outcome_json)
        assert outcome["abandoned"] is True and outcome["reason"] == REASON, outcome
        assert director.app.force_ended_ids() == []  # every abandon was answered
        assert not director._creating  # no creation left under way
    finally:
        gate.go.set()
        await c.close()
        await rules.close()
        await b.stop(1)


async def test_force_end_whose_caller_hangs_up_while_a_creation_is_held_still_abandons(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tables: table 2's match is created and recorded, table 1's creation is held on
    the rules service. ForceEnd, once saved, waits for that creation; its caller's deadline
    passes meanwhile (the organiser's client gives up, or hangs up): the abandons still go
    out, and table 2's match, waiting for its seats, is abandoned all the same (it was left
    waiting, with nobody to play it, until a repeat ForceEnd or a restart)."""
    gate = Gate("before")
    gate_creation(monkeypatch, gate)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    rules = RulesClient(b.address("rules-neon-reign"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600)
              for n in ("ann", "ben", "cat", "dan")}
    director = b.services["tournament"].extra["director"]
    other = f"{TID}-r1-t2"
    try:
        await started_swiss(c, org, tokens, TID)
        await asyncio.wait_for(gate.held.wait(), 30)  # table 1's creation, held
        rnd = (await c.call("GetRound", tournament_id=TID, round=1)).round
        assert sorted(t.match_id for t in rnd.tables) == ["", other]
        impatient = TournamentClient(b.address("tournament"), timeout=1.0)
        try:
            with pytest.raises(grpc.aio.AioRpcError) as gave_up:
                await impatient.call("ForceEnd", org, tournament_id=TID, reason=REASON)
        finally:
            await impatient.close()
        assert gave_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        gate.go.set()
        await asyncio.wait_for(gate.created.wait(), 30)

        async def both_abandoned() -> bool:
            views = [await rules.view(m) for m in (MATCH_ID, other)]
            return all(v.status == rules_pb2.MATCH_STATUS_ENDED for v in views)

        await until(both_abandoned, "both matches abandoned", timeout=15)
        for match_id in (MATCH_ID, other):
            outcome = json.loads((await rules.view(match_id)).outcome_json)
            assert outcome["abandoned"] is True and outcome["reason"] == REASON, outcome

        async def confirmed() -> bool:
            return await asyncio.to_thread(director.app.force_ended_ids) == []

        await until(confirmed, "AbandonsConfirmed")
    finally:
        gate.go.set()
        await c.close()
        await rules.close()
        await b.stop(1)


async def test_force_end_waits_for_a_hung_creation_no_longer_than_its_call_deadline(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules service never answers the held CreateMatch: ForceEnd answers once the
    round driver's call reaches its deadline (the tournament service's call timeout, 5 s
    here), not later; the match was never created, and its abandon by id (NOT_FOUND)
    counts as answered."""
    gate = Gate("before")  # never let go: the call hangs
    gate_creation(monkeypatch, gate)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"), timeout=30.0)
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    director = b.services["tournament"].extra["director"]
    deadline = director.rules.timeout
    try:
        await started_swiss(c, org, tokens, TID)
        await asyncio.wait_for(gate.held.wait(), 30)
        began = asyncio.get_running_loop().time()
        await c.call("ForceEnd", org, tournament_id=TID, reason=REASON)
        took = asyncio.get_running_loop().time() - began
        assert took < deadline + 2.0, (took, deadline)
        assert not gate.created.is_set()
        assert director.app.force_ended_ids() == []
        assert not director._creating
    finally:
        gate.go.set()
        await c.close()
        await b.stop(1)
