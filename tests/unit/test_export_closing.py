"""The check every reader of an ExportMatchChunks stream makes once the bytes add up
(services/platform/export_chunks.py ``check_closing``): the export's closing line, its signed
checkpoint, names the final chain hash and the event count the stream's first message
announced. From the export's bytes, or from a file it was written to, reading only its tail.
And ``check_answer``, the same check of an ExportMatch answer (a rules service of an earlier
release's) against the final hash and event count the answer names beside its export."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.platform.export_chunks import (
    MAX_CLOSING_LINE,
    BrokenExport,
    ExportHead,
    ExportTooLarge,
    check_answer,
    check_closing,
    refused_size,
)
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from tests.support.broken_exports import broken_answer

KEY = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def export() -> bytes:
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                       7, KEY)


def head_of(data: bytes) -> ExportHead:
    """The head a rules service announces for ``data``: its checkpoint's hash and count."""
    _, checkpoint = parse_export(data)
    return ExportHead(checkpoint["final_hash"], checkpoint["event_count"], len(data))


class CountingFile(io.BytesIO):
    """A binary file that counts the bytes read from it."""

    read_bytes = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data


def both(data: bytes) -> list[bytes | io.BytesIO]:
    """``data`` as the bytes and as a file: the check takes either."""
    return [data, io.BytesIO(data)]


def test_an_export_whose_checkpoint_names_the_announced_head_passes(export: bytes) -> None:
    head = head_of(export)
    assert head.event_count > 3 and len(head.final_hash) == 64
    for source in both(export):
        check_closing(source, head)
    # the announced head is the export's last record's hash and its number of records
    records, _ = parse_export(export)
    assert (head.final_hash, head.event_count) == (records[-1]["hash"], len(records))


@pytest.mark.parametrize("change", ["another hash", "another count", "the count as text",
                                    "the count as true", "no count", "the hash a number"])
def test_a_checkpoint_naming_another_head_is_broken(export: bytes, change: str) -> None:
    good = head_of(export)
    head, data = good, export
    if change == "another hash":
        head = ExportHead("0" * 64, good.event_count, good.total_bytes)
    elif change == "another count":
        head = ExportHead(good.final_hash, good.event_count + 1, good.total_bytes)
    else:  # the export's checkpoint itself says it otherwise, or not as a number
        records, checkpoint = parse_export(export)
        if change == "the count as text":
            checkpoint["event_count"] = str(checkpoint["event_count"])
        elif change == "the count as true":  # True == 1 in Python: still not a count
            checkpoint["event_count"] = True
            head = ExportHead(good.final_hash, 1, good.total_bytes)
        elif change == "no count":
            del checkpoint["event_count"]
        else:
            checkpoint["final_hash"] = 7
        data = b"".join(json.dumps(r).encode() + b"\n" for r in [*records, checkpoint])
    for source in both(data):
        with pytest.raises(BrokenExport, match="the stream announced final hash") as refused:
            check_closing(source, head)
    assert "the export's checkpoint" in str(refused.value)


def test_the_reason_quotes_at_most_a_little_of_a_checkpoints_odd_values(export: bytes) -> None:
    records, checkpoint = parse_export(export)
    checkpoint["final_hash"] = "x" * 5000
    data = b"".join(json.dumps(r).encode() + b"\n" for r in [*records, checkpoint])
    with pytest.raises(BrokenExport) as refused:
        check_closing(data, head_of(export))
    assert len(str(refused.value)) < 400


def test_an_export_cut_before_its_checkpoint_is_broken(export: bytes) -> None:
    """The records up to the seal, with no closing line (the checkpoint left out, and the
    size announced for what came): the stream adds up but the export is not closed."""
    cut = export.rstrip(b"\n").rpartition(b"\n")[0] + b"\n"
    assert json.loads(cut.splitlines()[-1])["type"] == "MatchSealed"
    for source in both(cut):
        with pytest.raises(BrokenExport, match="does not end with its checkpoint"):
            check_closing(source, head_of(export))


def test_an_ended_match_not_yet_sealed_passes_when_its_checkpoint_agrees(export: bytes) -> None:
    """An ended match's export before its seal (MatchEnded, then the checkpoint) is closed:
    whether it is sealed is the verification's to say (the gateway's replay says "not
    sealed" for now), not the stream check's."""
    records, _ = parse_export(export)
    assert records[-1]["type"] == "MatchSealed"
    unsealed = build_export(records[0]["match_id"], records[0]["game"], records[:-1], KEY)
    head = head_of(unsealed)
    assert head.final_hash == records[-2]["hash"]
    for source in both(unsealed):
        check_closing(source, head)
    with pytest.raises(BrokenExport):  # the sealed export's head is not this one's
        check_closing(unsealed, head_of(export))


