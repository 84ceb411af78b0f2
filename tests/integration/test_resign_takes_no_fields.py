"""A resignation is ``{"type": "resign"}`` and nothing else, on every path into a match.

Barbaric's ``validate`` took any action of type resign, whatever else it held (the schema
lets a ``card`` string of up to the action's 64 KB through), while its listed resignation is
the bare one. The host, finding such an action in no legal list, recorded it as answering the
seat's first owed decision: a resignation with a 60 KB ``card`` went into the match's
permanent log under that decision's kind and hidden flag (``choose_card``: hidden, so the
table never saw the action that ended the seat's game) and was charged to its clock as the
answer to that decision. NEON's engine refuses such a resignation ("resign takes no
options"); the host now refuses it for every engine before the engine is asked, with the
same words and FAILED_PRECONDITION, and stores nothing. Over the real services."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from tests.integration.test_barbaric_served import barbaric  # noqa: F401 (the fixture)


@pytest.mark.parametrize("extra", [{"card": "x" * 60_000}, {"seat": 1}, {"to": [0, 0]}])
async def test_a_resignation_with_other_fields_is_refused_and_changes_nothing(
        barbaric: Backend, extra: dict[str, Any]) -> None:  # noqa: F811
    client = RulesClient(barbaric.address("rules-barbaric"))
    organiser = barbaric.bot_driver_token()
    created = await client.create(organiser, mode="competitive", seats=2,
                                  players=["bot-0", "bot-1"], dev_seed="resign-fields")
    match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}
    before = await client.view(match_id)
    seat = before.pending[0].seat
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.submit(tokens[seat], match_id, "resign-with-more",
                            {"type": "resign", **extra})
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    details = refused.value.details() or ""
    assert "resign takes no options" in details and len(details) < 300, details[:300]
    after = await client.view(match_id)
    assert (after.version, after.state_hash, after.pending) == \
        (before.version, before.state_hash, before.pending)
    # the bare resignation is taken, recorded as the standing option it is (public)
    await client.submit(tokens[seat], match_id, "resign", {"type": "resign"})
    exported = await client.export(organiser, match_id)
    records = [json.loads(line) for line in exported.export_jsonl.decode().splitlines()]
    resigned = [r for r in records if r.get("type") == "ActionAccepted"]
    assert [(r["seat"], r["action"], r["decision"], r["hidden"]) for r in resigned] == \
        [(seat, {"type": "resign"}, "any_time", False)]
    shown = []
    async for message in client.watch(match_id):  # as the public sees it
        if message.event.type == "ActionAccepted":
            shown.append(json.loads(message.event.payload_json))
        if message.event.version >= resigned[0]["n"]:
            break
    assert [s.get("action") for s in shown] == [{"type": "resign"}]
