"""The tournament audit bundle: one JSON Lines file, and its offline verification.

Lines (each canonical JSON)::

    {"type": "TournamentBundle", "version": 1, "tournament_id", "game", "public_key",
     "result_keys": [...], "previous_keys": [...]}   previous_keys: only after a rotation
    {"type": "LogRecord", "record": {...}}            every record of the tournament's log
    {"type": "MatchExport", "round", "table", "match_id", "export": "<the match's JSONL>"}
    {"type": "RoundCheckpoint", "checkpoint": {...}}   as published in the log
    {"type": "InclusionProof", "round", "table", "match_id", "final_hash", "index", "size",
     "proof": [...], "root"}
    {"type": "TournamentBundleSeal", "version": 1, "seal": {"tournament_id",
     "log_length", "log_head", "matches", "result_keys", "previous_keys"}, "key",
     "signature"}   signed (previous_keys: only after a rotation)

``previous_keys``: the organiser's keys before a rotation (NEON_PREVIOUS_PUBLIC_KEYS), which
signed the round checkpoints of before it. The current key, which seals the bundle, names
them in its seal: a round checkpoint is trusted when signed by the bundle's key or by one of
them, never by a key the seal does not name. A bundle without a rotation holds no such field
(made byte for byte as before).

:func:`verify_bundle` checks the log's hash chain and the seal, every match export as
``neon verify`` does (chain, signature, seed, every draw, a full replay), that each
export is the match the log paired (players, game, no dev seed, a client seed from every
seat that came) and ended with the result the log recorded (and the rules service
signed), every round checkpoint's signature, Merkle root and log head, every inclusion
proof, and then recomputes every round's pairings and the standings from the results
and the format's rules (each PlayerReinstated of a dropped player, in a format that allows
it, recorded before the round it names was paired), and the no-shows the format drops
(each drop is of a player who never came to their table; each such player is dropped
before the next round). Each failure names what failed. Pure code apart from the match verifier's engines: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.signed import Untrusted, open_result
from services.rules.records import is_abandoned
from services.tournament import formats, noshows, proofs
from services.tournament import log as tlog
from services.tournament.core import audit, checkpoint

BUNDLE = "TournamentBundle"


def is_bundle(data: bytes) -> bool:
    first = data.split(b"\n", 1)[0]
    try:
        return json.loads(first).get("type") == BUNDLE
    except (ValueError, AttributeError, RecursionError):  # not JSON, not an object, too deep
        return False


@dataclass(frozen=True)
class Wanted:
    """A match whose export :func:`bundle_parts` asks for next: the caller sends the
    export's bytes (the MatchExport line is made of them), or None to leave it out."""

    round: int
    table: int
    match_id: str


def build_bundle(
    tournament_id: str,
    game: str,
    records: Sequence[Mapping[str, Any]],
    exports: Mapping[str, bytes],
    key: Any,
    result_keys: Sequence[str],
    previous_keys: Sequence[str] | None = None,
) -> bytes:
    """``records``: the chained log; ``exports``: each sealed match's export by match id
    (a rematched table's earlier matches too); ``previous_keys``: the organiser's keys
    before a rotation (hex). The whole bundle at once: the pieces of :func:`bundle_parts`,
    joined."""
    parts = bundle_parts(tournament_id, game, records, key, result_keys,
                         seal_matches=list(exports), previous_keys=previous_keys)
    out: list[bytes] = []
    try:
        item = next(parts)
        while True:
            if isinstance(item, Wanted):
                item = parts.send(exports.get(item.match_id))
            else:
                out.append(item)
                item = next(parts)
    except StopIteration:
        pass
    return b"".join(out)


