"""Loops and streams that wait with a bound in time end when they are cancelled, whenever the
cancellation comes. Python 3.11's ``asyncio.wait_for`` returned an answer that came in the
same loop turn as a cancellation of its caller and dropped the cancellation (CPython
gh-86296): the matchmaking cycle went on for ever after its stop, a match's or a
tournament's watch went on after its stream was cancelled, a round driver kept driving.

Each test provokes the race as test_store_probe.py does: it answers what the task waits on
(an event set, a view queued, a condition notified, a connection made), then cancels the
task before the task runs again, and asserts that the task ends cancelled."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform import leadership
from services.platform.running import RunningService
from services.platform.tokens import Claims, TokenIssuer
from services.rules.app import rules_application
from services.rules.dice_client import DiceClient
from services.rules.games.contract import MatchConfig
from services.rules.host import MatchHost
from services.rules.live import LiveMatch
from services.tournament import director as director_module
from services.tournament.app import TournamentApplication
from services.tournament.director import Director, Options
from tests.support import toy
from tests.unit.tournament.test_director_ended import ORG, StandInRules

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


async def settle(until: Callable[[], bool] = lambda: True, turns: int = 5) -> None:
    """Let the other tasks run until ``until()`` holds (for at most 10 s, some of the waits
    read from a thread), then ``turns`` loop turns more: each task is then at its wait."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not until():
        assert loop.time() < deadline, "the task never came to its wait"
        await asyncio.sleep(0.005)
    for _ in range(turns):
        await asyncio.sleep(0)


async def ended_cancelled(task: asyncio.Task[Any], within: float = 2.0) -> str:
    """How ``task`` ended after its cancellation: "cancelled" when it did within ``within``
    seconds; else what it did instead (it is then cancelled again, no answer racing the
    cancellation this time, so that it does not outlive the test)."""
    done, _ = await asyncio.wait({task}, timeout=within)
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=10)
        return f"went on after its cancellation (still running {within} s later)"
    if task.cancelled():
        return "cancelled"
    return f"ended without its cancellation: {task.exception() or task.result()!r}"


# ------------------------------------------------------------------ matchmaking


class NoRules:
    def address(self, game: str) -> str:
        return ""


def matchmaker(interval: float = 60.0) -> Matchmaker:
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    config = Config(interval=interval, policy=Policy(partial_after=0, backfill_after=1e9))
    return Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                      StaticRatings({}), config, catalogue)


async def test_the_matchmaking_loop_woken_as_it_is_cancelled_stops() -> None:
    """Woken (a ticket queued) in the turn of its stop: the cycle ran again, then waited its
    interval, again and again, and the service's stop waited for it for ever."""
    mm = matchmaker(interval=60.0)
    cycles: list[int] = []

    async def cycle() -> list[Any]:
        cycles.append(len(cycles))
        return []

    mm.cycle = cycle  # type: ignore[method-assign]
    task = asyncio.create_task(mm.run())
    await settle(lambda: bool(cycles))  # it waits for a wake-up, for up to its interval
    mm.wake.set()  # a wake-up ...
    task.cancel()  # ... and the stop, before the loop runs again
    assert await ended_cancelled(task) == "cancelled"
    assert cycles == [0]


async def test_a_ticket_watch_cancelled_as_a_change_comes_ends() -> None:
    """The ticket's watch (WatchTicket) is cancelled (its caller hung up) in the turn a
    change is queued for it: the watch went on waiting for the next change."""
    mm = matchmaker()
    await mm.recover()
    ann = Claims(role="player", match="*", player="ann", exp=2**40)
    await mm.create_ticket(ann, TicketRequest("t-ann", "toy", players=("ann",)))
    seen: list[dict[str, Any]] = []

    async def follow() -> None:
        async for view in mm.watch(ann, "t-ann"):
            seen.append(view)

    task = asyncio.create_task(follow())
    await settle(lambda: bool(seen) and bool(mm.watchers.get("t-ann")))
    (queue,) = mm.watchers["t-ann"]
    queue.put_nowait(mm.view(mm.tickets["t-ann"]))  # a change ...
    task.cancel()  # ... and the hang-up, before the watch runs again
    assert await ended_cancelled(task) == "cancelled"
    assert len(seen) == 1


# ------------------------------------------------------------------ rules host


@pytest.fixture
async def host() -> AsyncIterator[MatchHost]:
    issuer = TokenIssuer(b"s" * 32, external=None)
    app = rules_application("rules-toy", MEMORY)
    dice = DiceClient("127.0.0.1:9", "unused")  # never called: no match is created here
    made = MatchHost(toy.ENGINE, app, dice, issuer, Ed25519PrivateKey.generate())
    try:
        yield made
    finally:
        await made.close()
        await dice.close()


