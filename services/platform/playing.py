"""Playing a seat of a match over the rules service's gRPC API, for any game.

One loop for everything that plays seats: the command line, matchmaking's bots, tests.
It knows the rules protos and no game. Per seat:

1. Learn what the seat owes and sees: from SubmitAction's own answer when it carries the
   seat's next decisions and view (rules service v2), else from ListLegalActions + GetView.
2. When the seat owes a decision (or has standing any-time options), ask ``choose`` for an
   action and submit it with a command id made of the seat and the version, and that
   version as ``expected_version``. A retry after a crash or a lost answer therefore sends
   the same command, which the rules service answers once.
3. When the seat owes nothing (or ``choose`` declines), wait on the match's watch stream,
   one stream per seat held for the whole match, until the match moves past the version
   the seat knows; then go back to 1.

Answers: ABORTED (the match moved first) refreshes and chooses again; UNAVAILABLE,
DEADLINE_EXCEEDED and a refusal over the open-stream limits (RESOURCE_EXHAUSTED "too many open
streams...") back off and resend the same command, and so does one over the call rate
("too many calls ...", after the ``retry-after-ms`` it names); any other RESOURCE_EXHAUSTED (a
message larger than the server takes) fails at once with the server's reason; FAILED_PRECONDITION on a finished
match ends the loop with the outcome; an action refused at an unchanged version raises
:class:`ActionRefused` (or goes to ``on_refused``, and ``choose`` is asked again).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.call_limits import asked_wait_ms
from services.platform.draws import SeededRandomness
from services.platform.grpc_kit import call_metadata
from services.platform.logs import get_logger
from services.platform.waiting import within

log = get_logger("playing")

RUNNING = rules_pb2.MATCH_STATUS_RUNNING
ENDED = rules_pb2.MATCH_STATUS_ENDED
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
STREAM_SLOTS = "too many open streams"
"""The words of the servers' open-stream limits (services/platform/stream_limits.py: "too
many open streams for this caller (64); close one first", "... without a token from this
address ...", "this server has too many open streams (20000); try again later"): the one
RESOURCE_EXHAUSTED that passes once streams close. Any other (a message larger than the
server takes, ...) fails the same way every time."""
CALL_RATE = "too many calls from "
"""The words of the servers' call rate limits (services/platform/call_limits.py: "too many
calls from this seat: at most 200 a second (burst 400); try again in 5 ms"): the
RESOURCE_EXHAUSTED that passes after the wait its ``retry-after-ms`` trailer names."""


def transient(err: grpc.aio.AioRpcError) -> bool:
    """Whether a failed call may succeed if sent again unchanged: the service did not answer
    (UNAVAILABLE, DEADLINE_EXCEEDED), refused a stream over its open-stream limits or a call
    over its caller's rate."""
    code = err.code()
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        details = err.details() or ""
        return STREAM_SLOTS in details or details.startswith(CALL_RATE)
    return code in TRANSIENT


def retry_after(err: grpc.aio.AioRpcError) -> float:
    """The seconds a refusal over the call rate asks to wait (its ``retry-after-ms``
    trailer, at most 10 s); 0 for any other failure."""
    if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return 0.0
    wait_ms = asked_wait_ms(err)
    return 0.0 if wait_ms is None else min(10.0, wait_ms / 1000)


def rate_wait(err: BaseException) -> float | None:
    """The seconds to wait before sending a call again that a service refused over its
    caller's call rate (:data:`CALL_RATE`: nothing was applied); None for any other failure."""
    if not isinstance(err, grpc.aio.AioRpcError) or err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED \
            or not (err.details() or "").startswith(CALL_RATE):
        return None
    return retry_after(err)


async def paced(send: Callable[[], Awaitable[Any]]) -> Any:
    """``send()``'s answer; a call refused over the caller's call rate (nothing applied) is
    sent again after the wait its refusal names (:func:`rate_wait`), any other failure
    raised as it came."""
    while True:
        try:
            return await send()
        except grpc.aio.AioRpcError as err:
            wait = rate_wait(err)
            if wait is None:
                raise
            await asyncio.sleep(wait)


REFUSED = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT,
           grpc.StatusCode.ALREADY_EXISTS)


