"""Matchmaking over real gRPC, real NATS and a real store, with real rules and dice services.

Games: the toy engine ("toy", mode "race", 2 seats) registered in the matchmaking
catalogue; Neon Reign too when its engine is in the build.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.matchmaking import main as mm_main
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.domain import bot_match_uuid
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Config
from services.matchmaking.ratings import StaticRatings
from services.platform import bus
from services.platform.grpc_kit import call_metadata, channel
from services.platform.running import RunningService
from services.rules.games import available
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.client import RulesClient, play_one, random_choose

FAST = Config(interval=0.05, ticket_ttl=60, accept_timeout=5,
              policy=Policy(partial_after=0, backfill_after=3600), client_seeds=False)
"""Matches start as they are created (NEON_MATCHMAKING_CLIENT_SEEDS=0): these tests are about
queues, parties and seats; matches that wait for client seeds (the default) are
test_matchmaking_seeds.py's."""
S = pb.TicketStatus


def catalogue() -> Catalogue:
    c = Catalogue()
    c.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    return c


class Client:
    def __init__(self, address: str) -> None:
        self.channel = channel(address)
        self.stub = pb_grpc.MatchmakingServiceStub(self.channel)

    async def call(self, name: str, token: str | None, **kw: Any) -> Any:
        request = getattr(pb, f"{name}Request")(**kw)
        reply = await getattr(self.stub, name)(request, metadata=call_metadata(token), timeout=10)
        return reply.ticket

    def watch(self, token: str, ticket_id: str) -> Any:
        return self.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket_id),
                                     metadata=call_metadata(token), timeout=15)


@dataclass
class Env:
    backend: Backend
    tag: str
    start: Callable[..., Awaitable[RunningService]]
    running: list[RunningService] = field(default_factory=list)

    def player(self, name: str) -> str:
        return self.backend.issuer.issue("player", "*", player=name, ttl=600)

    def id(self, name: str) -> str:
        return f"{name}-{self.tag}"


@pytest.fixture
async def env(tmp_path: Path, nats_url: str) -> AsyncIterator[Env]:
    games = [g for g in ("neon-reign", "neon") if g in available()]
    backend = await start_backend(make_settings(tmp_path, nats_url), games=games,
                                  embedded_nats=False, engines={"toy": toy.ENGINE})
    addresses = {name: svc.address for name, svc in backend.services.items()}
    settings = dataclasses.replace(backend.settings,
                                   addresses={**backend.settings.addresses, **addresses})

    async def start(config: Config = FAST, ratings: Any = "static", **overrides: Any) -> RunningService:
        svc = await mm_main.start(dataclasses.replace(settings, **overrides), backend.keys,
                                  backend.nats_client, config=config,
                                  ratings=StaticRatings() if ratings == "static" else ratings,
                                  catalogue=catalogue())
        e.running.append(svc)
        return svc

    e = Env(backend, uuid.uuid4().hex[:8], start)
    yield e
    for svc in e.running:
        await svc.stop(0.5)
    await backend.stop(1)


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 8.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def status_is(client: Client, token: str, ticket_id: str, status: int) -> Any:
    found: list[Any] = []

    async def check() -> bool:
        found[:] = [await client.call("GetTicket", token, ticket_id=ticket_id)]
        return bool(found[0].status == status)

    await until(check)
    return found[0]