def test_an_empty_match_export_is_one_closing_line(export: bytes) -> None:
    empty = build_export("m0", "neon-reign", [], KEY)
    assert empty.count(b"\n") == 1
    for source in both(empty):
        check_closing(source, ExportHead("", 0, len(empty)))
    with pytest.raises(BrokenExport):
        check_closing(empty, ExportHead("", 1, len(empty)))


@pytest.mark.parametrize("garbage", [b"", b"\n", b"\n\n\n", b"not json\n", b"[1, 2]\n",
                                     b'{"type": "MatchSealed"}\n', b"\xff\xfe\x00garbage\n",
                                     b"[" * 50_000 + b"\n", b'"Checkpoint"\n', b"null\n"])
def test_garbage_is_broken_never_a_crash(export: bytes, garbage: bytes) -> None:
    head = head_of(export)
    after = [export + garbage, export.rstrip(b"\n") + garbage] if garbage.strip() else []
    for data in [garbage, *after]:
        for source in both(data):
            with pytest.raises(BrokenExport):
                check_closing(source, head)


def test_a_last_line_longer_than_any_checkpoint_is_broken(export: bytes) -> None:
    records, checkpoint = parse_export(export)
    checkpoint["padding"] = "p" * MAX_CLOSING_LINE
    data = b"".join(json.dumps(r).encode() + b"\n" for r in [*records, checkpoint])
    for source in both(data):
        with pytest.raises(BrokenExport, match="longer than"):
            check_closing(source, head_of(export))


def test_trailing_blank_lines_after_the_checkpoint_pass(export: bytes) -> None:
    for source in both(export + b"\n\n"):
        check_closing(source, head_of(export))


def test_a_file_is_checked_from_its_tail_without_reading_it_whole(
        export: bytes, tmp_path: Path) -> None:
    """A long export written to a file: the check reads at most MAX_CLOSING_LINE bytes of it,
    from its end (and leaves nothing of the file in memory)."""
    records, checkpoint = parse_export(export)
    filler = [json.dumps({**records[-1], "filler": "f" * 1000}).encode()] * 2000  # ~2 MB
    data = b"\n".join(filler + [json.dumps(checkpoint).encode()]) + b"\n"
    assert len(data) > 20 * MAX_CLOSING_LINE
    source = CountingFile(data)
    check_closing(source, head_of(export))
    assert 0 < source.read_bytes <= MAX_CLOSING_LINE
    # a real file, as neon export writes it
    path = tmp_path / "export.jsonl"
    path.write_bytes(data)
    with path.open("rb") as f:
        check_closing(f, head_of(export))
        with pytest.raises(BrokenExport):
            check_closing(f, ExportHead("0" * 64, 1, len(data)))


@pytest.mark.parametrize("ending", [b"  \n", b"\t\n", b" \r\n\t \r\n", b"   ", b"\x0b\n",
                                    b"\x0c\n", b"\n \n\n"])
def test_blank_lines_of_whitespace_after_the_checkpoint_pass(export: bytes,
                                                             ending: bytes) -> None:
    """A blank line is one of whitespace only, as parse_export (and so neon verify and the
    gateway's replay) reads it: the export still ends with its checkpoint."""
    data = export + ending
    parse_export(data)  # a correct export
    for source in both(data):
        check_closing(source, head_of(export))


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"])
def test_other_line_breaks_parse_export_reads_pass(export: bytes, newline: bytes) -> None:
    """CRLF (an export saved on Windows) and a lone CR break lines for parse_export too."""
    data = export.replace(b"\n", newline)
    assert parse_export(data)[1]["final_hash"] == head_of(export).final_hash
    for source in both(data):
        check_closing(source, head_of(export))
    for source in both(data + newline + b"  " + newline):
        check_closing(source, head_of(export))
    cut = newline.join(data.split(newline)[:-2]) + newline  # the checkpoint left out
    for source in both(cut):
        with pytest.raises(BrokenExport, match="does not end with its checkpoint"):
            check_closing(source, head_of(export))


