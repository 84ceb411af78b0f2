"""The tournament's log, its replay into the core's values and the bundle verifier, without
any service: a whole Swiss run on the Tournament aggregate in memory, results entered as
organiser corrections (no matches), checkpoints signed, bundle built and verified."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.platform.canonical import canonical_json
from services.tournament import formats
from services.tournament import log as tlog
from services.tournament.bundle import build_bundle, is_bundle, verify_bundle
from services.tournament.core.model import TableResult
from services.tournament.domain import Tournament
from tests.support.tournament_log import KEY, finish, log_records, publish_checkpoint, started

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [f"p{i}" for i in range(6)]


def run_swiss(rounds: int = 3, drop_after: int = 0) -> tuple[Tournament, list[dict]]:
    events: list = []
    t = started(PLAYERS, {"format": "swiss", "rounds": rounds,
                          "tiebreaks": ["buchholz", "sonneborn-berger", "wins"]})
    for number in range(1, rounds + 1):
        replayed = tlog.replay_log(log_records(t, events))
        tables = formats.pair(replayed.config, replayed.history())
        t.pair_round(number, [tlog.table_json(k) for k in tables])
        for k in tables:
            if k.bye:
                continue
            first_wins = (number + k.number) % 2 == 0
            result = TableResult(table=k.number, seats=k.seats,
                                 placements=(1, 2) if first_wins else (2, 1))
            t.correct_result(number, k.number, tlog.result_json(result), "entered by hand", "org")
        if number == drop_after:
            t.drop(PLAYERS[0], number, "ill", "org")
        publish_checkpoint(t, events, number)
    return t, finish(t, events)


def test_the_log_chain_detects_an_edit_and_a_reorder() -> None:
    _, records = run_swiss()
    assert tlog.check_chain("unit", records) is None
    edited = [dict(r) for r in records]
    edited[3]["player_id"] = "mallory"
    assert "record 4" in (tlog.check_chain("unit", edited) or "")
    swapped = [records[1], records[0], *records[2:]]
    assert tlog.check_chain("unit", swapped) is not None


def test_history_before_a_round_is_what_the_service_paired_from() -> None:
    _, records = run_swiss(rounds=3, drop_after=1)
    replayed = tlog.replay_log(records)
    assert replayed.history(before_round=1).rounds == ()
    assert replayed.history(before_round=2).dropped == (("p0", 1),)
    assert replayed.history(before_round=1).dropped == ()
    for number in (1, 2, 3):  # the published pairings are what the core pairs from that history
        again = formats.pair(replayed.config, replayed.history(before_round=number))
        assert [k.seats for k in again] == [k.seats for k in replayed.rounds[number - 1]["tables"]]
    assert all("p0" not in k.seats for k in replayed.rounds[1]["tables"] if not k.bye)


def test_a_bundle_of_a_tournament_without_matches_verifies_and_catches_an_edit() -> None:
    _, records = run_swiss()
    bundle = build_bundle("unit", "g", records, {}, KEY, [])
    assert is_bundle(bundle) and not is_bundle(b'{"type":"MatchCreated"}\n')
    from services.platform.signing import public_key_hex

    report = verify_bundle(bundle, public_key_hex(KEY))
    assert report.ok, report.failures
    assert any("standings" in c for c in report.checks)
    lines = [json.loads(x) for x in bundle.splitlines()]
    log_lines = [x for x in lines if x["type"] == "LogRecord"]
    rows = next(x for x in log_lines if x["record"]["type"] == "StandingsPublished")["record"]["rows"]
    rows[0]["points"] += 1
    forged = b"\n".join(canonical_json(x) for x in lines) + b"\n"
    text = "\n".join(verify_bundle(forged).failures)
    assert "hash does not match" in text


@pytest.mark.parametrize("garbage,reason", [
    (b"", "not a tournament bundle"),
    (b"{}\n", "not a tournament bundle"),
    (b'{"type":"TournamentBundle"}\nnot json\n', "line 2 is not JSON"),
    (b'{"type":"TournamentBundle"}\n', "does not end with its signed seal"),
    (b'{"type":"TournamentBundle"}\n' + b"[" * 5_000 + b"]" * 5_000 + b"\n",
     "bundle line 2 is not JSON: nested too deeply"),
])
def test_malformed_bundles_are_refused_with_the_reason(garbage: bytes, reason: str) -> None:
    report = verify_bundle(garbage)
    assert not report.ok and reason in report.failure


def test_a_first_line_nested_too_deeply_is_not_a_bundle() -> None:
    assert not is_bundle(b"[" * 5_000 + b"]" * 5_000 + b"\n")


def _reshaped(bundle: bytes, change: Any) -> bytes:
    lines = [json.loads(x) for x in bundle.splitlines()]
    change(lines)
    return b"\n".join(canonical_json(x) for x in lines) + b"\n"


def _first(kind: str, key: str, value: Any) -> Any:
    def change(lines: list[dict]) -> None:
        next(x for x in lines if x["type"] == kind)[key] = value
    return change


@pytest.mark.parametrize("change,reason", [
    (_first("RoundCheckpoint", "checkpoint", [1]), "RoundCheckpoint without a JSON object"),
    (_first("LogRecord", "record", "x"), "LogRecord without a JSON object"),
    (_first("TournamentBundle", "result_keys", 5),
     "bundle header (line 1): result_keys is a number, not a list of keys (text)"),
    (_first("TournamentBundle", "result_keys", ["ab", 7]),
     "bundle header (line 1): result_keys holds a number, not only keys (text)"),
    (_first("TournamentBundle", "public_key", {"k": 1}),
     "bundle header (line 1): public_key is an object, not text"),
    (_first("TournamentBundle", "tournament_id", None),
     "bundle header (line 1): tournament_id is missing (or null), not text"),
])
def test_bundle_parts_of_the_wrong_shape_fail_with_the_reason(change: Any, reason: str) -> None:
    """A bundle signed with the key in it (anyone's) whose parts have the wrong shape fails
    with the reason instead of raising (``neon verify`` then goes on with other files)."""
    _, records = run_swiss()
    bundle = build_bundle("unit", "g", records, {}, KEY, [])
    assert verify_bundle(bundle).ok
    report = verify_bundle(_reshaped(bundle, change))
    assert not report.ok and reason in report.failure, report.failures


def _spliced(bundle: bytes, record_type: str, key: str, text: bytes) -> bytes:
    """The bundle with ``key`` of its first log record of ``record_type`` set to the JSON
    ``text`` as it is (canonical JSON writes no 400-digit integer, no nesting 900 deep)."""
    lines = bundle.splitlines()
    for i, line in enumerate(lines):
        row = json.loads(line)
        if row["type"] == "LogRecord" and row["record"]["type"] == record_type:
            row["record"][key] = "@@here@@"
            lines[i] = canonical_json(row).replace(b'"@@here@@"', text)
            break
    return b"\n".join(lines) + b"\n"


def test_a_log_value_beyond_a_float_fails_with_the_record() -> None:
    # float() of an integer beyond a double raised OverflowError out of verify_bundle
    _, records = run_swiss()
    bundle = build_bundle("unit", "g", records, {}, KEY, [])
    rating = b'[{"player_id":"p0","rating":1' + b"0" * 400 + b',"registered":0}]'
    report = verify_bundle(_spliced(bundle, "Started", "entrants", rating))
    assert not report.ok
    assert "tournament log record 9 (Started): malformed (OverflowError(" in report.failure, \
        report.failures


def test_a_log_value_the_chain_cannot_encode_fails_with_the_record() -> None:
    """A value just shallow enough for the json module's parser is too deep for the chain's
    encoder, which is called deeper in the stack: RecursionError escaped verify_bundle."""
    _, records = run_swiss()
    bundle = build_bundle("unit", "g", records, {}, KEY, [])
    reasons = []
    for depth in range(1_000, 850, -1):  # from too deep to parse to the deepest parsed
        report = verify_bundle(_spliced(bundle, "Started", "x", b"[" * depth + b"]" * depth))
        assert not report.ok
        if "is not JSON: nested too deeply" not in report.failure:
            reasons.append(report.failure)
            break
    assert reasons and reasons[0].startswith(
        "tournament log record 9 (Started): holds a value canonical JSON cannot encode "
        "(RecursionError"), reasons


def test_an_inclusion_proof_of_round_1e400_fails_with_the_reason() -> None:
    # int(1e400) raised OverflowError out of verify_bundle
    _, records = run_swiss()
    lines = build_bundle("unit", "g", records, {}, KEY, []).splitlines()
    lines.insert(-1, b'{"type":"InclusionProof","round":1e400,"table":1}')
    report = verify_bundle(b"\n".join(lines) + b"\n")
    assert not report.ok
    # named by its part, and the parts after it are still checked
    assert report.failures == ["bundle: round checkpoints and inclusion proofs: malformed "
                               "(OverflowError: cannot convert float infinity to integer)"]
    assert any(c.startswith("pairings of 3 rounds and the standings recomputed")
               for c in report.checks), report.checks


def test_a_bundle_made_before_the_checks_grew_still_verifies() -> None:
    """Published bundles are promises: one built by main 33f18b3 (a Swiss of five over two
    rounds, three neon-reign matches, one table set by the organiser), before rematches,
    AbandonsConfirmed and the one-line-per-part checks, verifies today with its key pinned."""
    data = (ROOT / "tests/fixtures/bundles/swiss-neon-reign-33f18b3.jsonl").read_bytes()
    report = verify_bundle(
        data, "79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664")
    assert report.ok, report.failures
    assert report.matches == 3
    tampered = data.replace(b'"placements":[1,2]', b'"placements":[2,1]', 1)
    assert tampered != data and not verify_bundle(tampered).ok


def test_a_check_that_failed_is_not_also_reported_as_held() -> None:
    """One result changed in the log: its table, the round checkpoints after it and the
    recomputed pairings fail, and the report's "ok" lines claim none of those parts (it
    printed "ok 3 match exports ... matched to their tables and results" and "ok 0 round
    checkpoints" beside the failures); the parts that did hold are still listed."""
    data = (ROOT / "tests/fixtures/bundles/swiss-neon-reign-33f18b3.jsonl").read_bytes()
    tampered = data.replace(b'"placements":[1,2]', b'"placements":[2,1]', 1)
    report = verify_bundle(
        tampered, "79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664")
    failures = "\n".join(report.failures)
    assert "the log records placements [2, 1], the match ended [1, 2]" in failures
    assert "round 1 checkpoint: the tournament log up to event 21" in failures
    assert not any("match exports" in c or "round checkpoints" in c or "pairings" in c
                   for c in report.checks), report.checks
    assert "bundle seal signature (Ed25519) over the whole log" in report.checks
    assert "3 inclusion proofs lead to their round's Merkle root" in report.checks