async def test_two_players_are_matched_and_their_seat_tokens_work(env: Env, nats_client: Any) -> None:
    svc = await env.start()
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    first = await mm.call("CreateTicket", ta, ticket_id=env.id("t-ann"), game="toy", players=[a])
    assert first.status == S.TICKET_STATUS_WAITING and first.modes == ["race"]
    stream = mm.watch(ta, env.id("t-ann"))
    await mm.call("CreateTicket", tb, ticket_id=env.id("t-bob"), game="toy", players=[b])
    seen = []
    async for message in stream:
        seen.append(message.ticket)
        t = message.ticket
        if t.status == S.TICKET_STATUS_PROPOSED:
            match_id = t.assignment.match_id
            assert all(not s.token for s in t.assignment.seats)
            await mm.call("AcceptMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
            await mm.call("AcceptMatch", tb, ticket_id=env.id("t-bob"), match_id=match_id)
    final = seen[-1]
    assert [t.status for t in seen][:1] == [S.TICKET_STATUS_WAITING]
    assert final.status == S.TICKET_STATUS_MATCHED
    seats = {s.player: s for s in final.assignment.seats}
    assert set(seats) == {a, b} and seats[a].token and not seats[b].token
    bob = await mm.call("GetTicket", tb, ticket_id=env.id("t-bob"))
    assert {s.player: bool(s.token) for s in bob.assignment.seats} == {a: False, b: True}
    # the seat tokens act on the rules service
    rules = RulesClient(final.assignment.rules_address)
    for player, token in ((a, seats[a].token), (b, {s.player: s for s in bob.assignment.seats}[b].token)):
        legal = await rules.legal(token, final.assignment.match_id)
        action = json.loads(legal.decisions[0].legal_json[0])
        answer = await rules.submit(token, final.assignment.match_id, f"first-{player}", action)
        assert answer.version >= 2
    view = await rules.view(final.assignment.match_id)
    assert view.mode == "race"
    await rules.close()
    # the assignment went out on NATS too, without any token
    js = nats_client.jetstream()
    sub = await js.pull_subscribe(f"{bus.subject_prefix()}.matchmaking.ticket.{env.id('t-ann')}",
                                 stream=bus.stream_name())
    msgs = []
    for _ in range(40):
        try:
            msgs += await sub.fetch(20, timeout=0.25)
        except TimeoutError:
            pass
        if any(json.loads(m.data)["type"] == "TicketMatched" for m in msgs):
            break
    await sub.unsubscribe()
    kinds = [json.loads(m.data)["type"] for m in msgs]
    assert kinds[0] == "TicketCreated" and "TicketMatched" in kinds
    assert not any(seats[a].token in m.data.decode() for m in msgs)
    await mm.channel.close()


async def test_bad_input_is_answered_with_clear_status_codes(env: Env) -> None:
    svc = await env.start()
    mm = Client(svc.address)
    a, b, c = env.id("ann"), env.id("bob"), env.id("cid")
    ta, tc = env.player(a), env.player(c)
    organiser = env.backend.organiser_token()
    seat = env.backend.issuer.issue("seat", "m1", 0, a)
    tid = env.id("t")
    # ratings far apart with tight windows: nothing gets matched during this test
    ok = dict(ticket_id=tid, game="toy", players=[a], rating_window=0.5)
    created = await mm.call("CreateTicket", ta, **ok)
    again = await mm.call("CreateTicket", ta, **ok)
    assert again.ticket_id == created.ticket_id and again.status == S.TICKET_STATUS_WAITING
    C = grpc.StatusCode
    cases = [
        (None, "CreateTicket", dict(ok, ticket_id=env.id("x")), C.UNAUTHENTICATED),
        (seat, "CreateTicket", dict(ok, ticket_id=env.id("x")), C.PERMISSION_DENIED),
        ("garbage", "CreateTicket", ok, C.UNAUTHENTICATED),
        (tc, "CreateTicket", dict(ok, ticket_id=env.id("x")), C.PERMISSION_DENIED),
        (ta, "CreateTicket", dict(ok, modes=["race", "sprint"]), C.ALREADY_EXISTS),
        (ta, "CreateTicket", dict(ok, ticket_id="bad id!"), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), game="chess"), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), game=""), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), modes=["sprint"]), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), min_seats=3, max_seats=4), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), min_seats=2, max_seats=1), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), players=[a, b, c]), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), players=[a, a]), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), players=[]), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), players=[a, "bot-random-1"]), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x"), rating_window=-1), C.INVALID_ARGUMENT),
        (ta, "CreateTicket", dict(ok, ticket_id=env.id("x")), C.FAILED_PRECONDITION),
        (tc, "GetTicket", dict(ticket_id=tid), C.PERMISSION_DENIED),
        (tc, "CancelTicket", dict(ticket_id=tid), C.PERMISSION_DENIED),
        (tc, "AcceptMatch", dict(ticket_id=tid, match_id="m"), C.PERMISSION_DENIED),
        (ta, "GetTicket", dict(ticket_id=env.id("missing")), C.NOT_FOUND),
        (ta, "GetTicket", dict(ticket_id=""), C.INVALID_ARGUMENT),
        (ta, "AcceptMatch", dict(ticket_id=tid, match_id="not-proposed"), C.FAILED_PRECONDITION),
        (ta, "AcceptMatch", dict(ticket_id=tid, match_id=""), C.INVALID_ARGUMENT),
    ]
    for token, method, kw, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call(method, token, **kw)
        assert info.value.code() == code, (method, kw, info.value.details())
        assert info.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in mm.watch(tc, tid):
            pass
    assert info.value.code() == C.PERMISSION_DENIED
    # an organiser sees any ticket; cancelling ends it and frees the player
    assert (await mm.call("GetTicket", organiser, ticket_id=tid)).players == [a]
    cancelled = await mm.call("CancelTicket", ta, ticket_id=tid)
    assert cancelled.status == S.TICKET_STATUS_CANCELLED and a in cancelled.reason
    assert (await mm.call("CancelTicket", ta, ticket_id=tid)).status == S.TICKET_STATUS_CANCELLED
    fresh = await mm.call("CreateTicket", ta, **dict(ok, ticket_id=env.id("x")))
    assert fresh.status == S.TICKET_STATUS_WAITING
    await mm.channel.close()


