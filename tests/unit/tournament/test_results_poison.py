"""The tournament's results consumer ignores what is not a signed result, whatever the bytes:
a message nested past the JSON parser's recursion limit is ignored (and so acked), not an
error naked and redelivered every second for ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.tournament.results import ResultConsumer


@pytest.mark.parametrize("data", [b"[" * 100_000, b"{\"a\":" * 100_000, b"\xff\xfe", b"", b"null"],
                         ids=["deep list", "deep object", "not utf-8", "empty", "null"])
def test_what_is_not_a_signed_result_is_ignored(data: bytes) -> None:
    consumer = ResultConsumer(director=Any, js=Any, trusted_keys=())  # type: ignore[arg-type]
    assert asyncio.run(consumer.handle(data)) == "ignored"
    assert (consumer.stats.ignored, consumer.stats.errors) == (1, 0)
