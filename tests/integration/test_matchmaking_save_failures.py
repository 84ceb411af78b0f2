"""Matchmaking's memory against a save the store refuses, or whose caller is cancelled.

eventsourcing takes an aggregate's pending events before it writes them: a refused save
loses them, while the aggregate in memory keeps the change and its new version (its next
save stores a later version over the gap, and no replay reads past it: OriginatorVersionError).
And a save runs in a worker thread: a caller cancelled meanwhile (its client hung up, its
deadline passed) stopped waiting while the write went on, so whatever memory does once a
change is stored (a ticket remembered, an accept that creates the match, a watcher told) was
skipped, and a refused write was never noticed.

Now each save runs to its end with what follows it (or a reload of memory from the store when
refused), whoever gave up; the caller of a refused save gets UNAVAILABLE, a retry works, and
nothing is written from memory that may be ahead of the store (a reload failed too) until a
reload. Over real gRPC, rules services and NATS, on SQLite and PostgreSQL: the fault
injector (:class:`Faults`) wraps the real recorder of the matchmaking store.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.domain import kickoff_uuid, ticket_uuid
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Config, Matchmaker, TicketRequest
from services.matchmaking.ratings import StaticRatings
from services.platform.errors import Unavailable
from services.platform.grpc_kit import call_metadata
from services.platform.store import eventsourcing_env
from services.platform.tokens import Claims
from tests.integration.conftest import make_settings
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
    until,
)
from tests.integration.test_matchmaking_seeds import SEEDS, pair, seeds, status_started

C = grpc.StatusCode
REFUSED = "the matchmaking store did not take the change; try again"


class Faults:
    """The real recorder of an Application's store, with faults injected: the next write of
    an event whose topic ends with ``topic`` is refused (:meth:`refuse`) or held until the
    test lets it go on (:meth:`hold`), then written or refused; reads of the notification
    log (what a reload scans) fail while ``reads_down``."""

    def __init__(self, app: Any) -> None:
        self.recorder = app.events.recorder
        self.real_insert = self.recorder.insert_events
        self.real_select = self.recorder.select_notifications
        self.recorder.insert_events = self._insert
        self.recorder.select_notifications = self._select
        self.topic = ""
        self.held = False
        self.refuse_it = False
        self.holding, self.go_on = threading.Event(), threading.Event()
        self.reads_down = False
        self.refused = 0

    def refuse(self, topic: str) -> None:
        self.topic, self.held, self.refuse_it = topic, False, True

    def hold(self, topic: str, *, then_refuse: bool) -> None:
        self.topic, self.held, self.refuse_it = topic, True, then_refuse
        self.holding.clear()
        self.go_on.clear()

    def _insert(self, stored_events: Any, **kw: Any) -> Any:
        if self.topic and any(e.topic.endswith(self.topic) for e in stored_events):
            self.topic = ""
            if self.held:
                self.holding.set()
                assert self.go_on.wait(20), "the test never let the held save go on"
            if self.refuse_it:
                self.refused += 1
                raise OSError("injected: the store refused the write")
        return self.real_insert(stored_events, **kw)

    def _select(self, *args: Any, **kw: Any) -> Any:
        if self.reads_down:
            raise OSError("injected: the store does not answer reads")
        return self.real_select(*args, **kw)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The matchmaking service's store: its own SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return {}
    return {"persistence": "postgres", "database_url": request.getfixturevalue("postgres_url"),
            "postgres_schema": request.getfixturevalue("postgres_schema")}


def stored(app: Any, originator: Any) -> list[tuple[int, str]]:
    """An aggregate's stored events: version and name."""
    return [(e.originator_version, type(e).__qualname__) for e in app.events.get(originator)]


def contiguous(events: list[tuple[int, str]]) -> bool:
    return [v for v, _ in events] == list(range(1, len(events) + 1))