async def test_a_player_who_does_not_accept_is_dropped_and_the_other_requeued(env: Env) -> None:
    svc = await env.start(dataclasses.replace(FAST, accept_timeout=0.6))
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    await mm.call("CreateTicket", ta, ticket_id=env.id("ta"), game="toy", players=[a])
    await mm.call("CreateTicket", tb, ticket_id=env.id("tb"), game="toy", players=[b])
    proposed = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_PROPOSED)
    waited = proposed.waited_seconds
    await mm.call("AcceptMatch", ta, ticket_id=env.id("ta"), match_id=proposed.assignment.match_id)
    dropped = await status_is(mm, tb, env.id("tb"), S.TICKET_STATUS_EXPIRED)
    assert "did not accept" in dropped.reason and b in dropped.reason
    back = await mm.call("GetTicket", ta, ticket_id=env.id("ta"))
    assert back.status == S.TICKET_STATUS_WAITING
    assert back.waited_seconds >= waited + 0.5, "the waiting time is kept"
    assert "did not accept" in back.reason
    # the requeued player is matched again with a newcomer, and an organiser may accept for all
    c = env.id("cid")
    await mm.call("CreateTicket", env.player(c), ticket_id=env.id("tc"), game="toy", players=[c])
    again = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_PROPOSED)
    assert {s.player for s in again.assignment.seats} == {a, c}
    organiser = env.backend.organiser_token()
    for t in ("ta", "tc"):
        await mm.call("AcceptMatch", organiser, ticket_id=env.id(t), match_id=again.assignment.match_id)
    matched = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_MATCHED)
    assert matched.assignment.match_id == again.assignment.match_id
    await mm.channel.close()


