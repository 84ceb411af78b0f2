"""Small helpers to call the services over real gRPC in tests."""

from __future__ import annotations

import json
from typing import Any

import grpc

from services.genproto.neon.dice.v1 import dice_pb2_grpc
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata


class RulesClient:
    def __init__(self, address: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)

    async def close(self) -> None:
        await self.channel.close()

    async def call(self, name: str, request: Any, token: str | None = None, timeout: float = 10) -> Any:
        return await getattr(self.stub, name)(request, metadata=call_metadata(token), timeout=timeout)

    async def create(self, organiser: str, **kw: Any) -> Any:
        options = kw.pop("options", {})
        return await self.call(
            "CreateMatch", rules_pb2.CreateMatchRequest(options_json=json.dumps(options), **kw), organiser
        )

    async def submit(self, token: str, match_id: str, command_id: str, action: Any, **kw: Any) -> Any:
        return await self.call("SubmitAction", rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id=command_id, action_json=json.dumps(action), **kw), token)

    async def legal(self, token: str, match_id: str) -> Any:
        return await self.call("ListLegalActions", rules_pb2.ListLegalActionsRequest(match_id=match_id), token)

    async def view(self, match_id: str, token: str | None = None) -> Any:
        return await self.call("GetView", rules_pb2.GetViewRequest(match_id=match_id), token)


def dice_stub(address: str) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(address)
    return channel, dice_pb2_grpc.DiceServiceStub(channel)
