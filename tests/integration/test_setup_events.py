"""Events of set-up reach the event stream (contract ``start``): a Neon Knights campaign match's
first race deals each seat a hidden Fan Bet and names the track builder while the match is
set up, before any action. MatchStarted carries them: each seat sees its own bet and no
other, the public sees none, everyone sees the builder; the export keeps them all, and
it still verifies. Real gRPC, real NATS, SQLite."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings

GAME = "neon-knights-2086"


async def _started(client: RulesClient, match_id: str, token: str | None) -> Any:
    """The MatchStarted event of the match as ``token`` (None: the public) receives it."""
    async for message in client.watch(match_id, token):
        if message.event.type == "MatchStarted":
            return message.event
    raise AssertionError("no MatchStarted")


async def test_the_first_races_fan_bets_and_builder_are_in_match_started(
        tmp_path: Path, nats_url: str) -> None:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[GAME], embedded_nats=False)
    client = RulesClient(b.address(f"rules-{GAME}"))
    try:
        created = await client.create(b.organiser_token(), match_id="setup-events",
                                      mode="campaign", seats=3, dev_seed="11")
        tokens = {t.seat: t.token for t in created.seat_tokens}
        public = await _started(client, "setup-events", None)
        kinds = [e["kind"] for e in json.loads(public.payload_json)["events"]]
        assert "track_builder" in kinds and "fan_bet_dealt" not in kinds, kinds
        assert public.text, "the events are described in words"
        for seat, token in tokens.items():
            started = await _started(client, "setup-events", token)
            events = json.loads(started.payload_json)["events"]
            bets = [e["data"] for e in events if e["kind"] == "fan_bet_dealt"]
            assert [bet["seat"] for bet in bets] == [seat], (seat, events)
            assert "track_builder" in [e["kind"] for e in events]
        export = (await client.export(b.organiser_token(), "setup-events")).export_jsonl
        record = next(json.loads(line) for line in export.splitlines()
                      if json.loads(line).get("type") == "MatchStarted")
        dealt = [e for e in record["events"] if e["kind"] == "fan_bet_dealt"]
        assert sorted(e["visible_to"][0] for e in dealt) == [0, 1, 2]
        await client.abandon(b.organiser_token(), "setup-events", "a test of set-up events")
        for _ in range(50):  # the seal follows the end
            export = (await client.export(b.organiser_token(), "setup-events")).export_jsonl
            if b'"MatchSealed"' in export:
                break
            await asyncio.sleep(0.1)
        report = verify_export(export)  # the replay ignores events: the export verifies
        assert report.ok and report.abandoned, report.failure
    finally:
        await client.close()
        await b.stop(1)
