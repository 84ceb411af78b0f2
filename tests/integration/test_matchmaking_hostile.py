"""Hostile clients of matchmaking over real gRPC, a real store and real rules services:
odd and huge field values get a clear status with a short reason, and store nothing."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.matchmaking import matchmaker
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
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


async def reaches(mm: Client, token: str, ticket_id: str, status: int, timeout: float) -> Any:
    """The ticket once it has ``status``; its last status and reason if it never does."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        t = await mm.call("GetTicket", token, ticket_id=ticket_id)
        if t.status == status:
            return t
        assert asyncio.get_running_loop().time() < deadline, (S.Name(t.status), t.reason)
        await asyncio.sleep(0.1)


class TcpGate:
    """A TCP forwarder in front of a real service that can be shut (new connections are
    refused, open ones cut), as a restarting service looks to its clients."""

    def __init__(self, target: str) -> None:
        self.host, port = target.rsplit(":", 1)
        self.port = int(port)
        self.server: asyncio.base_events.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.listen_port = 0
        self.deaf = False
        """Requests go through, answers are dropped: a call is made, its answer lost."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.listen_port}"

    async def open(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.listen_port)
        self.listen_port = self.server.sockets[0].getsockname()[1]

    async def shut(self) -> None:
        assert self.server is not None
        self.server.close()
        for w in list(self.writers):
            w.close()
        await self.server.wait_closed()
        self.server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter,
                       answers: bool = False) -> None:
            try:
                while data := await r.read(65536):
                    if answers and self.deaf:
                        continue
                    w.write(data)
                    await w.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer, answers=True))
        self.writers -= {writer, up_writer}


@dataclasses.dataclass
class Proposed:
    """Matchmaking calling the toy rules service through ``gate``, and ann's and bob's
    tickets proposed one match (``match_id``); ``players``: (player, token) each."""

    gate: TcpGate
    addresses: dict[str, str]
    svc: Any
    mm: Client
    players: list[tuple[str, str]]
    match_id: str

    async def accept(self, ticket: Any) -> None:
        for who, token in self.players:
            await self.mm.call("AcceptMatch", token, ticket_id=ticket(who),
                               match_id=self.match_id)


async def proposed_behind_a_gate(env: Env, **start: Any) -> Proposed:  # noqa: F811
    """ann and bob queue for the toy game through a matchmaking that reaches its rules
    service through a :class:`TcpGate` (``start``: env.start's settings), until proposed."""
    gate = TcpGate(env.backend.services["rules-toy"].address)
    await gate.open()
    addresses = {**env.backend.settings.addresses,
                 **{n: s.address for n, s in env.backend.services.items()},
                 "rules-toy": gate.address}
    svc = await env.start(addresses=addresses, **start)
    mm = Client(svc.address)
    players = [(who, env.player(who)) for who in (env.id("ann"), env.id("bob"))]
    for who, token in players:
        await mm.call("CreateTicket", token, ticket_id=env.id(f"t-{who}"), game="toy",
                      players=[who])
    first, token = players[0]
    proposed = await status_is(mm, token, env.id(f"t-{first}"), S.TICKET_STATUS_PROPOSED)
    return Proposed(gate, addresses, svc, mm, players, proposed.assignment.match_id)


async def test_a_rules_service_down_at_creation_gets_the_accepted_match_once_it_is_back(
        env: Env) -> None:  # noqa: F811
    """Everyone accepted; the game's rules service restarts (a few seconds down) just then:
    the accepted match is created once it answers again, with the id proposed, and nobody has
    to accept again (it was dropped after five tries a cycle apart, 0.25 s here)."""
    p = await proposed_behind_a_gate(env)
    gate, mm, match_id, (a, ta), (b, tb) = p.gate, p.mm, p.match_id, *p.players
    await gate.shut()
    await p.accept(lambda who: env.id(f"t-{who}"))
    await asyncio.sleep(3)
    gate.listen_port = int(gate.address.rsplit(":", 1)[1])
    await gate.open()
    for who, token in ((a, ta), (b, tb)):
        t = await reaches(mm, token, env.id(f"t-{who}"), S.TICKET_STATUS_MATCHED, 30)
        assert t.assignment.match_id == match_id, t.reason
        assert [s.token for s in t.assignment.seats if s.player == who][0]
    await mm.channel.close()
    await gate.shut()


async def test_a_match_given_up_after_its_answer_was_lost_is_abandoned_not_left_running(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """CreateMatch reaches the rules service but its answers are lost until matchmaking gives
    up (two tries here) and sends the tickets back to the queue: the match created there is
    abandoned once the rules service answers again, not left running with nobody at its
    seats beside the match its players get next."""
    monkeypatch.setattr(matchmaker, "CREATE_ATTEMPTS", 2)
    real = env.backend.services["rules-toy"].address
    p = await proposed_behind_a_gate(env, call_timeout=0.5)
    gate, mm, match_id = p.gate, p.mm, p.match_id
    (a, ta), (b, tb) = p.players
    gate.deaf = True
    await p.accept(lambda who: env.id(f"t-{who}"))
    rules = RulesClient(real)
    view: Any = None
    for _ in range(100):  # the first try created it there
        try:
            view = await rules.view(match_id)
            break
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.1)
    assert view is not None and view.status == rules_pb2.MATCH_STATUS_RUNNING
    for _ in range(100):  # given up: back in the queue (proposed again, or waiting)
        t = await mm.call("GetTicket", ta, ticket_id=env.id(f"t-{a}"))
        if t.assignment.match_id != match_id:
            break
        await asyncio.sleep(0.1)
    assert t.assignment.match_id != match_id, (S.Name(t.status), t.reason)
    gate.deaf = False
    for _ in range(150):
        view = await rules.view(match_id)
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            break
        await asyncio.sleep(0.1)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED, view.status
    assert "abandoned" in view.outcome_json, view.outcome_json
    assert "127.0.0.1" not in view.outcome_json and "ipv4" not in view.outcome_json  # public
    await rules.close()
    await mm.channel.close()
    await gate.shut()


async def test_a_restart_after_every_accept_while_the_creation_is_lost_seats_everyone_once(
        env: Env) -> None:  # noqa: F811
    """Everyone accepted and CreateMatch reached the rules service, but its answer was lost
    and matchmaking stopped before storing anything: the next process creates the same match
    (one per id on the rules service) and hands each player their own working seat token."""
    real = env.backend.services["rules-toy"].address
    p = await proposed_behind_a_gate(env, call_timeout=0.5)
    gate, addresses, svc, mm, match_id = p.gate, p.addresses, p.svc, p.mm, p.match_id
    (a, ta), (b, tb) = p.players
    gate.deaf = True
    await p.accept(lambda who: env.id(f"t-{who}"))
    rules = RulesClient(real)
    for _ in range(100):  # created there; its answer never came back
        try:
            await rules.view(match_id)
            break
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.1)
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()
    gate.deaf = False

    svc = await env.start(addresses=addresses, call_timeout=0.5)
    mm = Client(svc.address)
    seats = {}
    for who, token in ((a, ta), (b, tb)):
        t = await reaches(mm, token, env.id(f"t-{who}"), S.TICKET_STATUS_MATCHED, 15)
        assert t.assignment.match_id == match_id
        mine = [s for s in t.assignment.seats if s.player == who]
        assert len(mine) == 1 and mine[0].token
        assert not [s for s in t.assignment.seats if s.player != who and s.token]
        seats[mine[0].seat] = mine[0].token
    assert sorted(seats) == [0, 1]
    for seat, token in seats.items():
        view = await rules.view(match_id, token)
        assert view.viewer == seat and view.status == rules_pb2.MATCH_STATUS_RUNNING
    listed = await rules.call("ListMatches", rules_pb2.ListMatchesRequest(),
                              env.backend.organiser_token())
    assert [m.match_id for m in listed.matches] == [match_id]  # this test's rules service
    await rules.close()
    await mm.channel.close()
    await gate.shut()


