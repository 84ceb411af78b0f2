"""Reading a match's export from the rules service's ExportMatchChunks stream, once for its
three readers: the tournament director (sealing a round), the gateway (a replay) and
``neon export`` (a file).

The stream's first message announces the export's final chain hash, its event count and its
size in bytes; the chunks, in order, are the file. :func:`read_export_chunks` hands each chunk
to the reader's ``write`` (a list to join, a file) and checks that the chunks add up to the
announced size: a stream cut short, one that runs longer than it announced, or one with no
first message is :class:`BrokenExport`, never a short or padded file. Every reader then
checks, with :func:`check_closing`, that the export's closing line, its signed checkpoint,
names the final hash and the event count announced: a stream whose bytes add up but whose
export ends in another chain hash or count than announced is :class:`BrokenExport` too.
What the reader does with the bytes beyond that (verify them, replay them) is its own
business.

A rules service from before ExportMatchChunks answers it UNIMPLEMENTED on the first read,
before any chunk: each reader then asks ExportMatch, in its own way, and checks its answer
with :func:`check_answer`: the answer's export must close with the final hash and event
count the answer names beside it, as a stream's must close with those it announced.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

CHUNK_BYTES = 1024 * 1024
"""The most bytes one message of an export stream carries (a match's ExportMatchChunks, a
tournament's ExportTournamentChunks): far below any client's receive limit (gRPC's default
is 4 MiB), so an export of any length reaches every client."""

CHECKPOINT = "Checkpoint"
"""The ``type`` of an export's closing line (services/rules/export.py)."""
MAX_CLOSING_LINE = 64 * 1024
"""The most bytes of an export's end, before any blank lines, :func:`check_closing` reads. A
checkpoint line is a few hundred bytes (a match id of at most 64 characters, a game id, the
count, the final hash, the public key and the signature, as canonical JSON); a last line
this long or longer (blank lines after it aside) is none."""
SHOWN = 80
"""The most characters of a checkpoint's value a reason quotes."""


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


def check_closing(export: bytes | bytearray | memoryview | BinaryIO, head: ExportHead,
                  said_by: str = "the stream announced") -> None:
    """That the export's closing line, its signed checkpoint, names the final hash and the
    event count the stream announced in ``head`` (readers report, seal or keep the announced
    head: it must be the export's own); :class:`BrokenExport` otherwise: no closing
    checkpoint (an export cut before it, an empty one, garbage), or one naming another hash
    or count (or not as a string and an integer).

    ``export`` is the export's bytes, or a seekable binary file holding it (as ``neon
    export`` writes it in chunks): either way only its end is read, never the whole: any
    blank lines there, then at most :data:`MAX_CLOSING_LINE` bytes before them. Lines and
    blank lines are read as ``parse_export`` reads them (LF, CRLF or CR; a blank line is
    whitespace only, allowed after the checkpoint however many). The signature is not
    checked here (``neon verify`` and the gateway's replay do, with the chain). ``said_by``:
    who named ``head``, in the reason."""
    checkpoint = _closing_checkpoint(_last_line(export, MAX_CLOSING_LINE))
    said = (checkpoint.get("final_hash"), checkpoint.get("event_count"))
    if not (isinstance(said[0], str) and type(said[1]) is int
            and said == (head.final_hash, head.event_count)):
        raise BrokenExport(
            f"{said_by} final hash {_shown(head.final_hash)} and "
            f"{head.event_count} events, the export's checkpoint {_shown(said[0])} and "
            f"{_shown(said[1])}")


ENVELOPE_BYTES = 1024
"""Room in an ExportMatch answer for its fields besides the export (the final hash, the
event count, their tags: under 100 bytes): a reader's receive limit for that answer is its
export limit plus this."""

_LARGER_THAN_MAX = re.compile(r"larger than max \((\d+) vs\. (\d+)\)")
"""gRPC's own words when an answer passes the call's receive limit."""


def refused_size(details: str) -> int | None:
    """The size of an answer gRPC refused past the call's receive limit (RESOURCE_EXHAUSTED,
    in its own words: "... larger than max (N vs. M)"), from the status ``details``; None
    when they say no such thing."""
    found = _LARGER_THAN_MAX.search(details)
    return int(found[1]) if found else None


def check_answer(reply: Any, limit: int | None = None) -> tuple[bytes, ExportHead]:
    """An ExportMatch answer (``export_jsonl``, ``final_hash``, ``event_count``: a rules
    service of an earlier release's, asked when ExportMatchChunks is UNIMPLEMENTED) checked
    as a stream's export is: :class:`ExportTooLarge` when its export is past ``limit`` (as
    :func:`read_export_chunks` refuses a stream announcing as much), and by
    :func:`check_closing`: its export's closing checkpoint must name the final hash and
    event count the answer names. Its export's bytes and that head; :class:`BrokenExport`
    otherwise (an export cut short, empty, or closing on another hash or count), never an
    export taken as it came."""
    if limit is not None and len(reply.export_jsonl) > limit:
        raise ExportTooLarge(len(reply.export_jsonl), limit)
    data = bytes(reply.export_jsonl)
    head = ExportHead(str(reply.final_hash), int(reply.event_count), len(data))
    check_closing(data, head, "the ExportMatch answer named")
    return data, head


def _reader(export: bytes | bytearray | memoryview | BinaryIO
            ) -> tuple[Callable[[int, int], bytes], int]:
    """A function reading bytes ``[start, stop)`` of ``export`` (bytes or a seekable binary
    file), and its length."""
    if isinstance(export, (bytes, bytearray, memoryview)):
        view = memoryview(export)
        return (lambda start, stop: bytes(view[start:stop])), len(view)

    def read(start: int, stop: int) -> bytes:
        export.seek(start, os.SEEK_SET)
        out = io.BytesIO()
        while out.tell() < stop - start:
            part = export.read(stop - start - out.tell())
            if not part:
                break
            out.write(part)
        return out.getvalue()

    return read, export.seek(0, os.SEEK_END)


_BREAKS = (b"\n", b"\r")
"""What breaks lines for parse_export (``bytes.splitlines``: LF, CRLF, CR)."""


def _last_line(export: bytes | bytearray | memoryview | BinaryIO, size: int) -> bytes:
    """The export's last line that is not blank, as parse_export reads lines (broken at LF,
    CRLF or CR; blank: whitespace only, skipped however many). Read from the end: the blank
    lines, then at most ``size`` bytes before them; b"" when every line is blank;
    :class:`BrokenExport` when that line is ``size`` bytes or longer (no checkpoint is)."""
    read, end = _reader(export)
    while True:  # past the blank lines, ``size`` bytes at a time
        if end == 0:
            return b""
        start = max(0, end - size)
        chunk = read(start, end)
        kept = len(chunk.rstrip())
        if kept:
            break
        end = start
    stop = start + kept  # just past the line's last byte that is not whitespace
    ends = [i for i in (chunk.find(b, kept) for b in _BREAKS) if i >= 0]
    tail = chunk[:min(ends, default=len(chunk))]  # the line with its own trailing whitespace
    floor = max(0, stop - size)  # the line's start must be at or after this
    if start > floor and max(tail.rfind(b) for b in _BREAKS) < 0:
        tail, start = read(floor, start) + tail, floor
    cut = max(tail.rfind(b, 0, stop - start) for b in _BREAKS)
    if cut < 0 and start > 0:
        raise BrokenExport(f"the export's last line is longer than any checkpoint "
                           f"({size:,} bytes or more)")
    return tail[cut + 1:]


def _closing_checkpoint(line: bytes) -> dict[str, Any]:
    """The checkpoint that ``line``, an export's last line, holds; :class:`BrokenExport`
    when it holds anything else."""
    try:
        checkpoint = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested too deeply
        checkpoint = None
    if not isinstance(checkpoint, dict) or checkpoint.get("type") != CHECKPOINT:
        raise BrokenExport("the export does not end with its checkpoint")
    return checkpoint


def _shown(value: object) -> str:
    """``value`` as a reason quotes it: its repr, at most :data:`SHOWN` characters."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def _cancel(call: object) -> None:
    cancel = getattr(call, "cancel", None)
    if callable(cancel):
        cancel()
