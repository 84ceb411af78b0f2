"""Events reach JetStream once each with hidden parts stripped; exports verify; tampering fails."""

from __future__ import annotations

import asyncio
import json
import uuid

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.cli.play import play_match
from services.platform import bus
from services.platform.signed import open_result
from services.platform.signing import public_key_hex
from services.rules.verify import verify_export
from tests.support import toy


async def published(nats_client: object, subject: str, expected: int, timeout: float = 10) -> list[object]:
    js = nats_client.jetstream()  # type: ignore[attr-defined]
    sub = await js.pull_subscribe(subject, stream=bus.stream_name())
    messages: list[object] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while len(messages) < expected and asyncio.get_running_loop().time() < deadline:
        try:
            batch = await sub.fetch(100, timeout=0.5)
        except TimeoutError:
            continue
        for m in batch:
            await m.ack()
        messages.extend(batch)
    await sub.unsubscribe()
    return messages


async def test_match_events_are_published_once_and_redacted(backend: Backend, nats_client: object) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id = f"pub-{uuid.uuid4().hex[:8]}"  # the CI's NATS keeps streams across runs
    result = await play_match(client, backend.bot_driver_token(), mode="race",
                              seats=["random", "random"], seed=7, match_id=match_id)
    view = await client.view(match_id)
    messages = await published(nats_client, f"{bus.subject_prefix()}.rules.toy.{match_id}", view.version)
    assert [json.loads(m.data)["n"] for m in messages] == list(range(1, view.version + 1))
    ids = [m.headers["Nats-Msg-Id"] for m in messages]
    assert len(set(ids)) == len(ids) and all(i.startswith("rules-toy:") for i in ids)
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    cards = {c for line in export.splitlines() for c in _cards(json.loads(line))}
    assert cards, "the toy engine deals cards, the export must hold them"
    for m in messages:
        payload = m.data.decode()
        assert "draws" not in json.loads(payload)
        assert not any(card in payload for card in cards), payload
    assert result.outcome is not None
    results = await published(nats_client, f"{bus.subject_prefix()}.results.toy.{match_id}", 2, timeout=2)
    assert [json.loads(m.data)["type"] for m in results] == ["SignedResult"]
    trusted = [public_key_hex(backend.keys.signing_key)]
    ended = open_result(json.loads(results[0].data), trusted)  # signed by the rules service
    assert ended["type"] == "MatchEnded" and ended["match_id"] == match_id and ended["game"] == "toy"
    assert results[0].headers["Nats-Msg-Id"].endswith("#1")
    await client.close()


def _cards(row: dict) -> set[str]:
    found = set()
    for event in row.get("events", []):
        if event["kind"] == "drew":
            found.add(event["data"]["card"])
    return found


async def test_relay_publishes_again_after_restart_without_duplicates(backend: Backend, nats_client: object) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id = f"pub-{uuid.uuid4().hex[:8]}"
    await play_match(client, backend.bot_driver_token(), mode="race", seats=["random", "random"],
                     seed=8, match_id=match_id)
    relay = backend.services["rules-toy"].extra["relay"]
    await relay.drain()
    relay.position = 0  # as if the position were lost: every event is sent again
    await relay.publish_pending()
    version = (await client.view(match_id)).version
    messages = await published(nats_client, f"{bus.subject_prefix()}.rules.toy.{match_id}", version + 5, timeout=2)
    assert len(messages) == version
    await client.close()


async def test_export_verifies_and_any_tampering_fails(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    await play_match(client, backend.bot_driver_token(), mode="race", seats=["random", "random"],
                     seed=9, match_id="audit-1")
    data = (await client.export(backend.organiser_token(), "audit-1")).export_jsonl
    report = verify_export(data, engine=toy.ENGINE)
    assert report.ok, report.failure
    lines = data.splitlines()

    def tampered(index: int, change: object) -> bytes:
        row = json.loads(lines[index])
        change(row)  # type: ignore[operator]
        return b"\n".join([*lines[:index], json.dumps(row).encode(), *lines[index + 1:]])

    def die(row: dict) -> None:
        row["draws"][0]["result"][0] = (row["draws"][0]["result"][0] + 1) % 6

    roll_line = next(i for i, line in enumerate(lines) if b'"op":"roll"' in line)
    cases = {
        "value changed": tampered(2, lambda r: r["action"].update(step=3 if r["action"]["step"] != 3 else 1)),
        "line dropped": b"\n".join(lines[:2] + lines[3:]),
        "lines reordered": b"\n".join([lines[0], lines[2], lines[1], *lines[3:]]),
        "die changed": tampered(roll_line, die),
        "seed changed": tampered(len(lines) - 2, lambda r: r.update(seed="00" * 32)),
    }
    for name, bad in cases.items():
        report = verify_export(bad, engine=toy.ENGINE)
        assert not report.ok, name
        assert report.failure.startswith(("event", "checkpoint")), (name, report.failure)
    await client.close()


async def test_same_dev_seed_and_actions_give_same_state_hashes(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    a = await play_match(client, backend.bot_driver_token(), mode="race", seats=["random", "random"], seed=11, match_id="det-a")
    b = await play_match(client, backend.bot_driver_token(), mode="race", seats=["random", "random"], seed=11, match_id="det-b")
    c = await play_match(client, backend.bot_driver_token(), mode="race", seats=["random", "random"], seed=12, match_id="det-c")
    assert a.state_hashes == b.state_hashes
    assert a.state_hashes != c.state_hashes
    await client.close()
