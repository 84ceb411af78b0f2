"""The generated code matches protos/, protos/ pass buf's STANDARD lint, and the API
third-party clients were built against still holds (buf breaking, FILE rules)."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _diff(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    out = [f"only in one side: {n}" for n in cmp.left_only + cmp.right_only]
    out += [f"differs: {n}" for n in cmp.diff_files]
    for name, sub in cmp.subdirs.items():
        out += [f"{name}/{line}" for line in _diff(Path(sub.left), Path(sub.right))]
    return out


def test_generated_code_has_not_drifted_from_protos(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools")
    pytest.importorskip("protoletariat")
    out = tmp_path / "genproto"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_protos.py"), "--out", str(out)], check=True)
    drift = _diff(ROOT / "services" / "genproto", out)
    assert not drift, f"run scripts/gen_protos.py: {drift}"


def _buf() -> Path:
    buf = Path(sysconfig.get_path("scripts")) / "buf"
    if not buf.exists():
        found = shutil.which("buf")
        if not found:
            pytest.skip("buf is not installed (pip install buf-bin)")
        buf = Path(found)
    return buf


def test_protos_pass_buf_standard_lint() -> None:
    buf = _buf()
    result = subprocess.run([str(buf), "lint"], cwd=ROOT / "protos", capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


PUBLISHED = ROOT / "tests" / "fixtures" / "protos" / "api-bf844f6.binpb"
"""The API as published by main bf844f6 (``buf build -o`` of its protos/): clients
generated from it must keep working, so no later change may break it by buf's FILE rules
(a field renumbered, retyped or removed without ``reserved``, a method or message gone, a
package moved). A deliberate break is a new package version (``neon.rules.v2``) beside
the old one, not an edit of it."""


def _breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(_buf()), "breaking", "--against", str(PUBLISHED)], cwd=protos,
                          capture_output=True, text=True)


def test_the_published_api_still_holds() -> None:
    result = _breaking(ROOT / "protos")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_breaking_change_to_the_api_is_caught(tmp_path: Path) -> None:
    """The check above can fail: a copy of protos/ with one field retyped and one removed."""
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    rules = protos / "neon" / "rules" / "v1" / "rules.proto"
    text = rules.read_text()
    assert "int32 seats = 1;" in text and "int32 min_seats = 2;" in text
    rules.write_text(text.replace("int32 seats = 1;", "int64 seats = 1;", 1)
                     .replace("int32 min_seats = 2;", "", 1))
    result = _breaking(protos)
    assert result.returncode != 0
    assert 'changed type from "int32" to "int64"' in result.stdout, result.stdout
    assert "min_seats" in result.stdout, result.stdout
