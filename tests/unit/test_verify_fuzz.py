"""Fuzzing the offline verifiers with hostile input made from valid input.

``neon verify`` runs on files an organiser or a third party received: whatever is in them,
``verify_export``, ``verify_bundle`` and ``campaign_links`` must answer (a report that is
not ok names its reason; ``campaign_links`` a list of problems), never raise, never hang.

The inputs start valid: self-play exports made in process (neon-reign, neon, barbaric,
a neon-knights campaign pair for ``campaign_links``) and the bundle of a stand-in Swiss
tournament whose tables played real neon-reign matches (client seeds from every seat, no
dev seed, results signed, sealed, checkpointed with inclusion proofs; one table's result
set by the organiser). They are then mutated structurally, one to three times: a value at a
random path replaced by another JSON type (null, list, object, text, huge or negative
integers, floats, a nested list, raw tokens such as NaN, 1e400 or a 5,000-digit integer), a
key deleted or added, lines swapped, duplicated, dropped or replaced by a JSON array or
number, the file truncated, a line cut in half, bytes that are not UTF-8 inserted, blank
lines added. Exports are mutated as they are (the chain must catch every change of a
record's content) and re-chained and re-signed with the key in the file (anyone can sign
an export with their own key: then only the draw check and the replay stand in the way).
Bundles likewise: as they are, and with the log re-chained and the bundle re-sealed, and
with an embedded export changed and re-signed.

The default run takes a few seconds; ``-m slow`` (or NEON_SLOW=1) runs many more examples.
"""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import Report, campaign_links, verify_export
from services.tournament import formats, proofs
from services.tournament import log as tlog
from services.tournament.bundle import BundleReport, build_bundle, verify_bundle
from services.tournament.core.model import TableResult
from services.tournament.domain import match_id_of
from tests.support.tournament_log import (
    finish,
    log_records,
    publish_checkpoint,
    record_played,
    started,
)

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
PLAYERS = [f"p{i}" for i in range(5)]
TIME_LIMIT = 20  # seconds one verification may take before it counts as a hang

# -- valid inputs, built once -------------------------------------------------------


def _selfplay(game: str, mode: str, seed: int = 1) -> bytes:
    return export_game(game, mode, setups(load_engine(game), mode)[0], seed, KEY)


def tournament_export(game: str, mode: str, match_id: str, players: list[str], seed: int) -> bytes:
    """A match as a tournament's rules service exports it: played by rule bots with the
    seats' player ids, a client seed from every seat, no dev seed, keyed state hashes."""
    setup = next(s for s in setups(load_engine(game), mode) if s.seats == len(players))
    return export_game(game, mode, setup, seed, KEY, table=(match_id, players))


def tournament_bundle() -> bytes:
    """A Swiss of five players over two rounds (a bye each round) whose tables play
    neon-reign matches: results signed by the rules key, matches sealed, round checkpoints
    over the sealed matches; round 2 table 2's result is the organiser's (no export)."""
    tid, events = "fuzz", []
    t = started(PLAYERS, {"format": "swiss", "rounds": 2,
                          "tiebreaks": ["buchholz", "sonneborn-berger", "wins"]},
                tid=tid, game="neon-reign", mode="single")

    def records() -> list[dict[str, Any]]:
        return log_records(t, events)

    exports: dict[str, bytes] = {}
    for number in (1, 2):
        replayed = tlog.replay_log(records())
        tables = formats.pair(replayed.config, replayed.history())
        t.pair_round(number, [tlog.table_json(k) for k in tables])
        leaves = []
        for k in tables:
            if k.bye:
                continue
            match_id = match_id_of(tid, number, k.number)
            t.match_created(number, k.number, match_id, "rules:0", "00" * 32, 0.0)
            if number == 2 and k.number == 2:  # broken: the organiser sets the result
                result = TableResult(table=k.number, seats=k.seats, placements=(1, 2))
                t.correct_result(number, k.number, tlog.result_json(result), "on paper", "org")
                continue
            for seat, player in enumerate(k.seats):
                t.seat_ready(number, k.number, seat, player)
            t.match_started(number, k.number, [])
            data = tournament_export("neon-reign", "single", match_id, list(k.seats),
                                     number * 10 + k.number)
            exports[match_id] = data
            match, _ = parse_export(data)
            leaves.append(record_played(t, number, k, match_id, match, KEY))
        publish_checkpoint(t, events, number, leaves, KEY)
    return build_bundle(tid, "neon-reign", finish(t, events), exports, KEY, [])