async def test_a_player_named_without_agreeing_cannot_cancel_the_party(env: Env) -> None:  # noqa: F811
    """ann's party names bob, who never agreed. bob's CancelTicket would end the party for ann,
    waiting time and all, which his "no" (DeclineInvite) deliberately does not: it is
    FAILED_PRECONDITION pointing to DeclineInvite, and the ticket waits on, unchanged. Once bob
    accepted a match of it, the party holds him and he may cancel it, as its creator may."""
    ann, bob = env.id("ann"), env.id("bob")
    svc = await env.start()
    mm = Client(svc.address)
    ta, tb = env.player(ann), env.player(bob)
    party = env.id("party")
    await mm.call("CreateTicket", ta, ticket_id=party, game="toy", players=[ann, bob],
                  rating_window=0.5)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await mm.call("CancelTicket", tb, ticket_id=party)
    assert info.value.code() == C.FAILED_PRECONDITION, info.value.details()
    assert "DeclineInvite" in (info.value.details() or "")
    still = await mm.call("GetTicket", ta, ticket_id=party)
    assert still.status in (S.TICKET_STATUS_WAITING, S.TICKET_STATUS_PROPOSED)
    assert list(still.players) == [ann, bob] and not still.reason
    proposed = await status_is(mm, ta, party, S.TICKET_STATUS_PROPOSED)
    await mm.call("AcceptMatch", tb, ticket_id=party, match_id=proposed.assignment.match_id)
    cancelled = await mm.call("CancelTicket", tb, ticket_id=party)
    assert cancelled.status == S.TICKET_STATUS_CANCELLED and bob in cancelled.reason
    await mm.channel.close()