async def test_a_match_watch_cancelled_as_the_match_moves_ends(host: MatchHost) -> None:
    """A match's follower (WatchMatch, and the Play stream's follower, which the stream's
    end cancels and waits for) cancelled in the turn the match moved: it went on waiting,
    up to 5 s at a time, until the match's seal."""
    live = LiveMatch("m-1", toy.ENGINE, {"dice": {}}, MatchConfig("race", 2))
    live.status = "running"
    host.live.put(live)
    records: list[dict[str, Any]] = []

    async def follow() -> None:
        async for record in host.follow("m-1", 0):
            records.append(record)

    task = asyncio.create_task(follow())
    cond = host._cond("m-1")
    await settle(lambda: bool(cond._waiters))  # type: ignore[attr-defined]
    await host._notify("m-1")  # the match moved ...
    task.cancel()  # ... and the stream ended, before the follower runs again
    assert await ended_cancelled(task) == "cancelled"
    assert not cond.locked()


# ------------------------------------------------------------------ tournament director


@pytest.fixture
async def director() -> AsyncIterator[Director]:
    made = Director(TournamentApplication(env=MEMORY), StandInRules(), None,
                    Ed25519PrivateKey.generate(), Options(poll=60.0))
    try:
        yield made
    finally:
        await made.close()


async def _created(director: Director, tid: str) -> None:
    await director.create(ORG, tid, {"game": "g", "mode": "single",
                                     "format_json": json.dumps({"format": "swiss", "rounds": 1})})


async def test_a_tournament_watch_cancelled_as_a_save_comes_ends(
        director: Director, monkeypatch: pytest.MonkeyPatch) -> None:
    """WatchTournament (and WatchMyMatches through it) cancelled in the turn of a save: the
    watch read the tournament again and went on waiting for the next save."""
    monkeypatch.setattr(director_module, "WATCH_RECHECK", 120.0)
    await _created(director, "w")
    seen: list[Any] = []

    async def follow() -> None:
        async for t in director.watch("w"):
            seen.append(t)

    task = asyncio.create_task(follow())
    await settle(lambda: bool(seen) and "w" in director._rooms
                 and bool(director._rooms["w"].changed._waiters))  # type: ignore[attr-defined]
    room = director._rooms["w"]
    await director.notify("w")  # a save ...
    task.cancel()  # ... and the hang-up, before the watch runs again
    assert await ended_cancelled(task) == "cancelled"
    assert len(seen) == 1 and not room.changed.locked()


async def test_a_round_driver_cancelled_as_a_save_comes_stops(
        director: Director, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round driver cancelled (a ForceEnd) in the turn of a save: it drove on, one pass
    per save or ``poll`` seconds."""
    await _created(director, "r")
    passes: list[str] = []

    async def step(tournament_id: str) -> bool:
        passes.append(tournament_id)
        return False  # the round goes on: the driver waits for a save or its poll

    monkeypatch.setattr(director, "_step", step)
    director._drive("r")
    task = director._drivers["r"]
    await settle(lambda: bool(passes) and "r" in director._rooms
                 and bool(director._rooms["r"].changed._waiters))  # type: ignore[attr-defined]
    await director.notify("r")  # a save ...
    task.cancel()  # ... and the stop, before the driver runs again
    assert await ended_cancelled(task) == "cancelled"
    assert passes == ["r"]


# ------------------------------------------------------------------ platform one-shots


class Answers:
    """Stands in for what a one-shot awaits: each call waits on a future of its own
    (``pending``) until the test answers it, or for ever."""

    def __init__(self) -> None:
        self.pending: list[asyncio.Future[Any]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        return future


async def test_a_relay_lead_cancelled_as_its_connection_is_made_stops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """lead() is cancelled (the relay's loop stopped, or its event loop's teardown) in the
    turn its connection is made: it went on to ask for the lock, and the relay's loop went
    on relaying after its cancellation."""
    import psycopg

    answers = Answers()
    monkeypatch.setattr(psycopg.AsyncConnection, "connect", answers)

    class Connection:
        closed = False
        execute = answers

        async def close(self) -> None:
            self.closed = True

    lead = leadership.PostgresLead("postgresql://unused", "test", connect_timeout=30.0)
    task = asyncio.create_task(lead.lead())
    await settle(lambda: bool(answers.pending))
    answers.pending[0].set_result(Connection())  # connected ...
    task.cancel()  # ... and the stop, before lead() runs again
    assert await ended_cancelled(task, within=1.0) == "cancelled"
    assert len(answers.pending) == 1  # the lock was not asked for


async def test_a_service_stop_cancelled_as_a_closer_ends_stops() -> None:
    """RunningService.stop cancelled in the turn one of its closers ended: it went on to
    the next closer and returned as if it had not been cancelled."""
    answers = Answers()

    class Handle:
        async def stop(self, grace: float) -> None:
            return None

    service = RunningService("test", Handle(), "127.0.0.1:1",  # type: ignore[arg-type]
                             closers=[answers, answers])
    task = asyncio.create_task(service.stop(grace=30.0))
    await settle(lambda: bool(answers.pending))
    answers.pending[0].set_result(None)  # the first closer is done ...
    task.cancel()  # ... and the stop is cancelled, before it runs again
    assert await ended_cancelled(task, within=1.0) == "cancelled"
    assert len(answers.pending) == 1