def _long(export: bytes, blanks: bytes = b"", line: int | None = None) -> bytes:
    """``export`` made longer than MAX_CLOSING_LINE with records before its checkpoint (and
    the checkpoint line padded to ``line`` bytes), then ``blanks`` after it."""
    records, checkpoint = parse_export(export)
    filler = [json.dumps({**records[-1], "filler": "f" * 1000}).encode()] * 100
    closing = json.dumps(checkpoint).encode()
    if line is not None:
        closing = json.dumps({**checkpoint, "padding": ""}).encode()
        closing = json.dumps({**checkpoint, "padding": "p" * (line - len(closing))}).encode()
        assert len(closing) == line
    return b"\n".join(filler + [closing]) + b"\n" + blanks


@pytest.mark.parametrize("blanks", [
    b"\n" * (MAX_CLOSING_LINE + 10),  # blank lines past the bytes read
    b" \r\n" * MAX_CLOSING_LINE,
    b"\n" * (MAX_CLOSING_LINE - 400),  # the checkpoint line across the start of the window
    b"\n" * (MAX_CLOSING_LINE - 300),
])
def test_blank_lines_after_the_checkpoint_pass_however_many(export: bytes,
                                                            blanks: bytes) -> None:
    """parse_export skips blank lines however many: so does the check, and the checkpoint
    line is looked for before them (with only 64 KiB of the end read, blank lines pushed it
    out of what was read, or cut it, and a correct export was refused as "longer than any
    checkpoint")."""
    data = _long(export, blanks)
    assert len(data) > 2 * MAX_CLOSING_LINE
    parse_export(data)
    for source in both(data):
        check_closing(source, head_of(export))
    with pytest.raises(BrokenExport, match="the stream announced"):
        check_closing(data, ExportHead("0" * 64, 1, len(data)))
    source = CountingFile(data)  # still not read whole
    check_closing(source, head_of(export))
    assert source.read_bytes <= len(blanks) + 2 * MAX_CLOSING_LINE < len(data)


@pytest.mark.parametrize("blanks", [b"", b"\n\n", b"\n" * MAX_CLOSING_LINE])
def test_the_longest_checkpoint_line_taken_is_one_byte_short_of_the_bytes_read(
        export: bytes, blanks: bytes) -> None:
    """The limit is the checkpoint line's own length, blank lines after it aside."""
    for source in both(_long(export, blanks, MAX_CLOSING_LINE - 1)):
        check_closing(source, head_of(export))
    for source in both(_long(export, blanks, MAX_CLOSING_LINE)):
        with pytest.raises(BrokenExport, match="longer than any checkpoint"):
            check_closing(source, head_of(export))


def test_an_exportmatch_answer_naming_its_exports_own_head_passes(export: bytes) -> None:
    head = head_of(export)
    reply = pb.ExportMatchResponse(export_jsonl=export, final_hash=head.final_hash,
                                   event_count=head.event_count)
    assert check_answer(reply) == (export, head)


@pytest.mark.parametrize("change", ["cut", "cut to its records", "empty", "another hash",
                                    "another count"])
def test_an_exportmatch_answer_not_naming_its_exports_own_head_is_broken(
        export: bytes, change: str) -> None:
    head = head_of(export)
    with pytest.raises(BrokenExport) as broken:
        check_answer(broken_answer(export, head.final_hash, head.event_count, change))
    if change in ("another hash", "another count"):
        assert str(broken.value).startswith("the ExportMatch answer named final hash")
    else:
        assert str(broken.value) == "the export does not end with its checkpoint"


def test_an_exportmatch_answer_past_the_limit_is_too_large_before_any_check(export: bytes) -> None:
    head = head_of(export)
    reply = pb.ExportMatchResponse(export_jsonl=export, final_hash=head.final_hash,
                                   event_count=head.event_count)
    assert check_answer(reply, len(export)) == (export, head)  # at the limit: taken
    with pytest.raises(ExportTooLarge) as large:
        check_answer(reply, len(export) - 1)
    assert (large.value.total, large.value.limit) == (len(export), len(export) - 1)
    cut = broken_answer(export, head.final_hash, head.event_count, "cut")
    with pytest.raises(ExportTooLarge):  # the size first, as a stream's announced size is
        check_answer(cut, 10)


def test_refused_size_reads_grpcs_own_words_only() -> None:
    assert refused_size("Received message larger than max (5242953 vs. 4194304)") == 5242953
    assert refused_size("CLIENT: Received message larger than max (70 vs. 64)") == 70
    assert refused_size("the export is 5,242,953 bytes") is None
    assert refused_size("") is None
