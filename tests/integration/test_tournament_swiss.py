"""A whole Swiss tournament of Neon Reign through the real services, by bots, and the
tamperings its audit bundle must catch.

Real NATS (JetStream), a real store, real gRPC sockets: the tournament service creates
each round's matches on the rules service, bots play them through the real match flow
(client seeds, ReadyForMatch, random legal moves), results come back as signed results
on NATS, and the exported bundle verifies offline. Each tampering test changes one thing
in that bundle (as a forger would, re-hashing the log so its chain still holds) and
checks that verification fails naming what failed.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from services.cli.backend import start_backend
from services.cli.tournament_commands import SimReport, format_json, simulate_run
from services.platform.canonical import canonical_json
from services.tournament import log as tlog
from services.tournament.bundle import is_bundle, verify_bundle
from tests.integration.conftest import make_settings

pytestmark = pytest.mark.timeout(240)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def swiss(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> SimReport:
    settings = make_settings(tmp_path_factory.mktemp("swiss"), nats_url)
    settings = dataclasses.replace(settings, ports={**settings.ports, "tournament": 0})
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False, tournament=True)
    try:
        return await simulate_run(b.address("tournament"), b.issuer.issue, "neon-reign",
                                  format_json("swiss", 4), 16, mode="single")
    finally:
        await b.stop(1)


@pytest.mark.asyncio(loop_scope="module")
async def test_swiss_16_players_4_rounds_exports_and_verifies(swiss: SimReport) -> None:
    report = swiss
    assert len(report.rounds) == 4
    met: set[frozenset[str]] = set()
    for r in report.rounds:
        seated = [p for t in r.tables for p in t.seats]
        assert len(seated) == len(set(seated)) == 16
        for t in r.tables:
            assert not t.bye and len(t.seats) == 2
            pair = frozenset(t.seats)
            assert pair not in met, f"rematch {sorted(pair)} in round {r.number}"
            met.add(pair)
            assert t.final_hash and sorted(t.result.placements) in ([1, 2], [1, 1])
        assert r.checkpoint.merkle_root and r.checkpoint.leaves == 8
    assert len(report.standings) == 16
    assert [row.rank for row in report.standings] == sorted(row.rank for row in report.standings)
    points = sorted((row.points for row in report.standings), reverse=True)
    assert [row.points for row in report.standings] == points
    assert sum(points) == 32  # one point per match, none lost or doubled
    assert {tb.name for tb in report.standings[0].tiebreaks} >= {"buchholz", "sonneborn-berger"}
    assert report.verify.ok, report.verify.failures
    assert report.verify.matches == 32
    assert is_bundle(report.bundle)
    lines = [json.loads(x) for x in report.bundle.splitlines()]
    assert sum(1 for x in lines if x["type"] == "MatchExport") == 32
    assert sum(1 for x in lines if x["type"] == "InclusionProof") == 32
    assert sum(1 for x in lines if x["type"] == "RoundCheckpoint") == 4
    records = [x["record"] for x in lines if x["type"] == "LogRecord"]
    assert sum(1 for r in records if r["type"] == "ResultRecorded") == 32
    assert sum(1 for r in records if r["type"] == "MatchCreated") == 32
    exports = [x["export"] for x in lines if x["type"] == "MatchExport"]
    for text in exports:  # tournament matches: no dev seed, a client seed from both seats
        rows = [json.loads(r) for r in text.splitlines()]
        assert rows[0]["await_client_seeds"] and not rows[0]["dice"]["dev"]
        started = next(r for r in rows if r["type"] == "MatchStarted")
        assert sorted(s for s, _ in started["client_seeds"]) == [0, 1]
    assert not re.search(r'"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"', report.bundle.decode()), \
        "a token leaked into the bundle"


# -- tampering ------------------------------------------------------------------------


def _lines(bundle: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in bundle.splitlines()]


def _write(lines: list[dict[str, Any]]) -> bytes:
    return b"\n".join(canonical_json(x) for x in lines) + b"\n"


def forge_log(bundle: bytes, change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    """Change the log's records, then re-hash the chain as a forger would."""
    lines = _lines(bundle)
    tid = lines[0]["tournament_id"]
    records = [{k: v for k, v in x["record"].items() if k != "hash"}
               for x in lines if x["type"] == "LogRecord"]
    change(records)
    chained = iter(tlog.chain(tid, records))
    out = [{"type": "LogRecord", "record": next(chained)} if x["type"] == "LogRecord" else x
           for x in lines]
    return _write(out)


