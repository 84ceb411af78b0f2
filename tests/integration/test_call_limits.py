"""Call rate limits of the kernel interceptor, over real gRPC (the toy game's rules service with
small rates): a seat flooding unary calls or its Play stream is refused RESOURCE_EXHAUSTED with
retry-after-ms while other seats, other matches and organisers are served; a refused command is
not applied, and applies once when sent again after the wait."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.cli.backend import Backend, start_backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.conftest import make_settings
from tests.support import toy

RATE, ANONYMOUS_RATE = 2, 3
SEAT_REASON = "too many calls from this seat: at most 2 a second (burst 4); try again in "


@pytest.fixture
async def rated(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """The toy's rules service: 2 calls a second per token (burst 4), 3 per host without one."""
    settings = make_settings(tmp_path, nats_url, max_calls_per_second=RATE,
                             max_anonymous_calls_per_second=ANONYMOUS_RATE)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    yield backend
    await backend.stop(1)


class Rules:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.channel = channel(backend.address("rules-toy"))
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)

    async def new_match(self) -> tuple[str, dict[int, str]]:
        created = await self.stub.CreateMatch(
            rules_pb2.CreateMatchRequest(match_id=f"rate-{uuid.uuid4().hex[:8]}", mode="race",
                                         seats=2, options_json="{}"),
            metadata=call_metadata(self.backend.organiser_token()), timeout=15)
        return created.match_id, {t.seat: t.token for t in created.seat_tokens}

    async def view(self, match_id: str, token: str | None) -> Any:
        return await self.stub.GetView(rules_pb2.GetViewRequest(match_id=match_id),
                                       metadata=call_metadata(token), timeout=10)

    async def version(self, match_id: str) -> int:
        return (await self.view(match_id, self.backend.organiser_token())).version

    async def submit(self, match_id: str, token: str, command_id: str, step: int = 1) -> Any:
        return await self.stub.SubmitAction(rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id=command_id,
            action_json=json.dumps({"type": "pick", "step": step})),
            metadata=call_metadata(token), timeout=10)

    async def flood(self, match_id: str, token: str | None, at_most: int = 200) -> tuple[int, Any]:
        """GetView until refused: how many were served, and the refusal."""
        for served in range(at_most):
            try:
                await self.view(match_id, token)
            except grpc.aio.AioRpcError as err:
                return served, err
        pytest.fail(f"{at_most} calls a second were all served")

    async def close(self) -> None:
        await self.channel.close()


def retry_after_ms(err: grpc.aio.AioRpcError) -> int:
    trailers = dict(err.trailing_metadata() or ())
    assert "retry-after-ms" in trailers, trailers
    wait = int(trailers["retry-after-ms"])
    assert 1 <= wait <= 1000 // RATE + 1
    return wait


def refused_over_rate(err: grpc.aio.AioRpcError, reason: str = SEAT_REASON) -> int:
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
    details = err.details() or ""
    assert details.startswith(reason), details
    wait = retry_after_ms(err)
    assert details.endswith(f"try again in {wait} ms")
    return wait


async def test_a_flooding_seat_is_refused_while_others_are_served(rated: Backend) -> None:
    rules = Rules(rated)
    try:
        match_id, seats = await rules.new_match()
        other_match, other_seats = await rules.new_match()
        served, err = await rules.flood(match_id, seats[0])
        assert served >= RATE * 2  # its burst
        refused_over_rate(err)
        # the same seat's SubmitAction is refused too
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.submit(match_id, seats[0], "flooded")
        refused_over_rate(info.value)
        # and so is the opening of its stream
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in rules.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id),
                                                 metadata=call_metadata(seats[0]), timeout=10):
                break
        refused_over_rate(info.value)
        # another seat of the match, another match and the organiser are served
        await rules.view(match_id, seats[1])
        await rules.view(other_match, other_seats[0])
        for _ in range(50):
            await rules.view(match_id, rated.organiser_token())
        # health checking is never limited
        health = health_pb2_grpc.HealthStub(rules.channel)
        for _ in range(50):
            answer = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        await rules.close()


async def test_a_refused_command_is_not_applied_and_applies_once_when_sent_again(rated: Backend) -> None:
    rules = Rules(rated)
    try:
        match_id, seats = await rules.new_match()
        before = await rules.version(match_id)
        await rules.flood(match_id, seats[0])
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.submit(match_id, seats[0], "c1")
        wait = refused_over_rate(info.value)
        assert await rules.version(match_id) == before  # nothing recorded
        await asyncio.sleep(wait / 1000 + 0.05)
        answer = await rules.submit(match_id, seats[0], "c1")
        assert answer.version == before + 1 and not answer.replayed
        await asyncio.sleep(1 / RATE + 0.05)
        again = await rules.submit(match_id, seats[0], "c1")  # a retry after a lost answer
        assert again.replayed and again.version == before + 1
        assert await rules.version(match_id) == before + 1  # applied once
    finally:
        await rules.close()


async def test_callers_without_a_token_are_limited_per_host(rated: Backend) -> None:
    rules = Rules(rated)
    try:
        match_id, seats = await rules.new_match()
        served, err = await rules.flood(match_id, None)
        assert served >= ANONYMOUS_RATE * 2
        refused_over_rate(err, "too many calls from this address without a token: at most 3 a "
                               "second (burst 6); try again in ")
        await rules.view(match_id, seats[0])  # a token from the same host has its own rate
    finally:
        await rules.close()


