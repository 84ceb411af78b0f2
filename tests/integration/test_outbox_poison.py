"""A message NATS would never take does not hold back the events after it.

Ids are checked where they come in (a ticket id ending in a newline once made a subject
NATS refused, and the relay retried that event for ever, publishing nothing after it).
Should one get into a store anyway, or a message grow over the server's max_payload, the
relay logs it as an error, passes over it and publishes the rest, in order.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from services.platform import bus
from services.platform.bus import MAX_PAYLOAD, OutboxRelay, unpublishable
from tests.integration.test_outbox_and_audit import published


class Note(Aggregate):
    @event("Written")
    def __init__(self, token: str, size: int = 0) -> None:
        self.token, self.size = token, size


class Notes(Application):
    pass


@pytest.mark.parametrize("subject,size,refused", [
    ("neon.events.a.b", 10, False),
    ("neon.events.a\n", 10, True),
    ("neon.events.a b", 10, True),
    ("neon.events..b", 10, True),
    ("neon.events.*", 10, True),
    ("neon.events.>", 10, True),
    ("neon.events.*.b", 10, True),
    ("neon.events.", 10, True),
    ("", 10, True),
    ("neon.events.*a.b>", 10, False),
    ("neon.events.a", MAX_PAYLOAD, False),
    ("neon.events.a", MAX_PAYLOAD + 1, True),
])
def test_unpublishable_names_what_nats_refuses(subject: str, size: int, refused: bool) -> None:
    assert (unpublishable(subject, b"x" * size) is not None) is refused


async def test_the_relay_passes_over_a_message_nats_refuses_and_publishes_the_rest(
    nats_client: Any,
) -> None:
    run = f"poison-{uuid.uuid4().hex[:8]}"
    app = Notes()
    for token, size in (("first", 0), ("bad token", 0), ("big", 2 * MAX_PAYLOAD), ("last", 0)):
        app.save(Note(token, size))

    def project(domain_event: Any) -> list[tuple[str, dict[str, Any]]]:
        if not isinstance(domain_event, Note.Written):
            return []
        return [(f"{bus.subject_prefix()}.{run}.{domain_event.token}",
                 {"token": domain_event.token, "pad": "x" * domain_event.size})]

    relay = OutboxRelay(app, run, nats_client.jetstream(), project, interval=0.01)
    await relay.start()
    try:
        await relay.drain()
        assert relay.dropped == {(2, 0), (3, 0)}
        assert relay.position == app.recorder.max_notification_id()
    finally:
        await relay.stop()
    messages = await published(nats_client, f"{bus.subject_prefix()}.{run}.>", 2)
    assert [m.subject.rsplit(".", 1)[-1] for m in messages] == ["first", "last"]


async def test_a_stop_while_a_batch_is_out_ends_the_relay_at_once(nats_client: Any) -> None:
    """A stop that came while the relay published (or asked whether it leads) set its wake-up
    before the relay's idle wait cleared it: the relay then slept its whole idle time (20
    intervals) and a service's stop waited for it, timing out (a second of every second
    test's teardown, a service's SIGTERM)."""
    import asyncio
    import time

    run = f"stop-{uuid.uuid4().hex[:8]}"
    app = Notes()
    app.save(Note("first"))
    relay = OutboxRelay(app, run, nats_client.jetstream(), lambda e: [], interval=0.5)
    await relay.start()
    await relay.drain()
    publishing = asyncio.Event()
    real = relay.publish_pending

    async def slow() -> int:  # the stop comes while a batch is out
        publishing.set()
        await asyncio.sleep(0.2)
        return await real()

    relay.publish_pending = slow  # type: ignore[method-assign]
    relay._wake.set()
    await asyncio.wait_for(publishing.wait(), 5)
    started = time.monotonic()
    await relay.stop()
    took = time.monotonic() - started
    assert took < 1.0, f"the relay's stop took {took:.2f} s (its idle wait is 10 s)"