async def ready(mm: Client, token: str, ticket_id: str, match_id: str) -> Any:
    return await mm.call("ReadyForMatch", token, ticket_id=ticket_id, match_id=match_id)


async def cancelled_while_held(faults: Faults, call: Any) -> None:
    """Hang ``call`` up once its save is held, then let the save go on (after a while: the
    service learns of the hang-up, and cancels the call's handler, on its own time)."""
    try:
        assert await asyncio.to_thread(faults.holding.wait, 20), "the save was never made"
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.sleep(0.5)
    finally:
        faults.go_on.set()


async def _started(env: Env, config: Any, store: dict[str, Any]  # noqa: F811
                   ) -> tuple[Any, Any, Faults, Client]:
    """The matchmaking service with ``config`` on ``store``: its matchmaker, its application,
    faults on that application's store, and a client."""
    svc = await env.start(config, **store)
    app = svc.extra["app"]
    return svc.extra["matchmaker"], app, Faults(app), Client(svc.address)


async def _seeded_pair(env: Env, store: dict[str, Any]  # noqa: F811
                       ) -> tuple[Any, Any, Faults, Client, str, str, str]:
    """Ann's and bob's tickets matched to one match that waits for their client seeds
    (:func:`_started` with SEEDS, then ann's and bob's seat tokens and the match id)."""
    matchmaker, app, faults, mm = await _started(env, SEEDS, store)
    got = await pair(env, mm, "ann", "bob")
    (ta, a), (tb, _) = got["ann"], got["bob"]
    return matchmaker, app, faults, mm, ta, tb, a.assignment.match_id


# ----------------------------------------------------------------- client seeds: ReadyForMatch


