"""Reading a match's export from the rules service's ExportMatchChunks stream, once for its
three readers: the tournament director (sealing a round), the gateway (a replay) and
``neon export`` (a file).

The stream's first message announces the export's final chain hash, its event count and its
size in bytes; the chunks, in order, are the file. :func:`read_export_chunks` hands each chunk
to the reader's ``write`` (a list to join, a file) and checks that the chunks add up to the
announced size: a stream cut short, one that runs longer than it announced, or one with no
first message is :class:`BrokenExport`, never a short or padded file. What the reader does
with the bytes (and whether it checks them further) is its own business.

A rules service from before ExportMatchChunks answers it UNIMPLEMENTED on the first read,
before any chunk: each reader then asks ExportMatch, in its own way.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass
from typing import Any


class BrokenExport(Exception):
    """The stream's chunks do not make up the export it announced."""


class ExportTooLarge(Exception):
    """The stream announced an export larger than the reader takes (nothing more was read)."""

    def __init__(self, total: int, limit: int) -> None:
        super().__init__(f"the export is {total:,} bytes, more than {limit:,}")
        self.total, self.limit = total, limit


@dataclass(frozen=True)
class ExportHead:
    """What the first message of the stream announces."""

    final_hash: str
    event_count: int
    total_bytes: int


async def read_export_chunks(call: AsyncIterable[Any], write: Callable[[bytes], object],
                             limit: int | None = None) -> ExportHead:
    """Read an ExportMatchChunks ``call`` to its end, each chunk handed to ``write`` in
    order; the head its first message announced.

    :class:`ExportTooLarge` when the announced size is past ``limit``, and
    :class:`BrokenExport` when the chunks run past the announced size, stop short of it, or
    the stream ends with no message at all; the call is cancelled when it is left unread.
    gRPC errors of the call (UNIMPLEMENTED from an older rules service) reach the caller."""
    head: ExportHead | None = None
    size = 0
    async for message in call:
        if head is None:
            head = ExportHead(str(message.final_hash), int(message.event_count),
                              int(message.total_bytes))
            if limit is not None and head.total_bytes > limit:
                _cancel(call)
                raise ExportTooLarge(head.total_bytes, limit)
        size += len(message.chunk)
        if size > head.total_bytes:
            _cancel(call)
            raise BrokenExport(f"the chunks run past the {head.total_bytes:,} bytes announced")
        write(message.chunk)
    if head is None:
        raise BrokenExport("the stream ended before its first message")
    if size != head.total_bytes:
        raise BrokenExport(f"the stream ended after {size:,} of the {head.total_bytes:,} "
                           "bytes announced")
    return head


def _cancel(call: object) -> None:
    cancel = getattr(call, "cancel", None)
    if callable(cancel):
        cancel()
