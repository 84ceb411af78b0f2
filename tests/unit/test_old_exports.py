"""Published exports are promises: exports made by earlier engine and host versions verify.

The files in tests/fixtures/exports were made by `neon play ... --export` on the code of
their version (named in the file name) and are never regenerated.
"""

from pathlib import Path

import pytest

from services.rules.verify import verify_export

EXPORTS = sorted((Path(__file__).parent.parent / "fixtures" / "exports").glob("*.jsonl"))


def test_there_are_old_exports_to_check():
    assert len(EXPORTS) >= 6


@pytest.mark.parametrize("path", EXPORTS, ids=[p.stem for p in EXPORTS])
def test_an_old_export_still_verifies(path: Path):
    report = verify_export(path.read_bytes())
    assert report.ok, report.failure
    assert any(c.startswith("rules replay") for c in report.checks)
    assert report.outcome is not None


@pytest.mark.parametrize("path", EXPORTS, ids=[p.stem for p in EXPORTS])
def test_a_tampered_old_export_fails(path: Path):
    lines = path.read_bytes().splitlines()
    lines[3] = lines[3].replace(b'"seat":0', b'"seat":1', 1) if b'"seat":0' in lines[3] \
        else lines[3].replace(b'"seat":1', b'"seat":0', 1)
    assert not verify_export(b"\n".join(lines) + b"\n").ok