async def test_a_play_stream_flood_is_answered_per_action_and_the_stream_goes_on(rated: Backend) -> None:
    rules = Rules(rated)
    try:
        match_id, seats = await rules.new_match()
        before = await rules.version(match_id)
        outbox: asyncio.Queue[Any] = asyncio.Queue()

        async def requests() -> AsyncIterator[Any]:
            while True:
                yield await outbox.get()

        def action(command_id: str, action_json: str) -> Any:
            return rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                command_id=command_id, action_json=action_json))

        await outbox.put(rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)))
        sent = [f"junk{i}" for i in range(12)] + ["pick"]
        for command in sent[:-1]:  # refused by the engine's schema, each answered
            await outbox.put(action(command, '{"type": "pick"}'))
        await outbox.put(action("pick", '{"type": "pick", "step": 1}'))
        call = rules.stub.Play(requests(), metadata=call_metadata(seats[0]), timeout=30)
        results: list[Any] = []
        async for message in call:
            if message.WhichOneof("kind") == "result":
                results.append(message.result)
                if len(results) == len(sent):
                    break
        # every message answered once, in the order sent
        assert [r.command_id for r in results] == sent
        codes = [r.code for r in results]
        assert "RESOURCE_EXHAUSTED" in codes and codes[0] != "RESOURCE_EXHAUSTED"
        assert set(codes) <= {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED"}
        refused = results[-1]
        assert refused.code == "RESOURCE_EXHAUSTED", codes  # the real action, past the burst
        assert refused.message.startswith(SEAT_REASON), refused.message
        assert await rules.version(match_id) == before  # not applied
        # meanwhile the other seat is served
        await rules.submit(match_id, seats[1], "other", 2)
        wait = int(refused.message.rsplit(" in ", 1)[1].removesuffix(" ms"))
        await asyncio.sleep(wait / 1000 + 0.05)
        # the stream is still open: the same command, sent again, applies once
        await outbox.put(action("pick", '{"type": "pick", "step": 1}'))
        async for message in call:
            if message.WhichOneof("kind") == "result":
                assert message.result.command_id == "pick"
                assert message.result.code == "OK", message.result
                break
        call.cancel()
        # seat 0's pick and seat 1's pick: the round is revealed once, nothing doubled
        view = await rules.view(match_id, rated.organiser_token())
        assert view.version >= before + 2
        await asyncio.sleep(1 / RATE + 0.05)
        again = await rules.submit(match_id, seats[0], "pick")
        assert again.replayed
        assert (await rules.version(match_id)) == view.version
    finally:
        await rules.close()


async def test_organiser_tokens_are_not_limited(rated: Backend) -> None:
    rules = Rules(rated)
    try:
        match_id, _ = await rules.new_match()
        organiser = rated.organiser_token()
        answers = await asyncio.gather(*(rules.view(match_id, organiser) for _ in range(100)))
        assert len(answers) == 100
    finally:
        await rules.close()


@pytest.fixture
async def slow(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """The toy's rules service at 3 calls a second per token (burst 6)."""
    settings = make_settings(tmp_path, nats_url, max_calls_per_second=3)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    yield backend
    await backend.stop(1)


def count_refusals(backend: Backend) -> list[Any]:
    """The call rate refusals of the toy's rules service, from now on."""
    calls = backend.services["rules-toy"].handle.calls
    assert calls is not None
    refusals: list[Any] = []
    take = calls.take

    def counted(caller: Any) -> Any:
        refused = take(caller)
        if refused is not None:
            refusals.append(refused)
        return refused

    calls.take = counted  # type: ignore[method-assign]
    return refusals


@pytest.mark.parametrize("how", ["table", "seats"])
async def test_the_repos_players_wait_out_the_rate_and_finish_their_match(slow: Backend,
                                                                          how: str) -> None:
    """playing.py (``neon play`` with bots, matchmaking's bot driver) over the rate: slowed to
    it, each refused call sent again after its retry-after-ms, never failed."""
    from services.platform.playing import play_seats, play_table, random_choice

    rules = Rules(slow)
    try:
        match_id, seats = await rules.new_match()
        refusals = count_refusals(slow)
        play = play_table if how == "table" else play_seats
        outcome = await asyncio.wait_for(
            play(rules.stub, match_id, seats, random_choice("rate"), retry_for=30), 120)
        assert outcome is not None
        assert refusals, "the match never met the rate: this test tests nothing"
        view = await rules.view(match_id, slow.organiser_token())
        assert view.status == rules_pb2.MATCH_STATUS_ENDED
    finally:
        await rules.close()


async def test_through_the_gateway_a_call_over_the_rate_is_429_with_retry_after(
        rated: Backend) -> None:
    """A web client flooding a seat's view through the HTTP/JSON gateway: the rules service's
    RESOURCE_EXHAUSTED reaches it as HTTP 429 with the wait in `Retry-After` (whole seconds,
    rounded up), which HTTP clients and browsers read (the gateway dropped the trailing
    retry-after-ms, so a client had only the words to go by)."""
    import aiohttp

    from tests.support.gateway import gateway_for

    rules = Rules(rated)
    try:
        match_id, seats = await rules.new_match()
        async with gateway_for(rated) as gateway, aiohttp.ClientSession() as http:
            url = f"{gateway.url}/games/toy/neon.rules.v1.RulesService/GetView"
            headers = {"Authorization": f"Bearer {seats[0]}"}
            for _ in range(100):
                async with http.post(url, json={"matchId": match_id}, headers=headers) as r:
                    if r.status == 200:
                        continue
                    body, after = await r.json(), r.headers.get("Retry-After")
                    break
            else:
                pytest.fail("100 calls through the gateway were all served")
        assert r.status == 429 and body["code"] == "resource_exhausted", body
        assert body["message"].startswith(SEAT_REASON), body
        assert after is not None and int(after) >= 1, r.headers
    finally:
        await rules.close()
