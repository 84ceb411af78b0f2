"""WatchMatch streams stored then live events, redacted per viewer; client seeds join the draws."""

from __future__ import annotations

import asyncio
import json
import uuid

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.verify import verify_export
from tests.support import toy


async def collect(client: RulesClient, match_id: str, token: str | None) -> list[dict]:
    out = []
    async for response in client.watch(match_id, token):
        out.append(json.loads(response.event.payload_json))
    return out


async def test_watchers_get_backfill_then_live_events_each_redacted_for_them(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    match_id = f"watch-{uuid.uuid4().hex[:6]}"
    created = await client.create(organiser, match_id=match_id, mode="race", seats=2, dev_seed="3")
    tokens = {t.seat: t.token for t in created.seat_tokens}
    spectator = asyncio.create_task(collect(client, match_id, None))
    seat0 = asyncio.create_task(collect(client, match_id, tokens[0]))
    await asyncio.sleep(0.2)
    step = 0
    while (view := await client.view(match_id)).pending:
        for p in view.pending:
            await client.submit(tokens[p.seat], match_id, f"s{step}", {"type": "pick", "step": 1 + step % 3})
            step += 1
    public, mine = await asyncio.wait_for(asyncio.gather(spectator, seat0), timeout=10)
    version = (await client.view(match_id)).version
    assert [e["n"] for e in public] == list(range(1, version + 1)) == [e["n"] for e in mine]
    assert public[-1]["type"] == "MatchSealed"
    export = (await client.export(organiser, match_id)).export_jsonl.decode()
    cards_1 = {e["data"]["card"] for line in export.splitlines() for e in json.loads(line).get("events", [])
               if e["kind"] == "drew" and e["data"]["seat"] == 1}
    spectator_text = json.dumps(public)
    seat0_text = json.dumps(mine)
    assert cards_1 and not any(c in spectator_text or c in seat0_text for c in cards_1)
    assert all("action" not in e for e in public if e["type"] == "ActionAccepted")
    assert all("action" in e for e in mine if e["type"] == "ActionAccepted" and e["seat"] == 0)
    assert all("draws" not in e for e in public + mine)
    await client.close()


async def test_hidden_pick_is_not_in_the_other_seats_view_before_reveal(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await client.create(organiser, match_id=f"hid-{uuid.uuid4().hex[:6]}", mode="race", seats=2)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    answer = await client.submit(tokens[0], match_id, "p", {"type": "pick", "step": 3})
    assert json.loads(answer.events[0].payload_json)["action"] == {"type": "pick", "step": 3}
    other = json.loads((await client.view(match_id, tokens[1])).view_json)
    spectator = json.loads((await client.view(match_id)).view_json)
    assert other["my_pick"] is None and spectator["my_pick"] is None
    assert other["picked"] == [True, False]
    await client.close()


async def test_client_seeds_are_taken_before_start_and_verified(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await client.create(organiser, match_id=f"seeds-{uuid.uuid4().hex[:6]}", mode="race",
                                  seats=2, await_client_seeds=True)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    assert created.status == rules_pb2.MATCH_STATUS_AWAITING_SEEDS
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.submit(tokens[0], match_id, "early", {"type": "pick", "step": 1})
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for seat, seed in ((0, "alice-entropy"), (1, "bob-entropy")):
        await client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(match_id=match_id, seed=seed), tokens[seat])
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.call("StartMatch", rules_pb2.StartMatchRequest(match_id=match_id), tokens[0])
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    await client.call("StartMatch", rules_pb2.StartMatchRequest(match_id=match_id), organiser)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(match_id=match_id, seed="late"), tokens[1])
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    step = 0
    while (view := await client.view(match_id)).pending:
        for p in view.pending:
            await client.submit(tokens[p.seat], match_id, f"s{step}", {"type": "pick", "step": 2})
            step += 1
    export = (await client.export(organiser, match_id)).export_jsonl
    started = json.loads(export.splitlines()[1])
    assert started["client_seeds"] == [[0, "alice-entropy"], [1, "bob-entropy"]]
    assert verify_export(export, engine=toy.ENGINE).ok
    await client.close()
