"""How an invited player learns of a party (ListMyInvitations, WatchMyInvitations), and the
limit on open invitations per player (NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER), over real
gRPC, real NATS and a real store.

Before: a party named a player without telling them; the invitee had to be told its ticket id
out of band to accept or decline. Now the invitee lists the open tickets that name them without
holding them: who queued the party, its size, game and modes, and whether a match waits for
their accept; never its other players nor what they did. A stranger's list, and the party's
creator's, does not show it; declining or accepting takes it off; the list is read from the
stored tickets after a restart. A player may have at most N open invitations: a CreateTicket
naming them past it is RESOURCE_EXHAUSTED, saying no more than that.

Game: the toy engine ("toy", mode "race", exactly 2 seats).
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.platform.grpc_kit import call_metadata, channel
from services.platform.natsrv import free_port
from tests.e2e.procs import service_env
from tests.integration import test_matchmaking_replicas as replicas
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
SLOW_ACCEPT = dataclasses.replace(FAST, accept_timeout=60)
"""Proposals wait a minute for their accepts: the parties stay open through each test."""


async def listed(mm: Client, token: str | None, limit: int = 0) -> Any:
    return await mm.stub.ListMyInvitations(
        pb.ListMyInvitationsRequest(limit=limit), metadata=call_metadata(token), timeout=10
    )


async def list_refused(mm: Client, token: str | None, limit: int = 0) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await listed(mm, token, limit)
    return info.value


async def test_an_invitee_lists_the_party_a_stranger_and_its_creator_do_not(
    env: Env,  # noqa: F811
) -> None:
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    ann, bob, carol = env.id("ann"), env.id("bob"), env.id("carol")
    ta, tb, tc = env.player(ann), env.player(bob), env.player(carol)
    party = env.id("party")
    assert not (await listed(mm, tb)).invitations
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob])
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    mine = await listed(mm, tb)
    assert mine.total == 1
    [inv] = mine.invitations
    assert (inv.ticket_id, inv.game, list(inv.modes), inv.invited_by, inv.party_size) == (
        party,
        "toy",
        ["race"],
        ann,
        2,
    )
    assert inv.status == S.TICKET_STATUS_PROPOSED
    assert inv.match_id == proposed.assignment.match_id and 0 < inv.accept_seconds_left <= 60
    assert inv.waited_seconds >= 0
    assert not (await listed(mm, tc)).invitations, "a stranger is not told of the party"
    assert not (await listed(mm, ta)).invitations, "its creator is not invited to it"
    # the invitation is enough to act on: bob accepts the match it names
    await mm.call("AcceptMatch", tb, ticket_id=party, match_id=inv.match_id)
    assert not (await listed(mm, tb)).invitations, "accepted: the party holds bob now"
    await mm.channel.close()


async def test_declining_takes_the_invitation_off_and_the_list_shows_no_other_invitee(
    env: Env,  # noqa: F811
) -> None:
    """Two parties name dan; the list shows each party's creator and size, oldest first;
    declining one takes it off, and so does its end."""
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    ann, carol, dan = (env.id(n) for n in ("ann", "carol", "dan"))
    ta, tc, td = (env.player(p) for p in (ann, carol, dan))
    first, second = env.id("first"), env.id("second")
    await mm.call("CreateTicket", ta, ticket_id=first, game="toy", players=[ann, dan])
    await mm.call("CreateTicket", tc, ticket_id=second, game="toy", players=[carol, dan])
    mine = await listed(mm, td)
    assert [(i.ticket_id, i.invited_by, i.party_size) for i in mine.invitations] == [
        (first, ann, 2),
        (second, carol, 2),
    ]
    one = await listed(mm, td, limit=1)
    assert one.total == 2 and [i.ticket_id for i in one.invitations] == [first]
    await mm.call("DeclineInvite", td, ticket_id=first)
    assert [i.ticket_id for i in (await listed(mm, td)).invitations] == [second]
    await mm.call("CancelTicket", tc, ticket_id=second)
    assert (await listed(mm, td)).total == 0, "an ended ticket invites nobody"
    await mm.channel.close()


async def test_only_the_players_own_token_lists_and_bad_limits_are_refused(
    env: Env,  # noqa: F811
) -> None:
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    bob = env.id("bob")
    organiser = env.backend.organiser_token()
    service = env.backend.issuer.issue("service", "*", player="tournament", ttl=600)
    seat = env.backend.issuer.issue("seat", env.id("m"), 0, bob)
    for token, limit, code in [
        (None, 0, C.UNAUTHENTICATED),
        ("garbage", 0, C.UNAUTHENTICATED),
        (organiser, 0, C.PERMISSION_DENIED),
        (service, 0, C.PERMISSION_DENIED),
        (seat, 0, C.PERMISSION_DENIED),
        (env.player(bob), -1, C.INVALID_ARGUMENT),
        (env.player(bob), 201, C.INVALID_ARGUMENT),
    ]:
        err = await list_refused(mm, token, limit)
        assert err.code() == code and err.details(), (token, limit, err.details())
    assert (await listed(mm, env.player(bob), limit=200)).total == 0
    await mm.channel.close()


async def test_a_player_has_at_most_n_open_invitations(env: Env) -> None:  # noqa: F811
    """With a limit of 2, a third party naming dan is RESOURCE_EXHAUSTED, naming neither the
    parties that invited him nor their creators; his decline frees a place. A ticket that
    holds dan (an organiser's) is no invitation, and a party naming him past the limit
    stores nothing."""
    svc = await env.start(dataclasses.replace(SLOW_ACCEPT, max_invites_per_player=2))
    mm = Client(svc.address)
    ann, bob, carol, dan = (env.id(n) for n in ("ann", "bob", "carol", "dan"))
    ta, tb, tc, td = (env.player(p) for p in (ann, bob, carol, dan))
    one, two, three = env.id("one"), env.id("two"), env.id("three")
    await mm.call("CreateTicket", ta, ticket_id=one, game="toy", players=[ann, dan])
    await mm.call("CreateTicket", tb, ticket_id=two, game="toy", players=[bob, dan])
    err = await refused(mm, tc, "CreateTicket", ticket_id=three, game="toy", players=[carol, dan])
    assert err.code() == C.RESOURCE_EXHAUSTED, err.details()
    assert dan in err.details() and "at most 2 open invitations" in err.details()
    for secret in (one, two, ann, bob):
        assert secret not in err.details(), err.details()
    nothing = await refused(mm, tc, "GetTicket", ticket_id=three)
    assert nothing.code() == C.NOT_FOUND, "the refused ticket was not stored"
    assert (await listed(mm, td)).total == 2
    await mm.call("DeclineInvite", td, ticket_id=one)
    third = await mm.call("CreateTicket", tc, ticket_id=three, game="toy", players=[carol, dan])
    assert third.ticket_id == three
    assert [i.ticket_id for i in (await listed(mm, td)).invitations] == [two, three]
    await mm.channel.close()


async def test_watch_pushes_the_list_when_it_changes(env: Env) -> None:  # noqa: F811
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    ta, tb = env.player(ann), env.player(bob)
    party = env.id("party")
    call = mm.stub.WatchMyInvitations(
        pb.WatchMyInvitationsRequest(), metadata=call_metadata(tb), timeout=20
    )
    stream = aiter(call)
    first = await anext(stream)
    assert first.total == 0 and not first.invitations
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob])
    seen = [await asyncio.wait_for(anext(stream), 10)]
    while seen[-1].invitations[0].status != S.TICKET_STATUS_PROPOSED:
        seen.append(await asyncio.wait_for(anext(stream), 10))
    assert {(m.invitations[0].ticket_id, m.invitations[0].invited_by) for m in seen} == {
        (party, ann)
    }
    await mm.call("DeclineInvite", tb, ticket_id=party)
    gone = await asyncio.wait_for(anext(stream), 10)
    assert gone.total == 0 and not gone.invitations
    call.cancel()
    # a stranger's watch, and an organiser's, are refused as the list is
    refused_call = mm.stub.WatchMyInvitations(
        pb.WatchMyInvitationsRequest(),
        metadata=call_metadata(env.backend.organiser_token()),
        timeout=10,
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await anext(aiter(refused_call))
    assert info.value.code() == C.PERMISSION_DENIED
    await mm.channel.close()


async def _invitations_survive_a_restart(env: Env, **store: Any) -> None:  # noqa: F811
    svc = await env.start(SLOW_ACCEPT, **store)
    mm = Client(svc.address)
    ann, bob, carol, dan, erin = (env.id(n) for n in ("ann", "bob", "carol", "dan", "erin"))
    first, second, third = env.id("first"), env.id("second"), env.id("erins")
    await mm.call("CreateTicket", env.player(ann), ticket_id=first, game="toy", players=[ann, dan])
    await mm.call(
        "CreateTicket", env.player(carol), ticket_id=second, game="toy", players=[carol, dan]
    )
    await mm.call(
        "CreateTicket", env.player(erin), ticket_id=third, game="toy", players=[erin, bob]
    )
    await mm.call("DeclineInvite", env.player(bob), ticket_id=third)
    before = await listed(mm, env.player(dan))
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    svc = await env.start(dataclasses.replace(SLOW_ACCEPT, max_invites_per_player=2), **store)
    mm = Client(svc.address)
    after = await listed(mm, env.player(dan))
    assert (
        [(i.ticket_id, i.invited_by, i.party_size) for i in after.invitations]
        == [(i.ticket_id, i.invited_by, i.party_size) for i in before.invitations]
        == [(first, ann, 2), (second, carol, 2)]
    )
    assert not (await listed(mm, env.player(bob))).invitations, "bob's decline holds"
    # the limit counts the invitations loaded from the store
    err = await refused(
        mm,
        env.player(bob),
        "CreateTicket",
        ticket_id=env.id("bobs"),
        game="toy",
        players=[bob, dan],
    )
    assert err.code() == C.RESOURCE_EXHAUSTED
    await mm.channel.close()


async def test_invitations_survive_a_restart_sqlite(env: Env) -> None:  # noqa: F811
    await _invitations_survive_a_restart(env)


@pytest.mark.postgres
async def test_invitations_survive_a_restart_postgres(
    env: Env,  # noqa: F811
    postgres_url: str,
    postgres_schema: str,
) -> None:
    await _invitations_survive_a_restart(
        env, persistence="postgres", database_url=postgres_url, postgres_schema=postgres_schema
    )


async def test_with_two_replicas_each_lists_the_invitations_of_every_queue(
    tmp_path: Path, nats_url: str
) -> None:
    """dan is invited to a party in a queue of replica 0 and one in a queue of replica 1:
    either replica lists both (asking the other for its own), oldest first, and a watch
    through either follows both."""
    pair = await replicas.replica_pair(tmp_path, nats_url)
    issuer, services = pair.issuer, pair.services
    games = [pair.games(i)[0] for i in range(2)]
    channels = [channel(s.address) for s in services]
    stubs = [pb_grpc.MatchmakingServiceStub(ch) for ch in channels]
    token = {p: issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "cy", "dan")}
    try:
        for creator, game in zip(("ann", "cy"), games, strict=True):
            await stubs[1].CreateTicket(
                pb.CreateTicketRequest(
                    ticket_id=f"t-{creator}", game=game, players=[creator, "dan"]
                ),
                metadata=call_metadata(token[creator]),
                timeout=10,
            )
        watch = stubs[0].WatchMyInvitations(
            pb.WatchMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=20
        )
        stream = aiter(watch)
        first = await asyncio.wait_for(anext(stream), 10)
        assert [i.ticket_id for i in first.invitations] == ["t-ann", "t-cy"]
        for stub in stubs:
            got = await stub.ListMyInvitations(
                pb.ListMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=10
            )
            assert got.total == 2
            assert [(i.ticket_id, i.invited_by, i.game) for i in got.invitations] == [
                ("t-ann", "ann", games[0]),
                ("t-cy", "cy", games[1]),
            ]
            one = await stub.ListMyInvitations(
                pb.ListMyInvitationsRequest(limit=1),
                metadata=call_metadata(token["dan"]),
                timeout=10,
            )
            assert one.total == 2 and [i.ticket_id for i in one.invitations] == ["t-ann"]
        # a stranger's list is empty on both
        for stub in stubs:
            theirs = await stub.ListMyInvitations(
                pb.ListMyInvitationsRequest(), metadata=call_metadata(token["ann"]), timeout=10
            )
            assert theirs.total == 0
        await stubs[0].DeclineInvite(
            pb.DeclineInviteRequest(ticket_id="t-cy"),
            metadata=call_metadata(token["dan"]),
            timeout=10,
        )
        while True:  # proposals may come first; the decline's message ends with one invitation
            got = await asyncio.wait_for(anext(stream), 10)
            if got.total == 1:
                break
        assert [i.ticket_id for i in got.invitations] == ["t-ann"]
        watch.cancel()
    finally:
        for ch in channels:
            await ch.close()
        await pair.close()


async def test_watch_ends_when_the_players_token_expires(env: Env) -> None:  # noqa: F811
    """A WatchMyInvitations stream taken with a player token ends UNAUTHENTICATED when that
    token expires (as a rules service's streams do): before, it went on telling an expired
    token's holder the player's invitations for as long as the connection lasted, and held
    its watcher until then."""
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    short = env.backend.issuer.issue("player", "*", player=bob, ttl=2)
    call = mm.stub.WatchMyInvitations(
        pb.WatchMyInvitationsRequest(), metadata=call_metadata(short), timeout=30
    )
    stream = aiter(call)
    assert (await anext(stream)).total == 0
    with pytest.raises(grpc.aio.AioRpcError) as info:
        while True:  # an update before the expiry (none is expected) is fine
            await asyncio.wait_for(anext(stream), 8)
    assert info.value.code() == C.UNAUTHENTICATED
    assert "expired" in (info.value.details() or "")
    # the party created after the expiry is not sent to the expired token: the stream is over
    await mm.call(
        "CreateTicket", env.player(ann), ticket_id=env.id("p"), game="toy", players=[ann, bob]
    )
    assert (await listed(mm, env.player(bob))).total == 1
    await mm.channel.close()


async def test_watch_ticket_ends_when_the_players_token_expires(env: Env) -> None:  # noqa: F811
    """WatchTicket sends the assignment with the caller's seat token once matched: taken with
    a player token, it ends UNAUTHENTICATED when that token expires, not sending a match found
    later to an expired token."""
    svc = await env.start(SLOW_ACCEPT)
    mm = Client(svc.address)
    ann = env.id("ann")
    short = env.backend.issuer.issue("player", "*", player=ann, ttl=2)
    tid = env.id("alone")
    await mm.call("CreateTicket", short, ticket_id=tid, game="toy", players=[ann])
    call = mm.stub.WatchTicket(
        pb.WatchTicketRequest(ticket_id=tid), metadata=call_metadata(short), timeout=30
    )
    stream = aiter(call)
    assert (await anext(stream)).ticket.status == S.TICKET_STATUS_WAITING
    with pytest.raises(grpc.aio.AioRpcError) as info:
        while True:
            got = await asyncio.wait_for(anext(stream), 8)
            assert not any(s.token for s in got.ticket.assignment.seats)
    assert info.value.code() == C.UNAUTHENTICATED
    assert "expired" in (info.value.details() or "")
    await mm.channel.close()


async def test_with_a_replica_down_the_list_holds_the_other_queues_and_says_what_is_missing(
    tmp_path: Path, nats_url: str
) -> None:
    """dan is invited to a party in a queue of replica 0 and one in a queue of replica 1;
    replica 1 stops. Replica 0's ListMyInvitations answers with its own invitation, marked
    partial, naming the games whose queues did not answer (replica 1's), rather than failing
    (it was UNAVAILABLE, for a list most of which it could give). With both up the answer is
    complete (partial false, no games missing)."""
    pair = await replicas.replica_pair(tmp_path, nats_url)
    issuer, services = pair.issuer, pair.services
    games = [pair.games(i)[0] for i in range(2)]
    ch = channel(services[0].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    token = {p: issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "cy", "dan")}
    try:
        for creator, game in zip(("ann", "cy"), games, strict=True):
            await stub.CreateTicket(
                pb.CreateTicketRequest(
                    ticket_id=f"t-{creator}", game=game, players=[creator, "dan"]
                ),
                metadata=call_metadata(token[creator]),
                timeout=10,
            )
        whole = await stub.ListMyInvitations(
            pb.ListMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=10
        )
        assert whole.total == 2 and not whole.partial and not whole.unavailable_games
        await pair.stop(1)
        got = await stub.ListMyInvitations(
            pb.ListMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=10
        )
        assert [(i.ticket_id, i.game) for i in got.invitations] == [("t-ann", games[0])]
        assert got.total == 1 and got.partial
        missing = pair.games(1)
        assert list(got.unavailable_games) == sorted(missing)
        assert games[0] not in got.unavailable_games
        # `neon invitations` lists what it got, names what it did not, and exits 1
        cli = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "services.cli.main", "invitations"],
            env=service_env({"NEON_MATCHMAKING_ADDR": services[0].address,
                             "NEON_TOKEN": token["dan"], "NEON_VAR_DIR": str(tmp_path / "cli")}),
            capture_output=True, text=True, timeout=60)
        said = " ".join((cli.stdout + cli.stderr).split())
        assert cli.returncode == 1, said
        assert f"t-ann: {games[0]}" in said and "t-cy" not in said, said
        assert (f"not listed: the invitations of {', '.join(sorted(missing))} (their "
                "matchmaking replica does not answer; try again shortly)") in said, said
    finally:
        await ch.close()
        await pair.close()


async def _until(stream: Any, ok: Any, within: float = 15) -> Any:
    """The stream's first message for which ``ok`` holds (those before it may be partway)."""
    async def find() -> Any:
        while True:
            got = await anext(stream)
            if ok(got):
                return got

    return await asyncio.wait_for(find(), within)


def _ids(message: Any) -> list[str]:
    return [i.ticket_id for i in message.invitations]


async def test_a_watch_goes_on_through_a_replica_restart_partial_while_it_is_down(
    tmp_path: Path, nats_url: str
) -> None:
    """dan watches his invitations on replica 0: a party in a queue of replica 0 (ann's)
    and one in a queue of replica 1 (cy's). Replica 1 stops: the watch goes on (before, it
    ended UNAVAILABLE, and a watch again failed for as long as replica 1 was down), its next
    message holding ann's party only, marked partial, naming replica 1's games; erin's party,
    queued on replica 0 meanwhile, is pushed; a watch opened meanwhile starts partial.
    Replica 1 starts again (same port, same store): the watch shows cy's party again,
    partial false, without being watched again. No message names a replica's address."""
    pair = await replicas.replica_pair(
        tmp_path, nats_url, dataclasses.replace(replicas.FAST, accept_timeout=60))
    issuer, services, ports = pair.issuer, pair.services, pair.ports
    games = [pair.games(i)[0] for i in range(2)]
    missing = pair.games(1)
    ch = channel(services[0].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    token = {p: issuer.issue("player", "*", player=p, ttl=600)
             for p in ("ann", "cy", "dan", "erin")}

    async def queue(creator: str, game: str) -> None:
        await stub.CreateTicket(
            pb.CreateTicketRequest(ticket_id=f"t-{creator}", game=game,
                                   players=[creator, "dan"]),
            metadata=call_metadata(token[creator]), timeout=10,
        )

    watch = stub.WatchMyInvitations(
        pb.WatchMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=60
    )
    try:
        await queue("ann", games[0])
        await queue("cy", games[1])
        stream = aiter(watch)
        whole = await _until(stream, lambda m: m.total == 2)
        assert _ids(whole) == ["t-ann", "t-cy"]
        assert not whole.partial and not whole.unavailable_games

        await pair.stop(1)
        down = await _until(stream, lambda m: m.partial)
        assert _ids(down) == ["t-ann"] and down.total == 1
        assert list(down.unavailable_games) == missing and games[0] not in missing

        await queue("erin", games[0])  # replica 0's queue: pushed while replica 1 is down
        more = await _until(stream, lambda m: "t-erin" in _ids(m))
        assert _ids(more) == ["t-ann", "t-erin"] and more.total == 2
        assert more.partial and list(more.unavailable_games) == missing
        # a watch opened while replica 1 is down starts partial (it was UNAVAILABLE)
        again = stub.WatchMyInvitations(
            pb.WatchMyInvitationsRequest(), metadata=call_metadata(token["dan"]), timeout=10
        )
        opened = await asyncio.wait_for(anext(aiter(again)), 10)
        again.cancel()
        assert _ids(opened) == ["t-ann", "t-erin"] and opened.partial
        assert list(opened.unavailable_games) == missing

        await pair.start(1)
        back = await _until(stream, lambda m: not m.partial, within=20)
        assert _ids(back) == ["t-ann", "t-cy", "t-erin"] and back.total == 3
        assert not back.unavailable_games
        # the watch still follows replica 1's queue: dan declines cy's party there
        await stub.DeclineInvite(pb.DeclineInviteRequest(ticket_id="t-cy"),
                                 metadata=call_metadata(token["dan"]), timeout=10)
        after = await _until(stream, lambda m: "t-cy" not in _ids(m))
        assert _ids(after) == ["t-ann", "t-erin"] and not after.partial
        for m in (whole, down, more, back, after):
            assert "127.0.0.1" not in str(m) and str(ports[1]) not in str(m)
    finally:
        watch.cancel()
        await ch.close()
        await pair.close()


async def test_a_replicas_own_refusal_still_ends_the_watch(
    tmp_path: Path, nats_url: str
) -> None:
    """What a replica refuses is not a replica down: the watch ends with its status. Replica
    1 holds other keys (dan's token is not one of its own): a watch on replica 0 ends
    UNAUTHENTICATED. Then replica 1 comes back from a stop with another replica list (a
    rollout): the watch, partial while it was down, ends UNAVAILABLE with replica 1's own
    reason (the replicas disagree), not one naming an address, rather than going on
    partial."""
    pair = replicas.unstarted_pair(
        tmp_path, nats_url, dataclasses.replace(replicas.FAST, accept_timeout=60))
    services, ports = pair.services, pair.ports
    dan = call_metadata(pair.issuer.issue("player", "*", player="dan", ttl=600))
    await pair.start(0)
    await pair.start(1, keys=dataclasses.replace(
        pair.keys, token_secret=b"another deployment's secret" * 2))
    ch = channel(services[0].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)
    try:
        refused_watch = stub.WatchMyInvitations(
            pb.WatchMyInvitationsRequest(), metadata=dan, timeout=20)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await asyncio.wait_for(_until(aiter(refused_watch), lambda m: False), 15)
        assert info.value.code() == C.UNAUTHENTICATED, info.value.details()

        await pair.stop(1)
        await pair.start(1)
        watch = stub.WatchMyInvitations(pb.WatchMyInvitationsRequest(), metadata=dan,
                                        timeout=60)
        stream = aiter(watch)
        first = await asyncio.wait_for(anext(stream), 10)
        assert first.total == 0 and not first.partial
        await pair.stop(1)
        await _until(stream, lambda m: m.partial)
        rollout = ",".join(f"127.0.0.1:{p}" for p in [*ports, free_port()])
        await pair.start(1, peers=rollout)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await _until(stream, lambda m: False, within=20)
        details = info.value.details() or ""
        assert info.value.code() == C.UNAVAILABLE, details
        assert "disagree" in details, details
        assert "127.0.0.1" not in details and str(ports[1]) not in details, details
    finally:
        await ch.close()
        await pair.close()


async def test_a_replicas_own_refusal_fails_the_list_as_it_ends_the_watch(
    tmp_path: Path, nats_url: str
) -> None:
    """ListMyInvitations takes a peer's refusal as WatchMyInvitations does: a replica that
    answers with a refusal of its own is not a replica down. Replica 1 holds another
    deployment's secret: replica 0's list is UNAUTHENTICATED (it was answered `partial`, as if
    replica 1 were down). Replica 1 back with another replica list (a rollout): the list is
    UNAVAILABLE with replica 1's own reason (the replicas disagree), naming no address. Down,
    it is `partial` as before."""
    pair = replicas.unstarted_pair(tmp_path, nats_url, SLOW_ACCEPT)
    services, ports = pair.services, pair.ports
    dan = call_metadata(pair.issuer.issue("player", "*", player="dan", ttl=600))
    await pair.start(0)
    await pair.start(1, keys=dataclasses.replace(
        pair.keys, token_secret=b"another deployment's secret" * 2))
    ch = channel(services[0].address)
    stub = pb_grpc.MatchmakingServiceStub(ch)

    async def listing() -> Any:
        return await stub.ListMyInvitations(pb.ListMyInvitationsRequest(), metadata=dan,
                                            timeout=10)

    try:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await listing()
        assert info.value.code() == C.UNAUTHENTICATED, info.value.details()

        await pair.stop(1)
        down = await listing()
        assert down.partial and list(down.unavailable_games) == sorted(pair.games(1))
        rollout = ",".join(f"127.0.0.1:{p}" for p in [*ports, free_port()])
        await pair.start(1, peers=rollout)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            for _ in range(100):  # partial until replica 0 reaches replica 1 again
                assert (await listing()).partial
                await asyncio.sleep(0.2)
        details = info.value.details() or ""
        assert info.value.code() == C.UNAVAILABLE, details
        assert "disagree" in details, details
        assert "127.0.0.1" not in details and str(ports[1]) not in details, details
    finally:
        await ch.close()
        await pair.close()