async def test_a_restarted_rules_service_is_reached_again_within_a_second_or_two(
        env: Env) -> None:  # noqa: F811
    """After a rules service was down for a few seconds, matchmaking's channel to it reconnects
    at once when it is back, not after gRPC's default reconnect backoff (1 s, 1.6 s, ... up
    to two minutes), during which every CreateMatch fails at once: a longer outage used up an
    accepted match's tries after the rules service was back."""
    from services.matchmaking.rules_port import RulesGateway

    gate = TcpGate(env.backend.services["rules-toy"].address)
    await gate.open()
    rules = RulesGateway(lambda game: gate.address, "", 1.0)
    try:
        assert await rules.modes("toy")
        await gate.shut()
        loop = asyncio.get_running_loop()
        down_until = loop.time() + 6
        while loop.time() < down_until:  # the channel fails, and backs off
            assert await rules.modes("toy") is None
            await asyncio.sleep(0.2)
        await gate.open()
        back = loop.time()
        while await rules.modes("toy") is None:
            assert loop.time() - back < 2.0, "not reconnected within 2 s"
            await asyncio.sleep(0.1)
    finally:
        await rules.close()
        await gate.shut()


class Ratings(scoring_pb2_grpc.ScoringServiceServicer):
    """A scoring service that knows a few ordinals (GetRatings only), on a real socket."""

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table

    async def GetRatings(self, request: Any, context: Any) -> Any:
        return scoring_pb2.GetRatingsResponse(ratings=[
            scoring_pb2.Rating(player=p, game=request.game, ordinal=self.table[p])
            for p in request.players if p in self.table])


async def test_a_ticket_queued_while_scoring_restarts_is_grouped_by_its_rating(
        env: Env) -> None:  # noqa: F811
    """Scoring does not answer for a moment (a restart) as ann (ordinal 300) and bob (new, no
    rating) queue: ann is rated when it answers again a moment later, not taken as a new
    player for good (she and bob were matched at once, 300 apart). Scoring down for longer
    still means default ratings, a few seconds on (the next test of test_matchmaking.py)."""
    a, b = env.id("ann"), env.id("bob")
    server = grpc.aio.server()
    scoring_pb2_grpc.add_ScoringServiceServicer_to_server(Ratings({a: 300.0}), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    gate = TcpGate(f"127.0.0.1:{port}")
    await gate.open()
    await gate.shut()
    svc = await env.start(dataclasses.replace(FAST, rating_timeout=0.5), ratings=None,
                          addresses={**env.backend.settings.addresses,
                                     "rules-toy": env.backend.address("rules-toy"),
                                     "scoring": gate.address})
    mm = Client(svc.address)
    try:
        for who in (a, b):
            await mm.call("CreateTicket", env.player(who), ticket_id=env.id(f"t-{who}"),
                          game="toy", players=[who])
        await asyncio.sleep(0.3)
        await gate.open()
        await asyncio.sleep(2.5)
        t = await mm.call("GetTicket", env.player(a), ticket_id=env.id(f"t-{a}"))
        assert t.status == S.TICKET_STATUS_WAITING, (S.Name(t.status), t.reason)
        rows = svc.extra["matchmaker"]._rows["toy"]
        assert rows.columns.ratings[rows.slot[env.id(f"t-{a}")]] == (300.0,)
    finally:
        await mm.channel.close()
        await gate.shut()
        await server.stop(0)


async def test_a_match_given_up_tells_its_players_why_without_internal_addresses(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The rules service stays down until matchmaking gives up (two tries here): the players
    are told their match was not created and that they are queued again, not gRPC's error
    text with the rules service's internal address (which answers keep from web clients)."""
    monkeypatch.setattr(matchmaker, "CREATE_ATTEMPTS", 2)
    p = await proposed_behind_a_gate(env)
    gate, mm, match_id, (a, ta) = p.gate, p.mm, p.match_id, p.players[0]
    stream = aiter(mm.watch(ta, env.id(f"t-{a}")))
    await anext(stream)
    await gate.shut()
    await p.accept(lambda who: env.id(f"t-{who}"))
    reason = ""
    async for message in stream:
        if message.ticket.reason:
            reason = message.ticket.reason
            break
    assert match_id in reason and "not created" in reason, reason
    assert "127.0.0.1" not in reason and "ipv4" not in reason, reason
    await mm.channel.close()
