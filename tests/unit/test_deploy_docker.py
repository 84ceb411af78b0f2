"""deploy/: the Dockerfile (multi-stage, non-root, `neon serve` entrypoint, gRPC health check) and
the compose file agree with services/platform/settings.py and with each other."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from services.platform.settings import DEFAULT_METRICS_PORT, DEFAULT_PORTS, env_key
from tests.unit.test_deploy_k8s import known_env_names, offered_services

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
NEON_SERVICES = set(DEFAULT_PORTS)


# -- Dockerfile -------------------------------------------------------------------------------

def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    out: list[tuple[str, str]] = []
    logical = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not logical and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        part = stripped.removesuffix("\\").strip()
        logical = f"{logical} {part}" if logical else part
        if not stripped.endswith("\\"):
            word, _, rest = logical.partition(" ")
            out.append((word.upper(), rest.strip()))
            logical = ""
    return out


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for word, rest in instructions((DEPLOY / "Dockerfile").read_text()):
        if word == "FROM":
            result.append([])
        if result:
            result[-1].append((word, rest))
    return result


def test_dockerfile_is_multi_stage_with_a_wheel_built_in_the_builder() -> None:
    all_stages = stages()
    assert len(all_stages) >= 2
    builder = all_stages[0]
    assert re.search(r"\bAS\s+builder\b", builder[0][1], re.I)
    assert any(w == "RUN" and "pip wheel" in r for w, r in builder)
    final = all_stages[-1]
    image = final[0][1].split()[0]
    assert re.match(r"python:\$\{PYTHON_VERSION\}-slim$|python:[\d.]+-slim", image), image
    assert any(w == "COPY" and "--from=builder" in r for w, r in final)


def test_dockerfile_final_stage_runs_as_non_root_without_build_tools() -> None:
    final = stages()[-1]
    users = [r for w, r in final if w == "USER"]
    assert users, "the final stage must switch to a non-root USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    run = " ".join(r for w, r in final if w == "RUN")
    for tool in ("gcc", "build-essential", "pip install", "pip wheel", "python3-dev", "make "):
        assert tool not in run, f"final stage installs {tool!r}"
    # the last USER comes after every RUN of the final stage
    words = [w for w, _ in final]
    assert max(i for i, w in enumerate(words) if w == "USER") > max(
        i for i, w in enumerate(words) if w == "RUN")


def test_dockerfile_entrypoint_is_neon_serve_with_the_service_as_cmd() -> None:
    final = dict(stages()[-1])
    assert json.loads(final["ENTRYPOINT"]) == ["neon", "serve"]
    cmd = json.loads(final["CMD"])
    assert len(cmd) == 1 and cmd[0] in NEON_SERVICES
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'neon = "services.cli.main:app"' in pyproject, "the image's `neon` console script"


def test_dockerfile_health_check_and_ports() -> None:
    final = stages()[-1]
    health = [r for w, r in final if w == "HEALTHCHECK"]
    assert health and "healthcheck.py" in health[0]
    exposed = {int(p) for w, r in final if w == "EXPOSE" for p in r.split()}
    assert exposed == set(DEFAULT_PORTS.values()) | {DEFAULT_METRICS_PORT}
    assert (DEPLOY / "healthcheck.py").exists()


def test_dockerignore_keeps_what_the_builder_copies() -> None:
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    kept = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    for word, rest in instructions((DEPLOY / "Dockerfile").read_text()):
        if word == "COPY" and "--from" not in rest:
            *sources, _ = shlex.split(rest)
            for source in sources:
                assert source.rstrip("/").removeprefix("./") in kept, source


def test_healthcheck_script_finds_the_port_of_a_service() -> None:
    script = DEPLOY / "healthcheck.py"
    code = ("import runpy, sys; m = runpy.run_path(sys.argv[1]); "
            "print(m['target'](['x', 'rules-neon']), m['target'](['x', 'dice']), "
            "m['target'](['x', '10.0.0.1:1']))")
    out = subprocess.run(
        [sys.executable, "-c", code, str(script)], capture_output=True, text=True, check=True,
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", "NEON_DICE_PORT": "6001",
                       "PYTHONPATH": str(ROOT)},
    ).stdout.split()
    assert out == [f"127.0.0.1:{DEFAULT_PORTS['rules-neon']}", "127.0.0.1:6001", "10.0.0.1:1"]


# -- compose ----------------------------------------------------------------------------------

def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def resolved(value: str) -> str:
    """${VAR:-default} and ${VAR} as compose would resolve them with nothing set."""
    return re.sub(r"\$\{[A-Z0-9_]+(?::?-([^}]*))?\}", lambda m: m.group(1) or "", value)


def neon_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose()["services"].items() if n in NEON_SERVICES}


def test_compose_runs_every_service_plus_nats_and_postgres() -> None:
    services = compose()["services"]
    assert set(services) == NEON_SERVICES | {"nats", "postgres", "gateway"}  # gateway: HTTP
    assert set(offered_services()) <= set(services)
    nats = services["nats"]
    assert "-js" in nats["command"]
    assert any(v.endswith(":/data") for v in nats["volumes"])
    pg = services["postgres"]
    assert "pg_isready" in pg["healthcheck"]["test"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in pg["volumes"])
    assert {v.split(":")[0] for s in (nats, pg) for v in s["volumes"]} <= set(compose()["volumes"])


@pytest.mark.parametrize("name", sorted(NEON_SERVICES))
def test_compose_service_agrees_with_settings(name: str) -> None:
    service = neon_services()[name]
    port = DEFAULT_PORTS[name]
    assert service["command"] == [name]
    assert service["build"]["dockerfile"] == "deploy/Dockerfile"
    env = {k: resolved(str(v)) for k, v in service["environment"].items()}
    assert env[f"NEON_{env_key(name)}_PORT"] == str(port)
    assert set(env) <= known_env_names(), set(env) - known_env_names()
    for other, other_port in DEFAULT_PORTS.items():
        key = f"NEON_{env_key(other)}_ADDR"
        if key in env:
            assert env[key] == f"{other}:{other_port}"
    assert env["NEON_DICE_ADDR"] == f"dice:{DEFAULT_PORTS['dice']}"
    assert env["NEON_METRICS_PORT"] == str(DEFAULT_METRICS_PORT)  # /metrics in each container
    assert urlparse(env["NATS_URL"]).hostname == "nats"
    db = urlparse(env["DATABASE_URL"])
    pg = compose()["services"]["postgres"]["environment"]
    own = "neon_" + name.replace("-", "_")  # its own login, owner of its own schema only
    assert (db.hostname, db.username, db.path.lstrip("/")) == ("postgres", own, pg["POSTGRES_DB"])
    assert db.password == resolved(pg[f"NEON_DB_PASSWORD_{env_key(name)}"])
    assert db.username != pg["POSTGRES_USER"] and db.password != resolved(pg["POSTGRES_PASSWORD"])
    assert env["NEON_POSTGRES_SCHEMA"] == own
    test = service["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "/opt/neon/healthcheck.py"] and test[3] == name
    for published in service.get("ports", []):
        assert published.split(":")[-2:] == [str(port), str(port)]
    assert service.get("expose") == [str(port)] or service.get("ports"), "reachable on its port"


def test_compose_environment_loads_through_settings_and_keys() -> None:
    from services.platform.keys import load_keys
    from services.platform.settings import load

    env = {k: resolved(str(v)) for k, v in neon_services()["rules-neon"]["environment"].items()}
    settings = load(env)
    assert settings.persistence == "postgres"
    assert settings.bind_host == "0.0.0.0"
    assert settings.address("dice") == "dice:50051"
    assert settings.ports["rules-neon"] == DEFAULT_PORTS["rules-neon"]
    keys = load_keys(settings)  # the dev placeholders are usable keys (no var/keys.json needed)
    assert keys.token_secret


@pytest.mark.parametrize("name", sorted(NEON_SERVICES | {"gateway"}))
def test_compose_gives_each_service_only_the_secrets_its_code_reads(name: str,
                                                                    tmp_path: Path) -> None:
    """As in k8s (tests/unit/test_deploy_k8s.py, SECRETS_OF): the signing key to the signers
    only, a database login to the services with a store only; each loads its keys as `neon
    serve` does without making a keys file, and the dev public key is the dev signing key's."""
    from services.platform.keys import load_keys, signs
    from services.platform.settings import load
    from tests.unit.test_deploy_k8s import SECRETS_OF

    env = {k: resolved(str(v)) for k, v in compose()["services"][name]["environment"].items()}
    secrets = {"NEON_TOKEN_SECRET", "NEON_TOKEN_SECRET_PREVIOUS", "NEON_SIGNING_KEY", "DATABASE_URL",
               "POSTGRES_PASSWORD"}
    assert secrets & set(env) == set(SECRETS_OF[name]), name
    keys = load_keys(load({**env, "NEON_VAR_DIR": str(tmp_path)}), signing=signs(name))
    assert (keys.signing_key is not None) == signs(name)
    assert keys.verify_key() == env["NEON_PUBLIC_KEY"]
    assert not list(tmp_path.iterdir()), "no dev keys made: the container's are all given"


