"""`neon up --processes` runs its gateway beside the services, calling them over loopback: its
children trust a loopback gateway's x-neon-client (spectators counted per client), as the
one-process backend does, unless NEON_TRUSTED_GATEWAYS says otherwise."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from services.cli.processes import Supervisor
from services.platform import settings as platform_settings
from services.platform.stream_limits import LOOPBACK_GATEWAYS


def planned(tmp_path: Path, environ: dict[str, str]) -> dict[str, str]:
    s = dataclasses.replace(platform_settings.Settings(), var_dir=tmp_path)
    return Supervisor(s, environ, services=["dice"]).plan()


def test_the_children_trust_a_loopback_gateway_by_default(tmp_path: Path) -> None:
    env = planned(tmp_path, {})
    assert platform_settings.load(env).trusted_gateways == LOOPBACK_GATEWAYS


def test_a_deployment_that_says_otherwise_is_kept(tmp_path: Path) -> None:
    assert platform_settings.load(planned(tmp_path, {"NEON_TRUSTED_GATEWAYS": ""})) \
        .trusted_gateways == ()