@dataclass(frozen=True)
class SeatDecision:
    """One decision of a seat, decoded from the rules proto (actions as dicts)."""

    seat: int
    kind: str
    legal: tuple[dict[str, Any], ...]
    prompt: str = ""
    optional: bool = False
    hidden: bool = False
    default: dict[str, Any] | None = None
    """What a clock applies when the seat runs out of time (rules service v2)."""
    standing: bool = False
    """An any-time option: never owed, never clocked."""
    priority: int = 0


@dataclass(frozen=True)
class SeatEvent:
    """One match event as this seat may see it."""

    version: int
    type: str
    seat: int
    payload: dict[str, Any]
    text: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeatClock:
    seat: int
    remaining_ms: int
    running: bool
    deadline_unix_ms: int = 0


@dataclass(frozen=True)
class SeatTurn:
    """What ``choose`` gets: the seat's position at ``version``."""

    match_id: str
    seat: int
    version: int
    status: int
    view: dict[str, Any]
    decisions: tuple[SeatDecision, ...]
    """The decisions the seat owes now, highest priority first."""
    standing: tuple[SeatDecision, ...] = ()
    """Options the seat may take at any time, highest priority first."""
    events: tuple[SeatEvent, ...] = ()
    """Events received since the previous turn handed to ``choose`` (the first: all so far)."""
    clocks: tuple[SeatClock, ...] = ()
    outcome: dict[str, Any] | None = None

    @property
    def ended(self) -> bool:
        return self.status == ENDED

    @property
    def owes(self) -> bool:
        return any(d.legal for d in self.decisions)


Action = dict[str, Any]
Choose = Callable[[SeatTurn], "Action | None | Awaitable[Action | None]"]
OnEvent = Callable[[SeatEvent], None]
OnUpdate = Callable[[SeatTurn], None]
OnRefused = Callable[[SeatTurn, Action, grpc.aio.AioRpcError], None]


class ActionRefused(Exception):
    """The rules service refused an action at an unchanged version: ``choose`` chose badly."""

    def __init__(self, turn: SeatTurn, action: Action, code: grpc.StatusCode, reason: str) -> None:
        super().__init__(f"seat {turn.seat} at version {turn.version}: {code.name}: {reason}")
        self.turn, self.action, self.code, self.reason = turn, action, code, reason


# ----------------------------------------------------------------------------- decoding


def decode_decision(d: Any) -> SeatDecision:
    return SeatDecision(
        seat=d.seat, kind=d.kind, legal=tuple(json.loads(a) for a in d.legal_json),
        prompt=d.prompt, optional=d.optional, hidden=d.hidden,
        default=json.loads(d.default_json) if d.default_json else None,
        standing=d.standing, priority=d.priority)


def decode_event(e: Any) -> SeatEvent:
    return SeatEvent(e.version, e.type, e.seat, json.loads(e.payload_json or "{}"), tuple(e.text))


def decode_clock(c: Any) -> SeatClock:
    return SeatClock(c.seat, c.remaining_ms, c.running, c.deadline_unix_ms)


def _split(seat: int, decisions: Sequence[Any]) -> tuple[tuple[SeatDecision, ...], tuple[SeatDecision, ...]]:
    mine = sorted((decode_decision(d) for d in decisions if d.seat == seat),
                  key=lambda d: -d.priority)
    return (tuple(d for d in mine if not d.standing), tuple(d for d in mine if d.standing))


def command_id(prefix: str, seat: int, version: int) -> str:
    return f"{prefix}{seat}-v{version}"


# ----------------------------------------------------------------------------- following