def campaign_pair() -> list[bytes]:
    """Two neon-knights campaign exports, the second continuing the first (only the link
    is real: ``campaign_links`` checks links, not the matches)."""
    first = _selfplay("neon-knights-2086", "campaign", 1)
    records, checkpoint = parse_export(first)
    carry = next(r for r in records if r["type"] == "MatchEnded")["outcome"]["carry"]
    second = _selfplay("neon-reign", "solo", 2)
    link = {"previous_match_id": checkpoint["match_id"],
            "previous_final_hash": records[-1]["hash"], "carried": carry}
    return [first, _resigned(second, lambda rows: rows[0].__setitem__("campaign", link))]


EXPORTS: dict[str, bytes] = {}
BUNDLE: list[bytes] = []
CAMPAIGN: list[bytes] = []


@pytest.fixture(scope="module", autouse=True)
def _valid_inputs() -> None:
    if not EXPORTS:
        EXPORTS.update({
            "neon-reign": _selfplay("neon-reign", "single"),
            "neon-reign-solo": _selfplay("neon-reign", "solo"),
            "neon": _selfplay("neon", "rebirth"),
            "barbaric": _selfplay("barbaric", "solo"),
        })
        BUNDLE.append(tournament_bundle())
        CAMPAIGN.extend(campaign_pair())


def test_the_valid_inputs_verify() -> None:
    for name, data in EXPORTS.items():
        assert verify_export(data).ok, name
    report = verify_bundle(BUNDLE[0], public_key_hex(KEY))
    assert report.ok, report.failures
    assert report.matches == 3 and not report.warnings[1:], report.warnings
    assert campaign_links(CAMPAIGN) == []


# -- mutations ----------------------------------------------------------------------

RAW_TOKENS = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400",
              b"123456789012345678901234567890", b"1" + b"0" * 5000, b"1.0e-7"]


class Raw:
    """A token written as it is into the JSON text (NaN, 1e400, a 5,000-digit integer)."""

    def __init__(self, token: bytes) -> None:
        self.token = token


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


VALUES = st.sampled_from([
    None, True, False, 0, 1, -1, 2, -(10**30), 10**30, 2**63, 2**64, -(2**63) - 1, 1.5, -0.0,
    1e-7, 1e308, "", "x", "0", "\u00e9", "\ud800", "a" * 2000, [], [None], [0, 1], [[0]],
    {}, {"type": "MatchEnded"}, {"": None}, _nested(60), _nested(600),
]) | st.sampled_from(RAW_TOKENS).map(Raw) | st.integers() | st.text(max_size=8)

NOT_OBJECTS = {"[]": b"[]", "[1,2]": b"[1,2]", "7": b"7", '"x"': b'"x"', "null": b"null",
               "true": b"true", "{": b"{", "}": b"}", "[ * 50000": b"[" * 50000,
               "[ * 5000 ] * 5000": b"[" * 5000 + b"]" * 5000}
BAD_BYTES = [b"\xff", b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xfe\xff", b"\x00"]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _mutate_rows(data: st.DataObject, rows: list[Any], nested: bool = False) -> None:
    """One structural change of parsed lines, in place. ``nested``: only inside a row."""
    kinds = ["replace", "delete", "add"]
    if not nested:
        kinds += ["swap", "duplicate", "drop"]
    kind = data.draw(st.sampled_from(kinds), label="row mutation")
    objects = [i for i, r in enumerate(rows) if isinstance(r, dict | list)]
    if kind in ("replace", "delete", "add") and objects:
        i = _pick(data, rows, objects)
        paths = list(_paths(rows[i]))
        if kind == "replace":
            path = data.draw(st.sampled_from(paths[1:] or paths), label="path")
            value = data.draw(VALUES, label="value")
            if path:
                _at(rows[i], path[:-1])[path[-1]] = value
        elif kind == "delete":
            keyed = [p for p in paths[1:] if isinstance(_at(rows[i], p[:-1]), dict)]
            if keyed:
                path = data.draw(st.sampled_from(keyed), label="path")
                del _at(rows[i], path[:-1])[path[-1]]
        else:
            dicts = [p for p in paths if isinstance(_at(rows[i], p), dict)]
            if dicts:
                path = data.draw(st.sampled_from(dicts), label="path")
                name = data.draw(st.sampled_from(["zz_unknown", "", "type", "n", "hash"])
                                 | st.text(max_size=4), label="key")
                _at(rows[i], path)[name] = data.draw(VALUES, label="value")
    elif kind == "swap" and len(rows) > 1:
        i, j = data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=2, max_size=2,
                                  unique=True), label="swap")
        rows[i], rows[j] = rows[j], rows[i]
    elif kind == "duplicate" and rows:
        i = data.draw(st.integers(0, len(rows) - 1), label="row")
        rows.insert(data.draw(st.integers(0, len(rows)), label="at"), copy.deepcopy(rows[i]))
    elif kind == "drop" and rows:
        del rows[data.draw(st.integers(0, len(rows) - 1), label="row")]


