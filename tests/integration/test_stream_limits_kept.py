"""The event stream's limits an operator set by hand (``nats stream edit``) stay when a
service starts again (``bus.ensure_stream``), while what the services need of the stream
(its subjects, duplicate window) is set again (real NATS JetStream)."""

from __future__ import annotations

import dataclasses
import os
import uuid
from typing import Any

from nats.js.api import DiscardPolicy

from services.platform import bus


async def test_limits_set_by_hand_stay_and_what_the_services_need_comes_back(
        nats_client: Any) -> None:
    namespace = f"{os.environ.get('NEON_NAMESPACE') or 'tests'}-limits-{uuid.uuid4().hex[:6]}"
    js = nats_client.jetstream()
    name = bus.stream_name(namespace)
    try:
        await bus.ensure_stream(js, replicas=1, namespace=namespace)
        made = (await js.stream_info(name)).config
        assert not made.max_age and made.max_bytes in (None, -1)  # the services set none
        by_hand = dataclasses.replace(made, max_age=7 * 24 * 3600.0, max_bytes=10**9,
                                      max_msgs=5_000_000, discard=DiscardPolicy.OLD,
                                      duplicate_window=60.0)  # and one thing it must not
        await js.update_stream(by_hand)

        await bus.ensure_stream(js, replicas=1, namespace=namespace)  # a service starts
        after = (await js.stream_info(name)).config
        assert (after.max_age, after.max_bytes, after.max_msgs) == (7 * 24 * 3600.0, 10**9,
                                                                    5_000_000)
        assert after.duplicate_window == bus.DUPLICATE_WINDOW  # the outbox's dedup: set again
        assert after.subjects == [f"{bus.subject_prefix(namespace)}.>"]
        identity = bus.stream_identity(await js.stream_info(name))
        await bus.ensure_stream(js, replicas=1, namespace=namespace)  # unchanged: the same one
        assert bus.stream_identity(await js.stream_info(name)) == identity
    finally:
        await js.delete_stream(name)
