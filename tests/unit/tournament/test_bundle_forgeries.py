"""Bundles bent by an organiser who holds the signing key: the log edited, re-chained, every
round checkpoint signed again over the new log and the bundle re-sealed. The rules service's
signed results and the match exports must still tie the standings down, and the log must
say what the service would have written: each forgery fails naming what is wrong.

The genuine bundle is the fuzz test's stand-in Swiss (five players, two rounds, neon-reign
matches played by rule bots; round 2 table 2 set by the organiser)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from services.platform.signing import public_key_hex
from services.rules.export import parse_export
from services.rules.results import sign_result
from services.tournament import formats, proofs
from services.tournament import log as tlog
from services.tournament.bundle import BundleReport, build_bundle, verify_bundle
from tests.unit.test_verify_fuzz import KEY, tournament_bundle, tournament_export

TID = "fuzz"
GENUINE: list[bytes] = []


def _genuine() -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    if not GENUINE:
        GENUINE.append(tournament_bundle())
    rows = [json.loads(line) for line in GENUINE[0].splitlines()]
    records = [r["record"] for r in rows if r["type"] == "LogRecord"]
    exports = {r["match_id"]: r["export"].encode() for r in rows if r["type"] == "MatchExport"}
    return copy.deepcopy(records), exports


def _chained(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return tlog.chain(TID, [{**{k: v for k, v in b.items() if k != "hash"}, "n": i}
                            for i, b in enumerate(bodies, start=1)])


def organiser(bodies: list[dict[str, Any]], exports: dict[str, bytes]) -> bytes:
    """The bundle of the edited log as its organiser would publish it: renumbered and
    re-chained, each standings record recomputed from the log before it, each round
    checkpoint signed again over the log before it, sealed with the organiser's key."""
    out: list[dict[str, Any]] = []
    for body in bodies:
        body = dict(body)
        if body["type"] in ("StandingsPublished", "CheckpointPublished"):
            replayed = tlog.replay_log(_chained(out))
        if body["type"] == "StandingsPublished":
            assert replayed.config is not None
            body["rows"] = [formats.row_json(r) for r in
                            formats.standings(replayed.config, replayed.history())]
        if body["type"] == "CheckpointPublished":
            rnd = replayed.rounds[int(body["round"]) - 1]
            leaves = [(rnd["matches"][t.number], rnd["sealed"][t.number])
                      for t in sorted(rnd["tables"], key=lambda t: t.number)
                      if not t.bye and t.number in rnd["sealed"]]
            chained = _chained(out)
            body["checkpoint"] = proofs.round_checkpoint(
                TID, int(body["round"]), leaves, len(chained), tlog.head(chained), KEY)
        out.append(body)
    return build_bundle(TID, "neon-reign", _chained(out), exports, KEY, [])


def _at(bodies: list[dict[str, Any]], kind: str, **fields: Any) -> int:
    return next(i for i, b in enumerate(bodies)
                if b["type"] == kind and all(b.get(k) == v for k, v in fields.items()))


def _verified(data: bytes) -> BundleReport:
    return verify_bundle(data, public_key_hex(KEY))


def test_the_organisers_rebuild_of_the_genuine_log_verifies() -> None:
    """The harness itself: re-chained, re-signed and re-sealed unchanged, it verifies."""
    records, exports = _genuine()
    report = _verified(organiser(records, exports))
    assert report.ok, report.failures


def _same_outcome_elsewhere(match_id: str, players: list[str], like: bytes) -> bytes:
    """A match of ``players`` under another match id that ended as ``like`` did (placements
    and scores): the seed is searched for."""
    want = next(r for r in parse_export(like)[0] if r["type"] == "MatchEnded")["outcome"]
    for seed in range(1, 400):
        data = tournament_export("neon-reign", "single", match_id, players, seed)
        ended = next(r for r in parse_export(data)[0] if r["type"] == "MatchEnded")
        if (ended["outcome"]["placements"], ended["outcome"]["scores"]) == \
                (want["placements"], want["scores"]):
            return data
    raise AssertionError("no seed gives the same outcome")


