"""Ladder matches wait for their seats' client seeds, over real gRPC, NATS and a real store.

Before: matchmaking created its matches started (no client seeds), so ladder players had to
trust the server's seed. Now (NEON_MATCHMAKING_CLIENT_SEEDS, on by default) a match is
created waiting for client seeds: each seat adds one on the rules service with its own seat
token and calls ReadyForMatch; matchmaking starts the match (StartMatch, its service token)
when every human seat is ready, or when the seed window ends (a seat that added none plays
with the others' seeds). The window and the start are stored (Kickoff): a restart in the
window still starts the match, once. Exports show the client seeds in MatchStarted and verify.

Game: the toy engine ("toy", mode "race", exactly 2 seats); auto-accept, so a queued pair is
matched without AcceptMatch.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
from typing import Any

import grpc
import pytest

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.rules.v1 import rules_pb2
from services.matchmaking.domain import Kickoff, kickoff_uuid
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Config
from services.matchmaking.ratings import StaticRatings
from services.platform.grpc_kit import call_metadata
from services.rules.verify import verify_export
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    Client,
    Env,
    S,
    env,
    status_is,
    until,
)
from tests.support import toy
from tests.support.client import RulesClient, play_one, random_choose

C = grpc.StatusCode
SEEDS = Config(interval=0.05, ticket_ttl=60, accept_timeout=5, auto_accept=True,
               policy=Policy(partial_after=0, backfill_after=3600), client_seeds=True,
               seed_window=30.0)


def seeds(window: float) -> Config:
    return dataclasses.replace(SEEDS, seed_window=window)


async def pair(e: Env, mm: Client, *names: str) -> dict[str, tuple[str, Any]]:
    """Queue each player alone; their tokens and matched tickets, by name."""
    tokens = {n: e.player(e.id(n)) for n in names}
    for n in names:
        await mm.call("CreateTicket", tokens[n], ticket_id=e.id(f"t-{n}"), game="toy",
                      players=[e.id(n)])
    return {n: (tokens[n], await status_is(mm, tokens[n], e.id(f"t-{n}"),
                                           S.TICKET_STATUS_MATCHED)) for n in names}


def seat_of(ticket: Any, player: str) -> tuple[int, str]:
    (seat,) = [s for s in ticket.assignment.seats if s.player == player]
    return seat.seat, seat.token


async def add_seed(rules: RulesClient, ticket: Any, player: str, seed: str) -> int:
    _, token = seat_of(ticket, player)
    reply = await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id=ticket.assignment.match_id, seed=seed), token)
    return int(reply.seats_with_seeds)


async def play_out(rules: RulesClient, tickets: list[Any], players: list[str]) -> None:
    match_id = tickets[0].assignment.match_id
    outcomes = await asyncio.wait_for(asyncio.gather(*(
        play_one(rules, match_id, seat_of(t, p)[1], random_choose(p))
        for t, p in zip(tickets, players))), 30)
    assert all(o is not None for o in outcomes)


def records_of(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


async def exported(e: Env, rules: RulesClient, match_id: str) -> list[dict[str, Any]]:
    """The match's export (an organiser's), verified."""
    data = (await rules.export(e.backend.organiser_token(), match_id)).export_jsonl
    report = verify_export(data, engine=toy.ENGINE)
    assert report.ok, report.failure
    return records_of(data)


def kickoff_events(svc: Any, match_id: str) -> list[str]:
    app = svc.extra["app"]
    return [type(e).__qualname__ for e in app.events.get(kickoff_uuid(match_id))]


async def test_both_players_add_seeds_the_match_starts_at_once_and_its_export_verifies(
    env: Env,  # noqa: F811
) -> None:
    svc = await env.start(SEEDS)
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    got = await pair(env, mm, "ann", "bob")
    (ta, a), (tb, b) = got["ann"], got["bob"]
    match_id = a.assignment.match_id
    # matched, not started: the window's deadline, who it waits for, and the match waits
    assert not a.match_started and a.HasField("seed_window")
    w = a.seed_window
    assert not w.ended and not w.started and list(w.ready) == []
    assert sorted(w.waiting_for) == sorted([ann, bob])
    assert 25 < w.seconds_left <= 30 and abs(w.deadline - time.time() - w.seconds_left) < 2
    rules = RulesClient(a.assignment.rules_address)
    assert (await rules.view(match_id)).status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS
    watch = mm.watch(ta, env.id("t-ann"))
    t0 = time.monotonic()
    assert await add_seed(rules, a, ann, "ann-seed-" + "a" * 16) == 1
    first = await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    assert not first.match_started and list(first.seed_window.ready) == [ann]
    assert list(first.seed_window.waiting_for) == [bob]
    # a repeat answers the same and stores nothing
    version = svc.extra["app"].repository.get(kickoff_uuid(match_id)).version
    again = await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    assert list(again.seed_window.ready) == [ann] and not again.match_started
    assert svc.extra["app"].repository.get(kickoff_uuid(match_id)).version == version
    assert (await rules.view(match_id)).status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS
    assert await add_seed(rules, b, bob, "bob-seed-" + "b" * 16) == 2
    last = await mm.call("ReadyForMatch", tb, ticket_id=env.id("t-bob"), match_id=match_id)
    assert last.match_started and last.seed_window.started and last.seed_window.ended
    assert last.seed_window.reason == f"match {match_id} started: every seat is ready"
    assert time.monotonic() - t0 < 5, "started when both were ready, not at the deadline"
    assert (await rules.view(match_id)).status == rules_pb2.MATCH_STATUS_RUNNING
    # ann's watch went on past "matched" and ended once the match started
    seen = [m.ticket async for m in watch]
    assert all(t.status == S.TICKET_STATUS_MATCHED for t in seen)
    assert [list(t.seed_window.ready) for t in seen][:2] == [[], [ann]]
    assert seen[-1].match_started and not any(t.match_started for t in seen[:-1])
    # repeated once started: answered as it is; GetTicket (read from the store) agrees
    after = await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    assert after.match_started and after.seed_window.reason == last.seed_window.reason
    assert (await mm.call("GetTicket", tb, ticket_id=env.id("t-bob"))).match_started
    assert kickoff_events(svc, match_id) == ["Kickoff.Created", "Kickoff.Ready",
                                             "Kickoff.Ready", "Kickoff.Ended"]
    await play_out(rules, [a, b], [ann, bob])
    records = await exported(env, rules, match_id)
    created, started = records[0], records[1]
    assert created["type"] == "MatchCreated" and created["await_client_seeds"] is True
    assert started["type"] == "MatchStarted"
    assert started["client_seeds"] == sorted([[seat_of(a, ann)[0], "ann-seed-" + "a" * 16],
                                              [seat_of(b, bob)[0], "bob-seed-" + "b" * 16]])
    await rules.close()
    await mm.channel.close()


async def test_a_player_who_adds_no_seed_is_started_at_the_deadline_with_one_seed(
    env: Env,  # noqa: F811
) -> None:
    svc = await env.start(seeds(1.5))
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    got = await pair(env, mm, "ann", "bob")
    (ta, a), (tb, b) = got["ann"], got["bob"]
    match_id = a.assignment.match_id
    rules = RulesClient(a.assignment.rules_address)
    await add_seed(rules, a, ann, "only-ann")
    ready = await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    assert not ready.match_started and list(ready.seed_window.waiting_for) == [bob]

    async def started() -> bool:
        t = await mm.call("GetTicket", tb, ticket_id=env.id("t-bob"))
        return bool(t.match_started)

    await until(started, timeout=10)
    bobs = await mm.call("GetTicket", tb, ticket_id=env.id("t-bob"))
    assert time.time() >= bobs.seed_window.deadline - 0.2
    reason = bobs.seed_window.reason
    assert reason.startswith(f"match {match_id} started when its seed window ended: {bob} did "
                             "not say ready"), reason
    assert bobs.seed_window.started and list(bobs.seed_window.waiting_for) == [bob]
    # too late now: the rules service takes no more seeds, and the export holds ann's only
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await add_seed(rules, b, bob, "late")
    assert info.value.code() == C.FAILED_PRECONDITION
    await play_out(rules, [a, b], [ann, bob])
    records = await exported(env, rules, match_id)
    assert records[1]["client_seeds"] == [[seat_of(a, ann)[0], "only-ann"]]
    assert kickoff_events(svc, match_id).count("Kickoff.Ended") == 1
    await rules.close()
    await mm.channel.close()


async def test_ready_for_match_refusals_say_why_and_store_nothing(env: Env) -> None:  # noqa: F811
    svc = await env.start(SEEDS)
    mm = Client(svc.address)
    got = await pair(env, mm, "ann", "bob")
    more = await pair(env, mm, "cy", "dee")
    (ta, a), (tc, c) = got["ann"], more["cy"]
    mine, theirs = a.assignment.match_id, c.assignment.match_id
    assert mine != theirs
    seat = a.assignment.seats[0].token or a.assignment.seats[1].token
    other_organiser = env.backend.issuer.issue("organiser", "*", player="olga", ttl=600)
    waiting = env.id("t-eve")
    te = env.player(env.id("eve"))
    await mm.call("CreateTicket", te, ticket_id=waiting, game="toy", players=[env.id("eve")],
                  rating_window=0.5, min_seats=2)
    ann_ticket = env.id("t-ann")
    cases = [
        (None, dict(ticket_id=ann_ticket, match_id=mine), C.UNAUTHENTICATED, "token"),
        ("garbage", dict(ticket_id=ann_ticket, match_id=mine), C.UNAUTHENTICATED, ""),
        (seat, dict(ticket_id=ann_ticket, match_id=mine), C.PERMISSION_DENIED, "seat"),
        # a player of another match: ann's ticket is not theirs, whichever match they name
        (tc, dict(ticket_id=ann_ticket, match_id=mine), C.PERMISSION_DENIED, "other players"),
        (tc, dict(ticket_id=ann_ticket, match_id=theirs), C.PERMISSION_DENIED, "other players"),
        # their own ticket, someone else's match
        (tc, dict(ticket_id=env.id("t-cy"), match_id=mine), C.NOT_FOUND, f"no match {mine!r}"),
        (ta, dict(ticket_id=env.id("t-nobody"), match_id=mine), C.NOT_FOUND, "no ticket"),
        (other_organiser, dict(ticket_id=ann_ticket, match_id=mine), C.PERMISSION_DENIED,
         "not queued by this organiser token"),
        (ta, dict(ticket_id=ann_ticket, match_id=""), C.INVALID_ARGUMENT, "match_id"),
        (ta, dict(ticket_id="", match_id=mine), C.INVALID_ARGUMENT, "ticket_id"),
        (te, dict(ticket_id=waiting, match_id=mine), C.FAILED_PRECONDITION, "not matched"),
    ]
    for token, kw, code, words in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await mm.call("ReadyForMatch", token, **kw)
        assert info.value.code() == code, (kw, info.value.details())
        assert words in (info.value.details() or ""), (kw, info.value.details())
    # nothing was stored: both matches still wait for every seat
    for match_id in (mine, theirs):
        assert kickoff_events(svc, match_id) == ["Kickoff.Created"]
    assert not (await mm.call("GetTicket", ta, ticket_id=ann_ticket)).seed_window.ready
    await mm.channel.close()


async def test_a_restart_in_the_window_still_starts_the_match_once(env: Env) -> None:  # noqa: F811
    svc = await env.start(seeds(4.0))
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    got = await pair(env, mm, "ann", "bob")
    (ta, a), (tb, b) = got["ann"], got["bob"]
    match_id = a.assignment.match_id
    rules = RulesClient(a.assignment.rules_address)
    await add_seed(rules, a, ann, "ann-before-restart")
    await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    await svc.stop(0.5)
    env.running.remove(svc)
    await mm.channel.close()

    svc = await env.start(seeds(4.0))
    mm = Client(svc.address)
    restored = svc.extra["matchmaker"]
    assert set(restored.kickoffs) == {match_id}
    assert restored.kickoffs[match_id].ready == [ann]
    seen = await mm.call("GetTicket", tb, ticket_id=env.id("t-bob"))
    assert not seen.match_started and list(seen.seed_window.ready) == [ann]
    # bob does nothing: the match starts at the deadline set before the restart
    await status_started(mm, tb, env.id("t-bob"))
    assert time.time() >= seen.seed_window.deadline - 0.2
    assert not restored.kickoffs
    assert kickoff_events(svc, match_id) == ["Kickoff.Created", "Kickoff.Ready",
                                             "Kickoff.Ended"]
    await play_out(rules, [a, b], [ann, bob])
    records = await exported(env, rules, match_id)
    assert [r["type"] for r in records].count("MatchStarted") == 1
    assert records[1]["client_seeds"] == [[seat_of(a, ann)[0], "ann-before-restart"]]
    await rules.close()
    await mm.channel.close()


async def test_the_start_is_shown_once_stored(env: Env) -> None:  # noqa: F811
    """The window ends (StartMatch done) and its end is being saved: until the store has
    Kickoff.Ended, GetTicket shows the match waiting, not started; once saved, started, and
    the matchmaker holds the kickoff no more. Before, an answer during the save said
    "started" ahead of the store (a failed save takes it back), and the restart test, which
    asks for the kickoff gone once the ticket says started, failed on a loaded machine."""
    svc = await env.start(seeds(0.3))
    matchmaker = svc.extra["matchmaker"]
    saving, go_on = hold_the_end_save(matchmaker)
    mm = Client(svc.address)
    got = await pair(env, mm, "ann", "bob")
    (ta, a) = got["ann"]
    match_id = a.assignment.match_id
    try:
        assert await asyncio.to_thread(saving.wait, 20), "the window's end was never saved"
        during = await mm.call("GetTicket", ta, ticket_id=env.id("t-ann"))
        assert not during.match_started
        assert not during.seed_window.ended and not during.seed_window.started
        assert during.seed_window.reason == ""
        assert match_id in matchmaker.kickoffs
        assert kickoff_events(svc, match_id) == ["Kickoff.Created"]
    finally:
        go_on.set()
    await status_started(mm, ta, env.id("t-ann"))
    assert match_id not in matchmaker.kickoffs
    assert kickoff_events(svc, match_id) == ["Kickoff.Created", "Kickoff.Ended"]
    after = await mm.call("GetTicket", ta, ticket_id=env.id("t-ann"))
    assert after.seed_window.ended and after.seed_window.started
    assert after.seed_window.reason.startswith(f"match {match_id} started when its seed window")
    await mm.channel.close()


async def test_a_ready_caller_that_gives_up_while_the_start_is_saved(env: Env) -> None:  # noqa: F811
    """The last ReadyForMatch starts the match and its caller hangs up while the
    window's end is being saved: the start goes on to its end, stored once. Before, the
    call's cancellation cut the save's wait: the kickoff, ended in memory, stayed among the
    waiting ones (shown waiting), and the next cycle started it again and stored a second
    Kickoff.Ended (the start told to the tickets' watchers twice)."""
    svc = await env.start(seeds(30.0))
    matchmaker = svc.extra["matchmaker"]
    mm = Client(svc.address)
    ann, bob = env.id("ann"), env.id("bob")
    got = await pair(env, mm, "ann", "bob")
    (ta, a), (tb, b) = got["ann"], got["bob"]
    match_id = a.assignment.match_id
    rules = RulesClient(a.assignment.rules_address)
    await add_seed(rules, a, ann, "ann-seed-" + "a" * 16)
    await add_seed(rules, b, bob, "bob-seed-" + "b" * 16)
    await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"), match_id=match_id)
    saving, go_on = hold_the_end_save(matchmaker)
    try:
        call = mm.stub.ReadyForMatch(
            pb.ReadyForMatchRequest(ticket_id=env.id("t-bob"), match_id=match_id),
            metadata=call_metadata(tb), timeout=20)
        assert await asyncio.to_thread(saving.wait, 20), "the window's end was never saved"
        call.cancel()  # bob hangs up while the start is being saved
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.sleep(0.5)  # ten cycles: none may start the match again meanwhile
    finally:
        go_on.set()
    await status_started(mm, tb, env.id("t-bob"))

    async def held_no_more() -> bool:
        return match_id not in matchmaker.kickoffs

    await until(held_no_more, 10)
    await asyncio.sleep(0.5)  # ten more cycles
    assert kickoff_events(svc, match_id) == ["Kickoff.Created", "Kickoff.Ready",
                                             "Kickoff.Ready", "Kickoff.Ended"]
    seen = await mm.call("GetTicket", ta, ticket_id=env.id("t-ann"))
    assert seen.seed_window.started and seen.seed_window.ended
    assert seen.seed_window.reason == f"match {match_id} started: every seat is ready"
    await rules.close()
    await mm.channel.close()


def hold_the_end_save(matchmaker: Any) -> tuple[threading.Event, threading.Event]:
    """Hold the matchmaker's save of an ended Kickoff: ``saving`` is set once it has begun,
    and it goes on once the test sets ``go_on`` (at most 20 s)."""
    real_save = matchmaker.app.save
    saving, go_on = threading.Event(), threading.Event()

    def held_save(*objs: Any) -> Any:
        if any(isinstance(o, Kickoff) and o.ended for o in objs):
            saving.set()
            assert go_on.wait(20), "the test never let the save go on"
        return real_save(*objs)

    matchmaker.app.save = held_save
    return saving, go_on


async def status_started(mm: Client, token: str, ticket_id: str) -> Any:
    async def started() -> bool:
        return bool((await mm.call("GetTicket", token, ticket_id=ticket_id)).match_started)

    await until(started, timeout=15)


async def test_a_start_that_fails_is_tried_again_and_one_made_elsewhere_counts(
    env: Env,  # noqa: F811
) -> None:
    """StartMatch fails twice (UNAVAILABLE, as from a rules service restarting): matchmaking
    tries again and the match starts. A match already started on the rules service (a start
    made before a crash that was not stored yet) is answered "already started": stored as
    started, once."""
    svc = await env.start(seeds(0.3))
    matchmaker = svc.extra["matchmaker"]
    real = matchmaker.rules.start_match
    calls: list[str] = []

    async def flaky(game: str, match_id: str) -> None:
        calls.append(match_id)
        if len(calls) <= 2:
            raise grpc.aio.AioRpcError(C.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                       details="rules service restarting")
        await real(game, match_id)

    matchmaker.rules.start_match = flaky
    mm = Client(svc.address)
    got = await pair(env, mm, "ann", "bob")
    (ta, a) = got["ann"]
    match_id = a.assignment.match_id
    await status_started(mm, ta, env.id("t-ann"))
    assert calls == [match_id] * 3
    rules = RulesClient(a.assignment.rules_address)
    assert (await rules.view(match_id)).status == rules_pb2.MATCH_STATUS_RUNNING
    assert kickoff_events(svc, match_id).count("Kickoff.Ended") == 1

    # started behind matchmaking's back: its own StartMatch is "already started", which is fine
    matchmaker.rules.start_match = real
    more = await pair(env, mm, "cy", "dee")
    (tc, c) = more["cy"]
    other = c.assignment.match_id
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id=other),
                     env.backend.organiser_token())
    await status_started(mm, tc, env.id("t-cy"))
    assert (await mm.call("GetTicket", tc, ticket_id=env.id("t-cy"))).seed_window.started
    assert kickoff_events(svc, other).count("Kickoff.Ended") == 1
    await rules.close()
    await mm.channel.close()