def failures(bundle: bytes) -> str:
    report = verify_bundle(bundle)
    assert not report.ok
    return "\n".join(report.failures)


def test_the_untouched_bundle_verifies_with_the_pinned_key(swiss: SimReport) -> None:
    key = _lines(swiss.bundle)[0]["public_key"]
    assert verify_bundle(swiss.bundle, key).ok
    in_processes = verify_bundle(swiss.bundle, key, jobs=2)  # match exports in 2 workers
    assert in_processes.ok and in_processes.matches == 32
    assert not verify_bundle(swiss.bundle, "00" * 32).ok


def test_changing_one_result_fails(swiss: SimReport) -> None:
    changed: list[str] = []

    def flip(records: list[dict[str, Any]]) -> None:
        for r in records:
            if r["type"] == "ResultRecorded" and r["result"]["placements"] == [1, 2]:
                r["result"]["placements"] = [2, 1]
                changed.append(r["result"]["match_id"])
                return

    text = failures(forge_log(swiss.bundle, flip))
    assert changed
    assert f"(match {changed[0]}): the log records placements [2, 1], the match ended [1, 2]" in text
    assert "bundle seal" in text and "checkpoint" in text


def test_a_forged_abandon_of_a_played_match_fails(swiss: SimReport) -> None:
    claimed: list[str] = []

    def abandon(records: list[dict[str, Any]]) -> None:
        for i, r in enumerate(records):
            if r["type"] == "MatchCreated":
                claimed.append(r["match_id"])
                records.insert(i + 1, {**r, "type": "MatchAbandoned", "reason": "forged",
                                       "by": "org"})
                return

    text = failures(forge_log(swiss.bundle, abandon))
    assert claimed
    assert f"(match {claimed[0]}): the log says the match was abandoned, its export does not" in text


def test_an_abandon_claimed_without_its_export_fails(swiss: SimReport) -> None:
    """A log that turns a played match into an abandoned one set by hand, with its seal and
    export left out, does not pass on the log's word."""
    claimed: list[str] = []

    def abandon(records: list[dict[str, Any]]) -> None:
        played = next(r for r in records if r["type"] == "ResultRecorded")
        claimed.append(played["result"]["match_id"])
        at = (played["round"], played["table"])
        records[:] = [r for r in records if not (r["type"] == "MatchSealed" and
                                                (r["round"], r["table"]) == at)]
        i = records.index(played)
        records[i:i + 1] = [
            {**played, "type": "MatchAbandoned", "match_id": claimed[0], "reason": "forged",
             "by": "org"},
            {k: v for k, v in {**played, "type": "ResultCorrected", "reason": "forged",
                               "by": "org"}.items() if k != "signed"}]

    lines = _lines(forge_log(swiss.bundle, abandon))
    text = failures(_write([x for x in lines if not (x["type"] == "MatchExport"
                                                     and x["match_id"] == claimed[0])]))
    assert f"(match {claimed[0]}): the log says the match was abandoned, and its export is " \
        "missing from the bundle" in text


def test_dropping_a_match_fails(swiss: SimReport) -> None:
    lines = _lines(swiss.bundle)
    dropped = next(x for x in lines if x["type"] == "MatchExport" and x["round"] == 2)
    text = failures(_write([x for x in lines if x is not dropped]))
    assert f"(match {dropped['match_id']}): the match's export is missing from the bundle" in text