async def test_backfill_with_a_bot_and_expiry_with_a_reason(env: Env) -> None:
    config = Config(interval=0.05, ticket_ttl=1.0, auto_accept=True,
                    policy=Policy(backfill_after=0.3, partial_after=0), client_seeds=False)
    a, b = env.id("ann"), env.id("bob")
    svc = await env.start(config, StaticRatings({a: 0, b: 100}))
    # the bots' seeds are keyed with a secret of the deployment's (not the public match id)
    assert len(svc.extra["matchmaker"].bots.secret) == 32
    mm = Client(svc.address)
    ta, tb = env.player(a), env.player(b)
    await mm.call("CreateTicket", ta, ticket_id=env.id("ta"), game="toy", players=[a], allow_bots=True)
    await mm.call("CreateTicket", tb, ticket_id=env.id("tb"), game="toy", players=[b],
                  min_seats=2, rating_window=0.1)
    matched = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_MATCHED)
    seats = {s.player: s for s in matched.assignment.seats}
    # bob's rating is far (tight window), so ann got a bot rather than bob
    assert set(seats) == {a, "bot-random-1"} and seats["bot-random-1"].bot
    assert seats[a].token and not seats["bot-random-1"].token
    expired = await status_is(mm, tb, env.id("tb"), S.TICKET_STATUS_EXPIRED)
    assert "no match found within 1 s" in expired.reason
    # matchmaking plays the bot's seat: ann plays hers and the match ends
    rules = RulesClient(matched.assignment.rules_address)
    match_id = matched.assignment.match_id
    outcome = await asyncio.wait_for(play_one(rules, match_id, seats[a].token,
                                              random_choose("ann")), 20)
    assert outcome is not None
    await rules.close()
    app = svc.extra["app"]

    async def bots_left() -> bool:
        return bool(app.repository.get(bot_match_uuid(match_id)).finished)

    await until(bots_left)
    await mm.channel.close()


async def _restart_keeps_waiting_tickets(env: Env, **store: Any) -> None:
    ratings = StaticRatings({env.id("ann"): 0, env.id("bob"): 500})
    svc = await env.start(FAST, ratings, **store)
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    ta, tb = env.player(a), env.player(b)
    await mm.call("CreateTicket", ta, ticket_id=env.id("ta"), game="toy", players=[a], rating_window=5)
    await mm.call("CreateTicket", tb, ticket_id=env.id("tb"), game="toy", players=[b], rating_window=5)
    await asyncio.sleep(0.3)
    before = await mm.call("GetTicket", ta, ticket_id=env.id("ta"))
    assert before.status == S.TICKET_STATUS_WAITING
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    # a new service on the same store, now with ratings that let them meet
    svc = await env.start(FAST, StaticRatings({a: 0, b: 1}), **store)
    mm = Client(svc.address)
    restored = svc.extra["matchmaker"]
    assert {env.id("ta"), env.id("tb")} <= set(restored.tickets)
    proposed = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_PROPOSED)
    assert proposed.waited_seconds >= before.waited_seconds
    assert {s.player for s in proposed.assignment.seats} == {a, b}
    await mm.call("AcceptMatch", ta, ticket_id=env.id("ta"), match_id=proposed.assignment.match_id)
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    # a proposal survives a restart too, with the acceptance already given
    svc = await env.start(FAST, StaticRatings({a: 0, b: 1}), **store)
    mm = Client(svc.address)
    again = await mm.call("GetTicket", tb, ticket_id=env.id("tb"))
    assert again.status == S.TICKET_STATUS_PROPOSED
    assert again.assignment.match_id == proposed.assignment.match_id
    await mm.call("AcceptMatch", tb, ticket_id=env.id("tb"), match_id=proposed.assignment.match_id)
    done = await status_is(mm, ta, env.id("ta"), S.TICKET_STATUS_MATCHED)
    assert done.assignment.match_id == proposed.assignment.match_id
    await mm.channel.close()


async def test_restart_keeps_waiting_tickets_sqlite(env: Env) -> None:
    await _restart_keeps_waiting_tickets(env)


