"""Oversized fields get a clear status, and are not copied whole into answers and logs.

Found by the rules API audit (each failed before its fix):

- An action within the 64 KB limit whose schema error quotes a long value (a 20 KB string
  where a number goes, a 20 KB property name) was answered with the whole value in the
  status reason, which does not fit in the status trailer: the client got RESOURCE_EXHAUSTED
  "received metadata size exceeds hard limit" instead of INVALID_ARGUMENT, a status that the
  seat loop (services/platform/playing.py) and most clients retry as transient. On the Play
  stream the ActionResult carried the 60 KB reason.
- A request's match id (1 MB of it, refused all the same) and a client's ``x-request-id``
  (any length) were bound whole into every log line of the call.

Real gRPC over sockets, real NATS, the Hidden Race toy.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform import logs
from services.platform.grpc_kit import call_metadata

pytestmark = pytest.mark.timeout(120)

LONG = 20_000
SHORT = 1100
"""At most this many bytes of reason (grpc_kit.MAX_DETAILS_BYTES and the words saying so)."""


async def _match(backend: Backend, client: RulesClient) -> tuple[str, dict[int, str]]:
    created = await client.create(backend.organiser_token(), mode="race", seats=2, dev_seed="5")
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def test_a_long_value_in_an_action_is_invalid_argument_with_a_short_reason(
        toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    for action in ({"type": "pick", "step": "x" * LONG},     # quoted by the validator
                   {"type": "pick", "step": 1, "k" * LONG: 1},  # an unknown key, quoted too
                   {"type": "pick", "step": 1, "\u00e9" * LONG: 1}):  # two bytes a character
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await client.call("SubmitAction", rules_pb2.SubmitActionRequest(
                match_id=match_id, command_id="long",
                action_json=json.dumps(action, ensure_ascii=False)), tokens[0])
        details = info.value.details() or ""
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (info.value.code(), details[:200])
        assert "schema" in details and len(details.encode()) <= SHORT
    # the match took nothing: the seat's decision is still owed, at the same version
    legal = await client.legal(tokens[0], match_id)
    assert [d.seat for d in legal.decisions] == [0]

    # on the Play stream: the result's reason is as short
    async def requests() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
        yield rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
            command_id="long", action_json=json.dumps({"type": "pick", "step": "x" * 60_000})))
        await asyncio.sleep(30)

    result = None
    async for message in client.stub.Play(requests(), metadata=call_metadata(tokens[0]), timeout=10):
        if message.WhichOneof("kind") == "result":
            result = message.result
            break
    assert result is not None and result.code == "INVALID_ARGUMENT" and result.command_id == "long"
    assert "schema" in result.message and len(result.message.encode()) <= SHORT
    await client.close()


async def test_long_ids_are_not_written_whole_into_the_logs(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    match_id, tokens = await _match(toy_backend, client)
    stream = io.StringIO()
    logs.configure("info", "json", stream=stream)  # whatever level earlier tests left
    try:
        await _refused_calls(client, match_id, tokens[0])
    finally:
        logs.configure()
    lines = stream.getvalue().splitlines()
    refused = [json.loads(line) for line in lines if line.startswith("{") and "call refused" in line]
    assert len(refused) >= 3, lines[-5:]
    assert max(len(line) for line in lines) < 4096, max(len(line) for line in lines)
    assert all(len(r.get("request_id", "")) <= 128 for r in refused)
    assert any(r.get("match_id", "").startswith("m" * 128) and "characters" in r["match_id"]
               for r in refused)
    await client.close()


async def _refused_calls(client: RulesClient, match_id: str, token: str) -> None:
    huge = "m" * (1 << 20)
    for name, request in (
            ("SubmitAction", rules_pb2.SubmitActionRequest(match_id=huge, command_id="c",
                                                           action_json="{}")),
            ("GetView", rules_pb2.GetViewRequest(match_id=huge))):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await client.call(name, request, token)
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    for name, request in (
            ("GetView", rules_pb2.GetViewRequest(match_id=huge)),  # and a 6 KB request id
            ("SubmitAction", rules_pb2.SubmitActionRequest(match_id=match_id, command_id="c",
                                                           action_json="{")),
    ):
        with pytest.raises(grpc.aio.AioRpcError):
            await client.stub.__getattribute__(name)(
                request, metadata=(("x-request-id", "r" * 6000),
                                   ("authorization", f"Bearer {token}")), timeout=5)