class _Follower:
    """The seat's watch stream, held open for the match: events in order, and a wake-up
    whenever the match moves. Reopens from the last version after a transient failure."""

    def __init__(self, stub: Any, token: str, match_id: str, from_version: int,
                 on_event: OnEvent | None, stream_timeout: float) -> None:
        self.stub, self.token, self.match_id = stub, token, match_id
        self.on_event, self.stream_timeout = on_event, stream_timeout
        self.latest = from_version
        self.events: list[SeatEvent] = []
        self.done = False
        self._moved = asyncio.Condition()
        self._task = asyncio.create_task(self._run(), name=f"follow-{match_id}")

    async def _run(self) -> None:
        backoff = 0.05
        try:
            while True:
                call = self.stub.WatchMatch(
                    rules_pb2.WatchMatchRequest(match_id=self.match_id, from_version=self.latest),
                    metadata=call_metadata(self.token), timeout=self.stream_timeout)
                try:
                    async for message in call:
                        await self._record(decode_event(message.event))
                        backoff = 0.05
                    return  # the match is sealed: the stream ended
                except grpc.aio.AioRpcError as err:
                    if not transient(err) and err.code() != grpc.StatusCode.CANCELLED:
                        log.info("watch stopped", match_id=self.match_id, code=err.code().name,
                                 reason=err.details())
                        return
                    await asyncio.sleep(retry_after(err))
                finally:
                    call.cancel()
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
        finally:
            self.done = True
            async with self._moved:
                self._moved.notify_all()

    async def _record(self, event: SeatEvent) -> None:
        if event.version <= self.latest:
            return
        self.latest = event.version
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        async with self._moved:
            self._moved.notify_all()

    async def past(self, version: int, timeout: float) -> None:
        """Return once the match is past ``version``, the stream ended, or ``timeout`` passed."""
        async with self._moved:
            try:
                await within(
                    self._moved.wait_for(lambda: self.latest > version or self.done), timeout)
            except TimeoutError:
                pass

    def take(self, after: int) -> tuple[SeatEvent, ...]:
        """The events after version ``after``; older ones are dropped (never asked again)."""
        self.events = [e for e in self.events if e.version > after]
        return tuple(self.events)

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


# ----------------------------------------------------------------------------- the loop


@dataclass
class _Seat:
    stub: Any
    token: str
    match_id: str
    seat: int
    call_timeout: float
    retry_for: float
    wait: float
    follower: _Follower | None = None
    seen: int = 0
    """The last event version handed to ``choose`` in a turn."""

    async def call(self, name: str, request: Any) -> Any:
        """One unary call; transient failures (:func:`transient`) are retried (the same
        request) for ``retry_for`` s; any other is raised at once, with the server's reason."""
        give_up = time.monotonic() + self.retry_for
        backoff = 0.05
        while True:
            try:
                return await getattr(self.stub, name)(
                    request, metadata=call_metadata(self.token), timeout=self.call_timeout)
            except grpc.aio.AioRpcError as err:
                wait = retry_after(err)
                if wait:  # over the call rate: the server says when, no backoff to grow
                    if time.monotonic() + wait > give_up:
                        raise
                    await asyncio.sleep(wait)
                    continue
                if not transient(err) or time.monotonic() + backoff > give_up:
                    raise
                log.info("rules call failed, retrying", call=name, match_id=self.match_id,
                         seat=self.seat, code=err.code().name)
            await asyncio.sleep(backoff)
            backoff = min(2.0, backoff * 2)

    async def refresh(self) -> SeatTurn:
        """The seat's decisions and view from ListLegalActions + GetView, at one version."""
        for _ in range(3):
            legal = await self.call("ListLegalActions",
                                    rules_pb2.ListLegalActionsRequest(match_id=self.match_id))
            view = await self.call("GetView", rules_pb2.GetViewRequest(match_id=self.match_id))
            if view.version == legal.version or view.status == ENDED:
                break
        decisions, standing = _split(self.seat, legal.decisions)
        return self.turn(view.version, view.status, view.view_json, decisions, standing,
                         view.clocks, view.outcome_json)

    def turn(self, version: int, status: int, view_json: str, decisions: tuple[SeatDecision, ...],
             standing: tuple[SeatDecision, ...], clocks: Sequence[Any], outcome_json: str) -> SeatTurn:
        return SeatTurn(
            self.match_id, self.seat, version, status, json.loads(view_json or "{}"),
            decisions, standing, self.follower.take(self.seen) if self.follower else (),
            tuple(decode_clock(c) for c in clocks),
            json.loads(outcome_json) if outcome_json else None)

    def answered(self, answer: Any) -> SeatTurn | None:
        """The turn SubmitAction's answer describes; None when it carries no next position
        (a rules service before v2) and the match still runs. The turn is at the answer's
        ``position_version``: later than its ``version`` when a repeated command (a retry
        after a lost answer) is answered after the match moved on (0 from a service before
        it: ``version`` then)."""
        if answer.status != ENDED and not answer.view_json and not answer.decisions:
            return None
        decisions, standing = _split(self.seat, answer.decisions)
        return self.turn(answer.position_version or answer.version, answer.status, answer.view_json, decisions, standing,
                         answer.clocks, answer.outcome_json)

    async def submit(self, turn: SeatTurn, action: Action, prefix: str) -> SeatTurn:
        """Submit ``action``; the seat's next position."""
        request = rules_pb2.SubmitActionRequest(
            match_id=self.match_id, command_id=command_id(prefix, self.seat, turn.version),
            action_json=json.dumps(action), expected_version=turn.version)
        answer = await self.call("SubmitAction", request)
        return self.answered(answer) or await self.refresh()

    async def wait_past(self, version: int) -> None:
        if self.follower is None or self.follower.done:
            await asyncio.sleep(min(self.wait, 1.0))  # no stream (it failed): look again soon
        else:
            await self.follower.past(version, self.wait)