def _pick(data: st.DataObject, rows: list[Any], among: list[int]) -> int:
    """A row of ``among``: first its type, so that rare lines (a bundle's inclusion proofs,
    an export's checkpoint) are picked as often as the many log records or actions."""
    def kind(i: int) -> str:
        row = rows[i]
        if isinstance(row, dict) and isinstance(row.get("record"), dict):
            return f"{row.get('type')}/{row['record'].get('type')}"
        return str(row.get("type")) if isinstance(row, dict) else type(row).__name__

    kinds = sorted({kind(i) for i in among})
    chosen = data.draw(st.sampled_from(kinds), label="row type")
    return data.draw(st.sampled_from([i for i in among if kind(i) == chosen]), label="row")


def _dumps(value: Any) -> bytes:
    """Compact JSON as ``json`` writes it, with :class:`Raw` tokens spliced in."""
    raws: list[bytes] = []

    def spell(v: Any) -> Any:
        if isinstance(v, Raw):
            raws.append(v.token)
            return f"@@raw{len(raws) - 1}@@"
        if isinstance(v, dict):
            return {k: spell(x) for k, x in v.items()}
        if isinstance(v, list):
            return [spell(x) for x in v]
        return v

    text = json.dumps(spell(value), separators=(",", ":"), ensure_ascii=False)
    data = text.encode("utf-8", "surrogatepass")
    for n, token in enumerate(raws):
        data = data.replace(f'"@@raw{n}@@"'.encode(), token)
    return data


def _serialise(rows: list[Any]) -> bytes:
    return b"".join(_dumps(r) + b"\n" for r in rows)