def test_compose_postgres_makes_the_logins_of_the_services() -> None:
    pg = compose()["services"]["postgres"]
    assert pg["configs"] == [{"source": "postgres-logins",
                              "target": "/docker-entrypoint-initdb.d/10-neon-logins.sh"}]
    assert compose()["configs"]["postgres-logins"] == {"file": "./postgres-logins.sh"}
    from tests.unit.test_deploy_k8s import STORES, logins_script

    variables, _ = logins_script()
    assert set(variables.values()) == {f"NEON_DB_PASSWORD_{env_key(n)}" for n in STORES}
    assert set(variables.values()) <= set(pg["environment"])


def test_compose_start_order_follows_health_checks() -> None:
    services = compose()["services"]
    for name, service in services.items():
        for dep, cond in service.get("depends_on", {}).items():
            assert cond["condition"] == "service_healthy", f"{name} -> {dep}"
            assert "healthcheck" in services[dep], f"{name} waits for {dep}, which has no check"
    for name in NEON_SERVICES:
        deps = services[name]["depends_on"]
        assert {"postgres", "nats"} <= set(deps), name
        if name.startswith("rules-"):
            assert "dice" in deps
    mm = services["matchmaking"]["depends_on"]
    assert "scoring" in mm and all(r in mm for r in NEON_SERVICES if r.startswith("rules-"))
    assert set(services["dice"]["depends_on"]) == {"postgres", "nats"}