def bundle_parts(
    tournament_id: str,
    game: str,
    records: Sequence[Mapping[str, Any]],
    key: Any,
    result_keys: Sequence[str],
    seal_matches: Sequence[str] | None = None,
    previous_keys: Sequence[str] | None = None,
) -> Generator[bytes | Wanted, bytes | None, None]:
    """The bundle in pieces, in order, each whole lines ending with a newline, asking for
    each match's export (a :class:`Wanted`, answered with ``send``) just before its line,
    so a caller holds one match's export at a time, however many the tournament has. The
    pieces joined are the bundle. ``seal_matches``: the match ids the seal names (None:
    those whose export was sent); ``previous_keys``: the organiser's keys before a
    rotation (hex; the module docstring), the current one left out."""
    from services.platform.signing import public_key_hex

    replayed = tlog.replay_log(records)
    result_keys = list(result_keys) or [public_key_hex(key)]
    previous = sorted({k.lower() for k in previous_keys or ()} - {public_key_hex(key)})
    head: list[dict[str, Any]] = [
        {
            "type": BUNDLE,
            "version": 1,
            "tournament_id": tournament_id,
            "game": game,
            "public_key": public_key_hex(key),
            "result_keys": list(result_keys),
            **({"previous_keys": previous} if previous else {}),
        }
    ]
    head += [{"type": "LogRecord", "record": dict(r)} for r in records]
    yield _joined(head)
    del head
    sent: list[str] = []
    proofs_out: list[dict[str, Any]] = []
    for rnd in replayed.rounds:
        earlier = [(table, m["match_id"]) for table, ms in sorted(rnd.get("earlier", {}).items())
                   for m in ms]
        for table, match_id in sorted([*earlier, *rnd["matches"].items()]):
            export = yield Wanted(rnd["number"], table, match_id)
            if export is None:
                continue
            sent.append(match_id)
            yield _export_line(rnd["number"], table, match_id, export)
            del export
        checkpoint = rnd["checkpoint"]
        if checkpoint is None:
            continue
        yield _joined([{"type": "RoundCheckpoint", "checkpoint": checkpoint}])
        hashes = [rnd["sealed"][t] for t in _leaf_tables(rnd)]
        for index, table in enumerate(_leaf_tables(rnd)):
            proofs_out.append(
                {
                    "type": "InclusionProof",
                    "round": rnd["number"],
                    "table": table,
                    "match_id": rnd["matches"][table],
                    "final_hash": hashes[index],
                    "index": index,
                    "size": len(hashes),
                    "proof": proofs.inclusion(hashes, index),
                    "root": proofs.body(checkpoint)["root"],
                }
            )
    if proofs_out:
        yield _joined(proofs_out)
    seal = proofs.seal_bundle(
        {"tournament_id": tournament_id, "log_length": len(records),
         "log_head": tlog.head(list(records)),
         "matches": sorted(sent if seal_matches is None else seal_matches),
         "result_keys": sorted(result_keys),
         **({"previous_keys": previous} if previous else {})}, key)
    yield _joined([seal])


ESCAPED_SLICE = 256 * 1024
"""Bytes of an export JSON-escaped at a time in its MatchExport line (:func:`_export_line`)."""


def _export_line(number: int, table: int, match_id: str, export: bytes) -> bytes:
    """The MatchExport line of ``export``, as :func:`_joined` makes it, byte for byte,
    without its transient cost: canonical JSON of the whole line reserves some 8 bytes per
    character of the export (63 MiB for an export of 8 MiB, half a GiB for one at the
    tournament's limit). An ASCII export (every export in practice: canonical JSON lines)
    is escaped ``ESCAPED_SLICE`` bytes at a time (a JSON string's escapes are per
    character, so the escaped slices make the escaped whole) and spliced into the line's
    other fields; any other export takes :func:`_joined`."""
    line = {"type": "MatchExport", "round": number, "table": table, "match_id": match_id}
    if not export.isascii():
        return _joined([{**line, "export": export.decode()}])
    rest = _joined([{**line, "export": ""}])
    opening = b'{"export":"'
    if not rest.startswith(opening + b'"'):  # the export field is not first: no splice
        return _joined([{**line, "export": export.decode()}])
    pieces = [opening]
    for start in range(0, len(export), ESCAPED_SLICE):
        piece = canonical_json(export[start:start + ESCAPED_SLICE].decode("ascii"))
        pieces.append(piece[1:-1])  # the escaped text without its quotes
    pieces.append(rest[len(opening):])
    return b"".join(pieces)