def test_changing_one_die_fails(swiss: SimReport) -> None:
    lines = _lines(swiss.bundle)
    for line in lines:
        if line["type"] != "MatchExport":
            continue
        rows = [json.loads(r) for r in line["export"].splitlines()]
        for row in rows:
            for draw in row.get("draws", []):
                if draw["result"]:
                    draw["result"][0] = draw["result"][0] + 1
                    break
            else:
                continue
            break
        else:
            continue
        line["export"] = "\n".join(canonical_json(r).decode() for r in rows) + "\n"
        match_id = line["match_id"]
        break
    else:
        pytest.fail("no match with a draw")
    text = failures(_write(lines))
    assert f"(match {match_id}): event" in text


def test_swapping_two_pairings_fails(swiss: SimReport) -> None:
    def swap(records: list[dict[str, Any]]) -> None:
        paired = [r for r in records if r["type"] == "RoundPaired"][2]
        a, b = paired["tables"][0], paired["tables"][1]
        a["seats"][1], b["seats"][1] = b["seats"][1], a["seats"][1]

    text = failures(forge_log(swiss.bundle, swap))
    assert "round 3 table 1" in text and "the log paired" in text  # the matches seat others
    assert "round 3: table 1 published" in text and "rules give" in text


def test_editing_a_tiebreak_value_fails(swiss: SimReport) -> None:
    edited: list[str] = []

    def edit(records: list[dict[str, Any]]) -> None:
        rows = next(r for r in records if r["type"] == "StandingsPublished")["rows"]
        name, value = rows[3]["tiebreaks"][0]
        rows[3]["tiebreaks"][0] = [name, value + 0.5]
        edited.append(f"standings after round 4: {rows[3]['player_id']}'s {name} published "
                      f"{value + 0.5:g}, rules give {value:g}")

    text = failures(forge_log(swiss.bundle, edit))
    assert edited[0] in text
    assert "bundle seal" in text


def test_a_bundle_cut_short_fails(swiss: SimReport, tmp_path: Path) -> None:
    lines = _lines(swiss.bundle)
    text = failures(_write(lines[:-1]))
    assert "does not end with its signed seal" in text


def test_trusting_another_rules_key_fails(swiss: SimReport) -> None:
    lines = _lines(swiss.bundle)
    lines[0]["result_keys"] = [*lines[0]["result_keys"], "ab" * 32]
    assert "the rules keys the bundle trusts are not the ones the organiser signed" in \
        failures(_write(lines))


def test_turning_a_played_result_into_a_forfeit_fails(swiss: SimReport) -> None:
    """A result the service recorded (not a correction) keeps the match's placements but
    is made a forfeit of the loser, who "never came", with other game scores: the standings
    recomputed from the log agree with it, so only the check of the recorded result against
    the signed result and the log's MatchStarted names it (before, only the seal and the
    checkpoints failed, which a forger holding the organiser's key signs again)."""
    changed: list[dict[str, Any]] = []

    def forfeit(records: list[dict[str, Any]]) -> None:
        for r in records:
            if r["type"] == "ResultRecorded" and r["result"]["placements"] == [1, 2]:
                r["result"]["kind"] = "forfeit"
                r["result"]["forfeited"] = [r["result"]["seats"][1]]
                r["result"]["game_tiebreak"] = [99.0, 0.0]
                changed.append(r)
                return

    text = failures(forge_log(swiss.bundle, forfeit))
    assert changed
    where = f"round {changed[0]['round']} table {changed[0]['table']} " \
            f"(match {changed[0]['result']['match_id']})"
    assert f"{where}: the log records kind 'forfeit', the signed result" in text, text
    assert f"{where}: the log records forfeited [" in text
    assert f"{where}: the log records game_tiebreak [99.0, 0.0]" in text