@pytest.mark.postgres
async def test_restart_keeps_waiting_tickets_postgres(env: Env, postgres_url: str,
                                                      postgres_schema: str) -> None:
    await _restart_keeps_waiting_tickets(env, persistence="postgres", database_url=postgres_url,
                                         postgres_schema=postgres_schema)


async def test_ratings_fall_back_to_defaults_when_scoring_is_down(env: Env) -> None:
    svc = await env.start(dataclasses.replace(FAST, rating_timeout=0.2, auto_accept=True),
                          ratings=None, addresses={**env.backend.settings.addresses,
                                                   "rules-toy": env.backend.address("rules-toy"),
                                                   "scoring": "127.0.0.1:9"})
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    await mm.call("CreateTicket", env.player(a), ticket_id=env.id("ta"), game="toy", players=[a])
    await mm.call("CreateTicket", env.player(b), ticket_id=env.id("tb"), game="toy", players=[b])
    await status_is(mm, env.player(a), env.id("ta"), S.TICKET_STATUS_MATCHED)
    await mm.channel.close()


@pytest.mark.skipif("neon-reign" not in available(), reason="the Neon Reign engine is not in this build")
async def test_neon_reign_party_limits_and_a_match(env: Env) -> None:
    svc = await env.start(dataclasses.replace(FAST, auto_accept=True))
    mm = Client(svc.address)
    a, b, c = env.id("ann"), env.id("bob"), env.id("cid")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await mm.call("CreateTicket", env.player(a), ticket_id=env.id("x"), game="neon-reign",
                      players=[a, b, c])
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    await mm.call("CreateTicket", env.player(a), ticket_id=env.id("ta"), game="neon-reign", players=[a])
    await mm.call("CreateTicket", env.player(b), ticket_id=env.id("tb"), game="neon-reign", players=[b])
    done = await status_is(mm, env.player(a), env.id("ta"), S.TICKET_STATUS_MATCHED)
    assert done.assignment.game == "neon-reign" and len(done.assignment.seats) == 2
    await mm.channel.close()


@pytest.mark.skipif("neon" not in available(), reason="the NEON engine is not in this build")
async def test_a_two_player_neon_match_always_brings_the_automa(env: Env) -> None:
    svc = await env.start(dataclasses.replace(FAST, auto_accept=True))
    mm = Client(svc.address)
    a, b = env.id("ann"), env.id("bob")
    for name in (a, b):
        await mm.call("CreateTicket", env.player(name), ticket_id=env.id(f"t{name}"), game="neon",
                      modes=["rebirth"], players=[name], min_seats=2, max_seats=2)
    done = await status_is(mm, env.player(a), env.id(f"t{a}"), S.TICKET_STATUS_MATCHED)
    assert len(done.assignment.seats) == 2
    rules = RulesClient(env.backend.address("rules-neon"))
    service = env.backend.issuer.issue("service", "*", player="audit", ttl=600)  # still played
    export = (await rules.export(service, done.assignment.match_id))
    created = json.loads(export.export_jsonl.splitlines()[0])
    assert created["options"].get("automa") is True and created["seats"] == 2
    await rules.close()
    await mm.channel.close()


class TeamRules(rules_pb2_grpc.RulesServiceServicer):
    """A rules service of a team game that matchmaking was never told of: it describes its
    modes in GetGameInfo and records the matches it is asked to create."""

    def __init__(self) -> None:
        self.created: list[Any] = []

    async def GetGameInfo(self, request: Any, context: Any) -> Any:
        return rules_pb2.GetGameInfoResponse(game_id="pairs", modes=[rules_pb2.ModeInfo(
            name="doubles", min_seats=4, max_seats=4,
            team_layouts=[rules_pb2.TeamLayout(seats=4, team_size=2)],
            ai_participants=["umpire"])])

    async def CreateMatch(self, request: Any, context: Any) -> Any:
        self.created.append(request)
        return rules_pb2.CreateMatchResponse(match_id=request.match_id, seat_tokens=[
            rules_pb2.SeatToken(seat=s, token=f"token-{s}", player=p)
            for s, p in enumerate(request.players)])


