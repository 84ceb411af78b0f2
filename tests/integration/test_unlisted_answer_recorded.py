"""An action listed in none of the seat's decisions, that the engine's ``validate`` accepts
(another form of a listed answer), is recorded under the decision it answers: its kind,
its hidden flag (a hidden answer reaches its own seat only) and whether it was standing.

The host recorded it under the seat's first decision: here the public owed turn, so a
hidden standing option's secret went to every seat's stream and to the spectators. An
action no decision lists answers of is refused FAILED_PRECONDITION, nothing recorded.
"Sealed Duel", a contract-v2 engine as a plug-in game would be (the four games cannot do
this: tests/unit/test_unlisted_answers.py), served by a real rules service over gRPC."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.rules.games.contract import RESIGN, Decision, EngineEvent, Transition
from services.rules.host import UNATTRIBUTED
from tests.integration.conftest import make_settings
from tests.support import duel

pytestmark = pytest.mark.timeout(120)

SEALED = {"type": "exchange", "secret": 0}
"""The listed answer of the hidden standing option; any ``secret`` is taken."""


class SealedDuel(duel.DuelEngine):
    """Counter Duel whose exchange is a hidden standing option carrying a secret number,
    taken whatever the number (listed with 0), and with a ``wink`` no decision lists that
    ``validate`` takes from the seat owing an answer."""

    game_id = "sealed"
    title = "Sealed Duel"

    def action_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["type"], "additionalProperties": False,
                "properties": {"type": {"enum": ["strike", "rest", "counter", "pass",
                                                 "exchange", "resign", "wink"]},
                               "secret": {"type": "integer"}}}

    def standing(self, state: duel.State) -> tuple[Decision, ...]:
        if self.outcome(state) is not None:
            return ()
        out = []
        for seat in (0, 1):
            out.append(Decision(seat, "any_time", (dict(RESIGN),), "resign", standing=True))
            if state.health[seat] > 2:
                out.append(Decision(seat, "sealed_exchange", (dict(SEALED),),
                                    "exchange 2 health for 1 spark, with a secret",
                                    hidden=True, standing=True, priority=1))
        return tuple(out)

    def validate(self, state: duel.State, seat: int, action: Any) -> str | None:
        if action.get("type") == "exchange":
            if self.outcome(state) is not None or state.health[seat] <= 2:
                return "no exchange now"
            return None if set(action) == {"type", "secret"} else "an exchange has a secret"
        if action.get("type") == "wink":
            return None if seat == self._owed(state) else "not your answer to give"
        return super().validate(state, seat, action)

    def apply(self, state: duel.State, seat: int, action: Any, rng: Any) -> Transition:
        if action["type"] == "exchange":
            return super().apply(state, seat, duel.EXCHANGE, rng)
        if action["type"] == "wink":
            return Transition(replace(state), (EngineEvent("winked", {"seat": seat}),))
        return super().apply(state, seat, action, rng)


@pytest.fixture
async def sealed_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[], embedded_nats=False,
                            engines={"sealed": SealedDuel()})
    yield b
    await b.stop(1)


async def test_an_unlisted_answer_is_recorded_under_the_decision_it_answers(
        sealed_backend: Backend) -> None:
    client = RulesClient(sealed_backend.address("rules-sealed"))
    organiser = sealed_backend.organiser_token()
    created = await client.create(organiser, mode="duel", seats=2, dev_seed="sealed")
    match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}
    owing = [s for s in (0, 1) if any(not d.standing for d in
                                      (await client.legal(tokens[s], match_id)).decisions)]
    assert len(owing) == 1
    seat, other = owing[0], 1 - owing[0]
    before = (await client.view(match_id)).version

    # the hidden standing option's answer, in another form than listed, while owing a turn
    answer = await client.submit(tokens[seat], match_id, "secret",
                                 {"type": "exchange", "secret": 4321})
    assert answer.version == before + 1
    export = (await client.call("ExportMatch", rules_pb2.ExportMatchRequest(match_id=match_id),
                                organiser)).export_jsonl
    record = next(r for r in map(json.loads, export.decode().splitlines())
                  if r.get("n") == before + 1)
    assert record["action"] == {"type": "exchange", "secret": 4321}
    assert (record["decision"], record["hidden"]) == ("sealed_exchange", True)

    # what the other seat and the spectators see of it: not the secret
    for token in (tokens[other], None):
        stream = client.stub.WatchMatch(
            rules_pb2.WatchMatchRequest(match_id=match_id, from_version=before),
            metadata=call_metadata(token), timeout=10)
        event = (await stream.read()).event
        stream.cancel()
        assert event.version == before + 1
        assert "4321" not in event.payload_json and "action" not in json.loads(event.payload_json)
    own = client.stub.WatchMatch(
        rules_pb2.WatchMatchRequest(match_id=match_id, from_version=before),
        metadata=call_metadata(tokens[seat]), timeout=10)
    assert "4321" in (await own.read()).event.payload_json  # its own seat sees it
    own.cancel()

    # an action no decision lists answers of: refused, with the reason, nothing recorded
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.submit(tokens[seat], match_id, "wink", {"type": "wink"})
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert UNATTRIBUTED in (info.value.details() or "")
    assert (await client.view(match_id)).version == before + 1
    await client.close()