def _mutate_bytes(data: st.DataObject, text: bytes) -> bytes:
    """One change of the text itself."""
    kind = data.draw(st.sampled_from(["truncate", "cut line", "bad bytes", "blank line",
                                      "not an object", "crlf"]), label="byte mutation")
    lines = text.split(b"\n")
    if kind == "truncate":
        return text[:data.draw(st.integers(0, max(len(text) - 1, 0)), label="length")]
    if kind == "bad bytes":
        at = data.draw(st.integers(0, len(text)), label="at")
        return text[:at] + data.draw(st.sampled_from(BAD_BYTES), label="bytes") + text[at:]
    i = data.draw(st.integers(0, max(len(lines) - 2, 0)), label="line")
    if kind == "cut line":
        lines[i] = lines[i][: len(lines[i]) // 2]
    elif kind == "blank line":
        lines.insert(i, data.draw(st.sampled_from([b"", b" ", b"\t", b"  \r"]), label="blank"))
    elif kind == "not an object":
        lines[i] = NOT_OBJECTS[data.draw(st.sampled_from(sorted(NOT_OBJECTS)), label="line")]
    else:
        return text.replace(b"\n", b"\r\n")
    return b"\n".join(lines)


# -- what must be caught ------------------------------------------------------------

CHECKPOINT_FIELDS = ("type", "match_id", "game", "event_count", "final_hash", "public_key",
                     "signature")
SEAL_FIELDS = ("type", "version", "seal", "key", "signature")


def _canonical(value: Any) -> bytes | None:
    try:
        return canonical_json(value)
    except Exception:  # NaN, infinity, nesting beyond the encoder: nothing valid holds it
        return None


def _rows(data: bytes) -> list[dict[str, Any]] | None:
    """The non-blank lines as objects; None when one is not a JSON object."""
    try:
        rows = [json.loads(line) for line in data.splitlines() if line.strip()]
    except (ValueError, RecursionError):
        return None
    return rows if all(isinstance(r, dict) for r in rows) else None


def export_meaning(data: bytes) -> Any:
    """What a valid export says: its records' canonical bytes and the checkpoint's fields
    (None: it cannot be valid). Two exports of different meaning cannot both verify."""
    rows = _rows(data)
    if not rows:
        return None
    records = [_canonical(r) for r in rows[:-1]]
    fields = [(k in rows[-1], _canonical(rows[-1].get(k))) for k in CHECKPOINT_FIELDS]
    if None in records or any(v is None for _, v in fields):
        return None
    return records, fields


def bundle_meaning(data: bytes) -> Any:
    """What a bundle says that every check depends on: the log records, the exports by
    match id, the round checkpoints, the seal and the header's tournament and key."""
    rows = _rows(data)
    if not rows:
        return None
    by_type: dict[str, list[Any]] = {}
    for row in rows[1:-1]:
        by_type.setdefault(str(row.get("type")), []).append(row)
    exports = {}
    for line in by_type.get("MatchExport", []):
        exports[_canonical(line.get("match_id"))] = export_meaning(
            str(line.get("export", "")).encode("utf-8", "surrogatepass"))
    return (
        [_canonical(line.get("record")) for line in by_type.get("LogRecord", [])],
        sorted(exports.items(), key=repr),
        sorted(_checkpoints(by_type.get("RoundCheckpoint", [])).items(), key=repr),
        [(k in rows[-1], _canonical(rows[-1].get(k))) for k in SEAL_FIELDS],
        [_canonical(rows[0].get(k)) for k in ("type", "tournament_id", "public_key")],
    )


def _checkpoints(lines: list[Any]) -> dict[Any, Any]:
    """The round checkpoints by round, as the verifier reads them (the last line of a round
    stands: a copy of a line changes nothing)."""
    out = {}
    for line in lines:
        checkpoint = line.get("checkpoint")
        body = checkpoint.get("checkpoint") if isinstance(checkpoint, dict) else None
        out[_canonical(body.get("round", 0) if isinstance(body, dict) else None)] = \
            _canonical(checkpoint)
    return out


# -- the calls, guarded against hangs ------------------------------------------------


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    def hang(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer within {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_export(data: bytes, original: bytes, changes_must_fail: bool,
                 campaign: list[bytes]) -> Report:
    """``changes_must_fail``: the export was not re-signed, so any change of what it says
    must fail it. ``campaign``: the exports ``campaign_links`` is given with it."""
    with _within(TIME_LIMIT):
        report = verify_export(data)
        links = campaign_links([data, *campaign])
    assert isinstance(report, Report)
    assert report.ok or report.failure, "a failed export without a reason"
    assert isinstance(links, list) and all(isinstance(p, str) and p for p in links)
    if changes_must_fail and export_meaning(data) != export_meaning(original):
        assert not report.ok, "a changed export verified"
    return report


def check_bundle(data: bytes, original: bytes, changes_must_fail: bool) -> BundleReport:
    with _within(TIME_LIMIT):
        report = verify_bundle(data)
    assert isinstance(report, BundleReport)
    assert report.ok or (report.failures and all(report.failures)), "failed without a reason"
    if changes_must_fail and bundle_meaning(data) != bundle_meaning(original):
        assert not report.ok, "a changed bundle verified"
    return report


# -- re-chaining and re-signing, as anyone holding a key can ------------------------


def _resigned(data: bytes, change: Any) -> bytes:
    """The export with ``change(rows)`` applied to its records, re-chained and signed again;
    a record no longer an object, or that canonical JSON cannot encode, is written as it
    is, unchained."""
    records, checkpoint = parse_export(data)
    rows: list[Any] = copy.deepcopy(records)
    change(rows)
    match_id = str(checkpoint["match_id"])
    chained: list[Any] = []
    for row in rows:
        if not isinstance(row, dict):
            chained.append(row)
            continue
        body = {k: v for k, v in row.items() if k not in ("hash", "n", "prev", "match_id")}
        # the last record with a hash (one left unchained may have lost its own)
        prev = next((r["hash"] for r in reversed(chained) if isinstance(r, dict) and "hash" in r),
                    rec.GENESIS)
        try:
            chained.append(rec.seal_record(match_id, len(chained) + 1, prev, body))
        except Exception:  # not encodable (a Raw token, NaN, too deep): left unchained
            chained.append(row)
    try:
        return build_export(match_id, str(checkpoint["game"]), chained, KEY)
    except Exception:
        return _serialise([*chained, checkpoint])


def _resealed(rows: list[Any]) -> bytes:
    """Bundle lines with the log re-chained and the seal signed again over it (checkpoints
    keep their signatures, over the log as it was)."""
    header = rows[0] if rows and isinstance(rows[0], dict) else {}
    tid = str(header.get("tournament_id", ""))
    out, previous, n = [], tlog.GENESIS, 0
    for row in rows:
        record = row.get("record") if isinstance(row, dict) else None
        if isinstance(row, dict) and row.get("type") == "LogRecord" and isinstance(record, dict):
            n += 1
            body = {k: v for k, v in record.items() if k != "hash"}
            try:
                previous = tlog.link(tid, n, previous, {**body, "n": n})
                row = {**row, "record": {**body, "n": n, "hash": previous}}
            except Exception:  # not encodable: left as it is
                pass
        out.append(row)
    if out and isinstance(out[-1], dict) and out[-1].get("type") == proofs.BUNDLE_SEAL:
        seal = out[-1].get("seal")
        body = dict(seal) if isinstance(seal, dict) else {}
        body.update(tournament_id=tid, log_length=n, log_head=previous)
        try:
            out[-1] = proofs.seal_bundle(body, KEY)
        except Exception:
            pass
    return _serialise(out)


# -- the properties ------------------------------------------------------------------

MUTATIONS = st.integers(1, 3)


def _export_case(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from([*sorted(EXPORTS), "campaign 1", "campaign 2"]),
                     label="export")
    if name.startswith("campaign"):  # campaign_links is given the other match of the two
        mine = int(name[-1]) - 1
        original, campaign = CAMPAIGN[mine], [CAMPAIGN[1 - mine]]
    else:
        original, campaign = EXPORTS[name], CAMPAIGN
    mode = data.draw(st.sampled_from(["as is", "re-signed"]), label="mode")
    text = original
    for _ in range(data.draw(MUTATIONS, label="mutations")):
        if data.draw(st.booleans(), label="rows or bytes"):
            if mode == "re-signed":
                text = _resigned(text, lambda rows: _mutate_rows(data, rows)) \
                    if _parses(text) else text
            else:
                rows = [json.loads(x) for x in text.splitlines() if x.strip()] \
                    if _parses(text) else None
                if rows is not None:
                    _mutate_rows(data, rows)
                    text = _serialise(rows)
        else:
            text = _mutate_bytes(data, text)
    report = check_export(text, original, mode == "as is", campaign)
    if mode == "as is" and _nonblank(text) == _nonblank(original) and name in EXPORTS:
        assert report.ok, report.failure  # only blank lines or line ends changed


def _nonblank(text: bytes) -> list[bytes]:
    return [line for line in text.splitlines() if line.strip()]


def _parses(text: bytes) -> bool:
    try:
        parse_export(text)
    except (ValueError, RecursionError):
        return False
    return True


def _bundle_case(data: st.DataObject) -> None:
    original = BUNDLE[0]
    mode = data.draw(st.sampled_from(["as is", "re-sealed", "export re-signed"]), label="mode")
    text = original
    for _ in range(data.draw(MUTATIONS, label="mutations")):
        if data.draw(st.booleans(), label="rows or bytes"):
            rows = _rows(text)
            if rows is None:
                continue
            if mode == "export re-signed":
                exports = [r for r in rows if r.get("type") == "MatchExport"]
                line = data.draw(st.sampled_from(exports), label="export line") if exports \
                    else {}
                if _parses(str(line.get("export", "")).encode("utf-8", "surrogatepass")):
                    line["export"] = _resigned(str(line["export"]).encode("utf-8", "surrogatepass"),
                                               lambda records: _mutate_rows(data, records)
                                               ).decode("utf-8", "surrogatepass")
            elif data.draw(st.booleans(), label="whole lines or one record"):
                _mutate_rows(data, rows)
            else:
                logged = [i for i, r in enumerate(rows)
                          if r.get("type") == "LogRecord" and isinstance(r.get("record"), dict)]
                if logged:
                    line = rows[_pick(data, rows, logged)]
                    _mutate_rows(data, [line["record"]], nested=True)
            text = _resealed(rows) if mode == "re-sealed" else _serialise(rows)
        else:
            text = _mutate_bytes(data, text)
    check_bundle(text, original, changes_must_fail=mode != "re-sealed")


FAST = settings(max_examples=120, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LONG = settings(max_examples=5000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(st.data())
def test_a_mutated_export_fails_with_a_reason_and_never_raises(data: st.DataObject) -> None:
    _export_case(data)


@FAST
@given(st.data())
def test_a_mutated_bundle_fails_with_a_reason_and_never_raises(data: st.DataObject) -> None:
    _bundle_case(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_many_mutated_exports(data: st.DataObject) -> None:
    _export_case(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_many_mutated_bundles(data: st.DataObject) -> None:
    _bundle_case(data)


# -- lines a bundle must hold once, and what ties them to the log ---------------------


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def _failures(rows: list[dict[str, Any]]) -> str:
    report = verify_bundle(_resealed(rows))
    assert not report.ok
    return "\n".join(report.failures)


def test_a_second_line_for_the_same_match_round_or_proof_fails() -> None:
    rows = _lines(BUNDLE[0])
    for kind in ("MatchExport", "RoundCheckpoint", "InclusionProof"):
        at = next(i for i, r in enumerate(rows) if r["type"] == kind)
        forged = json.loads(json.dumps(rows[at]))  # the genuine line comes after it
        assert f"a second {kind} of" in _failures([*rows[:at], forged, *rows[at:]])


def test_a_line_of_no_known_kind_fails() -> None:
    rows = _lines(BUNDLE[0])
    assert "has no place in a bundle" in _failures([*rows[:2], {"type": "Note"}, *rows[2:]])
    assert "has no place in a bundle" in _failures([*rows[:2], dict(rows[0]), *rows[2:]])


def test_an_export_filed_under_another_match_fails() -> None:
    rows = _lines(BUNDLE[0])
    first, second = [i for i, r in enumerate(rows) if r["type"] == "MatchExport"][:2]
    swapped = [dict(r) for r in rows]
    swapped[first]["export"], swapped[second]["export"] = \
        rows[second]["export"], rows[first]["export"]
    text = _failures(swapped)
    assert f"(match {rows[first]['match_id']}): the export is of match " \
        f"{rows[second]['match_id']}" in text


def test_a_proof_naming_another_match_fails() -> None:
    rows = _lines(BUNDLE[0])
    at = next(i for i, r in enumerate(rows) if r["type"] == "InclusionProof")
    rows[at] = {**rows[at], "match_id": "someone-else"}
    assert "names match someone-else, the log's is" in _failures(rows)


def test_an_export_the_organiser_did_not_seal_fails() -> None:
    rows = _lines(BUNDLE[0])
    at = next(i for i, r in enumerate(rows) if r["type"] == "MatchExport")
    extra = {**rows[at], "match_id": "fuzz-r9-t9"}
    assert "the organiser signed other match exports than the bundle holds" in \
        _failures([*rows[:at], extra, *rows[at:]])


def test_a_second_checkpoint_of_a_round_spelled_otherwise_fails() -> None:
    """Round 1 as 1.0 or "1" is round 1 to the checks: a forged copy so spelled before the
    genuine one is a second line of the round, not a line nobody checks. No re-seal is
    needed: the seal does not sign the checkpoint lines."""
    rows = _lines(BUNDLE[0])
    at = next(i for i, r in enumerate(rows) if r["type"] == "RoundCheckpoint")
    for spelled in (1.0, "1"):
        forged = json.loads(json.dumps(rows[at]))
        forged["checkpoint"]["checkpoint"]["round"] = spelled
        forged["checkpoint"]["checkpoint"]["root"] = "0" * 64
        report = verify_bundle(_serialise([*rows[:at], forged, *rows[at:]]))
        assert not report.ok, spelled
        assert "a second RoundCheckpoint of" in report.failure


def test_a_checkpoint_whose_body_is_not_an_object_fails_with_the_reason() -> None:
    rows = _lines(BUNDLE[0])
    at = next(i for i, r in enumerate(rows) if r["type"] == "RoundCheckpoint")
    for body in (5, [1, 2], "x", True):
        broken = {**rows[at], "checkpoint": {"checkpoint": body}}
        report = verify_bundle(_serialise([*rows[:at], broken, *rows[at + 1:]]))
        assert not report.ok and report.failures, body


def test_a_lone_surrogate_in_an_embedded_export_fails_that_match_by_its_line() -> None:
    # it failed the whole bundle as "bundle: malformed (UnicodeEncodeError ...)"
    rows = _lines(BUNDLE[0])
    at = next(i for i, r in enumerate(rows) if r["type"] == "MatchExport")
    rows[at]["export"] = rows[at]["export"].replace('"MatchStarted"', '"MatchStarted\ud800"', 1)
    report = verify_bundle(_resealed(rows))
    assert len(report.failures) == 1, report.failures
    assert report.failure.startswith(f"round 1 table 1 (match {rows[at]['match_id']}): line 2 "
                                     "is not JSON: 'utf-8' codec can't decode byte 0xed")
