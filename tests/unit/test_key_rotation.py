"""Key rotation, the pure parts: the token secret's previous value (NEON_TOKEN_SECRET_PREVIOUS)
taken for verifying, never for minting; the organiser's earlier signing keys
(NEON_PREVIOUS_PUBLIC_KEYS) trusted where the operator names them; ``neon verify`` pinning
several keys and saying which one signed; a tournament bundle whose rounds span a rotation.
Over real services: tests/integration/test_key_rotation.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from services.cli.main import app
from services.platform.errors import Unauthenticated
from services.platform.keys import load_keys
from services.platform.settings import load
from services.platform.signing import private_key_hex, public_key_hex
from services.platform.tokens import TokenIssuer
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export
from services.tournament import formats
from services.tournament import log as tlog
from services.tournament.bundle import build_bundle, verify_bundle
from services.tournament.domain import match_id_of
from tests.support.tournament_log import (
    finish,
    log_records,
    publish_checkpoint,
    record_played,
    started,
)

OLD_SECRET, NEW_SECRET, OTHER_SECRET = b"o" * 32, b"n" * 32, b"x" * 32
OLD = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
NEW = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
OLD_HEX, NEW_HEX = public_key_hex(OLD), public_key_hex(NEW)
runner = CliRunner()


# -- the token secret -----------------------------------------------------------------


def test_a_token_of_the_previous_secret_is_taken_and_new_ones_are_minted_with_the_new() -> None:
    old_token = TokenIssuer(OLD_SECRET, external=None, previous=()).issue(
        "seat", "m1", seat=0, player="ann", game="neon-reign")
    rotated = TokenIssuer(NEW_SECRET, external=None, previous=(OLD_SECRET,))
    claims = rotated.verify(old_token)
    assert (claims.role, claims.match, claims.seat, claims.player) == ("seat", "m1", 0, "ann")
    minted = rotated.issue_player("bob")
    assert TokenIssuer(NEW_SECRET, external=None, previous=()).verify(minted).player == "bob"
    with pytest.raises(Unauthenticated, match="signature is invalid"):
        TokenIssuer(OLD_SECRET, external=None, previous=()).verify(minted)
    # the grace ends when the operator drops the previous secret
    with pytest.raises(Unauthenticated, match="signature is invalid"):
        TokenIssuer(NEW_SECRET, external=None, previous=()).verify(old_token)
    # a token of a secret the operator never named is refused, rotation or not
    forged = TokenIssuer(OTHER_SECRET, external=None, previous=()).issue("organiser", "*")
    with pytest.raises(Unauthenticated, match="signature is invalid"):
        rotated.verify(forged)


def test_the_previous_secret_comes_from_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    old_token = TokenIssuer(OLD_SECRET, external=None, previous=()).issue("organiser", "*")
    monkeypatch.setenv("NEON_TOKEN_SECRET_PREVIOUS", OLD_SECRET.decode())
    assert TokenIssuer(NEW_SECRET, external=None).verify(old_token).role == "organiser"
    monkeypatch.delenv("NEON_TOKEN_SECRET_PREVIOUS")
    with pytest.raises(Unauthenticated):
        TokenIssuer(NEW_SECRET, external=None).verify(old_token)


def test_a_previous_secret_too_short_is_refused_at_start_up(tmp_path: Path) -> None:
    settings = load({"NEON_VAR_DIR": str(tmp_path), "NEON_TOKEN_SECRET": NEW_SECRET.decode(),
                     "NEON_SIGNING_KEY": private_key_hex(NEW),
                     "NEON_TOKEN_SECRET_PREVIOUS": "short"})
    with pytest.raises(ValueError, match="NEON_TOKEN_SECRET_PREVIOUS"):
        load_keys(settings)
    with pytest.raises(ValueError, match="NEON_TOKEN_SECRET_PREVIOUS"):
        TokenIssuer(NEW_SECRET, external=None, previous=(b"short",))


# -- the organiser's earlier signing keys ---------------------------------------------------


def test_previous_public_keys_are_trusted_beside_the_current_one(tmp_path: Path) -> None:
    settings = load({"NEON_VAR_DIR": str(tmp_path), "NEON_TOKEN_SECRET": NEW_SECRET.decode(),
                     "NEON_SIGNING_KEY": private_key_hex(NEW),
                     "NEON_PREVIOUS_PUBLIC_KEYS": f" {OLD_HEX.upper()} ,"})
    keys = load_keys(settings)
    assert keys.verify_key() == NEW_HEX
    assert keys.trusted_keys() == (NEW_HEX, OLD_HEX)
    assert load_keys(load({"NEON_VAR_DIR": str(tmp_path), "NEON_TOKEN_SECRET": "s" * 32,
                           "NEON_SIGNING_KEY": private_key_hex(NEW)})).trusted_keys() == (NEW_HEX,)
    bad = load({"NEON_VAR_DIR": str(tmp_path), "NEON_TOKEN_SECRET": "s" * 32,
                "NEON_SIGNING_KEY": private_key_hex(NEW), "NEON_PREVIOUS_PUBLIC_KEYS": "abc"})
    with pytest.raises(ValueError, match="NEON_PREVIOUS_PUBLIC_KEYS"):
        load_keys(bad)


# -- exports: several pinned keys, and which one signed ------------------------------------


def _export(key: Ed25519PrivateKey, seed: int) -> bytes:
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                       seed, key)


def test_an_export_verifies_against_any_pinned_key_and_names_the_one_that_signed() -> None:
    before, after = _export(OLD, 1), _export(NEW, 2)
    for data, signer in ((before, OLD_HEX), (after, NEW_HEX)):
        report = verify_export(data, (OLD_HEX, NEW_HEX))
        assert report.ok, report.failure
        assert report.signed_by == signer
        assert not any("pin" in w for w in report.warnings)
    refused = verify_export(before, (NEW_HEX,))
    assert not refused.ok and refused.failure.startswith("checkpoint: signed with another key")
    assert verify_export(before, OLD_HEX).signed_by == OLD_HEX  # one key, as before


def test_neon_verify_takes_public_key_more_than_once(tmp_path: Path) -> None:
    (tmp_path / "before.jsonl").write_bytes(_export(OLD, 1))
    (tmp_path / "after.jsonl").write_bytes(_export(NEW, 2))
    files = [str(tmp_path / "before.jsonl"), str(tmp_path / "after.jsonl")]
    env = {"NEON_VAR_DIR": str(tmp_path / "var")}
    both = runner.invoke(app, ["verify", *files, "--public-key", OLD_HEX,
                               "--public-key", NEW_HEX], env=env)
    assert both.exit_code == 0, both.output
    said = " ".join(both.output.split())  # as wrapped to the terminal's width
    assert f"before.jsonl: ok signed by key {OLD_HEX}" in said
    assert f"after.jsonl: ok signed by key {NEW_HEX}" in said
    one = runner.invoke(app, ["verify", *files, "--public-key", NEW_HEX], env=env)
    assert one.exit_code == 1 and "before.jsonl" in one.output
    as_json = runner.invoke(app, ["verify", *files, "--json", "--public-key", OLD_HEX,
                                  "--public-key", NEW_HEX], env=env)
    assert as_json.exit_code == 0, as_json.output
    lines = [json.loads(x) for x in as_json.stdout.splitlines() if x.startswith("{")]
    assert [x.get("signed_by") for x in lines[:2]] == [OLD_HEX, NEW_HEX]
    bad = runner.invoke(app, ["verify", *files, "--public-key", OLD_HEX, "--public-key", "zz"],
                        env=env)
    assert bad.exit_code == 2 and "--public-key is not hex" in bad.output


# -- a tournament whose rounds span a rotation ---------------------------------------------

PLAYERS = ["p0", "p1", "p2", "p3"]


def _rotated_bundle(previous_keys: list[str] | None) -> bytes:
    """A two-round Swiss of four players: round 1 played, its results and checkpoint signed
    under OLD (the rules service and the organiser before the rotation), round 2 under NEW;
    the bundle made after the rotation (NEW), the match exports signed by the rules service
    when they are made (NEW), the result keys both."""
    tid, events = "rotated", []
    t = started(PLAYERS, {"format": "swiss", "rounds": 2,
                          "tiebreaks": ["buchholz", "sonneborn-berger", "wins"]},
                tid=tid, game="neon-reign", mode="single")

    def records() -> list[dict[str, Any]]:
        return log_records(t, events)

    exports: dict[str, bytes] = {}
    plan = next(s for s in setups(load_engine("neon-reign"), "single") if s.seats == 2)
    for number, key in ((1, OLD), (2, NEW)):
        replayed = tlog.replay_log(records())
        tables = formats.pair(replayed.config, replayed.history())
        t.pair_round(number, [tlog.table_json(k) for k in tables])
        leaves = []
        for k in tables:
            match_id = match_id_of(tid, number, k.number)
            t.match_created(number, k.number, match_id, "rules:0", "00" * 32, 0.0)
            for seat, player in enumerate(k.seats):
                t.seat_ready(number, k.number, seat, player)
            t.match_started(number, k.number, [])
            played = export_game("neon-reign", "single", plan, number * 10 + k.number, key,
                                 table=(match_id, list(k.seats)))
            match, _ = parse_export(played)
            # the export is made again at bundle time, by the rotated rules service
            exports[match_id] = export_game("neon-reign", "single", plan,
                                            number * 10 + k.number, NEW,
                                            table=(match_id, list(k.seats)))
            leaves.append(record_played(t, number, k, match_id, match, key))
        publish_checkpoint(t, events, number, leaves, key)
    return build_bundle(tid, "neon-reign", finish(t, events), exports, NEW, [NEW_HEX, OLD_HEX],
                        previous_keys=previous_keys)


def test_a_bundle_spanning_a_rotation_verifies_with_the_earlier_key_named() -> None:
    data = _rotated_bundle([OLD_HEX])
    unpinned = verify_bundle(data, jobs=1)
    assert unpinned.ok, unpinned.failures
    assert any(f"round 1 checkpoint signed by the organiser's earlier key {OLD_HEX[:16]}"
               in c for c in unpinned.checks), unpinned.checks
    assert verify_bundle(data, NEW_HEX, jobs=1).ok
    assert verify_bundle(data, (OLD_HEX, NEW_HEX), jobs=1).ok
    refused = verify_bundle(data, OLD_HEX, jobs=1)
    assert not refused.ok and "another organiser key" in refused.failures[0]


def test_an_earlier_key_the_bundle_does_not_name_is_not_trusted() -> None:
    report = verify_bundle(_rotated_bundle(None), jobs=1)
    assert not report.ok
    assert any("round 1" in f and "not trusted" in f for f in report.failures), report.failures


def test_the_earlier_keys_are_sealed() -> None:
    """The header's earlier keys are the ones the organiser's current key sealed: one added
    to the header alone (to pass off checkpoints of a stolen retired key) is refused."""
    lines = _rotated_bundle([OLD_HEX]).split(b"\n")
    header = json.loads(lines[0])
    thief = public_key_hex(Ed25519PrivateKey.from_private_bytes(bytes(range(3, 35))))
    header["previous_keys"] = [OLD_HEX, thief]
    lines[0] = json.dumps(header).encode()
    report = verify_bundle(b"\n".join(lines), jobs=1)
    assert not report.ok
    assert any("earlier keys" in f for f in report.failures), report.failures


def test_a_bundle_without_a_rotation_is_made_as_before() -> None:
    """No earlier key: no new field in the header or the seal (bundles byte for byte as
    before the setting)."""
    data = build_bundle("t", "neon-reign", [], {}, NEW, [NEW_HEX])
    assert b"previous_keys" not in data
    assert data == build_bundle("t", "neon-reign", [], {}, NEW, [NEW_HEX], previous_keys=[])