def _joined(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """Lines of the bundle, each canonical JSON ending with a newline."""
    return b"".join(canonical_json(line) + b"\n" for line in lines)


def _leaf_tables(rnd: Mapping[str, Any]) -> list[int]:
    """Tables whose sealed match hash is a leaf of the round's tree, in table order."""
    return [
        t.number
        for t in sorted(rnd["tables"], key=lambda t: t.number)
        if not t.bye and t.number in rnd["sealed"]
    ]


@dataclass
class BundleReport:
    ok: bool = True
    checks: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tournament_id: str = ""
    matches: int = 0

    def fail(self, reason: str) -> None:
        self.ok = False
        self.failures.append(reason)

    @property
    def failure(self) -> str:
        return "; ".join(self.failures)


PARALLEL_FROM = 64
"""Match exports verified in worker processes from this many on (starting them costs ~1 s)."""


def _verify_all(exports: list[bytes], jobs: int) -> list[Any]:
    """The rules verifier's report of each export, in order; across processes when many."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from services.rules.verify import verify_export

    workers = min(len(exports), jobs or os.cpu_count() or 1)
    if workers <= 1 or (not jobs and len(exports) < PARALLEL_FROM):
        return [verify_export(data, None) for data in exports]
    # spawn, not fork: the caller may hold gRPC threads, which fork breaks
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(verify_export, exports, chunksize=8))


def verify_bundle(
    data: bytes, public_key: str | Sequence[str] | None = None, verify_match: Any = None,
    jobs: int = 0, rules_keys: Sequence[str] = (),
) -> BundleReport:
    """Every check of the module docstring; ``public_key`` pins the organiser's key (or
    keys, a rotation's old and new: the bundle must be made with one of them),
    ``rules_keys`` the rules services' (the bundle may trust no other: else the organiser
    names the rules keys it trusts, and its own would vouch for any match).
    ``verify_match(export_bytes, key)`` defaults to the rules verifier (neon verify), run in
    ``jobs`` processes (0: one per core once there are many matches). A bundle whose
    parts are of the wrong shape (a signed one can be made by anyone with their own key)
    fails with the reason, never a traceback: ``neon verify`` goes on with other files."""
    report = BundleReport()
    try:
        header, records, exports, checkpoints, inclusion, seal = _parse(data)
    except ValueError as err:
        report.fail(str(err))
        return report
    try:
        return _verify_parsed(report, header, records, exports, checkpoints, inclusion, seal,
                              public_key, verify_match, jobs, list(rules_keys))
    except SHAPE_ERRORS as err:
        report.fail(f"bundle: malformed ({type(err).__name__}: {err})")
        return report


SHAPE_ERRORS = (TypeError, KeyError, ValueError, AttributeError, IndexError, OverflowError,
                RecursionError)
"""What a part of the wrong shape raises: int(1e400), float(10**400), a value nested too
deeply, a string where an object belongs..."""


def _export_bytes(line: dict[str, Any]) -> bytes:
    """A MatchExport line's export as the bytes the match verifier reads. A lone surrogate
    (JSON text may spell one) stays invalid UTF-8, which the verifier refuses naming its
    line, rather than failing the whole bundle as malformed."""
    return str(line.get("export", "")).encode("utf-8", "surrogatepass")


def _held(report: BundleReport, failures_before: int, line: str) -> None:
    """List ``line`` among the checks that held, unless its check failed: added a failure
    since ``failures_before``, which the report names instead."""
    if len(report.failures) == failures_before:
        report.checks.append(line)


def _part(report: BundleReport, name: str, check: Any, *args: Any) -> None:
    """Run one part's check; a part of the wrong shape fails, named, and the other parts
    are still checked."""
    try:
        check(report, *args)
    except SHAPE_ERRORS as err:
        report.fail(f"bundle: {name}: malformed ({type(err).__name__}: {err})")


def _verify_parsed(report: BundleReport, header: dict[str, Any], records: list[dict[str, Any]],
                   exports: dict[str, dict[str, Any]], checkpoints: list[dict[str, Any]],
                   inclusion: list[dict[str, Any]], seal: dict[str, Any],
                   public_key: str | Sequence[str] | None, verify_match: Any, jobs: int,
                   rules_keys: list[str]) -> BundleReport:
    from services.rules.verify import pinned_keys

    tid = str(header.get("tournament_id", ""))
    report.tournament_id = tid
    key = str(header.get("public_key", ""))
    pinned = pinned_keys(public_key)
    if pinned and key.lower() not in pinned:
        report.fail("bundle: made with another organiser key than the one given"
                    if len(pinned) == 1 else "bundle: made with none of the organiser keys given")
        return report
    if not pinned:
        report.warnings.append(
            "signatures checked with the key in the bundle; pass --public-key to pin it"
        )
    result_keys = [str(k) for k in header.get("result_keys") or [key]]
    if rules_keys and (others := [k for k in result_keys if k not in rules_keys]):
        report.fail(f"bundle: trusts rules key(s) {', '.join(k[:16] for k in others)} "
                    "besides the ones given")
        return report

    problem = tlog.check_chain(tid, records)
    if problem:
        report.fail(problem)
    else:
        report.checks.append(f"tournament log: hash chain of {len(records)} records")
    earlier = [str(k) for k in header.get("previous_keys") or []]
    _part(report, "seal", _check_seal, seal, records, key, tid, result_keys, sorted(exports),
          earlier)
    try:
        replayed = tlog.replay_log(records)
    except ValueError as err:
        report.fail(str(err))
        return report
    if replayed.config is None:
        report.fail("tournament log: no Created record")
        return report
    if replayed.tournament_id != tid:  # the seal signs the header's id, the checks the log's
        report.fail(f"bundle header: names tournament {tid}, its log is of tournament "
                    f"{replayed.tournament_id}")
    texts = {m: _export_bytes(line) for m, line in exports.items()}
    if verify_match is None:
        reports = dict(zip(texts, _verify_all(list(texts.values()), jobs)))
    else:
        reports = {m: verify_match(text, None) for m, text in texts.items()}
    _part(report, "match exports", _check_matches, replayed, exports, result_keys, reports)
    _part(report, "round checkpoints and inclusion proofs", _check_checkpoints, replayed,
          records, checkpoints, inclusion, key, earlier)
    _part(report, "pairings and standings", _recheck, replayed)
    _part(report, "no-shows", _check_no_shows, replayed)
    _part(report, "late entries and drops", _check_entries, replayed)
    _part(report, "the end", _check_finished, replayed, records)
    if replayed.status not in ("finished", "force-ended"):
        # it verifies as far as it goes, but is no final record of the event: say so, so a
        # bundle exported mid-event is not published as the result
        report.warnings.append(
            f"the tournament had not ended when this bundle was made ({replayed.status}, "
            f"{len(replayed.rounds)} round{'' if len(replayed.rounds) == 1 else 's'} paired): "
            "its results and standings may still change; export it again once it is finished")
    return report


LINE_TYPES = (BUNDLE, "LogRecord", "MatchExport", "RoundCheckpoint", "InclusionProof",
              proofs.BUNDLE_SEAL)
"""Every kind of line a bundle holds (version 1)."""


def _identity(kind: str, row: dict[str, Any]) -> Any:
    """What a bundle holds one line of, per kind: a match's export, a round's checkpoint,
    a table's inclusion proof (None for the other kinds), read as the checks read them:
    round 1.0 or "1" is round 1 (a body that is no object fails later, as malformed)."""
    if kind == "MatchExport":
        return str(row.get("match_id"))
    if kind == "RoundCheckpoint":
        try:
            return _number(proofs.body(row["checkpoint"]).get("round", 0))
        except (TypeError, ValueError):
            return None
    if kind == "InclusionProof":
        return [_number(row.get("round", 0)), _number(row.get("table", 0))]
    return None


def _number(value: Any) -> Any:
    """``int(value)`` as the checks take it, or the value when it is no number."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return value


