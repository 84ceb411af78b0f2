"""NEON's set-up events reach the event stream (contract ``start``): the arena, the decks,
each seat's fighter, how many cards each drew, the leader, and each seat's opening hand.
MatchStarted carries them: each seat sees its own three cards and no other seat's, the
public sees the counts and no card; the export keeps every event with ``visible_to``, and
it still verifies after the match is abandoned and sealed. Real gRPC, real NATS, SQLite."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings

GAME = "neon"
MATCH = "neon-setup-events"
SEATS = 3
PUBLIC_KINDS = ["arena_built", "decks_formed", "fighter_taken", "cards_drawn", "leader"]


async def _started(client: RulesClient, token: str | None) -> Any:
    """The MatchStarted event of the match as ``token`` (None: the public) receives it."""
    async for message in client.watch(MATCH, token):
        if message.event.type == "MatchStarted":
            return message.event
    raise AssertionError("no MatchStarted")


def _holds(text: str, cards: set[str]) -> list[str]:
    return sorted(c for c in cards if f'"{c}"' in text)


async def test_each_seat_sees_its_own_opening_hand_in_match_started(
        tmp_path: Path, nats_url: str) -> None:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[GAME], embedded_nats=False)
    client = RulesClient(b.address(f"rules-{GAME}"))
    try:
        created = await client.create(b.organiser_token(), match_id=MATCH, mode="rebirth",
                                      seats=SEATS, dev_seed="17")
        tokens = {t.seat: t.token for t in created.seat_tokens}
        assert sorted(tokens) == list(range(SEATS))
        # each seat's hand, as its own view serves it
        hands: dict[int, list[str]] = {}
        for seat, token in tokens.items():
            view = json.loads((await client.view(MATCH, token)).view_json)
            hands[seat] = view["fighters"][seat]["hand"]
            assert len(hands[seat]) == 3
        every_card = {c for hand in hands.values() for c in hand}

        public = await _started(client, None)
        events = json.loads(public.payload_json)["events"]
        kinds = [e["kind"] for e in events]
        assert set(PUBLIC_KINDS) <= set(kinds) and "cards_drawn_private" not in kinds, kinds
        assert [(e["data"]["fighter"], e["data"]["count"]) for e in events
                if e["kind"] == "cards_drawn"] == [(s, 3) for s in range(SEATS)]
        assert not _holds(public.payload_json, every_card), "the public sees no card"
        assert not _holds(json.dumps(list(public.text)), every_card)
        assert len(public.text) == len(events) and all(public.text), public.text

        for seat, token in tokens.items():
            started = await _started(client, token)
            events = json.loads(started.payload_json)["events"]
            mine = [e["data"] for e in events if e["kind"] == "cards_drawn_private"]
            assert mine == [{"fighter": seat, "cards": hands[seat]}], (seat, mine)
            others = every_card - set(hands[seat])
            assert not _holds(started.payload_json, others), f"seat {seat} sees another hand"
            assert not _holds(json.dumps(list(started.text)), others)
            assert set(PUBLIC_KINDS) <= {e["kind"] for e in events}

        export = (await client.export(b.organiser_token(), MATCH)).export_jsonl
        record = next(json.loads(line) for line in export.splitlines()
                      if json.loads(line).get("type") == "MatchStarted")
        assert all("visible_to" in e for e in record["events"])
        dealt = [e for e in record["events"] if e["kind"] == "cards_drawn_private"]
        assert sorted((e["visible_to"], e["data"]["cards"]) for e in dealt) == \
            [([s], hands[s]) for s in range(SEATS)]
        assert all(e["visible_to"] is None for e in record["events"]
                   if e["kind"] != "cards_drawn_private")
        assert len(record["events"]) == len(json.loads(public.payload_json)["events"]) + SEATS

        await client.abandon(b.organiser_token(), MATCH, "a test of set-up events")
        for _ in range(50):  # the seal follows the end
            export = (await client.export(b.organiser_token(), MATCH)).export_jsonl
            if b'"MatchSealed"' in export:
                break
            await asyncio.sleep(0.1)
        report = verify_export(export)  # the replay reads states, not events
        assert report.ok and report.abandoned, report.failure
    finally:
        await client.close()
        await b.stop(1)
