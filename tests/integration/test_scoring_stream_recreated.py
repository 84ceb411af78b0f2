"""Disaster recovery: the NATS stream is deleted and made again (JetStream data lost, a new
NATS) while the scoring store survives. The new stream's sequences start again at 1, below
the position the scoring ledger holds: every result on it must still be scored.

Each test has a namespace of its own (its stream ``<ns>_NEON_EVENTS``), so deleting the
stream disturbs no other test sharing this NATS.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from services.platform import bus
from services.platform.settings import Settings
from services.rules.results import sign_result
from tests.integration.test_scoring import RULES_KEY, Scoring, ended, new_game, scoring_settings


@dataclasses.dataclass
class Place:
    """A namespace of this test's own on the shared NATS."""

    namespace: str
    settings: Settings
    game: str
    js: Any
    made: list[Scoring]

    @property
    def stream(self) -> str:
        return bus.stream_name(self.namespace)

    def scoring(self, **options: Any) -> Scoring:
        subject = f"{bus.subject_prefix(self.namespace)}.results.{self.game}.>"
        made = Scoring(self.settings, self.game, filter_subject=subject, **options)
        self.made.append(made)
        return made

    async def publish(self, payload: dict[str, Any], *, signed: bool = True) -> None:
        subject = f"{bus.subject_prefix(self.namespace)}.results.{self.game}.{payload['match_id']}"
        body = sign_result(payload, RULES_KEY) if signed else payload
        await self.js.publish(subject, json.dumps(body).encode(), stream=self.stream,
                              headers={"Nats-Msg-Id": f"rules-{self.game}:s:{uuid.uuid4().hex}"})

    async def recreate_stream(self) -> None:
        """Delete the stream (its consumers go with it) and make it again, empty."""
        await self.js.delete_stream(self.stream)
        await bus.ensure_stream(self.js, namespace=self.namespace)

    def scored(self, scoring: Scoring) -> set[str]:
        scoring.app.board.catch_up()
        return {m for (g, m) in scoring.app.board.results if g == self.game}


@pytest.fixture
async def place(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest,
                nats_client: Any) -> AsyncIterator[Place]:
    namespace = f"sr{uuid.uuid4().hex[:10]}"
    settings = dataclasses.replace(scoring_settings(tmp_path, nats_url, request), namespace=namespace)
    js = nats_client.jetstream()
    await bus.ensure_stream(js, namespace=namespace)
    made: list[Scoring] = []
    try:
        yield Place(namespace, settings, new_game(), js, made)
    finally:
        for scoring in made:
            await scoring.stop()
        try:
            await js.delete_stream(bus.stream_name(namespace))
        except Exception:  # already gone
            pass


def duels(game: str, prefix: str, count: int) -> list[dict[str, Any]]:
    return [ended(game, f"{prefix}-{i}", ["ann", "bob"] if i % 2 else ["bob", "cid"], [1, 2])
            for i in range(count)]