def _parse(
    data: bytes,
) -> tuple[
    dict[str, Any],
    list[dict[str, Any]],
    dict[str, dict[str, Any]],
    list[dict[str, Any]],
    list[dict[str, Any]],
    dict[str, Any],
]:
    rows = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            raise ValueError(f"bundle line {number} is not JSON: {err}") from None
        except RecursionError:  # the json module's parser recurses per level
            raise ValueError(f"bundle line {number} is not JSON: nested too deeply") from None
        if not isinstance(row, dict):
            raise ValueError(f"bundle line {number} is not a JSON object")
        rows.append(row)
    if not rows or rows[0].get("type") != BUNDLE:
        raise ValueError("not a tournament bundle (the first line is not TournamentBundle)")
    if rows[-1].get("type") != proofs.BUNDLE_SEAL:
        raise ValueError("the bundle does not end with its signed seal (cut short?)")
    problem = _header_problem(rows[0])
    if problem:
        raise ValueError(f"bundle header (line 1): {problem}")
    seen: set[tuple[str, str]] = set()
    for number, row in enumerate(rows, start=1):
        kind = str(row.get("type"))
        if kind not in LINE_TYPES or (kind in (BUNDLE, proofs.BUNDLE_SEAL)
                                      and number not in (1, len(rows))):
            raise ValueError(f"bundle line {number}: a line of type {kind[:40]!r} has no "
                             "place in a bundle")
        part = {"LogRecord": "record", "RoundCheckpoint": "checkpoint"}.get(kind)
        if part is not None and not isinstance(row.get(part), dict):
            raise ValueError(f"bundle line {number}: {row['type']} without a JSON object "
                             f"as its {part}")
        # one line per match, round checkpoint and proof: a second could say anything unchecked
        which = _identity(kind, row)
        if which is not None:
            key = (kind, json.dumps(which, sort_keys=True, default=str))
            if key in seen:
                raise ValueError(f"bundle line {number}: a second {kind} of {key[1][:80]}")
            seen.add(key)
    records = [dict(r["record"]) for r in rows if r.get("type") == "LogRecord"]
    exports = {str(r.get("match_id")): r for r in rows if r.get("type") == "MatchExport"}
    checkpoints = [dict(r["checkpoint"]) for r in rows if r.get("type") == "RoundCheckpoint"]
    inclusion = [r for r in rows if r.get("type") == "InclusionProof"]
    return rows[0], records, exports, checkpoints, inclusion, rows[-1]


def _header_problem(header: dict[str, Any]) -> str | None:
    """What is of the wrong shape in the first line, in words (None: nothing): the
    tournament id and the organiser's key are text, the result keys a list of texts (or
    absent: the organiser's key alone). The checks read nothing else from it."""
    for name in ("tournament_id", "public_key"):
        if not isinstance(header.get(name), str):
            return f"{name} is {_kind(header.get(name))}, not text"
    for name in ("result_keys", "previous_keys"):
        keys = header.get(name)
        if keys is not None and not isinstance(keys, list):
            return f"{name} is {_kind(keys)}, not a list of keys (text)"
        odd = next((k for k in keys or () if not isinstance(k, str)), "")
        if not isinstance(odd, str):
            return f"{name} holds {_kind(odd)}, not only keys (text)"
    return None