async def test_a_ready_the_store_refuses_is_unavailable_undone_and_a_retry_stores_it_once(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    matchmaker, app, faults, mm, ta, tb, match_id = await _seeded_pair(env, store)
    faults.refuse("Kickoff.Ready")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await ready(mm, ta, env.id("t-ann"), match_id)
    assert refused.value.code() == C.UNAVAILABLE and refused.value.details() == REFUSED
    assert faults.refused == 1
    # memory as the store has it: nobody ready, no Ready stored
    assert matchmaker.kickoffs[match_id].ready == [] and not matchmaker.stale
    assert stored(app, kickoff_uuid(match_id)) == [(1, "Kickoff.Created")]
    seen = await mm.call("GetTicket", ta, ticket_id=env.id("t-ann"))
    assert list(seen.seed_window.ready) == [] and not seen.match_started
    # the retry is stored once; bob's makes every seat ready and starts the match
    again = await ready(mm, ta, env.id("t-ann"), match_id)
    assert list(again.seed_window.ready) == [env.id("ann")]
    await ready(mm, tb, env.id("t-bob"), match_id)
    await status_started(mm, ta, env.id("t-ann"))
    events = stored(app, kickoff_uuid(match_id))
    assert events == [(1, "Kickoff.Created"), (2, "Kickoff.Ready"), (3, "Kickoff.Ready"),
                      (4, "Kickoff.Ended")]
    kickoff = app.find_kickoff(match_id)
    assert kickoff.started and kickoff.ready == sorted([env.id("ann"), env.id("bob")])
    await mm.channel.close()


async def test_a_ready_cancelled_while_its_save_is_refused_is_undone_in_memory(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    """Before: the write went on in its thread after the caller's cancellation, was refused,
    and nobody noticed: memory said ann was ready, the store did not, and the match started
    "every seat is ready" with one Ready stored, over a gap in the kickoff's versions."""
    matchmaker, app, faults, mm, ta, tb, match_id = await _seeded_pair(env, store)
    faults.hold("Kickoff.Ready", then_refuse=True)
    await cancelled_while_held(faults, mm.stub.ReadyForMatch(
        pb.ReadyForMatchRequest(ticket_id=env.id("t-ann"), match_id=match_id),
        metadata=call_metadata(ta), timeout=20))

    async def as_stored() -> bool:
        k = matchmaker.kickoffs.get(match_id)
        return faults.refused == 1 and not matchmaker.stale and k is not None and k.ready == []

    await until(as_stored, 10)
    assert stored(app, kickoff_uuid(match_id)) == [(1, "Kickoff.Created")]
    await ready(mm, tb, env.id("t-bob"), match_id)
    await ready(mm, ta, env.id("t-ann"), match_id)  # ann's retry starts the match
    await status_started(mm, ta, env.id("t-ann"))
    assert stored(app, kickoff_uuid(match_id)) == [
        (1, "Kickoff.Created"), (2, "Kickoff.Ready"), (3, "Kickoff.Ready"), (4, "Kickoff.Ended")]
    kickoff = app.find_kickoff(match_id)
    assert kickoff.ready == sorted([env.id("ann"), env.id("bob")])
    assert kickoff.reason == f"match {match_id} started: every seat is ready"
    await mm.channel.close()


async def test_a_ready_cancelled_while_its_save_goes_through_is_told_to_the_watchers(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    """Before: stored, but the tickets' watchers were never told (nor the outbox poked)."""
    _, app, faults, mm, ta, tb, match_id = await _seeded_pair(env, store)
    watch = mm.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=env.id("t-bob")),
                                metadata=call_metadata(tb), timeout=30)
    first = await asyncio.wait_for(watch.read(), 10)
    assert list(first.ticket.seed_window.ready) == []
    faults.hold("Kickoff.Ready", then_refuse=False)
    await cancelled_while_held(faults, mm.stub.ReadyForMatch(
        pb.ReadyForMatchRequest(ticket_id=env.id("t-ann"), match_id=match_id),
        metadata=call_metadata(ta), timeout=20))

    async def told() -> None:  # (the match's own saves may still be told first)
        while list((await watch.read()).ticket.seed_window.ready) != [env.id("ann")]:
            pass

    await asyncio.wait_for(told(), 5)
    watch.cancel()
    # ann's repeat stores nothing; bob's starts the match
    await ready(mm, ta, env.id("t-ann"), match_id)
    await ready(mm, tb, env.id("t-bob"), match_id)
    await status_started(mm, tb, env.id("t-bob"))
    assert stored(app, kickoff_uuid(match_id)) == [
        (1, "Kickoff.Created"), (2, "Kickoff.Ready"), (3, "Kickoff.Ready"), (4, "Kickoff.Ended")]
    await mm.channel.close()


async def test_a_start_in_flight_writes_nothing_over_a_refused_ready_until_a_reload(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    """The window ended and the cycle's start is in flight when ann's Ready is refused and the
    reload fails too (the log cannot be read): memory, ahead of the store, is not written
    from. Before: the start stored Kickoff.Ended at version 3 over the lost Ready's 2, and
    the kickoff no longer loaded. Now the start is left to the reload, made again once the
    store answers (the rules service says it already started), and stored once."""
    matchmaker, app, faults, mm = await _started(env, seeds(1.0), store)
    rules = matchmaker.rules
    real_start = rules.start_match
    starting, let_start = asyncio.Event(), asyncio.Event()
    starts: list[str] = []

    async def held_start(game: str, match_id: str) -> None:
        starts.append(match_id)
        if len(starts) == 1:
            starting.set()
            await asyncio.wait_for(let_start.wait(), 20)
        await real_start(game, match_id)

    rules.start_match = held_start
    got = await pair(env, mm, "ann", "bob")
    (ta, a), _ = got["ann"], got["bob"]
    match_id = a.assignment.match_id
    await asyncio.wait_for(starting.wait(), 10)  # the window ended: the start is in flight
    faults.refuse("Kickoff.Ready")
    faults.reads_down = True
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ready(mm, ta, env.id("t-ann"), match_id)
        assert refused.value.code() == C.UNAVAILABLE and refused.value.details() == REFUSED
        assert matchmaker.stale
        let_start.set()
        await asyncio.sleep(1.0)  # the start's answer is in: nothing may be written from memory
        assert stored(app, kickoff_uuid(match_id)) == [(1, "Kickoff.Created")]
    finally:
        let_start.set()
        faults.reads_down = False

    async def reloaded() -> bool:
        return not matchmaker.stale

    await until(reloaded, 10)
    await status_started(mm, ta, env.id("t-ann"))
    events = stored(app, kickoff_uuid(match_id))
    assert events == [(1, "Kickoff.Created"), (2, "Kickoff.Ended")]
    kickoff = app.find_kickoff(match_id)
    assert kickoff.started and kickoff.ready == []
    assert kickoff.reason.startswith(f"match {match_id} started when its seed window ended: ")
    assert env.id("ann") in kickoff.reason and env.id("bob") in kickoff.reason
    assert starts == [match_id, match_id]
    # ann's retry is answered (the match started) and stores nothing
    again = await ready(mm, ta, env.id("t-ann"), match_id)
    assert again.match_started
    assert stored(app, kickoff_uuid(match_id)) == events
    await mm.channel.close()


# ----------------------------------------------------------------- tickets: queue, accept


async def test_a_create_cancelled_while_its_save_goes_through_is_queued(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    """Before: the ticket was stored but never remembered: no cycle saw it until a restart,
    and GetTicket said it waited (read from the store)."""
    matchmaker, app, faults, mm = await _started(env, dataclasses.replace(FAST, auto_accept=True), store)
    ann, bob = env.player(env.id("ann")), env.player(env.id("bob"))
    faults.hold("Ticket.Created", then_refuse=False)
    await cancelled_while_held(faults, mm.stub.CreateTicket(
        pb.CreateTicketRequest(ticket_id=env.id("t-ann"), game="toy", players=[env.id("ann")]),
        metadata=call_metadata(ann), timeout=20))

    async def remembered() -> bool:
        return env.id("t-ann") in matchmaker.tickets

    await until(remembered, 5)
    await mm.call("CreateTicket", bob, ticket_id=env.id("t-bob"), game="toy",
                  players=[env.id("bob")])
    a = await status_is(mm, ann, env.id("t-ann"), S.TICKET_STATUS_MATCHED)
    b = await status_is(mm, bob, env.id("t-bob"), S.TICKET_STATUS_MATCHED)
    assert a.assignment.match_id == b.assignment.match_id
    # the client's retry answers the ticket as stored; nothing is doubled
    again = await mm.call("CreateTicket", ann, ticket_id=env.id("t-ann"), game="toy",
                          players=[env.id("ann")])
    assert again.status == S.TICKET_STATUS_MATCHED
    assert [n for _, n in stored(app, ticket_uuid(env.id("t-ann")))] == [
        "Ticket.Created", "Ticket.Matched"]
    await mm.channel.close()


async def _accepted_by_ann(store: dict[str, Any], env: Env) -> tuple[  # noqa: F811
        Any, Any, Faults, Client, str, str]:
    """Ann's and bob's tickets proposed one match, ann accepted it: the matchmaker, its
    application, faults on it, a client, bob's token and the match id."""
    matchmaker, app, faults, mm = await _started(env, FAST, store)
    ann, bob = env.player(env.id("ann")), env.player(env.id("bob"))
    for name, token in (("ann", ann), ("bob", bob)):
        await mm.call("CreateTicket", token, ticket_id=env.id(f"t-{name}"), game="toy",
                      players=[env.id(name)])
    proposed = await status_is(mm, ann, env.id("t-ann"), S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    await mm.call("AcceptMatch", ann, ticket_id=env.id("t-ann"), match_id=match_id)
    return matchmaker, app, faults, mm, bob, match_id


async def test_an_accept_cancelled_while_its_save_goes_through_creates_the_match(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    """Before: the last accept was stored, but the match was never created (nor timed out:
    a proposal everyone accepted is not), and the player not held by the ticket."""
    matchmaker, app, faults, mm, bob, match_id = await _accepted_by_ann(store, env)
    faults.hold("Ticket.Accepted", then_refuse=False)
    await cancelled_while_held(faults, mm.stub.AcceptMatch(
        pb.AcceptMatchRequest(ticket_id=env.id("t-bob"), match_id=match_id),
        metadata=call_metadata(bob), timeout=20))
    done = await status_is(mm, bob, env.id("t-bob"), S.TICKET_STATUS_MATCHED)
    assert done.assignment.match_id == match_id
    again = await mm.call("AcceptMatch", bob, ticket_id=env.id("t-bob"), match_id=match_id)
    assert again.status == S.TICKET_STATUS_MATCHED
    assert [n for _, n in stored(app, ticket_uuid(env.id("t-bob")))] == [
        "Ticket.Created", "Ticket.Accepted", "Ticket.Matched"]
    assert not matchmaker.stale
    await mm.channel.close()


async def test_an_accept_the_store_refuses_is_unavailable_and_a_retry_creates_the_match(
        store: dict[str, Any], env: Env) -> None:  # noqa: F811
    matchmaker, app, faults, mm, bob, match_id = await _accepted_by_ann(store, env)
    faults.refuse("Ticket.Accepted")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await mm.call("AcceptMatch", bob, ticket_id=env.id("t-bob"), match_id=match_id)
    assert refused.value.code() == C.UNAVAILABLE and refused.value.details() == REFUSED
    assert matchmaker.tickets[env.id("t-bob")].accepted == [] and not matchmaker.stale
    assert [n for _, n in stored(app, ticket_uuid(env.id("t-bob")))] == ["Ticket.Created"]
    await mm.call("AcceptMatch", bob, ticket_id=env.id("t-bob"), match_id=match_id)
    await status_is(mm, bob, env.id("t-bob"), S.TICKET_STATUS_MATCHED)
    assert [n for _, n in stored(app, ticket_uuid(env.id("t-bob")))] == [
        "Ticket.Created", "Ticket.Accepted", "Ticket.Matched"]
    await mm.channel.close()


# ----------------------------------------------------------------- declining, on the Matchmaker


class NoRules:
    def address(self, game: str) -> str:
        return ""


def claims(player: str) -> Claims:
    return Claims(role="player", match="*", player=player, exp=2**40)


async def test_a_decline_cancelled_while_its_save_goes_through_leaves_the_party(
        store: dict[str, Any], tmp_path: Path, nats_url: str) -> None:
    """Before: the Declined event was stored, but the party's row of the grouping's columns
    still held the player who declined, and the next cycle seated them in its match."""
    settings = dataclasses.replace(make_settings(tmp_path, nats_url), **store)
    app = MatchmakingApplication(env=eventsourcing_env(settings, "matchmaking"))
    faults = Faults(app)
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    config = Config(policy=Policy(partial_after=0, backfill_after=1e9))
    mm = Matchmaker(app, NoRules(), StaticRatings(), config, catalogue)  # type: ignore[arg-type]
    try:
        await mm.recover()
        await mm.create_ticket(claims("ann"), TicketRequest("party", "toy",
                                                            players=("ann", "carl")))
        faults.hold("Ticket.Declined", then_refuse=False)
        declining = asyncio.create_task(mm.decline_invite(claims("carl"), "party"))
        try:
            assert await asyncio.to_thread(faults.holding.wait, 20)
            declining.cancel()
            await asyncio.sleep(0.1)
        finally:
            faults.go_on.set()
        with pytest.raises(asyncio.CancelledError):
            await declining
        assert [n for _, n in stored(app, ticket_uuid("party"))] == [
            "Ticket.Created", "Ticket.Declined"]
        await mm.create_ticket(claims("bob"), TicketRequest("solo", "toy", players=("bob",)))
        [group] = await mm.cycle()
        assert set(group.ticket_ids) == {"party", "solo"}
        [proposal] = mm.proposals.values()
        assert sorted(s["player"] for s in proposal.seats) == ["ann", "bob"]
        assert "carl" not in mm.invited
        # a refused decline is UNAVAILABLE and undone: the retry is stored once
        await mm.create_ticket(claims("dan"), TicketRequest("p2", "toy", players=("dan", "eve")))
        faults.refuse("Ticket.Declined")
        with pytest.raises(Unavailable):
            await mm.decline_invite(claims("eve"), "p2")
        assert mm.tickets["p2"].players == ["dan", "eve"] and not mm.stale
        await mm.decline_invite(claims("eve"), "p2")
        assert mm.tickets["p2"].players == ["dan"]
        assert [n for _, n in stored(app, ticket_uuid("p2"))] == [
            "Ticket.Created", "Ticket.Declined"]
    finally:
        await mm.drain()
        app.close()


# ----------------------------------------------------------------- answers: as stored


@pytest.mark.parametrize("refused", [False, True], ids=["stored", "refused"])
async def test_a_ticket_is_answered_as_stored_while_its_save_is_under_way(
        store: dict[str, Any], env: Env, refused: bool) -> None:  # noqa: F811
    """A match's creation changes its tickets in memory, then saves them. GetTicket (and
    WatchTicket's first message, CreateTicket's repeat) read memory without the lock: made
    while that save was under way, they answered "matched", seat token and all, before the
    store had it (or whether it would: refused, the ticket is proposed again), while the
    module promises that every change is saved before anyone is told about it. Now an answer
    about a ticket whose save is under way waits for that save's end."""
    _, app, faults, mm = await _started(env, dataclasses.replace(FAST, auto_accept=True), store)
    ann, bob = env.player(env.id("ann")), env.player(env.id("bob"))
    faults.hold("Ticket.Matched", then_refuse=refused)
    try:
        for name, token in (("ann", ann), ("bob", bob)):
            await mm.call("CreateTicket", token, ticket_id=env.id(f"t-{name}"), game="toy",
                          players=[env.id(name)])
        assert await asyncio.to_thread(faults.holding.wait, 20), "no match was created"
        calls = {
            "get": asyncio.ensure_future(mm.call("GetTicket", ann, ticket_id=env.id("t-ann"))),
            "repeat": asyncio.ensure_future(mm.call(
                "CreateTicket", ann, ticket_id=env.id("t-ann"), game="toy",
                players=[env.id("ann")])),
        }
        watch = mm.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=env.id("t-ann")),
                                    metadata=call_metadata(ann), timeout=30)
        calls["watch"] = asyncio.ensure_future(watch.read())
        await asyncio.sleep(0.5)
        early = {name: c.result() for name, c in calls.items() if c.done()}
        for name, answer in early.items():
            status = answer.ticket.status if name == "watch" else answer.status
            assert status != S.TICKET_STATUS_MATCHED, (
                f"{name} answered matched while the Matched save was held")
    finally:
        faults.go_on.set()
    for name, call in calls.items():
        answer = await asyncio.wait_for(call, 10)
        ticket = answer.ticket if name == "watch" else answer
        names = [n for _, n in stored(app, ticket_uuid(env.id("t-ann")))]
        if ticket.status == S.TICKET_STATUS_MATCHED:  # said once stored, never before
            assert "Ticket.Matched" in names, f"{name} answered matched before it was stored"
        else:
            assert ticket.status == S.TICKET_STATUS_PROPOSED, name
        if not refused:
            assert ticket.status == S.TICKET_STATUS_MATCHED, name
    watch.cancel()
    # refused: the reload proposed it again, and the next cycle matches it (stored once)
    await status_is(mm, ann, env.id("t-ann"), S.TICKET_STATUS_MATCHED)
    assert [n for _, n in stored(app, ticket_uuid(env.id("t-ann")))] == [
        "Ticket.Created", "Ticket.Matched"]
    await mm.channel.close()
