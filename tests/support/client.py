"""Test helpers over real gRPC: the rules client (the command line's), the dice stub, and
seats played by the one "play a seat" loop (``services.platform.playing``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc

from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2_grpc
from services.platform.playing import Choose, play_seat, play_seats, random_choice

__all__ = ["RulesClient", "dice_stub", "play_match", "play_one", "random_choose"]


def dice_stub(address: str) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(address)
    return channel, dice_pb2_grpc.DiceServiceStub(channel)


random_choose = random_choice


async def play_one(client: RulesClient, match_id: str, token: str, choose: Choose | None = None,
                   **options: Any) -> dict[str, Any] | None:
    """Play the token's seat to the end of the match; the outcome."""
    return await play_seat(client.stub, token, match_id, choose or random_choose(match_id),
                           **options)


async def play_match(client: RulesClient, match_id: str, tokens: Mapping[int, str],
                     choose: Choose | None = None, **options: Any) -> dict[str, Any] | None:
    """Play every seat in ``tokens`` to the end of the match; the outcome."""
    return await play_seats(client.stub, match_id, tokens, choose or random_choose(match_id),
                            **options)
