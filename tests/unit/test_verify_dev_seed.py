"""``neon verify`` says when a match drew from a dev seed: its draws check out, but the seed is
the deployment's dev secret's hash of a text, shared by every match given that text there and
public once one of them is sealed, so whoever knew it knew the draws ahead. A match drawn from
its own secret seed (a tournament table's, a ladder match's) gets no such note."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.signing import public_key_hex
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import DEV_SEED_WARNING, verify_export

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
ROOT = Path(__file__).resolve().parents[2]


def _played(table: bool) -> bytes:
    setup = setups(load_engine("neon-reign"), "single")[0]
    return export_game("neon-reign", "single", setup, 7, KEY,
                       table=("dev-note-t1", ["ann", "bob"]) if table else None)


def test_a_dev_seeded_match_verifies_with_a_note_and_a_secret_seeded_one_without() -> None:
    dev = verify_export(_played(table=False), public_key_hex(KEY))
    secret = verify_export(_played(table=True), public_key_hex(KEY))
    assert dev.ok and secret.ok, (dev.failure, secret.failure)
    assert dev.dev_seed and DEV_SEED_WARNING in dev.warnings
    assert not secret.dev_seed and secret.warnings == []


def test_a_dev_stream_is_noted_though_its_dev_flag_was_taken_out() -> None:
    """A dev session's dice stream id (``dev``; ``dev:<seed>`` in older ones and self-play's)
    tells it: an export re-signed without the ``dev`` flag is still a dev-seeded match."""
    from services.rules import records as rec

    records, checkpoint = parse_export(_played(table=False))
    bodies = [{k: v for k, v in r.items() if k not in ("n", "prev", "hash")} for r in records]
    bodies[0]["dice"] = {k: v for k, v in bodies[0]["dice"].items() if k != "dev"}
    assert bodies[0]["dice"]["stream_id"].startswith("dev:")
    chained: list[dict] = []
    for body in bodies:
        chained.append(rec.seal_record(checkpoint["match_id"], len(chained) + 1,
                                       rec.head(chained), body))
    report = verify_export(build_export(checkpoint["match_id"], "neon-reign", chained, KEY),
                           public_key_hex(KEY))
    assert report.ok, report.failure
    assert report.dev_seed and DEV_SEED_WARNING in report.warnings


def test_neon_verify_says_it_in_words_and_in_json(tmp_path: Path) -> None:
    dev, secret = tmp_path / "dev.jsonl", tmp_path / "secret.jsonl"
    dev.write_bytes(_played(table=False))
    secret.write_bytes(_played(table=True))
    run = [sys.executable, "-m", "services.cli.main", "verify", "--public-key", public_key_hex(KEY)]
    words = subprocess.run([*run, str(dev)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert words.returncode == 0, words.stderr
    assert "dev seed:" in " ".join(words.stdout.split()), words.stdout
    done = subprocess.run([*run, "--json", str(dev), str(secret)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    by_file = {r["file"]: r for r in map(json.loads, done.stdout.splitlines()) if "file" in r}
    assert by_file["dev.jsonl"]["dev_seed"] is True
    assert by_file["secret.jsonl"]["dev_seed"] is False
    assert DEV_SEED_WARNING in by_file["dev.jsonl"]["warnings"]
    assert by_file["secret.jsonl"]["warnings"] == []
