"""The Play seat stream: decisions, views and events pushed; actions answered in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from tests.support import duel


async def test_a_seat_plays_a_whole_match_on_its_stream(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    created = await client.create(duel_backend.organiser_token(), mode="duel", seats=2, dev_seed="9")
    match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}
    stats: dict[int, dict[str, Any]] = {}

    async def seat(n: int) -> None:
        outbox: asyncio.Queue[Any] = asyncio.Queue()
        await outbox.put(rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)))

        async def requests() -> AsyncIterator[Any]:
            while True:
                yield await outbox.get()

        mine = stats[n] = {"events": 0, "updates": 0, "results": [], "outcome": None, "texts": 0}
        sent = -1
        async for message in client.stub.Play(requests(), metadata=call_metadata(tokens[n]),
                                              timeout=30):
            kind = message.WhichOneof("kind")
            if kind == "event":
                mine["events"] += 1
                mine["texts"] += len(message.event.text)
                assert "draws" not in json.loads(message.event.payload_json)
            elif kind == "result":
                mine["results"].append(message.result.code)
            elif kind == "update":
                mine["updates"] += 1
                update = message.update
                if update.outcome_json:
                    mine["outcome"] = json.loads(update.outcome_json)
                    return
                owed = [d for d in update.decisions if not d.standing]
                view = json.loads(update.view_json)
                assert view["health"], "the seat's view comes with each update"
                if owed and update.version != sent:
                    legal = [json.loads(a) for a in owed[0].legal_json]
                    action = duel.STRIKE if duel.STRIKE in legal else legal[0]
                    sent = update.version
                    await outbox.put(rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                        command_id=f"s{n}-v{update.version}", action_json=json.dumps(action),
                        expected_version=update.version)))

    await asyncio.wait_for(asyncio.gather(seat(0), seat(1)), 60)
    for n in (0, 1):
        assert stats[n]["outcome"] is not None and stats[n]["updates"] > 0
        assert stats[n]["results"] and set(stats[n]["results"]) <= {"OK", "ABORTED"}
        assert stats[n]["texts"] > 0
    assert stats[0]["outcome"] == stats[1]["outcome"]
    view = await client.view(match_id)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED
    await client.close()


async def test_bad_streams_get_clear_statuses_and_a_refused_action_keeps_the_stream(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    created = await client.create(duel_backend.organiser_token(), mode="duel", seats=2)
    match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}

    async def only(*messages: Any) -> AsyncIterator[Any]:
        for m in messages:
            yield m
        await asyncio.sleep(30)

    action = rules_pb2.PlayRequest(action=rules_pb2.PlayAction(command_id="x", action_json="{}"))
    for token, first, code in (
        (tokens[0], action, grpc.StatusCode.INVALID_ARGUMENT),          # no open first
        (None, rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)),
         grpc.StatusCode.UNAUTHENTICATED),
        (duel_backend.organiser_token(), rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)),
         grpc.StatusCode.PERMISSION_DENIED),
        (tokens[0], rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id="nope")),
         grpc.StatusCode.PERMISSION_DENIED),                            # a token for another match
    ):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in client.stub.Play(only(first), metadata=call_metadata(token), timeout=5):
                pass
        assert info.value.code() == code, (code, info.value.details())
    # An illegal action is answered in the stream, which goes on.
    illegal = rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
        command_id="bad", action_json='{"type": "counter"}'))
    results = []
    async for message in client.stub.Play(
            only(rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)), illegal),
            metadata=call_metadata(tokens[0]), timeout=5):
        if message.WhichOneof("kind") == "result":
            results.append(message.result)
            break
    assert results[0].code == "FAILED_PRECONDITION" and results[0].command_id == "bad"
    assert results[0].message
    await client.close()