async def test_a_bot_seat_needs_no_seed(env: Env) -> None:  # noqa: F811
    config = dataclasses.replace(SEEDS, policy=Policy(backfill_after=0.3, partial_after=0))
    svc = await env.start(config, StaticRatings())
    mm = Client(svc.address)
    ann = env.id("ann")
    ta = env.player(ann)
    await mm.call("CreateTicket", ta, ticket_id=env.id("t-ann"), game="toy", players=[ann],
                  allow_bots=True)
    a = await status_is(mm, ta, env.id("t-ann"), S.TICKET_STATUS_MATCHED)
    assert any(s.bot for s in a.assignment.seats)
    assert list(a.seed_window.waiting_for) == [ann] and not a.match_started
    # ann adds no seed either, but says ready: nobody else to wait for
    ready = await mm.call("ReadyForMatch", ta, ticket_id=env.id("t-ann"),
                          match_id=a.assignment.match_id)
    assert ready.match_started and "every seat is ready" in ready.seed_window.reason
    rules = RulesClient(a.assignment.rules_address)
    outcome = await asyncio.wait_for(play_one(rules, a.assignment.match_id,
                                              seat_of(a, ann)[1], random_choose(ann)), 20)
    assert outcome is not None
    records = await exported(env, rules, a.assignment.match_id)
    assert records[1]["client_seeds"] == []
    await rules.close()
    await mm.channel.close()


