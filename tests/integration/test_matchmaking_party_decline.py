"""An invited player declines a party's invitation (DeclineInvite), over real gRPC.

Before: a player a party named without their consent could only let its match time out
("dropped: X did not accept") or cancel the party's ticket, which ended it for everyone.

Now the invited player declines with their own player token: they leave the party, which waits
on without them, keeping its place in the queue (a match proposed to it falls through and it is
queued again); its players see "X declined the invitation" and ``declined``, and nothing else
of X (not whether X waits in a ticket of their own). X sees only that they declined (status
DECLINED), from then on, whatever the party does. The decline is stored: it holds after a
restart, on SQLite and on PostgreSQL.

Game: the toy engine ("toy", mode "race", exactly 2 seats), so a party of two is a match.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import grpc
import pytest

from services.matchmaking.ratings import StaticRatings
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
)
from tests.integration.test_matchmaking_party_block import refused
from tests.integration.test_matchmaking_party_consent import AUTO, watched

C = grpc.StatusCode


def only_declined(ticket: Any, ticket_id: str, player: str) -> None:
    """All a player who declined is shown of the ticket."""
    assert ticket.ticket_id == ticket_id and ticket.status == S.TICKET_STATUS_DECLINED
    assert ticket.reason == f"{player} declined the invitation"
    assert list(ticket.declined) == [player] and not ticket.players
    assert not ticket.HasField("assignment") and not ticket.accepted
    assert ticket.waited_seconds == 0


async def test_the_party_goes_on_and_its_creator_learns_the_decline_and_nothing_else(
    env: Env,  # noqa: F811
) -> None:
    """ann's party names bob, who waits in a ticket of his own (rated far from everyone, so it
    stays waiting). The party is proposed; bob declines: ann is told "bob declined the
    invitation", her party (ann alone now) goes back to the queue and is matched with carol.
    Nothing ann is told mentions bob's own ticket, which is untouched. bob's answer, and each
    later look of his at ann's ticket, shows only that he declined."""
    ann, bob, carol = env.id("ann"), env.id("bob"), env.id("carol")
    svc = await env.start(AUTO, StaticRatings({bob: 900}))
    mm = Client(svc.address)
    ta, tb, tc = env.player(ann), env.player(bob), env.player(carol)
    own, party = env.id("bobs-own"), env.id("party")
    await mm.call("CreateTicket", tb, ticket_id=own, game="toy", players=[bob],
                  rating_window=0.5)
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob])
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    stream = aiter(mm.watch(ta, party))
    first = (await anext(stream)).ticket  # watching before the decline
    answer = await mm.call("DeclineInvite", tb, ticket_id=party)
    only_declined(answer, party, bob)
    await mm.call("CreateTicket", tc, ticket_id=env.id("carols"), game="toy", players=[carol])
    seen = [first, *[m.ticket async for m in stream]]
    back = [t for t in seen if t.status == S.TICKET_STATUS_WAITING]
    assert back and back[0].reason == f"{bob} declined the invitation", seen
    assert list(back[0].players) == [ann] and list(back[0].declined) == [bob]
    assert seen[-1].status == S.TICKET_STATUS_MATCHED
    assert seen[-1].assignment.match_id != proposed.assignment.match_id
    assert {s.player for s in seen[-1].assignment.seats} == {ann, carol}
    assert list(seen[-1].declined) == [bob] and list(seen[-1].players) == [ann]
    assert not any(own in str(t) for t in seen), "the party never hears of bob's own ticket"
    untouched = await mm.call("GetTicket", tb, ticket_id=own)
    assert untouched.status == S.TICKET_STATUS_WAITING and not untouched.reason
    # bob: only that he declined, however he asks, while the party has been matched
    only_declined(await mm.call("GetTicket", tb, ticket_id=party), party, bob)
    [last] = await watched(mm, tb, party)
    only_declined(last, party, bob)
    assert await mm.call("DeclineInvite", tb, ticket_id=party) == answer
    await mm.channel.close()


