"""Command ids are the seat's own. The shared client library names its commands
``<prefix><seat>-v<version>``, so an opponent knows the id a seat will send next; a seat that
took that id for its own action made the other seat's action ALREADY_EXISTS (its client gave
up, its clock ran on). A repeat is a seat's own retry: the same id from another seat is
another command."""

from __future__ import annotations

import json

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.platform.playing import command_id


async def test_a_seat_cannot_take_the_command_id_another_seat_will_send(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2)
    match_id = created.match_id
    token = {t.seat: t.token for t in created.seat_tokens}
    version = (await client.view(match_id, token[0])).version
    theirs = command_id("seat", 0, version)  # what seat 0's client will send at this version
    # seat 1 sends its own pick under that id first (both seats owe a pick now)
    taken = await client.submit(token[1], match_id, theirs, {"type": "pick", "step": 1})
    assert not taken.replayed
    # seat 0's pick under the id its client chose is its own command: applied, not refused
    mine = await client.submit(token[0], match_id, theirs, {"type": "pick", "step": 2})
    assert not mine.replayed and mine.version > taken.version
    # each seat's retry is still answered with its own first answer, never applied twice
    again = await client.submit(token[1], match_id, theirs, {"type": "pick", "step": 1})
    assert again.replayed and again.version == taken.version
    again = await client.submit(token[0], match_id, theirs, {"type": "pick", "step": 2})
    assert again.replayed and again.version == mine.version
    # and a seat's own id with another action stays refused
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await client.submit(token[0], match_id, theirs, {"type": "pick", "step": 3})
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    actions = [r for r in map(json.loads, export.splitlines()[:-1]) if r["type"] == "ActionAccepted"]
    assert [(r["seat"], r["command_id"], r["action"]["step"]) for r in actions] == \
        [(1, theirs, 1), (0, theirs, 2)]
    await client.close()