@pytest.mark.parametrize("other", ["elsewhere-r1-t1", "fuzz-r3-t1", "fuzz-r1-t1-g2"])
def test_a_table_played_by_a_match_of_another_tournament_or_round_fails(other: str) -> None:
    """The same players, the same result, a genuine export signed by the trusted rules key,
    sealed and checkpointed: but not the match the tournament created for the table (its
    match id is the tournament's, round's and table's, as the service names it)."""
    records, exports = _genuine()
    data = _same_outcome_elsewhere(other, ["p0", "p2"], exports["fuzz-r1-t1"])
    match, _ = parse_export(data)
    ended = next(r for r in match if r["type"] == "MatchEnded")
    records[_at(records, "MatchCreated", round=1, table=1)]["match_id"] = other
    recorded = records[_at(records, "ResultRecorded", round=1, table=1)]
    recorded["result"]["match_id"] = other
    recorded["signed"] = sign_result(ended, KEY)
    sealed = records[_at(records, "MatchSealed", round=1, table=1)]
    sealed["match_id"], sealed["final_hash"] = other, match[-1]["hash"]
    exports = {**{k: v for k, v in exports.items() if k != "fuzz-r1-t1"}, other: data}
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert (f"round 1 table 1: the log names match {other}; the service names this table's "
            "match fuzz-r1-t1") in report.failures, report.failures


def test_a_recorded_result_without_the_signed_result_fails() -> None:
    """ResultRecorded always carries the rules service's signed result (the service records
    a result from nothing else): without it, the recorded tie-break values, kind and
    forfeits went unchecked."""
    records, exports = _genuine()
    recorded = records[_at(records, "ResultRecorded", round=1, table=1)]
    recorded["signed"] = None
    recorded["result"]["game_tiebreak"] = [0, 99]
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert ("round 1 table 1 (match fuzz-r1-t1): the log records a result without the rules "
            "service's signed result (an organiser's change is a correction)") \
        in report.failures, report.failures


def test_a_signed_result_of_another_match_fails() -> None:
    records, exports = _genuine()
    data = _same_outcome_elsewhere("elsewhere-r1-t1", ["p0", "p2"], exports["fuzz-r1-t1"])
    ended = next(r for r in parse_export(data)[0] if r["type"] == "MatchEnded")
    recorded = records[_at(records, "ResultRecorded", round=1, table=1)]
    recorded["signed"] = sign_result(ended, KEY)
    recorded["result"]["match_id"] = "elsewhere-r1-t1"
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert ("round 1 table 1 (match fuzz-r1-t1): the signed result is of match "
            "elsewhere-r1-t1") in report.failures, report.failures


def test_a_false_result_recorded_before_the_next_pairing_then_the_true_one_fails() -> None:
    """The service records one result per table (a second is a duplicate); a false one
    that the next round was paired from, then the signed one, bent the pairing unseen."""
    records, exports = _genuine()
    at = _at(records, "ResultRecorded", round=1, table=1)
    false = copy.deepcopy(records[at])
    false["result"]["placements"] = [2, 1]
    records.insert(at, false)
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert ("round 1 table 1 (match fuzz-r1-t1): the log records placements [2, 1], the "
            "signed result and the log's MatchStarted give [1, 2] (an organiser's change is "
            "a correction)") in report.failures, report.failures


def _without(kind: str, **fields: Any) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in records
                if not (r["type"] == kind and all(r.get(k) == v for k, v in fields.items()))]
    return change


