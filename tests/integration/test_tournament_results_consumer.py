"""The tournament's results consumer over real NATS JetStream when its JetStream consumer goes
away: removed by the server after ``inactive_threshold`` (a tournament service idle for two
weeks), or with its stream (deleted and made again). Fetching from a consumer that is gone
only times out, so without a check the service would never record another result and every
round would wait for ever.

The Director is a stand-in recording what it is handed (the consumer's NATS side is under
test; test_tournament_* cover the director); each test has a namespace of its own, so deleting
its stream disturbs no other test.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from eventsourcing.application import Application

from services.platform import bus
from services.rules.results import sign_result
from services.tournament.results import ResultConsumer
from tests.integration.test_scoring import RULES_KEY, RULES_PUBLIC


class Recorder:
    """Stands in for the Director: its store (for the consumer's name) and the results."""

    def __init__(self) -> None:
        self.app = Application()
        self.results: list[str] = []

    async def record_signed_result(self, result: dict[str, Any], signed: dict[str, Any]) -> str:
        match_id = str(result["match_id"])
        if match_id in self.results:
            return "duplicate"
        self.results.append(match_id)
        return "recorded"


class Place:
    def __init__(self, js: Any, namespace: str) -> None:
        self.js, self.namespace = js, namespace
        self.stream = bus.stream_name(namespace)

    async def publish(self, match_id: str, msg_id: str | None = None) -> None:
        result = {"game": "toy", "type": "MatchEnded", "match_id": match_id, "n": 9, "hash": "0" * 64,
                  "players": ["ann", "bob"], "mode": "duel",
                  "outcome": {"placements": [1, 2], "scores": [2, 1], "reason": "won"}}
        subject = bus.events_subject(self.namespace, "results", "toy", match_id)
        await self.js.publish(subject, json.dumps(sign_result(result, RULES_KEY)).encode(),
                              stream=self.stream,
                              headers={"Nats-Msg-Id": msg_id or f"rules-toy:s:{uuid.uuid4().hex}"})


@pytest.fixture
async def place(nats_client: Any) -> AsyncIterator[Place]:
    namespace = f"tr{uuid.uuid4().hex[:10]}"
    js = nats_client.jetstream()
    await bus.ensure_stream(js, namespace=namespace)
    try:
        yield Place(js, namespace)
    finally:
        try:
            await js.delete_stream(bus.stream_name(namespace))
        except Exception:  # already gone
            pass


async def recorded(director: Recorder, count: int, timeout: float = 15) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(director.results) < count and loop.time() < deadline:
        await asyncio.sleep(0.05)
    assert len(director.results) >= count, f"only {director.results} after {timeout}s"


async def test_a_consumer_the_server_removed_is_made_again(
        place: Place, capsys: pytest.CaptureFixture[str]) -> None:
    director = Recorder()
    consumer = ResultConsumer(director, place.js, [RULES_PUBLIC], place.namespace,  # type: ignore[arg-type]
                              check_interval=0.3)
    await consumer.start()
    try:
        await place.publish("t1-r1-t1")
        await recorded(director, 1)
        # what the server does once the consumer has been idle for its inactive_threshold
        await place.js.delete_consumer(place.stream, consumer.durable)
        await place.publish("t1-r1-t2")
        await recorded(director, 2)
        assert director.results == ["t1-r1-t1", "t1-r1-t2"]
        assert consumer.stats.duplicates == 0, "made again where it stood, not from the start"
    finally:
        await consumer.stop()
    lines = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    assert any("consumer" in x["event"] and "gone" in x["event"] and x["level"] == "warning"
               for x in lines), lines


async def test_a_stream_made_again_is_read_from_its_first_result(place: Place) -> None:
    director = Recorder()
    consumer = ResultConsumer(director, place.js, [RULES_PUBLIC], place.namespace,  # type: ignore[arg-type]
                              check_interval=0.3)
    await consumer.start()
    try:
        await place.publish("t2-r1-t1")
        await recorded(director, 1)
        await place.js.delete_stream(place.stream)
        await bus.ensure_stream(place.js, namespace=place.namespace)
        await place.publish("t2-r1-t2")
        await recorded(director, 2)
        # a result published twice under two ids (a relay's re-publish after its duplicate
        # window) is a duplicate, recorded once
        await place.publish("t2-r1-t2")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while consumer.stats.duplicates < 1 and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert director.results == ["t2-r1-t1", "t2-r1-t2"]
        assert consumer.stats.duplicates == 1
    finally:
        await consumer.stop()


class Restored(Recorder):
    """A stand-in Director whose store can lose results (restored from a backup) and says
    which matches its driven rounds still wait for, as Director.awaiting_results does."""

    def __init__(self) -> None:
        super().__init__()
        self.awaiting: list[tuple[str, str]] = []

    async def awaiting_results(self) -> list[tuple[str, str]]:
        return [(g, m) for g, m in self.awaiting if m not in self.results]


async def test_a_result_the_consumer_acked_but_the_store_lost_is_found_on_the_stream(
        place: Place) -> None:
    """A tournament store restored from a backup keeps its identity, so its durable consumer,
    which had acked results the store no longer holds: they are never delivered again, and
    their round would wait for ever. The consumer looks for the result of each match a round
    still waits for on the stream, by its subject, and records it; a match with no result on
    the stream yet is left waiting."""
    director = Restored()
    consumer = ResultConsumer(director, place.js, [RULES_PUBLIC], place.namespace,  # type: ignore[arg-type]
                              check_interval=0.3, sweep_interval=0.3)
    await consumer.start()
    try:
        await place.publish("t3-r1-t1")
        await recorded(director, 1)
        # the backup: the result is gone from the store, the consumer acked it long ago
        director.results.clear()
        director.awaiting = [("toy", "t3-r1-t1"), ("toy", "t3-r1-t2")]
        await recorded(director, 1)
        assert director.results == ["t3-r1-t1"]
        assert consumer.stats.recorded == 2  # once delivered, once found again
        await asyncio.sleep(1.0)  # more sweeps: nothing for t3-r1-t2, nothing twice
        assert director.results == ["t3-r1-t1"]
        await place.publish("t3-r1-t2")  # delivered as usual
        await recorded(director, 2)
        assert consumer.stats.refused == 0 and consumer.stats.errors == 0
    finally:
        await consumer.stop()


async def test_without_the_sweep_the_lost_result_would_wait_for_ever(place: Place) -> None:
    """The control: the durable consumer alone never delivers an acked result again."""
    director = Restored()
    consumer = ResultConsumer(director, place.js, [RULES_PUBLIC], place.namespace,  # type: ignore[arg-type]
                              check_interval=0.3, sweep_interval=3600)
    await consumer.start()
    try:
        await place.publish("t4-r1-t1")
        await recorded(director, 1)
        await consumer.sweep()  # the first look, at the first idle fetch
        director.results.clear()
        director.awaiting = [("toy", "t4-r1-t1")]
        await asyncio.sleep(2.0)
        assert director.results == []
        assert await consumer.sweep(force=True) == 1 and director.results == ["t4-r1-t1"]
    finally:
        await consumer.stop()
