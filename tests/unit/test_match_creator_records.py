"""``created_by`` in the match log: an ordinary record field of MatchCreated and MatchEnded,
in the hash chain and the export; never projected to seats or the public; carried by the
signed result; checked by verify (a MatchEnded that names another creator than its
MatchCreated fails), and exports from before it verify as they did."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.signed import open_result
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.main import projection
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export
from services.scoring.results import parse_match_ended

KEY = Ed25519PrivateKey.generate()
ALICE = {"role": "organiser", "name": "alice"}


@pytest.fixture(scope="module")
def played() -> bytes:
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 7, KEY)


def _resigned(data: bytes, created: Any = None, ended: Any = None) -> bytes:
    """The export with ``created_by`` set on its MatchCreated and MatchEnded (None: left
    out), re-chained and signed as the rules host would have."""
    records, checkpoint = parse_export(data)
    match_id = checkpoint["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        given = {"MatchCreated": created, "MatchEnded": ended}.get(body["type"])
        if given is not None:
            body["created_by"] = given
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY)


def test_an_export_with_its_creator_verifies_and_names_it(played: bytes) -> None:
    report = verify_export(_resigned(played, ALICE, ALICE))
    assert report.ok, report.failure
    assert report.created_by == ALICE


def test_an_export_from_before_verifies_with_no_creator(played: bytes) -> None:
    report = verify_export(played)
    assert report.ok and report.created_by is None


def test_an_end_written_without_the_creator_verifies(played: bytes) -> None:
    """A match created by this release and ended by an earlier one (a roll-back): its end
    names no creator, and scoring rates it as before."""
    report = verify_export(_resigned(played, ALICE, None))
    assert report.ok, report.failure


@pytest.mark.parametrize("ended", [{"role": "service", "name": "matchmaking"},
                                   {"role": "organiser", "name": "bob"}])
def test_an_end_naming_another_creator_fails(played: bytes, ended: dict[str, str]) -> None:
    report = verify_export(_resigned(played, ALICE, ended))
    assert not report.ok
    assert "MatchEnded names another creator than MatchCreated" in report.failure
    report = verify_export(_resigned(played, None, ended))
    assert not report.ok and "another creator" in report.failure


def test_the_creator_is_in_the_chain(played: bytes) -> None:
    lines = _resigned(played, ALICE, ALICE).splitlines()
    assert b'"created_by":{"name":"alice","role":"organiser"}' in lines[0]
    lines[0] = lines[0].replace(b'"alice"', b'"mallo"')
    report = verify_export(b"\n".join(lines) + b"\n")
    assert not report.ok and report.failure.startswith("event 1: hash does not match")


def test_seats_and_the_public_are_not_shown_the_creator() -> None:
    created = rec.seal_record("m", 1, rec.head([]), {
        "type": "MatchCreated", "game": "toy", "mode": "race", "seats": 2, "options": {},
        "players": ["a", "b"], "engine_version": "1", "content_version": "1",
        "dice": {"commitment": "c"}, "created_by": ALICE})
    ended = rec.seal_record("m", 5, created["hash"], {
        "type": "MatchEnded", "outcome": {"placements": [1, 2], "scores": [1, 0]},
        "players": ["a", "b"], "game": "toy", "mode": "race", "created_by": ALICE})
    for record in (created, ended):
        for viewer in (None, 0, 1):
            assert "created_by" not in rec.project(record, viewer)


def test_the_signed_result_carries_the_creator() -> None:
    project = projection("toy", KEY)
    ended = rec.seal_record("m", 5, "0" * 64, {
        "type": "MatchEnded", "outcome": {"placements": [1, 2], "scores": [1, 0], "draw": False,
                                          "reason": "won", "breakdown": {}, "teams": []},
        "players": ["a", "b"], "game": "toy", "mode": "race", "created_by": ALICE})
    (_, public), (_, signed) = project(type("Event", (), {"record": ended})())
    assert "created_by" not in public
    result = open_result(signed, [public_key_hex(KEY)])
    assert result["created_by"] == ALICE
    assert {k: v for k, v in result.items() if k != "created_by"} == public
    assert parse_match_ended(result).created_by == ALICE  # as scoring reads it
    # an end without one (matches created before): the result is as it always was
    del ended["created_by"]
    (_, public), (_, signed) = project(type("Event", (), {"record": ended})())
    assert open_result(signed, [public_key_hex(KEY)]) == public


def test_neon_verify_names_the_creator(played: bytes, tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from services.cli.main import app, export_json

    path = tmp_path / "made.jsonl"
    path.write_bytes(_resigned(played, ALICE, ALICE))
    result = CliRunner().invoke(app, ["verify", str(path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "created by the organiser alice" in " ".join(result.output.split())  # wrapped
    assert export_json("made.jsonl", verify_export(path.read_bytes()))["created_by"] == ALICE
    old = tmp_path / "old.jsonl"
    old.write_bytes(played)
    result = CliRunner().invoke(app, ["verify", str(old), "--jobs", "1"])
    assert result.exit_code == 0 and "created by" not in result.output
    assert export_json("old.jsonl", verify_export(played))["created_by"] is None