def _kind(value: Any) -> str:
    """A JSON value's kind, for a message (never the value: it may be anything)."""
    if value is None:
        return "missing (or null)"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "text",
             list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _check_seal(report: BundleReport, seal: dict[str, Any], records: list[dict[str, Any]],
                key: str, tid: str, result_keys: list[str], matches: list[str],
                earlier: list[str]) -> None:
    failures = len(report.failures)
    try:
        body = proofs.open_bundle_seal(seal, key)
    except proofs.Untrusted as err:
        report.fail(f"bundle seal: {err}")
        return
    if sorted(body.get("result_keys") or []) != sorted(result_keys):
        report.fail("bundle seal: the rules keys the bundle trusts are not the ones the "
                    "organiser signed")
    if sorted(body.get("previous_keys") or []) != sorted(earlier):
        report.fail("bundle seal: the organiser's earlier keys the bundle names are not the "
                    "ones the organiser signed")
    if body.get("matches") != matches:
        report.fail("bundle seal: the organiser signed other match exports than the bundle "
                    "holds")
    if body.get("tournament_id") != tid or body.get("log_length") != len(records) \
            or body.get("log_head") != tlog.head(records):
        report.fail(f"bundle seal: signs a log of {body.get('log_length')} records ending "
                    f"{str(body.get('log_head'))[:12]}, the bundle holds {len(records)} ending "
                    f"{tlog.head(records)[:12]}")
    _held(report, failures, "bundle seal signature (Ed25519) over the whole log")


def _check_matches(
    report: BundleReport,
    replayed: tlog.Replayed,
    exports: dict[str, dict[str, Any]],
    result_keys: list[str],
    reports: dict[str, Any],
) -> None:
    game = str(replayed.settings.get("game"))
    failures = len(report.failures)
    seen = 0
    for rnd in replayed.rounds:
        n = rnd["number"]
        tables = {t.number: t for t in rnd["tables"]}
        for number, earlier in sorted(rnd.get("earlier", {}).items()):
            for attempt, match in enumerate(earlier, start=1):
                _check_match_id(report, replayed, n, number, attempt, match["match_id"])
                seen += _check_earlier(report, f"round {n} table {number} (match "
                                       f"{match['match_id']}, rematched)", match,
                                       tables.get(number), exports, result_keys, reports, game)
        for number, match_id in sorted(rnd["matches"].items()):
            where = f"round {n} table {number} (match {match_id})"
            _check_match_id(report, replayed, n, number,
                            len(rnd.get("earlier", {}).get(number, [])) + 1, match_id)
            table = tables.get(number)
            if table is None:
                report.fail(f"{where}: the log creates a match for a table it never paired")
                continue
            result = rnd["results"].get(number)
            if number in rnd.get("abandoned", {}):
                report.warnings.append(f"{where}: the match was abandoned "
                                       f"({rnd['abandoned'][number]})")
            if number in rnd["corrected"]:
                report.warnings.append(f"{where}: result set by the organiser "
                                       f"({rnd['corrected'][number]})")
            line = exports.get(match_id)
            if line is None:
                if number in rnd["sealed"] or (result is not None
                                               and number not in rnd["corrected"]):
                    report.fail(f"{where}: the match's export is missing from the bundle")
                elif number in rnd.get("abandoned", {}):
                    report.fail(f"{where}: the log says the match was abandoned, and its "
                                "export is missing from the bundle")
                elif result is None and replayed.status == "force-ended":
                    stopped = ("its rules service confirmed it stopped"
                               if match_id in (replayed.confirmed or ()) else
                               "the log records no confirmation from its rules service "
                               "that it stopped")
                    report.warnings.append(f"{where}: no result, the tournament was "
                                           f"force-ended ({replayed.reason}); {stopped}")
                continue
            records = _opened(report, where, match_id, line, reports[match_id], result_keys)
            if records is None:
                continue
            created = records[0]
            if created.get("game") != game:
                report.fail(f"{where}: the export is a match of {created.get('game')}, not {game}")
            if list(created.get("players") or []) != list(table.seats):
                report.fail(
                    f"{where}: the match seats {created.get('players')}, the log paired "
                    f"{list(table.seats)}"
                )
            if (created.get("dice") or {}).get("dev"):
                report.fail(f"{where}: the match used a dev seed")
            if not created.get("await_client_seeds"):
                report.fail(f"{where}: the match did not wait for the seats' client seeds")
            ended = next((r for r in records if r.get("type") == "MatchEnded"), None)
            abandoned = ended is not None and is_abandoned(ended.get("outcome"))
            started = next((r for r in records if r.get("type") == "MatchStarted"), None)
            seeded = {int(s) for s, _ in (started or {}).get("client_seeds") or []}
            absent = set(rnd["absent"].get(number, []))
            missing = [s for s in range(len(table.seats)) if s not in seeded and s not in absent]
            # a match abandoned before it started asked no seed
            if missing and (started is not None or not abandoned):
                report.fail(
                    f"{where}: no client seed from seat(s) {missing}, which the log "
                    "says were present"
                )
            final = records[-1].get("hash")
            if number in rnd["sealed"] and rnd["sealed"][number] != final:
                report.fail(
                    f"{where}: the export ends with hash {str(final)[:12]}, the log "
                    f"sealed {rnd['sealed'][number][:12]}"
                )
            if number in rnd.get("abandoned", {}) and not abandoned:
                report.fail(f"{where}: the log says the match was abandoned, its export does not")
            if abandoned and result is not None and number not in rnd["corrected"]:
                report.fail(f"{where}: the match was abandoned, but the log records a result "
                            "that the organiser did not set")
            if result is not None and not abandoned and number not in rnd["corrected"]:
                if ended is None:
                    report.fail(f"{where}: the log records a result, the match's export does "
                                "not end")
                elif not isinstance(rnd.get("signed", {}).get(number), Mapping):
                    report.fail(f"{where}: the log records a result without the rules "
                                "service's signed result (an organiser's change is a "
                                "correction)")
            if result is not None and ended is not None and not abandoned:
                played = [int(p) for p in ended["outcome"]["placements"]]
                if number in rnd["corrected"]:
                    pass
                elif played != list(result.placements):
                    report.fail(
                        f"{where}: the log records placements {list(result.placements)}, "
                        f"the match ended {played}"
                    )
                signed = rnd.get("signed", {}).get(number)
                if signed is not None:
                    _check_signed(report, where, signed, result_keys, played, match_id)
                    if number not in rnd["corrected"]:
                        _check_recorded(report, where, replayed, rnd, table, signed)
            seen += 1
    report.matches = seen
    _held(report, failures, f"{seen} match exports verified (chain, signature, seed, draws, "
          "replay) and matched to their tables and results")


