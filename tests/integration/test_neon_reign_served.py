"""Neon Reign through the real services: dice over gRPC, a real store, JetStream, export, verify."""

from __future__ import annotations

import json
import uuid

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.cli.play import play_match
from services.platform import bus
from services.rules.games import available
from services.rules.verify import verify_export
from tests.integration.test_outbox_and_audit import published

pytestmark = pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")


@pytest.mark.parametrize("mode", ["single", "hero-match"])
async def test_a_served_match_publishes_only_public_events_and_verifies(
    backend: Backend, nats_client: object, mode: str
) -> None:
    client = RulesClient(backend.address("rules-neon-reign"))
    organiser = backend.organiser_token()
    match_id = f"nr-{mode}-{uuid.uuid4().hex[:8]}"
    result = await play_match(client, backend.bot_driver_token(), mode=mode, seats=["random", "random"], seed=42,
                              match_id=match_id)
    assert result.outcome is not None
    export = (await client.export(organiser, match_id)).export_jsonl
    report = verify_export(export)
    assert report.ok, report.failure
    records = [json.loads(line) for line in export.splitlines() if b'"checkpoint"' not in line]
    records = [r for r in records if "n" in r]
    messages = await published(nats_client, f"{bus.subject_prefix()}.rules.neon-reign.{match_id}",
                               len(records))
    assert [json.loads(m.data)["n"] for m in messages] == [r["n"] for r in records]
    private = 0
    for message, record in zip(messages, records, strict=True):
        public = json.loads(message.data)
        assert "draws" not in public and "state_hash" not in public
        expected = [{"kind": e["kind"], "data": e["data"]} for e in record.get("events", [])
                    if e["visible_to"] is None]
        private += len(record.get("events", [])) - len(expected)
        assert public.get("events", expected) == expected
        if record.get("hidden"):
            assert "action" not in public, "a secret hero pick reached the public stream"
    assert private > 0, "drawn cards are private events: some must have been held back"


async def test_the_same_dev_seed_and_bots_give_the_same_state_hashes(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-neon-reign"))
    a, b, c = [await play_match(client, backend.bot_driver_token(), mode="single", seats=["random", "random"],
                                seed=seed, match_id=f"nr-det-{uuid.uuid4().hex[:8]}")
               for seed in (42, 42, 43)]
    assert a.state_hashes == b.state_hashes and a.outcome == b.outcome
    assert a.state_hashes != c.state_hashes


async def test_tampering_with_a_neon_reign_export_fails_verify(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-neon-reign"))
    organiser = backend.organiser_token()
    match_id = f"nr-tamper-{uuid.uuid4().hex[:8]}"
    await play_match(client, backend.bot_driver_token(), mode="single", seats=["random", "random"], seed=5,
                     match_id=match_id)
    lines = (await client.export(organiser, match_id)).export_jsonl.splitlines()
    attack = next(i for i, line in enumerate(lines) if b'"type":"attack"' in line)
    shuffle = next(i for i, line in enumerate(lines) if b'"op":"shuffle"' in line)

    def tampered(index: int, change: object) -> bytes:
        row = json.loads(lines[index])
        change(row)  # type: ignore[operator]
        return b"\n".join([*lines[:index], json.dumps(row).encode(), *lines[index + 1:]])

    def swap_cards(row: dict) -> None:
        draw = row["draws"][0]
        draw["result"][0], draw["result"][1] = draw["result"][1], draw["result"][0]

    cases = {
        "card changed": tampered(attack, lambda r: r["action"]["cards"].reverse()
                                 if len(r["action"]["cards"]) > 1
                                 else r["action"].update(cards=["NP-01"])),
        "deck order changed": tampered(shuffle, swap_cards),
        "line dropped": b"\n".join(lines[:attack] + lines[attack + 1:]),
    }
    for name, bad in cases.items():
        report = verify_export(bad)
        assert not report.ok, name
    await client.close()