def _last_round_left_out(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cut = _at(records, "RoundPaired", round=2)
    return [*records[:cut], *(r for r in records[cut:]
                              if r["type"] in ("StandingsPublished", "Finished"))]


@pytest.mark.parametrize("change,reason", [
    (_last_round_left_out, "the log says the tournament finished, but the format's rules "
                           "have it go on: 1 of 2 rounds played"),
    (_without("CheckpointPublished", round=2),
     "the log says the tournament finished, but round 2's checkpoint is not published"),
    (_without("StandingsPublished"),
     "the log says the tournament finished, but publishes no final standings before it"),
])
def test_a_tournament_finished_as_the_service_would_not_have_fails(change: Any,
                                                                    reason: str) -> None:
    """FinishTournament is refused before the format's last round is complete and its
    checkpoint published, and always publishes the final standings first: a Finished log
    that says otherwise (a round left out, its matches dropped) was not written so."""
    records, exports = _genuine()
    records = change(records)
    kept = {r["match_id"] for r in records if r["type"] == "MatchCreated"}
    report = _verified(organiser(records, {k: v for k, v in exports.items() if k in kept}))
    assert not report.ok
    assert reason in report.failures, report.failures


def test_a_force_ended_tournament_of_fewer_rounds_still_verifies() -> None:
    """Ending early is the organiser's ForceEnded, which the log and the bundle name."""
    records, exports = _genuine()
    records = _last_round_left_out(records)
    records[-1] = {"type": "ForceEnded", "timestamp": records[-1]["timestamp"],
                   "reason": "venue closed", "by": "org"}
    records = [r for r in records if r["type"] != "StandingsPublished"]
    kept = {r["match_id"] for r in records if r["type"] == "MatchCreated"}
    report = _verified(organiser(records, {k: v for k, v in exports.items() if k in kept}))
    assert report.ok, report.failures


def _inserted_before(kind: str, record: dict[str, Any], **fields: Any) -> Any:
    def change(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        at = _at(records, kind, **fields)
        return [*records[:at], {**record, "timestamp": records[at]["timestamp"]},
                *records[at:]]
    return change


LATE = {"type": "LateEntry", "player_id": "p9", "rating": 0.0, "registered": 9}


@pytest.mark.parametrize("change,reason", [
    (_inserted_before("MatchCreated", {**LATE, "first_round": 2}, round=2, table=1),
     "tournament log record 24 (LateEntry): p9 enters from round 2, but the next round to "
     "be paired was 3"),
    (_inserted_before("StandingsPublished", {**LATE, "first_round": 1}),
     "tournament log record 33 (LateEntry): p9 enters from round 1, but the next round to "
     "be paired was 3"),
    (_inserted_before("StandingsPublished", {"type": "PlayerDropped", "player_id": "p0",
                                             "after_round": 0, "reason": "", "by": "org"}),
     "tournament log record 33 (PlayerDropped): p0 dropped after round 0, but 2 rounds "
     "were paired then"),
])
def test_a_late_entry_or_drop_dated_to_another_round_fails(change: Any, reason: str) -> None:
    """The service dates a late entry from the next round to be paired and a drop after the
    rounds paired so far; one recorded later that claims an earlier round put a player into
    (or out of) rounds already played."""
    records, exports = _genuine()
    report = _verified(organiser(change(records), exports))
    assert not report.ok
    assert reason in report.failures, report.failures


def test_a_drop_after_the_last_round_still_verifies() -> None:
    records, exports = _genuine()
    change = _inserted_before("StandingsPublished", {
        "type": "PlayerDropped", "player_id": "p0", "after_round": 2, "reason": "", "by": "org"})
    report = _verified(organiser(change(records), exports))
    assert report.ok, report.failures


def test_a_bundle_whose_header_names_another_tournament_than_its_log_fails() -> None:
    records, exports = _genuine()
    rows = [json.loads(line) for line in organiser(records, exports).splitlines()]
    chained = [r["record"] for r in rows if r["type"] == "LogRecord"]
    report = _verified(build_bundle("other", "neon-reign", chained, exports, KEY, []))
    assert not report.ok
    assert "bundle header: names tournament other, its log is of tournament fuzz" \
        in report.failures, report.failures


def _late_correction(records: list[dict[str, Any]]) -> dict[str, Any]:
    recorded = records[_at(records, "ResultRecorded", round=1, table=1)]
    return {"type": "ResultCorrected", "timestamp": recorded["timestamp"], "round": 1,
            "table": 1, "reason": "appeal", "by": "org",
            "result": {**recorded["result"], "placements": [2, 1]}}


def test_a_correction_between_the_final_standings_and_finished_fails() -> None:
    """FinishTournament records the final standings and Finished together: a result slipped
    in between changes the standings the final ones claim to be."""
    records, exports = _genuine()
    records.insert(_at(records, "Finished"), _late_correction(records))
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert ("tournament log record 34 (ResultCorrected): between the final standings and "
            "Finished, which the service records together") in report.failures, report.failures


def test_a_correction_after_finished_is_named() -> None:
    """A service before 4 December 2026 recorded a result arriving after FinishTournament
    (one since refuses it): such a bundle still verifies, and says the final standings do
    not count it."""
    records, exports = _genuine()
    records.append(_late_correction(records))
    report = _verified(organiser(records, exports))
    assert report.ok, report.failures
    assert ("tournament log record 35 (ResultCorrected): recorded after the tournament "
            "finished; the final standings published do not count it") in report.warnings


OWN_RULES_KEY = "ab" * 32
"""A rules key the auditor trusts that signed none of the genuine bundle's matches."""


def test_pinned_rules_keys_refuse_a_bundle_trusting_another() -> None:
    """The header's result keys are the organiser's word (the seal signs them): an organiser
    that names a rules key of its own could vouch for any match it made up. ``rules_keys``
    (``neon verify --rules-key``) pins them."""
    records, exports = _genuine()
    bundle = organiser(records, exports)
    rules = public_key_hex(KEY)
    assert verify_bundle(bundle, rules, rules_keys=[rules]).ok
    assert verify_bundle(bundle, rules, rules_keys=[OWN_RULES_KEY, rules]).ok
    report = verify_bundle(bundle, rules, rules_keys=[OWN_RULES_KEY])
    assert report.failures == [f"bundle: trusts rules key(s) {rules[:16]} besides the ones "
                               "given"], report.failures


def test_neon_verify_rules_key_pins_a_bundles_rules_keys(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    records, exports = _genuine()
    path = tmp_path / "cup.jsonl"
    path.write_bytes(organiser(records, exports))
    env = {**os.environ, "PYTHONPATH": str(root), "NEON_VAR_DIR": str(tmp_path / "var"),
           "COLUMNS": "300"}

    def verify(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli.main", "verify", *args],
                              env=env, cwd=root, capture_output=True, text=True, timeout=300)

    rules = public_key_hex(KEY)
    done = verify("--public-key", rules, "--rules-key", rules, str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    done = verify("--public-key", rules, "--rules-key", OWN_RULES_KEY, str(path))
    assert done.returncode == 1
    assert f"bundle: trusts rules key(s) {rules[:16]} besides the ones given" in done.stderr
    assert "Traceback" not in done.stderr
    done = verify("--rules-key", "zz", str(path))
    assert done.returncode == 2
    assert "--rules-key is not hex" in done.stderr, done.stderr


def _played_as_forfeit(records: list[dict[str, Any]], ruled: bool, number: int = 1,
                       table: int = 1) -> list[dict[str, Any]]:
    """The table's match (both seats played by bots: its signed result names no seat that
    never moved) bent into its second seat's forfeit: its MatchStarted names that seat
    absent, its result forfeits its player. ``ruled``: the tournament was created with the
    rule of 7 December 2026 (log.LOG_VERSION 2), under which an absent seat that moved is
    not forfeited."""
    if ruled:
        created = records[_at(records, "Created")]
        created["settings"][tlog.LOG_VERSION] = 2
    started = records[_at(records, "MatchStarted", round=number, table=table)]
    started["absent"] = [1]
    recorded = records[_at(records, "ResultRecorded", round=number, table=table)]
    assert recorded["signed"]["result"]["no_move_seats"] == []
    recorded["result"]["kind"] = "forfeit"
    recorded["result"]["forfeited"] = [recorded["result"]["seats"][1]]
    return records


def test_a_player_who_came_and_played_recorded_as_forfeited_fails() -> None:
    """A tournament created since 7 December 2026 forfeits an absent seat only if its match's
    signed result says it never moved: the log cannot turn p2's played game into a forfeit
    loss by calling p2 absent at the check-in."""
    records, exports = _genuine()
    report = _verified(organiser(_played_as_forfeit(records, True), exports))
    assert not report.ok
    assert ("round 1 table 1 (match fuzz-r1-t1): the log records kind 'forfeit', the signed "
            "result and the log's MatchStarted give 'played' (an organiser's change is a "
            "correction)") in report.failures, report.failures
    assert any("forfeited ['p2']" in f and "give []" in f for f in report.failures), \
        report.failures


def test_an_older_tournaments_forfeit_of_a_player_who_played_verifies_with_a_warning() -> None:
    """A log from before the rule (no LOG_VERSION in its settings) forfeited every absent
    seat, as the service then did: it still verifies, and the report names the player whom
    the match says played (round 2, the last: no pairing was made from it)."""
    records, exports = _genuine()
    report = _verified(organiser(_played_as_forfeit(records, False, 2, 1), exports))
    assert report.ok, report.failures
    assert any(w.startswith("round 2 table 1 (match fuzz-r2-t1): p3 forfeited as absent at "
                            "the check-in, though the match's signed result says they made "
                            "moves") for w in report.warnings), report.warnings


def test_a_correction_after_finished_fails_in_a_log_of_version_2() -> None:
    """A tournament created since 7 December 2026 (log.LOG_VERSION 2) was recorded by a
    service that refuses a result after FinishTournament: such a record is the organiser's
    addition, and fails."""
    records, exports = _genuine()
    records[_at(records, "Created")]["settings"][tlog.LOG_VERSION] = 2
    records.append(_late_correction(records))
    report = _verified(organiser(records, exports))
    assert not report.ok
    assert ("tournament log record 35 (ResultCorrected): recorded after the tournament "
            "finished, which the service refuses") in report.failures, report.failures