def _opened(report: BundleReport, where: str, match_id: str, line: dict[str, Any],
            match_report: Any, result_keys: list[str]) -> list[dict[str, Any]] | None:
    """The records of a MatchExport line whose export verified on its own, is signed by a
    rules key the bundle trusts and is of the match it is filed under; else None, the
    report failed with why."""
    from services.rules.export import parse_export

    if not match_report.ok:
        report.fail(f"{where}: {match_report.failure}")
        return None
    records, checkpoint = parse_export(_export_bytes(line))
    if str(checkpoint.get("public_key")) not in result_keys:
        report.fail(f"{where}: the export is signed by a key the bundle does not trust")
        return None
    if records[0].get("match_id") != match_id:
        report.fail(f"{where}: the export is of match {records[0].get('match_id')}")
        return None
    return records


def _check_match_id(report: BundleReport, replayed: tlog.Replayed, number: int, table: int,
                    attempt: int, match_id: str) -> None:
    """The log's match of a table is the one the service creates for it: its id is the
    tournament's, the round's and the table's (and the attempt's, after a rematch), as the
    service has named every table's match since its first release (domain.match_id_of).
    Else a genuine match of the same players from another tournament or round, signed and
    sealed, could stand in for the table's."""
    from services.tournament.domain import match_id_of

    expected = match_id_of(replayed.tournament_id, number, table, attempt)
    if match_id != expected:
        report.fail(f"round {number} table {table}: the log names match {match_id}; the "
                    f"service names this table's match {expected}")


def _check_earlier(report: BundleReport, where: str, match: dict[str, Any], table: Any,
                   exports: dict[str, dict[str, Any]], result_keys: list[str],
                   reports: dict[str, Any], game: str) -> int:
    """A table's match that was abandoned and replaced by a rematch: its export is in the
    bundle, verifies, is a match of the table's seats, ended abandoned, and ends with the
    final hash the log recorded at the rematch. 1 when it was checked."""
    report.warnings.append(f"{where}: abandoned ({match['abandoned']}), then played again "
                           f"({match['reason']})")
    line = exports.get(match["match_id"])
    if table is None:
        report.fail(f"{where}: the log rematches a table it never paired")
        return 0
    if line is None:
        report.fail(f"{where}: the rematched match's export is missing from the bundle")
        return 0
    records = _opened(report, where, match["match_id"], line, reports[match["match_id"]],
                      result_keys)
    if records is None:
        return 0
    created = records[0]
    ended = next((r for r in records if r.get("type") == "MatchEnded"), None)
    if created.get("game") != game or list(created.get("players") or []) != list(table.seats):
        report.fail(f"{where}: the export is not a match of the table's seats in {game}")
    elif ended is None or not is_abandoned(ended.get("outcome")):
        report.fail(f"{where}: the log rematched the table, but this match was not abandoned")
    elif records[-1].get("hash") != match["final_hash"]:
        report.fail(f"{where}: the export ends with hash {str(records[-1].get('hash'))[:12]}, "
                    f"the log recorded {match['final_hash'][:12]} at the rematch")
    return 1


def _check_signed(
    report: BundleReport, where: str, signed: Any, keys: list[str], played: list[int],
    match_id: str,
) -> None:
    try:
        body = open_result(signed, keys)
    except Untrusted as err:
        report.fail(f"{where}: the signed result in the log does not hold: {err}")
        return
    if body.get("match_id") != match_id:
        report.fail(f"{where}: the signed result is of match {body.get('match_id')}")
    if [int(p) for p in body["outcome"]["placements"]] != played:
        report.fail(f"{where}: the signed result differs from the match's export")


