"""Regenerate the gRPC/protobuf code under services/genproto from protos/.

Usage: python scripts/gen_protos.py [--out DIR]

The generated package is never edited by hand; tests/unit/test_protos.py fails
when it differs from what this script produces.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
DEFAULT_OUT = ROOT / "services" / "genproto"


def proto_files() -> list[str]:
    return sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))


def generate(out: Path) -> None:
    """Generate into a fresh folder beside ``out``, then swap it in: a failure (no
    grpcio-tools, a bad proto) leaves the existing generated code as it was."""
    staging = Path(tempfile.mkdtemp(prefix=".genproto-", dir=out.parent))
    try:
        _generate_into(staging)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _generate_into(out: Path) -> None:
    files = proto_files()
    descriptors = out / "descriptors.binpb"
    subprocess.run(
        [
            sys.executable, "-m", "grpc_tools.protoc", f"--proto_path={PROTOS}",
            f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}",
            f"--descriptor_set_out={descriptors}", "--include_imports", *files,
        ],
        check=True,
    )
    subprocess.run(
        [
            sys.executable, "-m", "protoletariat", "--create-package", "--in-place",
            "--python-out", str(out), "raw", str(descriptors),
        ],
        check=True,
    )
    descriptors.unlink()
    (out / "__init__.py").write_text('"""Generated from protos/ by scripts/gen_protos.py. Do not edit."""\n')


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    generate(parser.parse_args().out)


if __name__ == "__main__":
    main()