async def test_the_cli_flow_adds_a_seed_per_seat_and_says_ready(env: Env) -> None:  # noqa: F811
    """What `neon queue` and `neon simulate` do once matched (services/cli/mm_commands.py):
    wait_for_match, then seed_and_ready (a random client seed with the seat's own token, then
    ReadyForMatch). Both players do: the match starts at once, with both seeds."""
    from services.cli.mm_commands import MatchmakingClient, seed_and_ready, wait_for_match

    svc = await env.start(SEEDS)
    mm = MatchmakingClient(svc.address)
    names = [env.id("ann"), env.id("bob")]
    tokens = {n: env.player(n) for n in names}
    for n in names:
        await mm.call("CreateTicket", tokens[n], ticket_id=f"{n}-t", game="toy", players=[n])

    async def yes(_: Any) -> bool:
        return True

    matched = await asyncio.gather(*(wait_for_match(mm, tokens[n], f"{n}-t", n, yes, 20)
                                     for n in names))
    assert not any(t.match_started for t in matched)
    t0 = time.monotonic()
    rules = RulesClient(matched[0].assignment.rules_address)
    answers = [await seed_and_ready(mm, tokens[n], t, n, rules) for n, t in zip(names, matched)]
    assert answers[-1].match_started and time.monotonic() - t0 < 5
    # a second time: nothing to do (the match started), the ticket as it is
    again = await seed_and_ready(mm, tokens[names[0]], answers[-1], names[0], rules)
    assert again is answers[-1]
    await play_out(rules, matched, names)
    records = await exported(env, rules, matched[0].assignment.match_id)
    seeds_added = records[1]["client_seeds"]
    assert sorted(seat for seat, _ in seeds_added) == [0, 1]
    assert all(len(seed) == 64 for _, seed in seeds_added)
    await rules.close()
    await mm.close()