def _check_recorded(report: BundleReport, where: str, replayed: tlog.Replayed,
                    rnd: Mapping[str, Any], table: Any, signed: Any) -> None:
    """A result the service recorded from a signed result (not the organiser's correction)
    says what the service derives from it, and nothing else: the game's scores as the
    tie-break values, and as forfeited the seats its match started without when the
    no-show policy forfeits them (a two-seat table then a forfeit): in a tournament created
    since 7 December 2026 (log.LOG_VERSION 2), only those the signed result names among the
    seats that never made a move. Else the log could turn a played game into a forfeit, or
    change the game's tie-break values, unseen: the organiser's changes are corrections,
    which the check names."""
    body = dict(signed.get("result") or {})  # its signature: _check_signed
    outcome = body.get("outcome") or {}
    seats = list(table.seats)
    scores = outcome.get("scores") or [0] * len(seats)
    no_move = tlog.no_move_of(body, len(seats))
    by_moves = tlog.forfeits_by_moves(replayed.settings)
    for index, result in rnd["results_at"][table.number]:  # not corrected: each recorded
        started = rnd["started"].get(result.match_id)
        absent = started[1] if started is not None and started[0] < index else []
        kind, forfeited, tiebreak = tlog.from_signed(
            seats, absent, str(replayed.settings.get("no_show")), scores,
            no_move if by_moves else None)
        if not by_moves and no_move is not None and result is rnd["results"][table.number]:
            came = [seats[s] for s in absent if s not in no_move and seats[s] in forfeited]
            if came:
                report.warnings.append(
                    f"{where}: {', '.join(came)} forfeited as absent at the check-in, though "
                    "the match's signed result says they made moves (the rule of a "
                    "tournament created before 7 December 2026: every absent seat forfeited)")
        expected = {"kind": kind, "forfeited": forfeited, "game_tiebreak": list(tiebreak),
                    "match_id": str(body.get("match_id"))}
        found = {"kind": result.kind, "forfeited": list(result.forfeited),
                 "game_tiebreak": [float(x) for x in result.game_tiebreak],
                 "match_id": result.match_id}
        if result is not rnd["results"][table.number]:  # the last: against the export
            # an earlier one (the service records one per table) could have bent the
            # pairing of the next round, which was made from it
            expected["placements"] = [int(p) for p in outcome.get("placements") or []]
            found["placements"] = [int(p) for p in result.placements]
        for name in expected:
            if found[name] != expected[name]:
                report.fail(f"{where}: the log records {name} {found[name]!r}, the signed "
                            f"result and the log's MatchStarted give {expected[name]!r} (an "
                            "organiser's change is a correction)")


def _check_checkpoints(report: BundleReport, replayed: tlog.Replayed,
                       records: list[dict[str, Any]], checkpoints: list[dict[str, Any]],
                       inclusion: list[dict[str, Any]], key: str, earlier: list[str]) -> None:
    """Each round's signed checkpoint (core/checkpoint.py), by the bundle's key or one of
    the organiser's ``earlier`` keys its seal names (a rotation), and every inclusion
    proof."""
    events = tlog.bodies(records)
    copies = {int(proofs.body(c).get("round", 0)): c for c in checkpoints}
    failures = len(report.failures)
    count = 0
    for rnd in replayed.rounds:
        n, message = rnd["number"], rnd["checkpoint"]
        if message is None:
            continue
        if copies.get(n) != message:
            report.fail(f"round {n} checkpoint: the bundle's copy differs from the one in the log")
        hashes = [rnd["sealed"][t] for t in _leaf_tables(rnd)]
        problems = checkpoint.verify_checkpoint(
            message, [key, *earlier], tournament_id=replayed.tournament_id, round_number=n,
            match_hashes=hashes, events=events)
        for problem in problems:
            report.fail(f"round {n} {problem}" if problem.startswith("checkpoint:") else problem)
        count += not problems
        signer = str(message.get("key", ""))
        if not problems and signer.lower() != key.lower():
            report.checks.append(f"round {n} checkpoint signed by the organiser's earlier key "
                                 f"{signer[:16]}... (named in the sealed bundle)")
    _held(report, failures, f"{count} round checkpoints: signature, Merkle root and log head")
    failures = len(report.failures)
    proved = 0
    for p in inclusion:
        n, table = int(p.get("round", 0)), int(p.get("table", 0))
        where = f"inclusion proof of round {n} table {table}"
        if not 1 <= n <= len(replayed.rounds) or replayed.rounds[n - 1]["checkpoint"] is None:
            report.fail(f"{where}: no such checkpoint")
            continue
        rnd = replayed.rounds[n - 1]
        if p.get("match_id") != rnd["matches"].get(table):
            report.fail(f"{where}: names match {p.get('match_id')}, the log's is "
                        f"{rnd['matches'].get(table)}")
        elif rnd["sealed"].get(table) != p.get("final_hash"):
            report.fail(f"{where}: proves another hash than the log sealed")
        elif not checkpoint.verify_match_inclusion(
                str(p.get("final_hash")), int(p.get("index", -1)), list(p.get("proof") or []),
                proofs.body(rnd["checkpoint"])):
            report.fail(f"{where}: does not lead to the checkpoint's Merkle root")
        else:
            proved += 1
    expected = sum(len(_leaf_tables(r)) for r in replayed.rounds if r["checkpoint"] is not None)
    if proved != expected:
        report.fail(f"inclusion proofs: {proved} hold, {expected} expected")
    _held(report, failures, f"{proved} inclusion proofs lead to their round's Merkle root")


