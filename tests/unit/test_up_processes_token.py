"""`neon up --processes` writes the organiser token where `neon up` does: the deployment's own
folder, ``var/<namespace>/`` with NEON_NAMESPACE (README, "Isolated deployments"), signed with
that namespace's keys; ``var/organiser.token`` stays the unnamespaced deployment's."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from services.cli import processes
from services.platform.keys import load_keys
from services.platform.settings import load
from services.platform.tokens import TokenIssuer


class FakeSupervisor:
    def __init__(self, settings: Any, env: Any, out: Any = print) -> None:
        pass

    def on_signal(self, *args: Any) -> None:
        pass

    def start(self) -> None:
        pass

    def endpoints(self) -> dict[str, str]:
        return {}

    def watch(self) -> int:
        return 0

    def stop(self) -> dict[str, int]:
        return {}


def test_the_organiser_token_goes_to_the_namespace_folder(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "Supervisor", FakeSupervisor)
    for name in ("NEON_TOKEN_SECRET", "NEON_SIGNING_KEY", "NEON_ENV"):
        monkeypatch.delenv(name, raising=False)
    settings = dataclasses.replace(load(), var_dir=tmp_path / "var", namespace="blue")
    assert processes.run_processes(settings, out=lambda line: None) == 0
    token = (tmp_path / "var" / "blue" / "organiser.token").read_text().strip()
    assert not (tmp_path / "var" / "organiser.token").exists()
    claims = TokenIssuer(load_keys(settings).token_secret, external=None).verify(token)
    assert claims.role == "organiser"
