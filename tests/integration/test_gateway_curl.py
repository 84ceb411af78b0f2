"""The README's curl walkthrough, run exactly as written, plays a whole Neon Reign match
through the gateway: create, list legal actions, submit, export, verify."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend
from services.rules.verify import verify_export
from tests.support.gateway import gateway_for

README = Path(__file__).resolve().parents[2] / "README.md"


def walkthrough() -> str:
    text = README.read_text()
    block = re.search(
        r"<!-- curl-walkthrough:start -->\n```sh\n(.*?)```\n<!-- curl-walkthrough:end -->",
        text,
        re.S,
    )
    assert block, "the README's curl walkthrough is missing"
    return block.group(1)


def _tools() -> None:
    missing = [t for t in ("curl", "jq", "bash", "base64") if not shutil.which(t)]
    if missing:
        reason = f"needs {', '.join(missing)} (apt-get install curl jq)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.mark.timeout(180)
async def test_the_readme_curl_walkthrough_plays_a_whole_neon_reign_match(
    backend: Backend, tmp_path: Path
) -> None:
    _tools()
    async with gateway_for(backend) as running:
        env: dict[str, Any] = {
            **os.environ,
            "GW": running.url,
            "ORG": backend.organiser_token(),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "NEON_VAR_DIR": str(tmp_path / "var"),
        }
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-euo",
            "pipefail",
            "-c",
            walkthrough(),
            cwd=tmp_path,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=150)
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text[-3000:]
    data = (tmp_path / "match.jsonl").read_bytes()
    report = verify_export(data)
    assert report.ok, report.failure
    assert report.outcome is not None and '"placements"' in text
    actions = sum(1 for line in data.splitlines() if b'"ActionAccepted"' in line)
    assert actions >= 10, "a whole match, not a stub"
    assert "OK" in text or "verified" in text.lower(), text[-1500:]
