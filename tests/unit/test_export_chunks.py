"""The one reader of an ExportMatchChunks stream (services/platform/export_chunks.py) that the
tournament director, the gateway's replay and ``neon export`` share: the chunks must make up
exactly what the first message announced, whatever the stream sends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.platform.export_chunks import (
    BrokenExport,
    ExportHead,
    ExportTooLarge,
    read_export_chunks,
)

DATA = bytes(range(256)) * 40  # 10,240 bytes


@dataclass
class Message:
    chunk: bytes
    final_hash: str = ""
    event_count: int = 0
    total_bytes: int = 0


class Stream:
    """A stream of ``messages``, as a gRPC call: iterated, maybe cancelled."""

    def __init__(self, messages: list[Message]) -> None:
        self.messages, self.cancelled, self.read = messages, False, 0

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._each()

    async def _each(self) -> AsyncIterator[Message]:
        for m in self.messages:
            if self.cancelled:
                return
            self.read += 1
            yield m

    def cancel(self) -> None:
        self.cancelled = True


def chunked(data: bytes, size: int = 1024, total: int | None = None) -> list[Message]:
    parts = [Message(data[i:i + size]) for i in range(0, max(len(data), 1), size)]
    first = parts[0]
    first.final_hash, first.event_count = "f" * 64, 12
    first.total_bytes = len(data) if total is None else total
    return parts


async def read(messages: list[Message], limit: int | None = None
               ) -> tuple[ExportHead, bytes, Stream]:
    stream, parts = Stream(messages), []
    head = await read_export_chunks(stream, parts.append, limit)
    return head, b"".join(parts), stream


async def test_the_chunks_in_order_are_the_export_and_the_head_is_the_first_messages() -> None:
    head, data, _ = await read(chunked(DATA))
    assert data == DATA
    assert head == ExportHead("f" * 64, 12, len(DATA))
    head, data, _ = await read(chunked(b""))  # one empty chunk: an empty file
    assert data == b"" and head.total_bytes == 0


@pytest.mark.parametrize("case", ["a chunk missing", "the last chunk missing", "no message",
                                  "a chunk too many", "a chunk doubled", "a negative size"])
async def test_chunks_that_do_not_make_up_the_announced_export_are_broken(case: str) -> None:
    messages = chunked(DATA)
    if case == "a chunk missing":
        del messages[4]
    elif case == "the last chunk missing":
        del messages[-1]
    elif case == "no message":
        messages = []
    elif case == "a chunk too many":
        messages.append(Message(b"x"))
    elif case == "a chunk doubled":
        messages.insert(3, messages[3])
    else:
        messages[0].total_bytes = -1
    with pytest.raises(BrokenExport):
        await read(messages)


async def test_a_stream_running_past_its_size_is_cancelled_at_once() -> None:
    messages = chunked(DATA, total=2048) + [Message(b"y" * 1024)] * 50
    stream, parts = Stream(messages), []
    with pytest.raises(BrokenExport, match="run past the 2,048 bytes announced"):
        await read_export_chunks(stream, parts.append)
    assert stream.cancelled and stream.read == 3
    assert sum(map(len, parts)) == 2048  # nothing past the announced size was written


async def test_an_export_past_the_limit_is_refused_before_its_chunks_are_read() -> None:
    stream, parts = Stream(chunked(DATA)), []
    with pytest.raises(ExportTooLarge) as refused:
        await read_export_chunks(stream, parts.append, limit=len(DATA) - 1)
    assert (refused.value.total, refused.value.limit) == (len(DATA), len(DATA) - 1)
    assert stream.cancelled and parts == []
    head, data, _ = await read(chunked(DATA), limit=len(DATA))  # at the limit: taken
    assert data == DATA
