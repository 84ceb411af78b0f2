"""A player's queueing limits cannot be got around through a friend's party, over real gRPC,
real NATS and a real store (matchmaker.py, "Queueing limits"; review of matchmaking).

Before: a player cooling down (their proposed matches kept falling through) was refused
CreateTicket for the game, but a friend queued a party naming them and they accepted its
match (AcceptMatch), so they played the game during their cooldown anyway. Now AcceptMatch by
a player token for a player it does not hold yet (an invitation) is refused while that player
cools down in the game, with the same reason CreateTicket gives, and the match falls through
as any an invited player did not accept.

Game: the toy engine ("toy", mode "race", exactly 2 seats), so a party of two is a match.
"""

from __future__ import annotations

import dataclasses

import grpc

from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
)
from tests.integration.test_matchmaking_party_block import refused

C = grpc.StatusCode
COOL = dataclasses.replace(FAST, accept_timeout=3, decline_limit=1, decline_window=600,
                           decline_cooldown=600, join_limit=0)


async def test_a_player_cooling_down_cannot_play_through_a_friends_party(env: Env) -> None:  # noqa: F811
    svc = await env.start(COOL)
    mm = Client(svc.address)
    ann, bob, fay = env.id("ann"), env.id("bob"), env.id("fay")
    ta, tb, tf = env.player(ann), env.player(bob), env.player(fay)
    await mm.call("CreateTicket", tb, ticket_id=env.id("bob"), game="toy", players=[bob])
    await mm.call("CreateTicket", ta, ticket_id=env.id("ann"), game="toy", players=[ann])
    await status_is(mm, ta, env.id("ann"), S.TICKET_STATUS_PROPOSED)
    await mm.call("CancelTicket", ta, ticket_id=env.id("ann"))  # a fall-through: ann cools down
    await mm.call("CancelTicket", tb, ticket_id=env.id("bob"))
    err = await refused(mm, ta, "CreateTicket", ticket_id=env.id("ann-2"), game="toy",
                        players=[ann])
    assert err.code() == C.FAILED_PRECONDITION, err.details()

    party = env.id("party")
    await mm.call("CreateTicket", tf, ticket_id=party, game="toy", players=[fay, ann])
    proposed = await status_is(mm, tf, party, S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    await mm.call("AcceptMatch", tf, ticket_id=party, match_id=match_id)
    err = await refused(mm, ta, "AcceptMatch", ticket_id=party, match_id=match_id)
    assert err.code() == C.FAILED_PRECONDITION, err.details()
    assert f"player {ann!r} may queue for toy again in " in (err.details() or "")
    after = await mm.call("GetTicket", tf, ticket_id=party)
    assert after.status == S.TICKET_STATUS_PROPOSED and list(after.accepted) == [fay]
    assert not any(s.token for s in after.assignment.seats)
    # the match falls through as any an invited player did not accept (which counts against
    # the party's creator: the next test)
    dropped = await status_is(mm, tf, party, S.TICKET_STATUS_EXPIRED)
    assert dropped.reason.startswith(f"dropped: {ann} did not accept match {match_id}")
    assert not any(s.token for s in dropped.assignment.seats)
    await mm.channel.close()


QUICK = dataclasses.replace(COOL, accept_timeout=1.5)


async def test_a_party_whose_invitee_lets_its_match_fall_through_cools_its_creator(
        env: Env) -> None:  # noqa: F811
    """Before: a player dodged the matches they did not want without a strike by queueing with
    a second account of theirs as an invitee, who declined (or let the accept time run out)
    whenever a match came: the match fell through for everyone in it, the creator's party
    waited on, and nobody was struck. Now such a fall-through counts against the party's
    creator (a player who queued it with their own token), never against the invitee."""
    svc = await env.start(QUICK)
    mm = Client(svc.address)
    ann, alt, cy, alt2 = (env.id(p) for p in ("ann", "alt", "cy", "alt2"))
    ta, tl, tc, tl2 = (env.player(p) for p in (ann, alt, cy, alt2))
    # a decline while proposed
    party = env.id("party")
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, alt])
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    await mm.call("AcceptMatch", ta, ticket_id=party, match_id=proposed.assignment.match_id)
    declined = await mm.call("DeclineInvite", tl, ticket_id=party)
    assert declined.status == S.TICKET_STATUS_DECLINED
    back = await mm.call("GetTicket", ta, ticket_id=party)
    assert back.status == S.TICKET_STATUS_WAITING and list(back.players) == [ann]
    await mm.call("CancelTicket", ta, ticket_id=party)  # waiting: no strike of its own
    err = await refused(mm, ta, "CreateTicket", ticket_id=env.id("ann-2"), game="toy",
                        players=[ann])
    assert err.code() == C.FAILED_PRECONDITION, err.details()
    assert f"player {ann!r} may queue for toy again in " in (err.details() or "")
    # an invitee who lets the accept time run out
    other = env.id("other")
    await mm.call("CreateTicket", tc, ticket_id=other, game="toy", players=[cy, alt2])
    proposed = await status_is(mm, tc, other, S.TICKET_STATUS_PROPOSED)
    await mm.call("AcceptMatch", tc, ticket_id=other, match_id=proposed.assignment.match_id)
    dropped = await status_is(mm, tc, other, S.TICKET_STATUS_EXPIRED)
    assert dropped.reason.startswith(f"dropped: {alt2} did not accept")
    err = await refused(mm, tc, "CreateTicket", ticket_id=env.id("cy-2"), game="toy",
                        players=[cy])
    assert err.code() == C.FAILED_PRECONDITION, err.details()
    # the invitees are not struck: they queue as they like
    for who, token in ((alt, tl), (alt2, tl2)):
        mine = await mm.call("CreateTicket", token, ticket_id=env.id(f"{who}-own"), game="toy",
                             players=[who])
        assert mine.status == S.TICKET_STATUS_WAITING
        await mm.call("CancelTicket", token, ticket_id=env.id(f"{who}-own"))
    await mm.channel.close()
