"""Hostile clients of matchmaking over real gRPC, a real store and real rules services:
odd and huge field values get a clear status with a short reason, and store nothing."""

from __future__ import annotations

import grpc
import pytest

from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    Client,
    Env,
    S,
    env,
)

C = grpc.StatusCode


async def test_huge_or_repeated_field_values_get_a_clear_short_refusal(env: Env) -> None:  # noqa: F811
    svc = await env.start()
    mm = Client(svc.address)
    a = env.id("ann")
    ta = env.player(a)
    ok = dict(game="toy", players=[a], rating_window=0.5)
    huge = "x" * 200_000
    cases = [
        (dict(ok, ticket_id=env.id("g"), game=huge), C.INVALID_ARGUMENT),
        (dict(ok, ticket_id=env.id("m"), modes=[huge]), C.INVALID_ARGUMENT),
        (dict(ok, ticket_id=env.id("r"), modes=["race"] * 50_000), C.INVALID_ARGUMENT),
        (dict(ok, ticket_id=env.id("w"), rating_window=1e308), None),
        (dict(ok, ticket_id=env.id("s"), min_seats=2**31 - 1), C.INVALID_ARGUMENT),
    ]
    for kw, code in cases:
        if code is None:
            t = await mm.call("CreateTicket", ta, **kw)
            assert t.status == S.TICKET_STATUS_WAITING
            await mm.call("CancelTicket", ta, ticket_id=kw["ticket_id"])
            continue
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call("CreateTicket", ta, **kw)
        details = info.value.details() or ""
        assert info.value.code() == code, (kw.get("game", "")[:20], info.value.code(), details[:200])
        assert details and len(details) < 400, len(details)
    await mm.channel.close()