def _recheck(report: BundleReport, replayed: tlog.Replayed) -> None:
    """Recompute every round's pairings and the standings (core/audit.py ``recheck``)."""
    assert replayed.config is not None
    problems = audit.recheck(replayed.config, replayed.audit_events)
    for problem in problems:
        report.fail(str(problem))
    if not problems:
        report.checks.append(f"pairings of {len(replayed.rounds)} rounds and the standings "
                             "recomputed from the results and the format's rules")
        if back := replayed.reinstatements:
            named = ", ".join(f"{r['player_id']} from round {r['from_round']}" for r in back)
            report.checks.append(f"reinstatements: {len(back)} of a dropped player, each "
                                 f"before the round it names was paired ({named})")


def _check_no_shows(report: BundleReport, replayed: tlog.Replayed) -> None:
    """The format's no-show drops (services/tournament/noshows.py), recomputed from the log:
    each NoShowDropped is of a player who never came to their table, and, when the format
    drops no-shows, each such player was dropped before the next round was paired."""
    problems = noshows.problems(replayed)
    for problem in problems:
        report.fail(problem)
    if not problems and (line := noshows.summary(replayed)):
        report.checks.append(line)


CHANGES_STANDINGS = ("RoundPaired", "ResultRecorded", "ResultCorrected", "PlayerDropped",
                     "NoShowDropped", "PlayerReinstated", "LateEntry")
"""Log records the standings are computed from."""


def _check_finished(report: BundleReport, replayed: tlog.Replayed,
                    records: list[dict[str, Any]]) -> None:
    """A Finished log is one the service finished (FinishTournament, the only way to it):
    refused before the format's last round is complete and its checkpoint published, and
    the final standings published just before. Else an organiser could leave rounds out of
    a finished tournament unseen; ending early is ForceEnded, which the log names."""
    ended = next((i for i, r in enumerate(records) if r.get("type") == "Finished"), None)
    if ended is None:
        return
    assert replayed.config is not None
    failures = len(report.failures)
    what = "the log says the tournament finished, but"
    history = replayed.history()
    if not formats.finished(replayed.config, history):
        played, planned = len(history.rounds), formats.planned(replayed.config, history)
        report.fail(f"{what} the format's rules have it go on: {played} of {planned} rounds "
                    "played" if played < planned else
                    f"{what} round {played} is not complete")
    if replayed.rounds and replayed.rounds[-1]["checkpoint"] is None:
        report.fail(f"{what} round {replayed.rounds[-1]['number']}'s checkpoint is not "
                    "published")
    final = [i for i, r in enumerate(records[:ended])
             if r.get("type") == "StandingsPublished" and r.get("final") is True]
    if not final:
        report.fail(f"{what} publishes no final standings before it")
    elif final[-1] != ended - 1:  # FinishTournament records both at once
        between = records[final[-1] + 1]
        report.fail(f"tournament log record {final[-1] + 2} ({between.get('type')}): between "
                    "the final standings and Finished, which the service records together")
    strict = tlog.log_version(replayed.settings) >= 2
    for index, record in enumerate(records[ended + 1:], start=ended + 2):
        if record.get("type") not in CHANGES_STANDINGS:
            continue
        where = f"tournament log record {index} ({record.get('type')}): recorded after the " \
                "tournament finished"
        if strict:  # the service refuses such a record since 4 December 2026
            report.fail(f"{where}, which the service refuses")
        else:  # a service before recorded a late result there
            report.warnings.append(f"{where}; the final standings published do not count it")
    _held(report, failures, "finished as the service finishes: every round the format plays, "
          "the last checkpoint and the final standings")


def _check_entries(report: BundleReport, replayed: tlog.Replayed) -> None:
    """Each LateEntry and PlayerDropped names the round the service gives it when it is
    recorded: a late entry plays from the next round to be paired, a drop is after the
    rounds paired so far (the director has written them so since its first release).
    Else a record added later could enter a player into rounds already played, or drop
    one from rounds they played. (NoShowDropped: :func:`_check_no_shows`.)"""

    def paired_before(at: int) -> int:
        return sum(1 for r in replayed.rounds if r["log_length_before"] < at)

    for player, first in replayed.late:
        at = replayed.at[f"late:{player}"]
        if first != (due := paired_before(at) + 1):
            report.fail(f"tournament log record {at + 1} (LateEntry): {player} enters from "
                        f"round {first}, but the next round to be paired was {due}")
    by_format = {d["at"] for d in replayed.no_show_drops}
    for (player, after), at in zip(replayed.dropped, replayed.dropped_at):
        if at not in by_format and after != (paired := paired_before(at)):
            report.fail(f"tournament log record {at + 1} (PlayerDropped): {player} dropped "
                        f"after round {after}, but {paired} rounds were paired then")