async def play_seat(
    stub: Any,
    token: str,
    match_id: str,
    choose: Choose,
    *,
    seat: int | None = None,
    on_event: OnEvent | None = None,
    on_update: OnUpdate | None = None,
    on_refused: OnRefused | None = None,
    call_timeout: float = 5.0,
    retry_for: float = 60.0,
    wait: float = 30.0,
    from_version: int | None = None,
    command_prefix: str = "seat",
) -> dict[str, Any] | None:
    """Play one seat until its match ends; returns the outcome (None if it ended without one).

    ``stub`` is a RulesService stub and ``token`` the seat's token. ``choose(turn)`` (plain or
    async) returns the action to take, or None to wait for the match to move; it is called
    whenever the seat owes a decision or has standing options. ``seat`` defaults to the one
    the rules service names in the seat's view. ``on_event`` gets every event after
    ``from_version`` in order (default: all of them when ``on_event`` is given, else only
    those after the seat's first position); ``on_update`` every new position of the seat.
    """
    player = _Seat(stub, token, match_id, -1 if seat is None else seat, call_timeout,
                   retry_for, wait)
    if seat is None:
        player.seat = (await player.call("GetView", rules_pb2.GetViewRequest(match_id=match_id))).viewer
    first = await player.refresh()
    start = from_version if from_version is not None else (0 if on_event else first.version)
    player.seen = start
    player.follower = _Follower(stub, token, match_id, start, on_event, max(wait * 4, 60.0))
    try:
        last = await _loop(player, first, choose, on_update, on_refused, command_prefix)
        if on_event is not None:  # hand on the match's last events before returning
            await player.follower.past(last.version - 1, call_timeout)
        return last.outcome
    finally:
        await player.follower.close()


async def _loop(player: _Seat, turn: SeatTurn, choose: Choose, on_update: OnUpdate | None,
                on_refused: OnRefused | None, prefix: str) -> SeatTurn:
    while True:
        if on_update is not None:
            on_update(turn)
        if turn.ended:
            return turn
        action = None
        if turn.status == RUNNING and (turn.owes or turn.standing):
            player.seen = max(player.seen, max((e.version for e in turn.events), default=0))
            chosen = choose(turn)
            action = await chosen if inspect.isawaitable(chosen) else chosen
        if action is None:
            await player.wait_past(turn.version)
            turn = await player.refresh()
            continue
        try:
            turn = await player.submit(turn, action, prefix)
        except grpc.aio.AioRpcError as err:
            turn = await _after_refusal(player, turn, action, err, on_refused)


async def _after_refusal(player: _Seat, turn: SeatTurn, action: Action,
                         err: grpc.aio.AioRpcError, on_refused: OnRefused | None) -> SeatTurn:
    """The position after a refused action: ABORTED and races refresh; a real refusal of
    the chosen action at an unchanged version is the chooser's, and is raised."""
    if err.code() not in (grpc.StatusCode.ABORTED, *REFUSED):
        raise err
    fresh = await player.refresh()
    if fresh.ended or fresh.version != turn.version or err.code() == grpc.StatusCode.ABORTED:
        return fresh
    if on_refused is None:
        raise ActionRefused(turn, action, err.code(), err.details() or "") from err
    on_refused(turn, action, err)
    return fresh


