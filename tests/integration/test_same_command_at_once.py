"""One command sent many times at once, from several connections of the same seat (unary calls
and a Play stream), is applied once and answered alike; the same id with another body is
ALREADY_EXISTS, never a second event. A regression test of the rules API audit (it held).

Real gRPC over sockets (three channels), real NATS, the Hidden Race toy.
"""

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
from services.rules.export import parse_export

pytestmark = pytest.mark.timeout(120)

PICK = {"type": "pick", "step": 3}


async def test_one_command_from_many_connections_at_once_is_one_event(toy_backend: Backend) -> None:
    address = toy_backend.address("rules-toy")
    clients = [RulesClient(address) for _ in range(3)]
    organiser = toy_backend.organiser_token()
    created = await clients[0].create(organiser, mode="race", seats=2, dev_seed="11")
    match_id = created.match_id
    token = {t.seat: t.token for t in created.seat_tokens}[0]
    start = (await clients[0].view(match_id)).version

    async def over_play() -> Any:
        async def requests() -> AsyncIterator[Any]:
            yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id,
                                                                from_version=start))
            yield rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                command_id="once", action_json=json.dumps(PICK)))
            await asyncio.sleep(30)

        async for message in clients[2].stub.Play(requests(), metadata=call_metadata(token),
                                                  timeout=10):
            if message.WhichOneof("kind") == "result":
                return message.result
        return None

    async def other_body() -> str:
        try:
            await clients[1].submit(token, match_id, "once", {"type": "pick", "step": 1})
        except grpc.aio.AioRpcError as err:
            return err.code().name
        return "OK"

    unary = [clients[i % 2].submit(token, match_id, "once", PICK) for i in range(8)]
    answers = await asyncio.gather(*unary, over_play(), return_exceptions=True)
    *submits, played = answers
    refused = await other_body()
    assert not [a for a in submits if isinstance(a, BaseException)], submits
    assert {(a.version, a.state_hash) for a in submits} == {(start + 1, submits[0].state_hash)}
    firsts = [a for a in submits if not a.replayed] + ([played] if not played.replayed else [])
    assert refused == "ALREADY_EXISTS"  # the same id with another body: no second event
    assert len(firsts) == 1, [a.replayed for a in submits]
    assert played.code == "OK" and played.version == start + 1
    for answer in submits:  # the same events, as seat 0 sees them (its own pick shown)
        assert [e.version for e in answer.events] == [start + 1]
        assert json.loads(answer.events[0].payload_json)["action"] == PICK

    await clients[0].abandon(organiser, match_id, "audit")
    records, _ = parse_export((await clients[0].export(organiser, match_id)).export_jsonl)
    accepted = [r for r in records if r["type"] == "ActionAccepted"]
    assert [(r["seat"], r["command_id"]) for r in accepted] == [(0, "once")]
    for client in clients:
        await client.close()
