"""The gateway in deploy/compose.yaml and k8s/: its port, probes, settings and network paths
agree with the code (the manifests themselves are schema-checked by tests/unit)."""

from __future__ import annotations

import pytest

from services.gateway.config import DEFAULT_PORT, load_config
from services.gateway.main import upstream_addresses
from services.platform.settings import DEFAULT_METRICS_PORT, DEFAULT_PORTS, GAMES, load
from tests.unit.test_deploy_docker import compose, resolved
from tests.unit.test_deploy_k8s import allowed, container, objects


def test_compose_runs_the_gateway_on_its_port_in_front_of_every_service() -> None:
    gateway = compose()["services"]["gateway"]
    assert gateway["command"] == ["gateway"]
    assert gateway["ports"] == [f"127.0.0.1:{DEFAULT_PORT}:{DEFAULT_PORT}"]
    assert "/healthz" in " ".join(gateway["healthcheck"]["test"])
    env = {k: resolved(str(v)) for k, v in gateway["environment"].items()}
    assert load_config(env).port == DEFAULT_PORT and load_config(env).cors_origins == ()
    addresses = upstream_addresses(load(env))
    assert addresses["dice"] == f"dice:{DEFAULT_PORTS['dice']}"
    for game in GAMES:
        assert addresses[f"rules-{game}"] == f"rules-{game}:{DEFAULT_PORTS[f'rules-{game}']}"
    assert (
        addresses["matchmaking"] == "matchmaking:50052" and addresses["scoring"] == "scoring:50053"
    )
    assert addresses["tournament"] == f"tournament:{DEFAULT_PORTS['tournament']}"
    assert gateway["depends_on"]["tournament"] == {
        "condition": "service_healthy",
        "required": False,
    }


def test_k8s_runs_the_gateway_with_http_probes_and_the_shared_config() -> None:
    deployment = objects("Deployment")["gateway"]
    c = container(deployment)
    assert c["args"] == ["gateway"]
    assert c["ports"] == [{"name": "http", "containerPort": DEFAULT_PORT, "protocol": "TCP"},
                          {"name": "metrics", "containerPort": DEFAULT_METRICS_PORT,
                           "protocol": "TCP"}]
    assert {"name": "NEON_GATEWAY_PORT", "value": str(DEFAULT_PORT)} in c["env"]
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert c[probe]["httpGet"] == {"path": "/healthz", "port": DEFAULT_PORT}
    assert {"configMapRef": {"name": "neon-config"}} in c["envFrom"]
    assert "NATS_URL" not in {e["name"] for e in c["env"]}, "the gateway does not use NATS"
    service = objects("Service")["gateway"]
    assert service["spec"]["ports"][0]["port"] == DEFAULT_PORT
    assert deployment["spec"]["replicas"] >= 2, "stateless: several replicas behind the Service"


@pytest.mark.parametrize(
    ("src", "dst", "port", "ok"),
    [
        (None, "gateway", DEFAULT_PORT, True),
        *[("gateway", f"rules-{g}", DEFAULT_PORTS[f"rules-{g}"], True) for g in GAMES],
        ("gateway", "matchmaking", 50052, True),
        ("gateway", "scoring", 50053, True),
        ("gateway", "tournament", 50054, True),
        ("gateway", "tournament", 50053, False),
        ("gateway", "dice", 50051, True),
        ("gateway", "postgres", 5432, False),
        ("gateway", "nats", 4222, False),
        (None, "dice", 50051, False),
    ],
)
def test_network_policies_let_the_gateway_reach_the_public_services_only(
    src: str | None, dst: str, port: int, ok: bool
) -> None:
    assert allowed(src, dst, port) is ok


def test_the_viewers_files_ship_in_the_package() -> None:
    """An install from the wheel (the image builds one) serves the viewer: every static file
    matches the package data of pyproject.toml."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["services.gateway"]
    static = root / "services" / "gateway" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.iterdir()]
    assert {"static/index.html", "static/viewer.js", "static/boards.js"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} would not ship"
