"""The generated code matches protos/, and protos/ pass buf's STANDARD lint."""

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


def test_protos_pass_buf_standard_lint() -> None:
    buf = Path(sysconfig.get_path("scripts")) / "buf"
    if not buf.exists():
        found = shutil.which("buf")
        if not found:
            pytest.skip("buf is not installed (pip install buf-bin)")
        buf = Path(found)
    result = subprocess.run([str(buf), "lint"], cwd=ROOT / "protos", capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