async def play_seats(
    stub: Any,
    match_id: str,
    tokens: Mapping[int, str],
    choose: Choose,
    **options: Any,
) -> dict[str, Any] | None:
    """Play several seats of one match in this process (each its own loop and stream);
    returns the outcome. The first seat to fail cancels the others."""
    tasks = [asyncio.create_task(play_seat(stub, token, match_id, choose, seat=seat, **options),
                                 name=f"seat-{match_id}-{seat}")
             for seat, token in sorted(tokens.items())]
    try:
        outcomes = await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return next((o for o in outcomes if o is not None), None)


def random_choice(seed: str) -> Choose:
    """A uniformly random legal answer to the seat's first owed decision, reproducible from
    ``seed``, the seat and the version (the same position always gets the same answer, so a
    bot that replays a move after a restart sends the same action)."""

    def choose(turn: SeatTurn) -> dict[str, Any] | None:
        owed = [d for d in turn.decisions if d.legal]
        if not owed:
            return None
        rng = SeededRandomness(f"{seed}:{turn.seat}:{turn.version}")
        return owed[0].legal[rng.randbelow(len(owed[0].legal))]

    return choose


async def play_table(
    stub: Any,
    match_id: str,
    tokens: Mapping[int, str],
    choose: Choose,
    *,
    on_answer: Callable[[Any], None] | None = None,
    call_timeout: float = 5.0,
    retry_for: float = 60.0,
    command_prefix: str = "seat",
    max_actions: int = 100_000,
) -> dict[str, Any] | None:
    """Play every seat in ``tokens`` from one loop, one action at a time, the lowest seat
    that owes a decision first; returns the outcome.

    Unlike :func:`play_seats`, the order of actions never depends on timing, so the same
    choices on the same dev seed give the same match (bots-only play from the command
    line, reproducible runs). ``on_answer`` gets each SubmitAction answer.
    """
    seats = {seat: _Seat(stub, token, match_id, seat, call_timeout, retry_for, 1.0)
             for seat, token in tokens.items()}
    # Each action takes a GetView that says who owes (asked as the seat likeliest to act
    # next: then its view is the position), the seat's legal actions when they are not known,
    # and the SubmitAction, whose answer is the seat's next position: two to three calls an
    # action, not four (a bots-only table runs under its caller's call rate).
    probe = seats[min(seats)]
    known: SeatTurn | None = None
    """The last seat to act's position after it, from its SubmitAction answer."""
    for _ in range(max_actions):
        view = await probe.call("GetView", rules_pb2.GetViewRequest(match_id=match_id))
        if view.status == ENDED:
            return json.loads(view.outcome_json) if view.outcome_json else None
        owing = sorted({p.seat for p in view.pending if p.seat in seats})
        if not owing:
            await asyncio.sleep(0.05)  # waiting on a seat this loop does not play
            continue
        player = seats[owing[0]]
        if known is not None and known.seat == player.seat and known.version == view.version:
            turn = known
        elif player is probe:
            legal = await player.call("ListLegalActions",
                                      rules_pb2.ListLegalActionsRequest(match_id=match_id))
            if legal.version != view.version:
                continue
            turn = player.turn(view.version, view.status, view.view_json,
                               *_split(player.seat, legal.decisions), view.clocks,
                               view.outcome_json)
        else:
            turn = await player.refresh()
        known = None
        if not turn.owes or turn.version != view.version:
            continue
        chosen = choose(turn)
        action = await chosen if inspect.isawaitable(chosen) else chosen
        if action is None:
            await asyncio.sleep(0.05)
            continue
        answer = await player.call("SubmitAction", rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id=command_id(command_prefix, player.seat, turn.version),
            action_json=json.dumps(action), expected_version=turn.version))
        known = player.answered(answer)
        if known is not None and known.owes:  # it may act again, unless a lower seat owes
            probe = seats[min(seats)]
        else:  # the next seat that owed, else the lowest
            probe = seats[next((s for s in owing if s != player.seat), min(seats))]
        if on_answer is not None:
            on_answer(answer)
    raise RuntimeError(f"match {match_id} did not end within {max_actions} actions")
