"""The rules host over real gRPC, real NATS and a real store, with the toy engine."""

from __future__ import annotations

import json

import grpc
import pytest

from services.cli.backend import Backend
from tests.support.client import RulesClient


async def play_to_end(client: RulesClient, match_id: str, tokens: dict[int, str]) -> list[int]:
    versions = []
    for step in range(200):
        view = await client.view(match_id)
        if not view.pending:
            return versions
        for pending in view.pending:
            legal = await client.legal(tokens[pending.seat], match_id)
            action = json.loads(legal.decisions[0].legal_json[step % 3])
            answer = await client.submit(tokens[pending.seat], match_id, f"c{step}-{pending.seat}", action)
            versions.append(answer.version)
    raise AssertionError("match did not end")


async def test_toy_match_plays_to_the_end(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await client.create(organiser, match_id="toy-1", mode="race", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    assert len(created.dice_commitment) == 64
    await play_to_end(client, "toy-1", tokens)
    view = await client.view("toy-1")
    assert view.outcome_json
    assert json.loads(view.outcome_json)["reason"]
    await client.close()


async def test_bad_input_is_answered_with_status_codes(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await client.create(organiser, match_id="toy-2", mode="race", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    cases = [
        (client.submit("garbage", "toy-2", "c1", {"type": "pick", "step": 1}), grpc.StatusCode.UNAUTHENTICATED),
        (client.submit(tokens[0], "nope", "c1", {"type": "pick", "step": 1}), grpc.StatusCode.PERMISSION_DENIED),
        (client.submit(tokens[0], "toy-2", "c1", {"type": "pick", "step": 9}), grpc.StatusCode.FAILED_PRECONDITION),
        (client.submit(tokens[0], "toy-2", "c1", {"type": "jump"}), grpc.StatusCode.INVALID_ARGUMENT),
        (client.submit(tokens[0], "toy-2", "", {"type": "pick", "step": 1}), grpc.StatusCode.INVALID_ARGUMENT),
        (client.submit(tokens[0], "toy-2", "c1", {"type": "pick", "step": 1}, expected_version=99), grpc.StatusCode.ABORTED),
        (client.create(tokens[0], match_id="x", mode="race", seats=2), grpc.StatusCode.PERMISSION_DENIED),
        (client.create(organiser, match_id="x", mode="race", seats=3), grpc.StatusCode.INVALID_ARGUMENT),
        (client.view("missing"), grpc.StatusCode.NOT_FOUND),
    ]
    for call, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
        assert info.value.code() == code, info.value.details()
        assert info.value.details()
    view = await client.view("toy-2")
    assert view.version == 2
    first = await client.submit(tokens[0], "toy-2", "same", {"type": "pick", "step": 2})
    again = await client.submit(tokens[0], "toy-2", "same", {"type": "pick", "step": 2})
    assert again.replayed and again.version == first.version == 3
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.submit(tokens[0], "toy-2", "same", {"type": "pick", "step": 3})
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert (await client.view("toy-2")).version == 3
    await client.close()


async def test_many_matches_created_at_once_in_one_process(backend: Backend) -> None:
    """Engine set-ups wait on live draws from the dice service in the same process; many at
    once must not starve the dice service's store of threads (they once did, until deadline)."""
    import asyncio
    import time

    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    started = time.monotonic()
    created = await asyncio.gather(*(
        client.create(organiser, match_id=f"burst-{i}", mode="race", seats=2) for i in range(40)
    ))
    assert [c.match_id for c in created] == [f"burst-{i}" for i in range(40)]
    assert time.monotonic() - started < 5, "creates waited on each other's draws"
    await client.close()
