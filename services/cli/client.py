"""A thin async client of the rules service, used by the command line and the tests."""

from __future__ import annotations

import json
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from services.platform.playing import paced


class RulesClient:
    def __init__(self, address: str, timeout: float = 15.0) -> None:
        self.address = address
        self.channel = channel(address)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.timeout = timeout

    async def close(self) -> None:
        await self.channel.close()

    async def call(self, name: str, request: Any, token: str | None = None,
                   timeout: float | None = None) -> Any:
        """The unary call ``name``; one the service refuses over the caller's call rate
        (nothing applied) is sent again after the wait the refusal names."""
        return await paced(lambda: getattr(self.stub, name)(
            request, metadata=call_metadata(token), timeout=timeout or self.timeout))

    async def info(self) -> Any:
        return await self.call("GetGameInfo", rules_pb2.GetGameInfoRequest())

    async def create(self, organiser: str, **kw: Any) -> Any:
        options = kw.pop("options", {})
        return await self.call(
            "CreateMatch",
            rules_pb2.CreateMatchRequest(options_json=json.dumps(options), **kw), organiser,
        )

    async def submit(self, token: str, match_id: str, command_id: str, action: Any,
                     **kw: Any) -> Any:
        return await self.call("SubmitAction", rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id=command_id, action_json=json.dumps(action), **kw), token)

    async def legal(self, token: str, match_id: str) -> Any:
        return await self.call(
            "ListLegalActions", rules_pb2.ListLegalActionsRequest(match_id=match_id), token
        )

    async def view(self, match_id: str, token: str | None = None) -> Any:
        return await self.call("GetView", rules_pb2.GetViewRequest(match_id=match_id), token)

    async def export(self, organiser: str, match_id: str) -> Any:
        return await self.call(
            "ExportMatch", rules_pb2.ExportMatchRequest(match_id=match_id), organiser
        )

    def export_chunks(self, organiser: str, match_id: str, timeout: float = 300.0) -> Any:
        """The match's export streamed in chunks (ExportMatchChunks): any length, where one
        ExportMatch message may exceed what a client takes."""
        return self.stub.ExportMatchChunks(
            rules_pb2.ExportMatchChunksRequest(match_id=match_id),
            metadata=call_metadata(organiser), timeout=timeout,
        )

    async def abandon(self, organiser: str, match_id: str, reason: str) -> Any:
        return await self.call(
            "AbandonMatch", rules_pb2.AbandonMatchRequest(match_id=match_id, reason=reason),
            organiser,
        )

    def watch(self, match_id: str, token: str | None = None, from_version: int = 0) -> Any:
        return self.stub.WatchMatch(
            rules_pb2.WatchMatchRequest(match_id=match_id, from_version=from_version),
            metadata=call_metadata(token),
        )


def is_code(err: BaseException, code: grpc.StatusCode) -> bool:
    return isinstance(err, grpc.aio.AioRpcError) and err.code() == code


def client_for(clients: dict[str, RulesClient], address: str) -> RulesClient:
    """The client of the rules service at ``address`` in ``clients``, opened on first use:
    one channel per address, however many seats play there."""
    if address not in clients:
        clients[address] = RulesClient(address)
    return clients[address]


async def close_all(clients: dict[str, RulesClient]) -> None:
    for client in clients.values():
        await client.close()
    clients.clear()
