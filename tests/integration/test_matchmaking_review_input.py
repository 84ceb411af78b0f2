"""Odd region strings, and what strangers are told of a match that lapsed, over real gRPC
and a real store (review of matchmaking).

Before: ``region`` took any text up to 32 characters, control and invisible format
characters included ("eu\\x00", "eu\\n", a right-to-left override, a zero-width space): each
made a queue of its own that no other player's ticket could ever meet (an "eu" player waited
alone beside "eu\\u200b"), stored as sent. Now those are INVALID_ARGUMENT with a short reason,
and nothing is stored; printable text of any script is kept as ever."""

from __future__ import annotations

import dataclasses

import grpc
import pytest

from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
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


async def test_strangers_are_not_told_who_let_their_match_lapse(env: Env) -> None:  # noqa: F811
    """Before: the other tickets of a match that fell through for want of accepts were told
    "match M fell through: X did not accept in time", naming the players (a party's invitee,
    who never agreed to the match, among them) to strangers, while a cancel or a decline tells
    them only "a ticket of it was cancelled" / "a player of it declined". Now they are told
    "a player of it did not accept in time"; the ticket of the player who did not accept still
    says who ("dropped: X did not accept ...")."""
    svc = await env.start(dataclasses.replace(FAST, accept_timeout=1.0))
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    await mm.call("CreateTicket", ta, ticket_id=env.id("ann"), game="toy", players=[a])
    await mm.call("CreateTicket", tb, ticket_id=env.id("bob"), game="toy", players=[b])
    proposed = await status_is(mm, tb, env.id("bob"), S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    await mm.call("AcceptMatch", tb, ticket_id=env.id("bob"), match_id=match_id)
    mine = await status_is(mm, ta, env.id("ann"), S.TICKET_STATUS_EXPIRED)
    assert mine.reason.startswith(f"dropped: {a} did not accept match {match_id}")
    back = await mm.call("GetTicket", tb, ticket_id=env.id("bob"))
    assert back.reason == f"match {match_id} fell through: a player of it did not accept in time"
    assert a not in back.reason
    await mm.channel.close()
