"""The one "play a seat" loop against a real rules service (toy engine, real gRPC and store).

Hidden Race has both seats pick at the same version each round, so two seats played at
once also run the loop through the ABORTED answers of that race.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.platform.playing import ActionRefused, SeatEvent, SeatTurn, play_seat, play_seats
from tests.support.client import RulesClient, play_match, random_choose

Hook = Callable[..., Awaitable[Any]]


class Proxy:
    """A RulesService stub that forwards to the real one, logs the unary calls, and lets a
    test replace one call with a hook ``(real, request, **kw)``."""

    def __init__(self, stub: Any, **hooks: Hook) -> None:
        self.stub, self.hooks = stub, hooks
        self.calls: list[str] = []
        """Names of the calls made; a refused call is logged as "<name>!"."""
        self.commands: list[str] = []

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.stub, name)
        if name == "WatchMatch":
            return real

        async def call(request: Any, **kw: Any) -> Any:
            self.calls.append(name)
            if name == "SubmitAction":
                self.commands.append(request.command_id)
            hook = self.hooks.get(name)
            try:
                return await (hook(real, request, **kw) if hook else real(request, **kw))
            except grpc.aio.AioRpcError:
                self.calls[-1] += "!"
                raise

        return call


async def new_match(backend: Backend, client: RulesClient) -> tuple[str, dict[int, str]]:
    match_id = f"play-{uuid.uuid4().hex[:10]}"
    created = await client.create(backend.organiser_token(), match_id=match_id, mode="race",
                                  seats=2)
    return match_id, {t.seat: t.token for t in created.seat_tokens}


async def accepted(backend: Backend, client: RulesClient, match_id: str) -> list[dict[str, Any]]:
    export = await client.export(backend.organiser_token(), match_id)
    records = [json.loads(line) for line in export.export_jsonl.splitlines()]
    return [r for r in records if r.get("type") == "ActionAccepted"]


def lost(details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                grpc.aio.Metadata(), details=details)


async def test_two_seats_play_to_the_end_with_deterministic_command_ids(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    seen: dict[int, list[SeatEvent]] = {0: [], 1: []}
    turns: list[SeatTurn] = []
    choose = random_choose("t1")

    def recording(turn: SeatTurn) -> dict[str, Any] | None:
        turns.append(turn)
        return choose(turn)

    outcomes = await asyncio.wait_for(asyncio.gather(*(
        play_seat(client.stub, tokens[s], match_id, recording,
                  on_event=seen[s].append) for s in (0, 1))), 30)
    view = await client.view(match_id)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED
    assert outcomes[0] == outcomes[1] == json.loads(view.outcome_json)
    # every event of the match, in order, to each seat (the seat's own private ones included)
    for s in (0, 1):
        assert [e.version for e in seen[s]] == list(range(1, view.version + 1))
        drew = [e for e in seen[s] if e.type == "ActionAccepted"
                for x in e.payload.get("events", []) if x.get("kind") == "drew"]
        assert drew, "a seat sees its own draws"
    # one accepted action per seat and round, each sent as "seat<seat>-v<version before it>"
    actions = await accepted(backend, client, match_id)
    assert [a["command_id"] for a in actions] == [f"seat{a['seat']}-v{a['n'] - 1}" for a in actions]
    rounds = json.loads((await client.view(match_id, tokens[0])).view_json)["round"]
    assert len(actions) in (2 * (rounds - 1), 2 * rounds - 1)
    # choose saw only positions where its seat owed a pick, with the seat's own view
    assert turns and all(t.decisions and t.decisions[0].kind == "pick" for t in turns)
    assert all(t.view["hand"] is not None and t.decisions[0].seat == t.seat for t in turns)
    # each turn carries the events since the seat's previous turn, none twice
    for s in (0, 1):
        handed = [e.version for t in turns if t.seat == s for e in t.events]
        assert handed == sorted(set(handed)) and all(v <= view.version for v in handed)
    assert any(e.type == "ActionAccepted" and e.seat != t.seat for t in turns for e in t.events)
    await client.close()


async def test_an_answer_lost_in_transit_is_resent_and_applied_once(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    replayed: list[bool] = []
    sent: list[str] = []
    lost_id: list[str] = []

    async def lose_first(real: Hook, request: Any, **kw: Any) -> Any:
        # the first ANSWERED submit's answer is lost (an earlier one may be refused: both
        # seats pick at once, and the other's pick may move the match first)
        sent.append(request.command_id)
        answer = await real(request, **kw)
        replayed.append(answer.replayed)
        if len(replayed) == 1:
            lost_id.append(request.command_id)
            raise lost("the answer was lost")
        return answer

    proxy = Proxy(client.stub, SubmitAction=lose_first)
    outcome = await asyncio.wait_for(asyncio.gather(
        play_seat(proxy, tokens[0], match_id, random_choose("t2"), seat=0),
        play_seat(client.stub, tokens[1], match_id, random_choose("t2"), seat=1)), 30)
    assert outcome[0] is not None
    at = sent.index(lost_id[0])
    assert sent[at + 1] == lost_id[0], "the retry sends the same command id"
    assert replayed[:2] == [False, True]
    mine = [a for a in await accepted(backend, client, match_id) if a["seat"] == 0]
    assert len({a["command_id"] for a in mine}) == len(mine)
    assert sum(1 for a in mine if a["command_id"] == lost_id[0]) == 1
    await client.close()


async def test_a_match_that_moved_first_is_refreshed_and_chosen_again(backend: Backend) -> None:
    """Seat 1 picks between seat 0's look and seat 0's submit: seat 0's answer is ABORTED,
    and the loop chooses again at the new version."""
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    versions: list[int] = []

    async def sneaky(turn: SeatTurn) -> dict[str, Any] | None:
        versions.append(turn.version)
        if len(versions) == 1:
            await client.submit(tokens[1], match_id, "sneak", {"type": "pick", "step": 3})
        return {"type": "pick", "step": 2} if len(versions) <= 2 else None

    proxy = Proxy(client.stub)
    task = asyncio.create_task(play_seat(proxy, tokens[0], match_id, sneaky))
    await asyncio.sleep(0)
    try:
        for _ in range(200):
            if len(await accepted(backend, client, match_id)) == 2:
                break
            await asyncio.sleep(0.05)
        assert versions[:2] == [2, 3]
        actions = await accepted(backend, client, match_id)
        assert [(a["seat"], a["command_id"]) for a in actions] == [(1, "sneak"), (0, "seat0-v3")]
        assert proxy.commands == ["seat0-v2", "seat0-v3"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await client.close()


async def test_a_match_that_ended_meanwhile_ends_the_loop_with_its_outcome(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    calls = 0

    async def finish_it_first(turn: SeatTurn) -> dict[str, Any] | None:
        nonlocal calls
        calls += 1
        # the seats are played to the end elsewhere before this answer is sent
        await play_match(client, match_id, tokens, command_prefix="elsewhere-")
        return turn.decisions[0].legal[0]

    outcome = await asyncio.wait_for(play_seat(client.stub, tokens[0], match_id, finish_it_first), 30)
    view = await client.view(match_id)
    assert calls == 1 and outcome == json.loads(view.outcome_json)
    # and a seat of a finished match returns the outcome without choosing
    again = await play_seat(client.stub, tokens[1], match_id, finish_it_first)
    assert again == outcome and calls == 1
    await client.close()


async def test_an_illegal_choice_is_raised_with_the_reason(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    with pytest.raises(ActionRefused) as info:
        await play_seat(client.stub, tokens[0], match_id, lambda turn: {"type": "pick", "step": 7})
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "step must be 1, 2 or 3" in info.value.reason
    assert (await client.view(match_id)).version == 2
    await client.close()


async def test_an_answer_with_the_next_position_saves_the_refresh(backend: Backend) -> None:
    """When SubmitAction answers with the seat's decisions and view (rules service v2), the
    loop chooses the seat's next action from that answer alone; without them it falls back
    to ListLegalActions + GetView."""
    client = RulesClient(backend.address("rules-toy"))
    stub = client.stub

    async def without_next_position(real: Hook, request: Any, **kw: Any) -> Any:
        """An answer as a rules service before v2 gave it."""
        answer = await real(request, **kw)
        del answer.decisions[:]
        answer.view_json = ""
        return answer

    async def last_call_before_second_choice(proxy: Proxy) -> str:
        """Seat 1 picks first; seat 0's pick ends the round, so seat 0 owes again at once."""
        match_id, tokens = await new_match(backend, client)
        await client.submit(tokens[1], match_id, "first", {"type": "pick", "step": 1})
        before: list[str] = []
        second = asyncio.Event()

        def choose(turn: SeatTurn) -> dict[str, Any] | None:
            before.append(proxy.calls[-1])
            if len(before) == 1:
                return {"type": "pick", "step": 1}
            assert turn.version == 4 and turn.decisions and turn.view["round"] == 2
            second.set()
            return None

        task = asyncio.create_task(play_seat(proxy, tokens[0], match_id, choose))
        try:
            await asyncio.wait_for(second.wait(), 10)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return before[1]

    assert await last_call_before_second_choice(Proxy(stub)) == "SubmitAction"
    assert await last_call_before_second_choice(
        Proxy(stub, SubmitAction=without_next_position)) == "GetView"
    await client.close()


async def test_play_seats_runs_every_seat_in_one_call(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, tokens = await new_match(backend, client)
    outcome = await asyncio.wait_for(play_seats(client.stub, match_id, tokens,
                                                random_choose("t7"), command_prefix="bot-"), 30)
    assert outcome == json.loads((await client.view(match_id)).outcome_json)
    actions = await accepted(backend, client, match_id)
    assert {a["seat"] for a in actions} == {0, 1}
    assert all(re.fullmatch(r"bot-[01]-v\d+", a["command_id"]) for a in actions)
    # a seat token alone names its seat: the watch stream of a finished match is still served
    stream = client.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id),
                                    metadata=call_metadata(tokens[0]), timeout=5)
    assert [m.event.version async for m in stream][-1] == (await client.view(match_id)).version
    await client.close()