async def _at(scoring: Scoring, position: int, timeout: float = 45) -> None:
    """Until scoring's consumer stands at ``position`` (a result is stored before its message
    is acked and the position moves: right after :meth:`Scoring.wait_for` it may still lag)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while scoring.consumer.position != position and loop.time() < deadline:
        await asyncio.sleep(0.05)
    assert scoring.consumer.position == position

async def test_a_recreated_stream_is_scored_from_its_first_result(
        place: Place, capsys: pytest.CaptureFixture[str]) -> None:
    """Scoring stopped, the stream deleted and made again, fewer results published on it than
    the old position: started again on the same store, scoring scores every one of them."""
    old = duels(place.game, "old", 6)
    for payload in old:
        # other match events on the subjects (skipped, acked) move the position on
        for _ in range(3):
            await place.publish({**payload, "type": "MatchStarted"}, signed=False)
        await place.publish(payload)
    first = await place.scoring().start()
    await first.wait_for(len(old))
    # the position moves on just after the result is stored (and the board counts it)
    for _ in range(100):
        if first.consumer.position == 4 * len(old):
            break
        await asyncio.sleep(0.02)
    position = first.consumer.position
    assert position == 4 * len(old)
    await first.stop()

    # A plain restart (the stream's configuration updated on the way) keeps the position.
    again = await place.scoring().start()
    assert again.consumer.position == position and again.consumer.stats.recovered == 0
    await again.stop()
    assert "read again" not in capsys.readouterr().err.replace("reading it again", "read again")

    await place.recreate_stream()
    new = duels(place.game, "new", 3)
    for payload in new:
        await place.publish(payload)
    assert len(new) < position  # every new result is at or below the old position

    second = await place.scoring().start()
    await second.wait_for(len(old) + len(new), timeout=45)
    assert place.scored(second) == {p["match_id"] for p in old + new}
    await _counted(second, len(new))
    await _at(second, len(new))
    warnings = [json.loads(line) for line in capsys.readouterr().err.splitlines()
                if line.startswith("{") and '"warning"' in line]
    assert any("reading it again" in w["event"] and "made again" in w["reason"] for w in warnings)


async def test_a_consumer_left_on_the_new_stream_at_the_old_position_is_made_again(
        place: Place) -> None:
    """The stream made again and our durable made on it from the old position (as scoring
    did before it named streams, acking what lay below unscored): start-up remakes it."""
    old = duels(place.game, "old", 8)
    for payload in old:
        await place.publish(payload)
    first = await place.scoring().start()
    await first.wait_for(len(old))
    durable, position = first.consumer.durable, first.consumer.position
    await first.stop()

    await place.recreate_stream()
    new = duels(place.game, "new", 3)
    for payload in new:
        await place.publish(payload)
    await place.js.add_consumer(place.stream, ConsumerConfig(
        durable_name=durable, name=durable, ack_policy=AckPolicy.EXPLICIT,
        filter_subject=f"{bus.subject_prefix(place.namespace)}.results.{place.game}.>",
        deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=position + 1))

    second = await place.scoring().start()
    await second.wait_for(len(old) + len(new), timeout=45)
    await _counted(second, len(new))
    info = await place.js.consumer_info(place.stream, durable)
    assert info.config.deliver_policy == DeliverPolicy.ALL


async def _counted(scoring: Any, count: int) -> None:
    """The consumer counts a result scored just after its store holds it (which ``wait_for``
    sees): wait the moment, then its count is exactly ``count``, no result scored twice."""
    for _ in range(100):
        if scoring.consumer.stats.scored >= count:
            break
        await asyncio.sleep(0.02)
    assert scoring.consumer.stats.scored == count


async def test_a_running_scoring_follows_the_stream_made_again(place: Place) -> None:
    """The stream deleted and made again while scoring runs: its consumer went with the stream
    (fetching from it only times out), so scoring notices, makes it again on the new stream
    and scores the new stream from its first result."""
    old = duels(place.game, "old", 6)
    for payload in old:
        await place.publish(payload)
    scoring = await place.scoring(check_interval=0.3).start()
    await scoring.wait_for(len(old))
    await place.recreate_stream()
    new = duels(place.game, "new", 3)
    for payload in new:
        await place.publish(payload)
    await scoring.wait_for(len(old) + len(new), timeout=45)
    await _counted(scoring, len(old) + len(new))
    more = duels(place.game, "more", 2)
    for payload in more:
        await place.publish(payload)
    await scoring.wait_for(len(old) + len(new) + len(more), timeout=45)
    await _at(scoring, len(new) + len(more))


async def test_a_replica_that_missed_the_new_stream_acks_nothing_unscored(place: Place) -> None:
    """Two instances on one store share one durable. One restarts after the stream was made
    again and makes the durable on it; the other, still running with the old position (and
    not due to check), is delivered the new stream's first results, all at or below its
    position: it must find its place again, not ack them unscored."""
    old = duels(place.game, "old", 6)
    for payload in old:
        await place.publish(payload)
    stale = await place.scoring(check_interval=3600).start()
    await stale.wait_for(len(old))
    await _at(stale, len(old))

    await place.recreate_stream()
    fresh = await place.scoring().start()  # follows the new stream, makes the durable on it
    assert fresh.consumer.durable == stale.consumer.durable
    new_stream = fresh.consumer.stream_id
    assert new_stream != stale.consumer.stream_id
    await fresh.stop()

    new = duels(place.game, "new", 3)
    for payload in new:
        await place.publish(payload)
    await stale.wait_for(len(old) + len(new), timeout=45)
    await _counted(stale, len(old) + len(new))
    assert stale.consumer.stream_id == new_stream


async def test_results_purged_before_scoring_read_them_are_named_in_a_warning(
        place: Place, capsys: pytest.CaptureFixture[str]) -> None:
    """A gap: the stream's first sequence moved past scoring's position (purged, or limits an
    operator set on it) while scoring was down. It scores what the stream still holds and
    says which sequences it never read, and how to have them published again."""
    old = duels(place.game, "old", 4)
    for payload in old:
        await place.publish(payload)
    first = await place.scoring().start()
    await first.wait_for(len(old))
    await first.stop()
    for payload in duels(place.game, "lost", 3):
        await place.publish(payload)
    await place.js.purge_stream(place.stream)
    new = duels(place.game, "new", 2)
    for payload in new:
        await place.publish(payload)

    second = await place.scoring().start()
    await second.wait_for(len(old) + len(new), timeout=45)
    assert place.scored(second) == {p["match_id"] for p in old + new}
    warnings = [json.loads(line) for line in capsys.readouterr().err.splitlines()
                if line.startswith("{") and '"warning"' in line]
    gaps = [w for w in warnings if "never" in w["event"]]
    assert len(gaps) == 1, warnings
    assert (gaps[0]["after"], gaps[0]["first_seq"]) == (len(old), len(old) + 4)
    assert bus.positions_bucket(place.namespace) in gaps[0]["event"] + json.dumps(gaps[0])


async def test_a_consumer_removed_for_inactivity_is_made_again_where_scoring_stood(
        place: Place) -> None:
    """NATS removes a consumer idle for its inactive_threshold (14 days): fetching from it
    only times out. Scoring notices at its next check and makes it again after its ledger's
    position: the new results are scored, none twice."""
    old = duels(place.game, "old", 3)
    for payload in old:
        await place.publish(payload)
    scoring = await place.scoring(check_interval=0.3).start()
    await scoring.wait_for(len(old))
    await place.js.delete_consumer(place.stream, scoring.consumer.durable)
    new = duels(place.game, "new", 2)
    for payload in new:
        await place.publish(payload)
    await scoring.wait_for(len(old) + len(new), timeout=45)
    await _counted(scoring, len(old) + len(new))
    assert scoring.consumer.stats.duplicates == 0
