"""The bundle in pieces (``bundle_parts``, what ExportTournamentChunks streams) is the bundle
``build_bundle`` makes, byte for byte, and the bytes are those of earlier releases: rebuilt
from the parts of tests/fixtures/bundles/swiss-neon-reign-33f18b3.jsonl with the tests' key,
every line but the header (its organiser key) and the seal (signed with that key) is the
fixture's own line, and the whole is the bundle build_bundle made before the pieces existed
(its SHA-256, recorded then). Each match's export is asked for just before its line, one at a
time; one answered None is left out, of the lines and of the seal."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from services.platform.signing import public_key_hex
from services.tournament import bundle, proofs
from services.tournament.bundle import Wanted, _parse, build_bundle, bundle_parts, verify_bundle
from tests.support.tournament_log import KEY, log_records, started

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / \
    "swiss-neon-reign-33f18b3.jsonl"
BEFORE_PIECES = "de63d76a699acf008f8feac064d1b60b7751b975218205c815e119c7ab1dbaaf"
"""SHA-256 of the fixture's parts rebuilt with KEY by build_bundle of 41c64ad (82,285 bytes)."""


def _inputs() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, bytes]]:
    header, records, exports, _, _, _ = _parse(FIXTURE.read_bytes())
    return header, records, {m: line["export"].encode() for m, line in exports.items()}


def _drive(header: dict[str, Any], records: list[dict[str, Any]],
           answer: Any) -> tuple[list[bytes], list[Wanted]]:
    """The pieces of the fixture's bundle, each Wanted answered by ``answer(wanted)``."""
    parts = bundle_parts(header["tournament_id"], header["game"], records, KEY,
                         header["result_keys"])
    pieces: list[bytes] = []
    asked: list[Wanted] = []
    try:
        item = next(parts)
        while True:
            if isinstance(item, Wanted):
                asked.append(item)
                item = parts.send(answer(item))
            else:
                pieces.append(item)
                item = next(parts)
    except StopIteration:
        pass
    return pieces, asked


def test_the_bundle_is_the_bytes_of_earlier_releases() -> None:
    header, records, exports = _inputs()
    whole = build_bundle(header["tournament_id"], header["game"], records, exports, KEY,
                         header["result_keys"])
    assert hashlib.sha256(whole).hexdigest() == BEFORE_PIECES and len(whole) == 82285
    fixture = FIXTURE.read_bytes().splitlines()
    assert whole.splitlines()[1:-1] == fixture[1:-1]
    assert json.loads(whole.splitlines()[0])["public_key"] == public_key_hex(KEY)


def test_the_pieces_joined_are_the_bundle_and_ask_one_export_at_a_time() -> None:
    header, records, exports = _inputs()
    pieces, asked = _drive(header, records, lambda w: exports.get(w.match_id))
    whole = build_bundle(header["tournament_id"], header["game"], records, exports, KEY,
                         header["result_keys"])
    assert b"".join(pieces) == whole
    assert all(p.endswith(b"\n") for p in pieces)  # whole lines each
    # every match once, in the bundle's order, and each MatchExport piece is one match's line
    order = [json.loads(line)["match_id"] for line in whole.splitlines()
             if json.loads(line)["type"] == "MatchExport"]
    assert [w.match_id for w in asked if w.match_id in exports] == order
    assert len(order) == len(exports) and len(asked) == len({w.match_id for w in asked})
    created = [r["match_id"] for r in records if r["type"] == "MatchCreated"]
    assert sorted(w.match_id for w in asked) == sorted(created)  # the log's, each asked once
    singles = [p for p in pieces if p.startswith(b'{"export":')]
    assert len(singles) == len(order) and all(p.count(b"\n") == 1 for p in singles)


def test_an_export_answered_none_is_left_out_of_the_lines_and_the_seal() -> None:
    header, records, exports = _inputs()
    left_out = sorted(exports)[0]
    pieces, asked = _drive(header, records,
                           lambda w: None if w.match_id == left_out else exports.get(w.match_id))
    assert left_out in [w.match_id for w in asked]
    rows = [json.loads(line) for line in b"".join(pieces).splitlines()]
    assert left_out not in [r.get("match_id") for r in rows if r["type"] == "MatchExport"]
    seal = proofs.open_bundle_seal(rows[-1], public_key_hex(KEY))
    assert seal["matches"] == sorted(m for m in exports if m != left_out)
    # the same as build_bundle without that export
    fewer = {m: e for m, e in exports.items() if m != left_out}
    assert b"".join(pieces) == build_bundle(header["tournament_id"], header["game"], records,
                                            fewer, KEY, header["result_keys"])


def test_the_fixture_bundle_still_verifies() -> None:
    report = verify_bundle(FIXTURE.read_bytes())
    assert report.ok, report.failures


EXPORTS = sorted((FIXTURE.parents[1] / "exports").glob("*.jsonl"))


@pytest.mark.parametrize("slice_bytes", [1, 7, 256 * 1024])
def test_a_match_export_line_escaped_in_slices_is_the_line_of_the_whole(
        monkeypatch: pytest.MonkeyPatch, slice_bytes: int) -> None:
    """The MatchExport line made slice by slice (to spare canonical JSON's transient cost
    on a long export) is canonical JSON of the whole line, byte for byte: on every export
    of tests/fixtures/exports (up to 291 KB, several slices), on every ASCII character
    (quotes, backslashes, control characters) across slice edges, and, by the whole-line
    path, on an export that is not ASCII."""
    monkeypatch.setattr(bundle, "ESCAPED_SLICE", slice_bytes)
    every_ascii = bytes(range(128)) * 3 + b'"\\\n\t\x00\x1f\x7f'
    cases = [every_ascii, b"", "h\u00e9\u2028 \U0001f600\n\"".encode()]
    if slice_bytes > 1:  # one slice per byte: the small cases suffice
        cases += [p.read_bytes() for p in EXPORTS]
    assert max(len(c) for c in cases) > 256 * 1024 or slice_bytes == 1
    for export in cases:
        whole = bundle._joined([{"type": "MatchExport", "round": 3, "table": 12,
                                 "match_id": "cup-r3-t12-g2", "export": export.decode()}])
        assert bundle._export_line(3, 12, "cup-r3-t12-g2", export) == whole



def test_a_bundle_made_before_the_end_verifies_and_says_it_is_not_final() -> None:
    """A bundle exported mid-event (started, no round paired yet) verifies as far as it goes
    and says the tournament had not ended, so it is not published as the result; once the
    tournament has ended (here force-ended) the bundle says nothing of the kind."""
    fmt = {"format": "swiss", "rounds": 1}
    t = started(["ann", "ben"], fmt)
    events: list[Any] = []
    running = log_records(t, events)
    t.force_end("venue closed", "org")
    ended = log_records(t, events)
    early, late = (verify_bundle(build_bundle("unit", "g", log, {}, KEY, [public_key_hex(KEY)]),
                                 public_key_hex(KEY)) for log in (running, ended))
    assert early.ok and late.ok, (early.failures, late.failures)
    assert ("the tournament had not ended when this bundle was made (running, 0 rounds "
            "paired): its results and standings may still change; export it again once it "
            "is finished") in early.warnings, early.warnings
    assert not any("had not ended" in w for w in late.warnings), late.warnings
