"""Test helpers over real gRPC (the client itself is the command line's)."""

from __future__ import annotations

from typing import Any

import grpc

from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2_grpc

__all__ = ["RulesClient", "dice_stub"]


def dice_stub(address: str) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(address)
    return channel, dice_pb2_grpc.DiceServiceStub(channel)
