"""Events of set-up reach the event stream (contract ``start``): a Neon Reign match deals each
seat a hidden starting hand of 7 while the match is set up, before any action. MatchStarted
carries the set-up's events: each seat sees its own hand (the cards its view holds) and no
other, the public sees the heroes, the first player and how many cards each seat drew but no
card; the export keeps them all with their visibility, and it still verifies. Real gRPC, real
NATS, SQLite."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings

GAME = "neon-reign"
CARD_ID = re.compile(r"[A-Z]+-[0-9]{2}")
MATCHES = [("reign-setup-single", "single", 2, {"first_player": "random"}),
           ("reign-setup-solo", "solo", 1, {"difficulty": "hard"})]


async def _started(client: RulesClient, match_id: str, token: str | None) -> Any:
    """The MatchStarted event of the match as ``token`` (None: the public) receives it."""
    async for message in client.watch(match_id, token):
        if message.event.type == "MatchStarted":
            return message.event
    raise AssertionError("no MatchStarted")


def _of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["kind"] == kind]


async def _check_match(client: RulesClient, organiser: str, match_id: str, mode: str,
                       seats: int, options: dict[str, Any]) -> None:
    created = await client.create(organiser, match_id=match_id, mode=mode, seats=seats,
                                  options=options, dev_seed="7")
    tokens = {t.seat: t.token for t in created.seat_tokens}
    assert sorted(tokens) == list(range(seats))
    hands = {}
    for seat, token in tokens.items():
        view = json.loads((await client.view(match_id, token)).view_json)
        hands[seat] = view["sides"][seat]["hand"]
        assert len(hands[seat]) == 7
    public = await _started(client, match_id, None)
    events = json.loads(public.payload_json)["events"]
    kinds = [e["kind"] for e in events]
    assert kinds == ["heroes_dealt", "heroes_dealt", "game_started", *["drew_count"] * seats]
    assert [d["count"] for d in _of(events, "drew_count")] == [7] * seats
    assert not CARD_ID.findall(json.dumps(events)), events  # no card, of anyone
    assert len(public.text) == len(events), "each event is described in words"
    assert sum("draws 7 card(s) (starting hand)" in line for line in public.text) == seats
    for seat, token in tokens.items():
        started = await _started(client, match_id, token)
        events = json.loads(started.payload_json)["events"]
        drew = _of(events, "drew")
        assert drew == [{"side": seat, "cards": hands[seat], "source": "starting hand"}], events
        others = set().union(*(hands[s] for s in tokens if s != seat))
        assert not set(CARD_ID.findall(json.dumps(events))) & others
        assert [d["side"] for d in _of(events, "drew_count")] == list(range(seats))
        assert "heroes_dealt" in [e["kind"] for e in events]
        assert sum(line.startswith("You draw ") for line in started.text) == 2  # cards, count
    export = (await client.export(organiser, match_id)).export_jsonl
    record = next(json.loads(line) for line in export.splitlines()
                  if json.loads(line).get("type") == "MatchStarted")
    recorded = record["events"]
    dealt = [e for e in recorded if e["kind"] == "drew"]
    assert [(e["visible_to"], e["data"]["cards"]) for e in dealt] == \
        [([s], hands[s]) for s in range(seats)]
    assert all(e.get("visible_to") is None for e in recorded if e["kind"] != "drew")
    assert len(recorded) == 3 + 2 * seats
    await client.abandon(organiser, match_id, "a test of set-up events")
    for _ in range(50):  # the seal follows the end
        export = (await client.export(organiser, match_id)).export_jsonl
        if b'"MatchSealed"' in export:
            break
        await asyncio.sleep(0.1)
    report = verify_export(export)  # the replay reads states, not events: the export verifies
    assert report.ok and report.abandoned, report.failure


async def test_each_seat_sees_its_own_starting_hand_and_the_public_only_counts(
        tmp_path: Path, nats_url: str) -> None:
    b = await start_backend(make_settings(tmp_path, nats_url), games=[GAME], embedded_nats=False)
    client = RulesClient(b.address(f"rules-{GAME}"))
    try:
        for match_id, mode, seats, options in MATCHES:
            await _check_match(client, b.organiser_token(), match_id, mode, seats, options)
    finally:
        await client.close()
        await b.stop(1)