async def test_each_refusal_is_clear_and_a_strangers_ticket_is_not_told_apart(
    env: Env,  # noqa: F811
) -> None:
    svc = await env.start(FAST)
    mm = Client(svc.address)
    ann, bob, carol = env.id("ann"), env.id("bob"), env.id("carol")
    ta, tb, tc = env.player(ann), env.player(bob), env.player(carol)
    party, missing = env.id("party"), env.id("missing")
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob])
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    # a stranger learns nothing: the same NOT_FOUND as for a ticket nobody queued
    stranger = await refused(mm, tc, "DeclineInvite", ticket_id=party)
    nobody = await refused(mm, tc, "DeclineInvite", ticket_id=missing)
    assert stranger.code() == nobody.code() == C.NOT_FOUND
    assert stranger.details().replace(party, "T") == nobody.details().replace(missing, "T")
    organiser = env.backend.organiser_token()
    seat = env.backend.issuer.issue("seat", match_id, 0, bob)
    for token, kw, code in [
        (None, dict(ticket_id=party), C.UNAUTHENTICATED),
        ("garbage", dict(ticket_id=party), C.UNAUTHENTICATED),
        (organiser, dict(ticket_id=party), C.PERMISSION_DENIED),
        (seat, dict(ticket_id=party), C.PERMISSION_DENIED),
        (tb, dict(ticket_id=""), C.INVALID_ARGUMENT),
        (ta, dict(ticket_id=party), C.FAILED_PRECONDITION),  # ann queued it
    ]:
        err = await refused(mm, token, "DeclineInvite", **kw)
        assert err.code() == code and err.details(), (token, kw, err.details())
    # accepted: bob plays in the party now
    await mm.call("AcceptMatch", tb, ticket_id=party, match_id=match_id)
    err = await refused(mm, tb, "DeclineInvite", ticket_id=party)
    assert err.code() == C.FAILED_PRECONDITION and "accepted" in err.details(), err.details()
    await mm.call("AcceptMatch", ta, ticket_id=party, match_id=match_id)
    await status_is(mm, ta, party, S.TICKET_STATUS_MATCHED)
    err = await refused(mm, tb, "DeclineInvite", ticket_id=party)
    assert err.code() == C.FAILED_PRECONDITION and "already matched" in err.details()
    # a decline repeated (an answer lost on the way) is answered as the first
    other = env.id("other")
    await mm.call("CreateTicket", tc, ticket_id=other, game="toy", players=[carol, ann],
                  rating_window=0.5, min_seats=2)
    first = await mm.call("DeclineInvite", ta, ticket_id=other)
    assert await mm.call("DeclineInvite", ta, ticket_id=other) == first
    only_declined(first, other, ann)
    theirs = await mm.call("GetTicket", tc, ticket_id=other)
    assert list(theirs.players) == [carol] and list(theirs.declined) == [ann]
    assert theirs.status in (S.TICKET_STATUS_WAITING, S.TICKET_STATUS_PROPOSED)
    await mm.channel.close()


async def _a_decline_survives_a_restart(env: Env, **store: Any) -> None:  # noqa: F811
    config = dataclasses.replace(FAST, accept_timeout=30)
    svc = await env.start(config, **store)
    mm = Client(svc.address)
    ann, bob, carol = env.id("ann"), env.id("bob"), env.id("carol")
    ta, tb = env.player(ann), env.player(bob)
    party = env.id("party")
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob])
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    await mm.call("AcceptMatch", ta, ticket_id=party, match_id=proposed.assignment.match_id)
    answer = await mm.call("DeclineInvite", tb, ticket_id=party)
    before = await mm.call("GetTicket", ta, ticket_id=party)
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    svc = await env.start(config, **store)
    mm = Client(svc.address)
    after = await mm.call("GetTicket", ta, ticket_id=party)
    assert after.status == S.TICKET_STATUS_WAITING, "the match the decline ended stays ended"
    assert (list(after.players), list(after.declined), after.reason) == (
        [ann], [bob], f"{bob} declined the invitation")
    assert (after.players, after.declined, after.reason) == (before.players, before.declined,
                                                             before.reason)
    assert after.waited_seconds >= before.waited_seconds
    only_declined(await mm.call("GetTicket", tb, ticket_id=party), party, bob)
    assert await mm.call("DeclineInvite", tb, ticket_id=party) == answer
    # the party goes on: ann alone now, with carol
    await mm.call("CreateTicket", env.player(carol), ticket_id=env.id("carols"), game="toy",
                  players=[carol])
    again = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    assert {s.player for s in again.assignment.seats} == {ann, carol}
    await mm.channel.close()


async def test_a_decline_survives_a_restart_sqlite(env: Env) -> None:  # noqa: F811
    await _a_decline_survives_a_restart(env)


@pytest.mark.postgres
async def test_a_decline_survives_a_restart_postgres(env: Env, postgres_url: str,  # noqa: F811
                                                     postgres_schema: str) -> None:
    await _a_decline_survives_a_restart(env, persistence="postgres", database_url=postgres_url,
                                        postgres_schema=postgres_schema)
