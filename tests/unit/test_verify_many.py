"""`neon verify` over many exports at once, in parallel worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups

ROOT = Path(__file__).resolve().parents[2]


def test_verify_checks_every_file_in_parallel_and_names_the_bad_one(tmp_path: Path):
    key = Ed25519PrivateKey.generate()
    files = []
    for n, (game, mode) in enumerate(
        [("neon-reign", "single"), ("neon-reign", "solo"), ("neon", "rebirth")] * 3
    ):
        path = tmp_path / f"{n}-{game}-{mode}.jsonl"
        path.write_bytes(export_game(game, mode, setups(load_engine(game), mode)[0], n, key))
        files.append(path)
    lines = files[4].read_bytes().splitlines()
    lines[2] = (
        lines[2].replace(b'"seat":0', b'"seat":1', 1)
        if b'"seat":0' in lines[2]
        else lines[2].replace(b'"seat":1', b'"seat":0', 1)
    )
    files[4].write_bytes(b"\n".join(lines) + b"\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEON_VAR_DIR": str(tmp_path / "var")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from services.cli.main import app; app()",
            "verify",
            "--jobs",
            "2",
            *map(str, files),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    for n, path in enumerate(files):
        if n == 4:
            assert f"{path.name}: FAILED: event 3: hash does not match" in done.stderr
        else:
            assert f"{path.name}: verified: match selfplay-" in done.stdout
