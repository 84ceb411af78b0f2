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


def _exports(folder: Path) -> list[Path]:
    """Nine exports of three kinds; the fifth has its third record changed."""
    key = Ed25519PrivateKey.generate()
    files = []
    for n, (game, mode) in enumerate(
        [("neon-reign", "single"), ("neon-reign", "solo"), ("neon", "rebirth")] * 3
    ):
        path = folder / f"{n}-{game}-{mode}.jsonl"
        path.write_bytes(export_game(game, mode, setups(load_engine(game), mode)[0], n, key))
        files.append(path)
    lines = files[4].read_bytes().splitlines()
    lines[2] = (
        lines[2].replace(b'"seat":0', b'"seat":1', 1)
        if b'"seat":0' in lines[2]
        else lines[2].replace(b'"seat":1', b'"seat":0', 1)
    )
    files[4].write_bytes(b"\n".join(lines) + b"\n")
    return files


def _verify(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEON_VAR_DIR": str(tmp_path / "var"),
           "COLUMNS": "300"}
    return subprocess.run(
        [sys.executable, "-c", "from services.cli.main import app; app()", "verify", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_verify_checks_every_file_in_parallel_and_names_the_bad_one(tmp_path: Path):
    files = _exports(tmp_path)
    done = _verify(tmp_path, "--jobs", "2", *map(str, files))
    assert done.returncode == 1, done.stdout + done.stderr
    for n, path in enumerate(files):
        if n == 4:
            assert f"{path.name}: FAILED: event 3: hash does not match" in done.stderr
        else:
            assert f"{path.name}: verified: match selfplay-" in done.stdout
    assert "8 of 9 exports verified" in done.stdout
    assert f"FAILED: 1 of 9 exports: {files[4].name}" in done.stderr


def test_verify_takes_a_folder_with_its_subfolders(tmp_path: Path):
    """A folder stands for every .jsonl file under it, in order, each report named by its
    path inside the folder; other files are left out, and a folder with none is refused."""
    folder = tmp_path / "weekend"
    (folder / "saturday").mkdir(parents=True)
    files = _exports(folder)
    moved = [f.rename(folder / "saturday" / f.name) if n % 2 else f for n, f in enumerate(files)]
    (folder / "README.txt").write_text("not an export")
    done = _verify(tmp_path, "--jobs", "2", str(folder))
    assert done.returncode == 1, done.stdout + done.stderr
    names = [str(f.relative_to(folder)) for f in moved]
    verified = [line.split(": verified: ")[0] for line in done.stdout.splitlines()
                if ": verified: match selfplay-" in line]
    assert verified == sorted(n for n in names if n != names[4])
    assert f"{names[4]}: FAILED: event 3: hash does not match" in done.stderr
    assert "README" not in done.stdout + done.stderr
    assert "8 of 9 exports verified" in done.stdout
    # a file given with its folder is verified once
    again = _verify(tmp_path, "--jobs", "1", str(folder / "saturday"), str(moved[1]))
    assert again.stdout.count(": verified: match selfplay-") == 4, again.stdout
    assert again.returncode == 0, again.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = _verify(tmp_path, str(empty))
    assert refused.returncode == 2 and "no .jsonl file in this folder" in refused.stderr


def test_verify_counts_bundles_and_names_a_failing_one(tmp_path: Path):
    """A folder of exports and tournament bundles: the count line counts the bundles too
    (as --json's summary), and the FAILED line names every failing file, bundles too."""
    from tests.unit.test_verify_fuzz import tournament_bundle

    folder = tmp_path / "event"
    folder.mkdir()
    files = _exports(folder)
    for extra in files[3:]:
        extra.unlink()
    files = files[:3]
    bundle = tournament_bundle()
    (folder / "cup.jsonl").write_bytes(bundle)
    cut = [line for line in bundle.splitlines() if b'"type":"InclusionProof"' not in line]
    (folder / "cut.jsonl").write_bytes(b"\n".join(cut) + b"\n")
    done = _verify(tmp_path, "--jobs", "1", str(folder))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cut.jsonl: FAILED: " in done.stderr, done.stderr
    assert "cup.jsonl: verified: tournament fuzz" in done.stdout, done.stdout
    events = sum(len(f.read_bytes().splitlines()) - 1 for f in files)  # the checkpoint line
    assert f"4 of 5 files verified (3 exports, 2 bundles; {events:,} events)" in done.stdout
    assert "FAILED: 1 of 5 files: cut.jsonl" in done.stderr, done.stderr
    # bundles only: counted as bundles
    for f in files:
        f.unlink()
    only = _verify(tmp_path, "--jobs", "1", str(folder))
    assert only.returncode == 1, only.stdout + only.stderr
    assert "1 of 2 bundles verified" in only.stdout, only.stdout
    assert "FAILED: 1 of 2 bundles: cut.jsonl" in only.stderr, only.stderr
