"""A party's players each consent for themselves, over real gRPC (security audit: a ticket's
``players`` could name anyone, and with NEON_MATCHMAKING_AUTO_ACCEPT on its creator was handed
the seat token of everyone it named).

A player token acts only for its own player: auto-accept accepts for the players the ticket's
creator is authenticated as (all of them for an organiser or service token), every other
player of the party accepts with their own token, and an assignment's seat token goes only to
that seat's player (or the organiser or service token that queued the ticket), whoever of the
party asks.

Game: the toy engine ("toy", mode "race", exactly 2 seats), so a party of two is a match.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import grpc
import pytest

from services.matchmaking.matchmaker import Config
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
)

AUTO = dataclasses.replace(FAST, auto_accept=True)
C = grpc.StatusCode


def tokens_of(ticket: Any) -> dict[str, str]:
    return {s.player: s.token for s in ticket.assignment.seats}


class Party(NamedTuple):
    """mallory's party naming the victim, proposed: the client, the two players, their
    tokens, the ticket's id and the ticket proposed."""

    mm: Client
    mallory: str
    victim: str
    tm: str
    tv: str
    tid: str
    proposed: Any


async def mallory_names_the_victim(env: Env, config: Config) -> Party:  # noqa: F811
    """A matchmaker started with ``config``; mallory queues a party naming the victim, which
    is proposed at once (it fills a toy table)."""
    svc = await env.start(config)
    mm = Client(svc.address)
    mallory, victim = env.id("mallory"), env.id("victim")
    tm, tv = env.player(mallory), env.player(victim)
    tid = env.id("party")
    await mm.call("CreateTicket", tm, ticket_id=tid, game="toy", players=[mallory, victim])
    proposed = await status_is(mm, tm, tid, S.TICKET_STATUS_PROPOSED)
    return Party(mm, mallory, victim, tm, tv, tid, proposed)


async def watched(mm: Client, token: str, ticket_id: str) -> list[Any]:
    """Every ticket a WatchTicket stream sends until the ticket ends."""
    return [m.ticket async for m in mm.watch(token, ticket_id)]


async def test_auto_accept_never_accepts_for_a_party_member_who_did_not(env: Env) -> None:  # noqa: F811
    """The audit's case: with auto-accept on, a player queues a "party" naming a victim. The
    victim never accepts, so there is no match and no seat token; the ticket ends saying who
    did not accept."""
    mm, mallory, victim, tm, tv, tid, proposed = await mallory_names_the_victim(
        env, dataclasses.replace(AUTO, accept_timeout=1.0))
    assert list(proposed.accepted) == [mallory], "auto-accept acts for the creator only"
    seen = await watched(mm, tm, tid)
    assert seen[-1].status == S.TICKET_STATUS_EXPIRED
    assert seen[-1].reason.startswith(f"dropped: {victim} did not accept match")
    assert not any(s.token for t in seen for s in t.assignment.seats)
    for token in (tm, tv):
        ended = await mm.call("GetTicket", token, ticket_id=tid)
        assert ended.status == S.TICKET_STATUS_EXPIRED and not any(tokens_of(ended).values())
    await mm.channel.close()


@pytest.mark.parametrize("config", [FAST, AUTO], ids=["accept", "auto-accept"])
async def test_a_party_member_gets_only_their_own_seat_token(env: Env, config: Config) -> None:  # noqa: F811
    """The victim accepts (with their own token): the match is made, and each player of the
    party sees only their own seat token, in every answer and on the watch; an organiser, who
    did not queue it, sees neither."""
    mm, mallory, victim, tm, tv, tid, proposed = await mallory_names_the_victim(env, config)
    match_id = proposed.assignment.match_id
    stream = mm.watch(tm, tid)
    if not config.auto_accept:
        after = await mm.call("AcceptMatch", tm, ticket_id=tid, match_id=match_id)
        assert list(after.accepted) == [mallory], "a player token accepts for itself only"
    accepted = await mm.call("AcceptMatch", tv, ticket_id=tid, match_id=match_id)
    assert list(accepted.accepted) == sorted([mallory, victim])
    assert not tokens_of(accepted).get(mallory)
    seen = [m.ticket async for m in stream]
    assert seen[-1].status == S.TICKET_STATUS_MATCHED
    for t in seen:
        assert not tokens_of(t).get(victim), "the victim's seat token never reaches mallory"
    assert tokens_of(seen[-1])[mallory]
    mine = await mm.call("GetTicket", tm, ticket_id=tid)
    theirs = await mm.call("GetTicket", tv, ticket_id=tid)
    assert tokens_of(mine)[mallory] and not tokens_of(mine)[victim]
    assert tokens_of(theirs)[victim] and not tokens_of(theirs)[mallory]
    assert tokens_of(theirs)[victim] != tokens_of(mine)[mallory]
    assert tokens_of(await mm.call("AcceptMatch", tm, ticket_id=tid, match_id=match_id)) == \
        tokens_of(mine), "a repeated accept answers with the caller's own token only"
    organiser = env.backend.organiser_token()
    none = tokens_of(await mm.call("GetTicket", organiser, ticket_id=tid))
    assert none == {mallory: "", victim: ""}, "players queued it: no organiser sees its seats"
    await mm.channel.close()


async def test_an_organiser_still_queues_and_accepts_for_a_whole_party(env: Env) -> None:  # noqa: F811
    """Organiser and service tokens act for every player, as before: a party an organiser
    queues is auto-accepted whole, and the organiser sees every seat token."""
    svc = await env.start(AUTO)
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    organiser = env.backend.organiser_token()
    tid = env.id("party")
    await mm.call("CreateTicket", organiser, ticket_id=tid, game="toy", players=[a, b])
    done = await status_is(mm, organiser, tid, S.TICKET_STATUS_MATCHED)
    assert all(tokens_of(done).values())
    own = await mm.call("GetTicket", env.player(b), ticket_id=tid)
    assert tokens_of(own) == {a: "", b: tokens_of(done)[b]}
    await mm.channel.close()


async def test_a_player_token_acts_for_its_own_player_only(env: Env) -> None:  # noqa: F811
    """Create, cancel, get, watch and accept for tickets of other players are refused, each
    with PERMISSION_DENIED and a reason; accepting a party's match accepts for the caller only."""
    svc = await env.start(FAST)
    mm = Client(svc.address)
    mallory, victim, friend = env.id("mallory"), env.id("victim"), env.id("friend")
    tm, tv = env.player(mallory), env.player(victim)
    theirs = env.id("victims")
    await mm.call("CreateTicket", tv, ticket_id=theirs, game="toy", players=[victim],
                  rating_window=0.5, min_seats=2)
    refused = [
        ("CreateTicket", dict(ticket_id=env.id("x"), game="toy", players=[victim, friend])),
        ("CreateTicket", dict(ticket_id=theirs, game="toy", players=[victim],
                              rating_window=0.5, min_seats=2)),
        ("CancelTicket", dict(ticket_id=theirs)),
        ("GetTicket", dict(ticket_id=theirs)),
        ("AcceptMatch", dict(ticket_id=theirs, match_id="m")),
    ]
    for method, kw in refused:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call(method, tm, **kw)
        assert info.value.code() == C.PERMISSION_DENIED, (method, info.value.details())
        assert info.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await watched(mm, tm, theirs)
    assert info.value.code() == C.PERMISSION_DENIED
    assert (await mm.call("GetTicket", tv, ticket_id=theirs)).status == S.TICKET_STATUS_WAITING
    await mm.channel.close()
