"""Naming a player in a party neither locks them out of the queue nor tells the party anything
about them, over real gRPC (griefing audit after the party-consent change).

Before: while a party ticket waited, every player it named was refused a ticket of their own
(FAILED_PRECONDITION "player X already waits in ticket T"), and the only way out was to cancel
the party's ticket, so a hostile player could re-queue a party naming a victim again and again
and keep them out of the queue. The same refusal answered a party naming a player who already
waited: it told a stranger that the player was queued, and the id of their ticket.

Now a player named without consent (not the ticket's creator, never accepted one of its
matches) is not held by the ticket: they queue as they like, and the party learns only what
they do with its own match (accept it, or not: "dropped: X did not accept"). Consent binds: the
creator, a player who accepted a party's match, every player of a party an organiser or a
service queued.

Game: the toy engine ("toy", mode "race", exactly 2 seats), so a party of two is a match.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

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
from tests.integration.test_matchmaking_party_consent import mallory_names_the_victim

C = grpc.StatusCode
QUICK = dataclasses.replace(FAST, accept_timeout=1.5)
"""For tests that wait for proposals to fall through; the others take FAST's 5 s to accept."""


async def refused(mm: Client, token: str, method: str, **kw: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await mm.call(method, token, **kw)
    return info.value


async def ended(mm: Client, token: str, ticket_id: str) -> list[Any]:
    """Every ticket a WatchTicket stream sends until the ticket ends; the caller accepts each
    match proposed to it (as a party's creator waiting for its friend would)."""
    seen = []
    async for m in mm.watch(token, ticket_id):
        seen.append(m.ticket)
        if m.ticket.status == S.TICKET_STATUS_PROPOSED and not m.ticket.accepted:
            await mm.call("AcceptMatch", token, ticket_id=ticket_id,
                          match_id=m.ticket.assignment.match_id)
    return seen


async def test_a_named_player_queues_on_their_own_while_the_party_waits(env: Env) -> None:  # noqa: F811
    """The lock-out: mallory's party names the victim and is proposed at once (it fills a toy
    table). The victim still queues on their own, is matched with carol, and plays; mallory's
    party ends with the victim not accepting, the same end as any party whose friend does not
    answer."""
    mm, mallory, victim, tm, tv, party, proposed = await mallory_names_the_victim(env, FAST)
    carol = env.id("carol")
    tc = env.player(carol)
    own = env.id("own")
    await mm.call("AcceptMatch", tm, ticket_id=party, match_id=proposed.assignment.match_id)
    mine = await mm.call("CreateTicket", tv, ticket_id=own, game="toy", players=[victim])
    assert mine.status == S.TICKET_STATUS_WAITING and not mine.reason
    # the victim cannot take the party's seat while their own ticket waits; told only of it
    no = await refused(mm, tv, "AcceptMatch", ticket_id=party,
                       match_id=proposed.assignment.match_id)
    assert no.code() == C.FAILED_PRECONDITION and own in no.details(), no.details()
    await mm.call("CreateTicket", tc, ticket_id=env.id("carols"), game="toy", players=[carol])
    match = await status_is(mm, tv, own, S.TICKET_STATUS_PROPOSED)
    assert {s.player for s in match.assignment.seats} == {victim, carol}
    for token, ticket_id in ((tv, own), (tc, env.id("carols"))):
        await mm.call("AcceptMatch", token, ticket_id=ticket_id,
                      match_id=match.assignment.match_id)
    played = await status_is(mm, tv, own, S.TICKET_STATUS_MATCHED)
    assert {s.player: bool(s.token) for s in played.assignment.seats} == {victim: True,
                                                                          carol: False}
    seen = await ended(mm, tm, party)
    assert seen[-1].status == S.TICKET_STATUS_EXPIRED
    assert seen[-1].reason.startswith(f"dropped: {victim} did not accept"), seen[-1].reason
    assert not any(own in str(t) for t in seen), "the party never hears of the victim's ticket"
    await mm.channel.close()


async def test_a_party_reveals_nothing_of_a_player_it_names(env: Env) -> None:  # noqa: F811
    """The oracle: mallory names a player who waits in a ticket of their own, then one who
    never queued (no such player at all). Both parties are taken alike and end alike, and
    nothing mallory is told mentions the victim's ticket. Re-queued parties never disturb the
    victim's own ticket."""
    svc = await env.start(QUICK)
    mm = Client(svc.address)
    mallory, victim, ghost = env.id("mallory"), env.id("victim"), env.id("nobody")
    tm, tv = env.player(mallory), env.player(victim)
    own = env.id("own")
    await mm.call("CreateTicket", tv, ticket_id=own, game="toy", players=[victim],
                  min_seats=2)
    story = {}
    for named in (victim, ghost, victim):
        party = env.id(f"party-{len(story)}")
        created = await mm.call("CreateTicket", tm, ticket_id=party, game="toy",
                                players=[mallory, named])
        assert created.status == S.TICKET_STATUS_WAITING and not created.reason
        seen = await ended(mm, tm, party)
        assert not any(own in str(t) for t in [created, *seen])
        story[party] = [(t.status, re.sub(r"match \S+", "match M", t.reason.replace(named, "X")),
                         list(t.accepted)) for t in seen]
    first, second, third = story.values()
    assert first[-1] == second[-1] == third[-1], story
    for seen in story.values():  # each was proposed, the busy victim's party too
        assert (S.TICKET_STATUS_PROPOSED, "", [mallory]) in seen, story
    assert first[-1][0] == S.TICKET_STATUS_EXPIRED and "dropped: X did not accept" in first[-1][1]
    untouched = await mm.call("GetTicket", tv, ticket_id=own)
    assert untouched.status == S.TICKET_STATUS_WAITING and not untouched.reason
    assert not untouched.HasField("assignment")
    await mm.channel.close()


async def test_accepting_binds_a_named_player_to_the_party(env: Env) -> None:  # noqa: F811
    """Consent binds: once the victim accepts the party's match they are its player like its
    creator, and may neither queue alone nor take another party's seat until it ends. Named
    by two parties, accepting one leaves the other to end without them."""
    svc = await env.start(FAST)
    mm = Client(svc.address)
    ann, bob, friend = env.id("ann"), env.id("bob"), env.id("friend")
    ta, tb, tf = env.player(ann), env.player(bob), env.player(friend)
    first, second = env.id("anns"), env.id("bobs")
    await mm.call("CreateTicket", ta, ticket_id=first, game="toy", players=[ann, friend])
    await mm.call("CreateTicket", tb, ticket_id=second, game="toy", players=[bob, friend])
    one = await status_is(mm, tf, first, S.TICKET_STATUS_PROPOSED)
    two = await status_is(mm, tf, second, S.TICKET_STATUS_PROPOSED)
    await mm.call("AcceptMatch", tb, ticket_id=second, match_id=two.assignment.match_id)
    accepted = await mm.call("AcceptMatch", tf, ticket_id=first,
                             match_id=one.assignment.match_id)
    assert list(accepted.accepted) == [friend]
    no = await refused(mm, tf, "AcceptMatch", ticket_id=second,
                       match_id=two.assignment.match_id)
    assert no.code() == C.FAILED_PRECONDITION and first in no.details(), no.details()
    no = await refused(mm, tf, "CreateTicket", ticket_id=env.id("alone"), game="toy",
                       players=[friend])
    assert no.code() == C.FAILED_PRECONDITION and first in no.details(), no.details()
    await mm.call("AcceptMatch", ta, ticket_id=first, match_id=one.assignment.match_id)
    assert (await status_is(mm, tf, first, S.TICKET_STATUS_MATCHED)).assignment.match_id
    seen = await ended(mm, tb, second)
    assert seen[-1].status == S.TICKET_STATUS_EXPIRED
    assert seen[-1].reason.startswith(f"dropped: {friend} did not accept")
    assert not any(first in str(t) for t in seen)
    await mm.channel.close()


async def test_an_organisers_party_still_holds_its_players(env: Env) -> None:  # noqa: F811
    """An organiser's (or a service's) party acts for every player it names: they wait in it
    and may not queue elsewhere meanwhile (the refusal names the ticket they are on); an
    organiser is told which ticket holds a player."""
    svc = await env.start(dataclasses.replace(FAST, accept_timeout=30))
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    organiser = env.backend.organiser_token()
    party = env.id("party")
    await mm.call("CreateTicket", organiser, ticket_id=party, game="toy", players=[ann, bob])
    no = await refused(mm, env.player(bob), "CreateTicket", ticket_id=env.id("alone"),
                       game="toy", players=[bob])
    assert no.code() == C.FAILED_PRECONDITION and party in no.details(), no.details()
    no = await refused(mm, organiser, "CreateTicket", ticket_id=env.id("again"), game="toy",
                       players=[ann])
    assert no.code() == C.FAILED_PRECONDITION and party in no.details(), no.details()
    await mm.call("CancelTicket", env.player(bob), ticket_id=party)
    free = await mm.call("CreateTicket", env.player(bob), ticket_id=env.id("alone"),
                         game="toy", players=[bob])
    assert free.status == S.TICKET_STATUS_WAITING
    await mm.channel.close()


async def test_a_match_that_falls_through_names_no_other_players_ticket(env: Env) -> None:  # noqa: F811
    """A player learns only their own tickets: when an opponent cancels a proposed match, the
    ticket sent back to the queue says the match fell through, not which ticket was
    cancelled (it used to name the stranger's ticket id)."""
    svc = await env.start(FAST)
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    ta, tb = env.player(ann), env.player(bob)
    anns, bobs = env.id("anns"), env.id("bobs-secret")
    await mm.call("CreateTicket", ta, ticket_id=anns, game="toy", players=[ann])
    await mm.call("CreateTicket", tb, ticket_id=bobs, game="toy", players=[bob])
    proposed = await status_is(mm, ta, anns, S.TICKET_STATUS_PROPOSED)
    await mm.call("CancelTicket", tb, ticket_id=bobs)
    back = await status_is(mm, ta, anns, S.TICKET_STATUS_WAITING)
    assert back.reason == f"match {proposed.assignment.match_id} fell through: a ticket of it " \
                          "was cancelled", back.reason
    assert bobs not in str(back)
    await mm.channel.close()
