"""A seat the rules host hands to the rule bot (clock policy ``bot``) answers its hidden
decisions with draws of its keyed seed, through the real services (real gRPC, real NATS).

Neon Knights with hidden starting speeds: every seat times out once, and the rule bot plays
it from then on, draft picks and hidden speeds included. The bot used to pick speed 6 every
time, which told every seat a bot-played seat's speed while it still chose its own
(RULES.md, "Bots on hidden decisions"); now its speeds are drawn around 6. The export
verifies (the bot's answers are recorded as any other seat's).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.games import available
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings

GAME = "neon-knights-2086"

pytestmark = pytest.mark.skipif(GAME not in available(), reason=f"{GAME} not installed")


@pytest.fixture
async def knights_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[GAME], embedded_nats=False)
    yield b
    await b.stop(1)


async def test_bot_played_hidden_speeds_are_drawn_not_always_six(knights_backend: Backend) -> None:
    client = RulesClient(knights_backend.address(f"rules-{GAME}"))
    organiser = knights_backend.organiser_token()
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=100,
                                  max_timeouts=1, policy=rules_pb2.TIMEOUT_POLICY_BOT)
    await client.create(organiser, match_id="bots-hidden", mode="normal", seats=4, clock=clock,
                        options={"hidden_speeds": True, "races": 2})
    for _ in range(1200):  # nobody answers: timeouts, then the bots play the whole match
        view = await client.view("bots-hidden")
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            break
        await asyncio.sleep(0.1)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED, "the bots did not finish the match"
    export = (await client.export(organiser, "bots-hidden")).export_jsonl
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    by_bot = [r for r in records if r.get("by") == "bot"]
    speeds = [r["action"]["speed"] for r in by_bot if r.get("decision") == "start_speed"]
    picks = [r for r in by_bot if r.get("decision") == "draft"]
    assert len(speeds) == 8 and picks, (len(speeds), len(picks))  # 4 seats, 2 races
    assert all(r.get("hidden") for r in by_bot if r.get("decision") in ("start_speed", "draft"))
    assert set(speeds) <= {4, 5, 6, 7, 8} and len(set(speeds)) > 1, speeds
    report = verify_export(export)
    assert report.ok, report.failure
    await client.close()