async def test_modes_and_teams_come_from_the_rules_service_and_go_back_as_teams(env: Env) -> None:
    rules = TeamRules()
    server = grpc.aio.server()
    rules_pb2_grpc.add_RulesServiceServicer_to_server(rules, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        svc = await env.start(dataclasses.replace(FAST, auto_accept=True), addresses={
            **env.backend.settings.addresses, **{n: s.address for n, s in env.backend.services.items()},
            "rules-pairs": f"127.0.0.1:{port}"})
        mm = Client(svc.address)
        names = [env.id(n) for n in ("ann", "bob", "cid", "dan")]
        first = await mm.call("CreateTicket", env.player(names[0]), ticket_id=env.id("t0"),
                              game="pairs", players=names[:2])
        assert first.modes == ["doubles"]
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call("CreateTicket", env.player(names[2]), ticket_id=env.id("tx"),
                          game="pairs", players=names[2:], modes=["singles"])
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "doubles" in (info.value.details() or "")
        for n in names[2:]:
            await mm.call("CreateTicket", env.player(n), ticket_id=env.id(f"t-{n}"), game="pairs",
                          players=[n])
        # auto-accept accepts for the creator only: the party's other player accepts itself
        proposed = await status_is(mm, env.player(names[1]), env.id("t0"), S.TICKET_STATUS_PROPOSED)
        assert list(proposed.accepted) == [names[0]]
        await mm.call("AcceptMatch", env.player(names[1]), ticket_id=env.id("t0"),
                      match_id=proposed.assignment.match_id)
        done = await status_is(mm, env.player(names[0]), env.id("t0"), S.TICKET_STATUS_MATCHED)
        [created] = rules.created
        assert created.mode == "doubles" and created.seats == 4
        assert json.loads(created.options_json or "{}") == {}, "no game options: teams say it"
        teams = [sorted(t.seats) for t in created.teams]
        assert len(teams) == 2 and sorted(s for t in teams for s in t) == [0, 1, 2, 3]
        seat_of = {s.player: s.seat for s in done.assignment.seats}
        team_of = {s.player: s.team for s in done.assignment.seats}
        assert any({seat_of[names[0]], seat_of[names[1]]} == set(t) for t in teams), \
            "the party plays in one team"
        for t in teams:
            assert len({team_of[p] for p, s in seat_of.items() if s in t}) == 1
        await mm.channel.close()
    finally:
        await server.stop(0)


async def test_a_game_that_is_not_served_here_says_so(env: Env, tmp_path: Path) -> None:
    """Issue 17, defect 9: a ticket for a game whose rules service never answered (its engine is
    not in this build) is FAILED_PRECONDITION "not served", not UNAVAILABLE "try again"."""
    import socket

    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{s.getsockname()[1]}"
    cat = catalogue()
    cat.register(GameSpec("unbuilt", (ModeSpec("duel", 2, 2),)))
    settings = env.backend.settings
    svc = await mm_main.start(
        dataclasses.replace(settings, addresses={**settings.addresses, "rules-unbuilt": nowhere,
                                                 **{n: s.address for n, s in env.backend.services.items()}}),
        env.backend.keys, env.backend.nats_client, config=FAST, ratings=StaticRatings(), catalogue=cat)
    env.running.append(svc)
    mm = Client(svc.address)
    a = env.id("ann")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await mm.call("CreateTicket", env.player(a), ticket_id=env.id("u"), game="unbuilt", players=[a])
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "game unbuilt is not served here" in info.value.details()
    # A served game still queues.
    made = await mm.call("CreateTicket", env.player(a), ticket_id=env.id("t"), game="toy", players=[a],
                         rating_window=0.5)
    assert made.status == S.TICKET_STATUS_WAITING