# -- NATS users and permissions (issue 17, defect 3) ----------------------------------------

def nats_users(conf: str) -> dict[str, tuple[str, str]]:
    """user -> (password variable, permissions block name) of an authorization block."""
    return {u: (pw, role) for u, pw, role in re.findall(
        r"\{\s*user:\s*([a-z-]+),\s*password:\s*\$([A-Z_]+),\s*permissions:\s*\$([A-Z]+)\s*\}", conf)}


def nats_permissions(conf: str, role: str) -> dict[str, list[str]]:
    """'publish.allow', 'publish.deny', 'subscribe.allow' ... of one permissions block."""
    block = re.search(role + r" = \{(.*?)\n  \}", conf, re.S)
    assert block, role
    found: dict[str, list[str]] = {}
    for kind, body in re.findall(r"(publish|subscribe) = \{(.*?)\}\n", block.group(1) + "\n", re.S):
        for rule, items in re.findall(r"(allow|deny) = \[(.*?)\]", body, re.S):
            found[f"{kind}.{rule}"] = re.findall(r'"([^"]+)"', items)
    return found


def test_only_rules_may_publish_match_events_and_results() -> None:
    conf = (DEPLOY / "nats-auth.conf").read_text()
    users = nats_users(conf)
    assert set(users) == {"rules", "matchmaking", "scoring", "tournament"}
    for user, (_, role) in users.items():
        perms = nats_permissions(conf, role)
        publishes = perms["publish.allow"]
        mine = {"neon.events.rules.>", "neon.events.results.>"} & set(publishes)
        assert bool(mine) == (user == "rules"), user
        assert "neon.events.>" not in publishes and ">" not in publishes, user
        # subscriptions: reply inboxes, and the tournament replicas' wake-ups (core NATS,
        # outside the stream: a tournament id and version; services/tournament/wakeups.py)
        wakeups = ["neon.tournament.saved.>"] if user == "tournament" else []
        assert perms["subscribe.allow"] == ["_INBOX.>", *wakeups], user
        assert (("neon.tournament.saved.>" in publishes) == (user == "tournament")), user
    consumer = nats_permissions(conf, users["scoring"][1])
    assert "neon.events.>" in consumer["publish.deny"]
    assert not any(p.startswith(("$JS.API.STREAM.PURGE", "$JS.API.STREAM.DELETE", "$JS.API.STREAM.UPDATE",
                                 "$JS.API.STREAM.MSG.DELETE")) or p == "$JS.API.>"
                   for p in consumer["publish.allow"])
    assert "include ./nats-auth.conf" in (DEPLOY / "nats.conf").read_text()


def test_compose_services_connect_to_nats_as_their_own_user() -> None:
    services = compose()["services"]
    conf = (DEPLOY / "nats-auth.conf").read_text()
    users = nats_users(conf)
    nats = services["nats"]
    assert "-c" in nats["command"]
    mounted = {c["source"]: c["target"] for c in nats["configs"]}
    assert mounted == {"nats-conf": "/etc/nats/nats.conf", "nats-auth": "/etc/nats/nats-auth.conf"}
    assert {k: v["file"] for k, v in compose()["configs"].items()} == {
        "nats-conf": "./nats.conf", "nats-auth": "./nats-auth.conf",
        "postgres-logins": "./postgres-logins.sh"}
    server_env = {k: resolved(v) for k, v in nats["environment"].items()}
    for name, service in neon_services().items():
        if name == "dice":
            continue  # dice does not use NATS
        url = urlparse(resolved(str(service["environment"]["NATS_URL"])))
        expected = "rules" if name.startswith("rules-") else name
        assert url.username == expected, name
        assert url.password and url.password == server_env[users[expected][0]], name
