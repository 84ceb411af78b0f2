"""Odd region strings over real gRPC and a real store (review of matchmaking).

Before: ``region`` took any text up to 32 characters, control and invisible format
characters included ("eu\\x00", "eu\\n", a right-to-left override, a zero-width space): each
made a queue of its own that no other player's ticket could ever meet (an "eu" player waited
alone beside "eu\\u200b"), stored as sent. Now those are INVALID_ARGUMENT with a short reason,
and nothing is stored; printable text of any script is kept as ever."""

from __future__ import annotations

import grpc
import pytest

from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
)

C = grpc.StatusCode


async def test_a_region_with_control_or_invisible_characters_is_refused(env: Env) -> None:  # noqa: F811
    svc = await env.start(FAST)
    mm = Client(svc.address)
    a = env.id("ann")
    ta = env.player(a)
    for n, region in enumerate(["eu\x00", "eu\n", "\x1b[31meu", "\u202eue", "eu\u200b",
                                "eu\ufeff"]):
        ticket_id = env.id(f"bad{n}")
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call("CreateTicket", ta, ticket_id=ticket_id, game="toy", players=[a],
                          region=region)
        assert info.value.code() == C.INVALID_ARGUMENT, (region, info.value.details())
        details = info.value.details() or ""
        assert "region" in details and len(details) < 200 and region not in details
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await mm.call("GetTicket", ta, ticket_id=ticket_id)
        assert missing.value.code() == C.NOT_FOUND
    for n, region in enumerate(["eu-west", "日本", "é" * 32, "us east 2"]):
        ok = await mm.call("CreateTicket", ta, ticket_id=env.id(f"ok{n}"), game="toy",
                           players=[a], region=region)
        assert ok.status == S.TICKET_STATUS_WAITING
        await mm.call("CancelTicket", ta, ticket_id=env.id(f"ok{n}"))
    await mm.channel.close()
