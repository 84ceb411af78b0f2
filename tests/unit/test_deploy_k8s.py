"""k8s/: every manifest is valid against the Kubernetes API schemas (offline, kubernetes-validate)
and agrees with services/platform/settings.py and with the services the code offers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from services.platform.settings import DEFAULT_METRICS_PORT, DEFAULT_PORTS, GAMES, env_key

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
NAMESPACE = "neon-arena"
K8S_VERSIONS = ("1.30.0", "1.37.0")
"""The oldest Kubernetes the README promises (gRPC probes, preStop sleep) and the newest shipped."""
SECRET_KEYS = {"NEON_TOKEN_SECRET", "NEON_SIGNING_KEY", "POSTGRES_PASSWORD"}
STORE = "a store of its own (DATABASE_URL: its own login, owner of its own schema only)"
TOKENS = "verifies callers' tokens (HMAC: NEON_TOKEN_SECRET)"
SIGNS = "signs with the organiser's key"
PREVIOUS = ("takes tokens of the secret before a rotation (optional: neon-secrets has no such "
            "key until one, docs/ACCESS.md \"Rotating keys\")")
SECRETS_OF: dict[str, dict[str, str]] = {
    "gateway": {
        "NEON_TOKEN_SECRET": "mints the service token of its replay fetches (NEON_GATEWAY_REPLAYS,"
                             " on by default); no store, and it only verifies replays: with "
                             "NEON_PUBLIC_KEY of neon-config, not the signing key",
        "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS,
    },
    "dice": {"NEON_TOKEN_SECRET": TOKENS + "; its dev-seed secret is derived from it",
             "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS, "DATABASE_URL": STORE},
    "matchmaking": {"NEON_TOKEN_SECRET": TOKENS + "; mints its service token and its bots' "
                                         "secret", "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS, "DATABASE_URL": STORE},
    "scoring": {"NEON_TOKEN_SECRET": TOKENS, "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS,
                "DATABASE_URL": STORE},
    "tournament": {"NEON_TOKEN_SECRET": TOKENS + "; mints its service token",
                   "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS,
                   "NEON_SIGNING_KEY": SIGNS + ": round checkpoints and result bundles",
                   "DATABASE_URL": STORE},
    **{f"rules-{g}": {"NEON_TOKEN_SECRET": TOKENS + "; mints seat tokens",
                      "NEON_TOKEN_SECRET_PREVIOUS": PREVIOUS,
                      "NEON_SIGNING_KEY": SIGNS + ": results, exports; keys its snapshots' HMAC",
                      "DATABASE_URL": STORE} for g in GAMES},
}
"""Which secrets each service's code reads, and why: what its pods get, and nothing more
(POSTGRES_PASSWORD: the postgres pod's alone)."""


# -- helpers shared with test_deploy_docker -------------------------------------------------

def known_env_names() -> set[str]:
    """Every environment variable the code reads: settings.py, per-service ports and addresses,
    and any other NEON_* name the services mention (e.g. NEON_MATCHMAKING_*)."""
    names = {"DATABASE_URL", "NATS_URL", "POSTGRES_PASSWORD"}
    settings_src = (ROOT / "services/platform/settings.py").read_text()
    names |= set(re.findall(r'e\.get\("([A-Z0-9_]+)"', settings_src))
    for service in DEFAULT_PORTS:
        names |= {f"NEON_{env_key(service)}_PORT", f"NEON_{env_key(service)}_ADDR"}
    for path in (ROOT / "services").rglob("*.py"):
        if "genproto" in path.parts:
            continue
        names |= set(re.findall(r'"(NEON_[A-Z0-9_]+[A-Z0-9])"', path.read_text()))
    return names


def offered_services() -> list[str]:
    """Services the code offers today, built-in engines only (no plug-ins from NEON_ENGINES)."""
    from services.cli.processes import available_services

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("NEON_ENGINES", raising=False)
        return available_services()


def service_of_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


# -- loading ----------------------------------------------------------------------------------

def manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def documents() -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in manifest_files():
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                yield path, doc


DOCS = list(documents())


def objects(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for _, d in DOCS if d["kind"] == kind}


def workloads() -> dict[str, dict[str, Any]]:
    """The pods of each service: a Deployment, or for the rules services and matchmaking
    (live matches or queues in memory, one owner each) a StatefulSet."""
    found = {**objects("Deployment"), **objects("StatefulSet")}
    return {name: found[name] for name in DEFAULT_PORTS if name in found}


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


# -- schema -----------------------------------------------------------------------------------

@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize(
    "path,doc", DOCS, ids=[f"{p.name}:{d['kind']}/{d['metadata']['name']}" for p, d in DOCS]
)
def test_manifest_validates_against_the_kubernetes_api_schema(
    path: Path, doc: dict[str, Any], version: str
) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(doc, version, strict=True)


def test_the_schema_check_catches_a_bad_field() -> None:
    import kubernetes_validate

    bad = yaml.safe_load((K8S / "dice.yaml").read_text().split("---")[1])
    container(bad)["readinessProbe"]["grpc"]["portt"] = 1
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSIONS[-1], strict=True)


def test_kustomization_applies_every_manifest_once() -> None:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kust["namespace"] == NAMESPACE
    assert sorted(kust["resources"]) == sorted(p.name for p in manifest_files())
    assert kust["resources"][0] == "namespace.yaml"
    assert (K8S / "README.md").read_text().count("kubectl apply -k k8s/")


def test_every_object_is_in_the_namespace() -> None:
    assert list(objects("Namespace")) == [NAMESPACE]
    for path, doc in DOCS:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == NAMESPACE, f"{path.name}: {doc['kind']}"


# -- services agree with settings.py ------------------------------------------------------------

def test_a_workload_and_service_per_service_of_the_architecture() -> None:
    deployments, services = workloads(), objects("Service")
    assert set(deployments) == set(DEFAULT_PORTS)
    assert {n for n in objects("Deployment") if n.startswith("rules-")} == set()
    assert {f"rules-{g}" for g in GAMES} <= set(deployments)
    assert set(offered_services()) <= set(deployments)
    for name, port in DEFAULT_PORTS.items():
        dep, svc = deployments[name], services[name]
        c = container(dep)
        assert c["args"] == [name], "the image's ENTRYPOINT is `neon serve`; the arg is the service"
        assert c["image"].startswith("neon-arena")
        assert c["ports"] == [{"name": "grpc", "containerPort": port, "protocol": "TCP"},
                              {"name": "metrics", "containerPort": DEFAULT_METRICS_PORT,
                               "protocol": "TCP"}]
        assert {"name": f"NEON_{env_key(name)}_PORT", "value": str(port)} in c["env"]
        assert c["envFrom"] == [{"configMapRef": {"name": "neon-config"}}], "no whole Secret"
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            assert c[probe]["grpc"] == {"port": port}, f"{name} {probe}"
        assert set(c["resources"]["requests"]) == {"cpu", "memory"}
        assert set(c["resources"]["limits"]) == {"cpu", "memory"}
        pod = dep["spec"]["template"]
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
        assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
        assert svc["spec"]["ports"][0]["port"] == port
        assert svc["spec"]["ports"][0]["targetPort"] == "grpc"


def test_every_service_pod_is_scraped_on_its_metrics_port() -> None:
    """Each service's container serves /metrics on NEON_METRICS_PORT (the ConfigMap's, the
    default of `neon up`), names that port, and its pods carry the prometheus.io annotations;
    the NetworkPolicies admit the scrape there and nowhere else."""
    assert objects("ConfigMap")["neon-config"]["data"]["NEON_METRICS_PORT"] == str(
        DEFAULT_METRICS_PORT)
    found = {**objects("Deployment"), **objects("StatefulSet")}
    for name in [*DEFAULT_PORTS, "gateway"]:
        pod = found[name]["spec"]["template"]
        ports = {p["name"]: p for p in container(found[name])["ports"]}
        assert ports["metrics"] == {"name": "metrics", "containerPort": DEFAULT_METRICS_PORT,
                                    "protocol": "TCP"}, name
        assert pod["metadata"]["annotations"] == {
            "prometheus.io/scrape": "true", "prometheus.io/port": str(DEFAULT_METRICS_PORT),
            "prometheus.io/path": "/metrics"}, name
        assert allowed(None, name, DEFAULT_METRICS_PORT), name
    for name in ("nats", "postgres"):
        assert not allowed(None, name, DEFAULT_METRICS_PORT)
        assert "annotations" not in found[name]["spec"]["template"]["metadata"]
    assert not allowed(None, "dice", DEFAULT_METRICS_PORT + 1)


def test_rules_statefulsets_share_the_image_and_differ_by_game() -> None:
    deployments = objects("StatefulSet")
    rules = {n: d for n, d in deployments.items() if n.startswith("rules-")}
    assert len(rules) == len(GAMES) == 4
    assert len({container(d)["image"] for d in rules.values()}) == 1
    assert len({tuple(container(d)["args"]) for d in rules.values()}) == 4


def test_termination_grace_covers_the_services_grace_period() -> None:
    grace = float(objects("ConfigMap")["neon-config"]["data"]["NEON_GRACE_SECONDS"])
    for name, dep in workloads().items():
        spec = dep["spec"]["template"]["spec"]
        pre_stop = container(dep)["lifecycle"]["preStop"]["sleep"]["seconds"]
        assert spec["terminationGracePeriodSeconds"] > pre_stop + grace, name


def test_config_map_and_secret_are_kept_apart_and_hold_only_known_settings() -> None:
    known = known_env_names()
    config = objects("ConfigMap")["neon-config"]["data"]
    secret = objects("Secret")["neon-secrets"]["stringData"]
    assert set(config) <= known, set(config) - known
    assert set(secret) <= known, set(secret) - known
    assert set(secret) == SECRET_KEYS
    assert not set(config) & SECRET_KEYS
    for key, value in secret.items():
        assert "REPLACE_ME" in value, f"{key}: secret.yaml must hold placeholders only"
    for name, port in DEFAULT_PORTS.items():
        assert config[f"NEON_{env_key(name)}_ADDR"] == f"{name}:{port}"
    assert config["NEON_PERSISTENCE"] == "postgres"
    nats = urlparse(config["NATS_URL"])
    assert nats.hostname in objects("Service") and nats.port == 4222
    assert config["NEON_PUBLIC_KEY"] == "REPLACE_ME", "the organiser's, set by the operator"
    from services.platform.settings import load

    settings = load({**config, **secret})
    for name, port in DEFAULT_PORTS.items():
        assert settings.address(name) == f"{name}:{port}"


def test_every_env_var_in_the_deployments_is_one_the_code_reads() -> None:
    known = known_env_names()
    for name, dep in workloads().items():
        names = {env["name"] for env in container(dep)["env"]}
        for env in container(dep)["env"]:
            if env["name"] == "NATS_PASSWORD":  # only a part of NATS_URL: $(NATS_PASSWORD)
                assert "NATS_URL" in names, name
                continue
            if env["name"] == "DATABASE_PASSWORD":  # only a part of DATABASE_URL
                assert "DATABASE_URL" in names, name
                continue
            assert env["name"] in known, f"{name}: {env['name']}"


def test_disruption_budgets_for_all_and_no_autoscaler_for_services_with_owners() -> None:
    """An HPA would change the rules or matchmaking replica count without changing their
    peer lists (k8s/README.md)."""
    deployments = workloads()
    hpas = objects("HorizontalPodAutoscaler")
    assert not {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()} & (
        {n for n in deployments if n.startswith("rules-")} | {"matchmaking"})
    pdbs = objects("PodDisruptionBudget")
    for name, dep in deployments.items():
        labels = dep["spec"]["template"]["metadata"]["labels"]
        assert pdbs[name]["spec"]["selector"]["matchLabels"].items() <= labels.items()
        if dep["spec"]["replicas"] < 2:
            assert pdbs[name]["spec"].get("maxUnavailable", 0) >= 1, \
                f"{name}: a PDB that keeps a single replica would block node drains"
        else:
            assert dep["spec"]["replicas"] >= 2


def test_rules_replicas_find_each_other_and_know_their_place() -> None:
    """Each rules StatefulSet: a headless Service for the replicas' own addresses, the client
    Service for everyone else, and NEON_RULES_PEERS naming every replica in ordinal order; a
    pod learns its ordinal from its name, which the settings turn into its place."""
    from services.platform.settings import load
    from services.rules.routing import Router

    services = objects("Service")
    sets = {n: s for n, s in objects("StatefulSet").items() if n.startswith("rules-")}
    assert set(sets) == {f"rules-{g}" for g in GAMES}
    for name, sts in sets.items():
        port = DEFAULT_PORTS[name]
        labels = sts["spec"]["template"]["metadata"]["labels"]
        headless = services[sts["spec"]["serviceName"]]
        assert headless["metadata"]["name"] != name
        assert headless["spec"]["clusterIP"] == "None"
        assert headless["spec"]["publishNotReadyAddresses"] is True
        assert headless["spec"]["selector"].items() <= labels.items()
        assert headless["spec"]["ports"][0]["port"] == port
        assert services[name]["spec"].get("clusterIP") != "None"  # clients: one address
        env = {e["name"]: e for e in container(sts)["env"]}
        assert env["NEON_POD_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
        peers = env["NEON_RULES_PEERS"]["value"].split(",")
        replicas = sts["spec"]["replicas"]
        assert replicas >= 2
        assert peers == [f"{name}-{i}.{headless['metadata']['name']}.{NAMESPACE}.svc.cluster.local:{port}"
                         for i in range(replicas)]
        for ordinal in range(replicas):
            settings = load({"NEON_RULES_PEERS": env["NEON_RULES_PEERS"]["value"],
                             "NEON_POD_NAME": f"{name}-{ordinal}"})
            router = Router.from_settings(settings)
            assert router is not None and router.replicas.me == ordinal
    readme = (ROOT / "k8s" / "README.md").read_text()
    assert "Rules replicas" in readme and "rollout" in readme


def test_matchmaking_replicas_find_each_other_and_own_every_queue_once() -> None:
    """Matchmaking: a StatefulSet whose NEON_MATCHMAKING_PEERS names every replica in ordinal
    order through its headless Service; each pod learns its place from its name, and every
    game's queue has exactly one owner among them (services/matchmaking/routing.py)."""
    from services.matchmaking.routing import owner_check, replicas_from_env

    assert "matchmaking" not in objects("Deployment")
    sts = objects("StatefulSet")["matchmaking"]
    services = objects("Service")
    headless = services[sts["spec"]["serviceName"]]
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert headless["spec"]["clusterIP"] == "None" and headless["spec"]["publishNotReadyAddresses"]
    assert headless["spec"]["selector"].items() <= labels.items()
    assert services["matchmaking"]["spec"].get("clusterIP") != "None"
    env = {e["name"]: e for e in container(sts)["env"]}
    assert env["NEON_POD_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    replicas = sts["spec"]["replicas"]
    assert replicas >= 2
    peers = env["NEON_MATCHMAKING_PEERS"]["value"]
    assert peers.split(",") == [
        f"matchmaking-{i}.{headless['metadata']['name']}.{NAMESPACE}.svc.cluster.local:50052"
        for i in range(replicas)]
    owns = []
    for ordinal in range(replicas):
        found = replicas_from_env({"NEON_MATCHMAKING_PEERS": peers,
                                   "NEON_POD_NAME": f"matchmaking-{ordinal}"})
        assert found is not None and found.me == ordinal
        owns.append(owner_check(found))
    for game in [*GAMES, "toy"]:
        assert sum(own(game) for own in owns) == 1
    assert "matchmaking" not in objects("HorizontalPodAutoscaler")
    assert "Matchmaking replicas" in (ROOT / "k8s" / "README.md").read_text()


# -- NATS and PostgreSQL ------------------------------------------------------------------------

def test_nats_is_a_three_node_jetstream_cluster() -> None:
    sts = objects("StatefulSet")["nats"]
    headless = objects("Service")[sts["spec"]["serviceName"]]
    assert sts["spec"]["replicas"] == 3
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["publishNotReadyAddresses"] is True
    assert sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
    conf = objects("ConfigMap")["nats-config"]["data"]["nats.conf"]
    assert "jetstream" in conf and "store_dir: /data" in conf
    routes = re.findall(r"nats://(nats-\d)\.([a-z-]+)\.([a-z-]+)\.svc\.cluster\.local:6222", conf)
    assert sorted(r[0] for r in routes) == ["nats-0", "nats-1", "nats-2"]
    assert {(r[1], r[2]) for r in routes} == {(headless["metadata"]["name"], NAMESPACE)}
    assert objects("PodDisruptionBudget")["nats"]["spec"]["minAvailable"] == 2


def test_postgres_is_a_statefulset_with_a_volume_claim_template() -> None:
    sts = objects("StatefulSet")["postgres"]
    assert sts["spec"]["serviceName"] in objects("Service")
    assert sts["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]
    env = {e["name"]: e for e in sts["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "neon-secrets", "key": "POSTGRES_PASSWORD"}
    for name in STORES:
        db = urlparse(service_env(name)["DATABASE_URL"]["value"])
        assert (db.hostname, db.port) == (sts["spec"]["serviceName"], 5432), name
        assert db.path.lstrip("/") == env["POSTGRES_DB"]["value"], name
        assert db.username != env["POSTGRES_USER"]["value"], f"{name}: not as the administrator"


# -- network policies: evaluate them ------------------------------------------------------------

def pod_labels() -> dict[str, dict[str, str]]:
    out = {}
    for kind in ("Deployment", "StatefulSet"):
        for name, obj in objects(kind).items():
            out[name] = obj["spec"]["template"]["metadata"]["labels"]
    return out


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for rule in selector.get("matchExpressions", []):
        assert rule["operator"] == "In", "only In is modelled here"
        if labels.get(rule["key"]) not in rule["values"]:
            return False
    return True


def _port_ok(ports: list[dict[str, Any]] | None, port: int, protocol: str) -> bool:
    if not ports:
        return True
    return any(p.get("protocol", "TCP") == protocol
               and (p["port"] == port or p["port"] <= port <= p.get("endPort", p["port"]))
               for p in ports)


def _peer_ok(peers: list[dict[str, Any]] | None, other: dict[str, str] | None) -> bool:
    """``other`` is the labels of a pod in the namespace, or None for a client outside it."""
    if not peers:
        return True
    for peer in peers:
        if "namespaceSelector" in peer or "ipBlock" in peer:
            continue  # only DNS uses these; checked separately
        if other is not None and _selects(peer["podSelector"], other):
            return True
    return False


def allowed(src: str | None, dst: str, port: int, protocol: str = "TCP") -> bool:
    """Whether NetworkPolicies admit src -> dst:port (src None = a client outside the cluster)."""
    labels = pod_labels()
    policies = list(objects("NetworkPolicy").values())

    def side(pod: dict[str, str], kind: str, other: dict[str, str] | None) -> bool:
        relevant = [p for p in policies if kind in p["spec"]["policyTypes"]
                    and _selects(p["spec"]["podSelector"], pod)]
        if not relevant:
            return True
        key, peers = ("ingress", "from") if kind == "Ingress" else ("egress", "to")
        return any(_peer_ok(rule.get(peers), other) and _port_ok(rule.get("ports"), port, protocol)
                   for p in relevant for rule in p["spec"].get(key, []))

    dst_labels = labels[dst]
    src_labels = labels[src] if src else None
    ingress_ok = side(dst_labels, "Ingress", src_labels)
    egress_ok = src_labels is None or side(src_labels, "Egress", dst_labels)
    return ingress_ok and egress_ok


RULES = [f"rules-{g}" for g in GAMES]
NEEDED = (
    [(r, "dice", 50051) for r in RULES] + [(r, "nats", 4222) for r in RULES]
    + [(r, r, DEFAULT_PORTS[r]) for r in RULES]
    + [("matchmaking", r, DEFAULT_PORTS[r]) for r in RULES]
    + [("matchmaking", "scoring", 50053), ("matchmaking", "nats", 4222), ("scoring", "nats", 4222)]
    + [("matchmaking", "matchmaking", 50052)]
    + [(s, "postgres", 5432) for s in DEFAULT_PORTS]
    + [(None, r, DEFAULT_PORTS[r]) for r in RULES]
    + [(None, "matchmaking", 50052), (None, "scoring", 50053), (None, "tournament", 50054)]
    + [("tournament", r, DEFAULT_PORTS[r]) for r in RULES]
    + [("tournament", "scoring", 50053), ("tournament", "nats", 4222)]
    + [("nats", "nats", 6222)]
)
FORBIDDEN = [
    (None, "dice", 50051), (None, "postgres", 5432), (None, "nats", 4222),
    ("scoring", "dice", 50051), ("matchmaking", "dice", 50051), ("dice", "nats", 4222),
    ("scoring", "rules-neon", 50062), ("rules-neon", "scoring", 50053),
    ("rules-neon", "matchmaking", 50052), ("dice", "rules-neon", 50062),
    ("postgres", "nats", 4222), ("nats", "postgres", 5432), ("rules-neon", "dice", 5432),
    ("tournament", "dice", 50051), ("rules-neon", "tournament", 50054),
]


@pytest.mark.parametrize("src,dst,port", NEEDED)
def test_network_policies_allow_what_the_architecture_needs(src: str | None, dst: str, port: int) -> None:
    assert allowed(src, dst, port)


@pytest.mark.parametrize("src,dst,port", FORBIDDEN)
def test_network_policies_deny_everything_else(src: str | None, dst: str, port: int) -> None:
    assert not allowed(src, dst, port)


def test_every_pod_may_resolve_dns_and_everything_is_denied_by_default() -> None:
    policies = objects("NetworkPolicy")
    deny = policies["default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert not deny.get("ingress") and not deny.get("egress")
    dns = policies["allow-dns"]["spec"]
    assert dns["podSelector"] == {}
    assert {(p["protocol"], p["port"]) for p in dns["egress"][0]["ports"]} == {("UDP", 53), ("TCP", 53)}


def test_the_event_stream_is_replicated_on_the_three_node_nats_cluster() -> None:
    config = objects("ConfigMap")["neon-config"]["data"]
    nats = objects("StatefulSet")["nats"]
    assert int(config["NEON_STREAM_REPLICAS"]) == nats["spec"]["replicas"] == 3


# -- NATS users and permissions (issue 17, defect 3) ----------------------------------------

def test_nats_cluster_enforces_the_users_and_permissions_of_deploy() -> None:
    from tests.unit.test_deploy_docker import nats_users

    auth = (ROOT / "deploy/nats-auth.conf").read_text()
    block = auth[auth.index("authorization {"):]
    conf = objects("ConfigMap")["nats-config"]["data"]["nats.conf"]
    assert block in conf + "\n"
    users = nats_users(auth)
    secret = objects("Secret")["nats-users"]["stringData"]
    assert set(secret) == set(users) and all(v == "REPLACE_ME" for v in secret.values())
    server_env = {e["name"]: e for e in container(objects("StatefulSet")["nats"])["env"]}
    for user, (variable, _) in users.items():
        ref = server_env[variable]["valueFrom"]["secretKeyRef"]
        assert (ref["name"], ref["key"]) == ("nats-users", user)


def test_each_service_connects_to_nats_as_its_own_user() -> None:
    for name, dep in workloads().items():
        env = {e["name"]: e for e in container(dep)["env"]}
        if name == "dice":
            assert "NATS_PASSWORD" not in env  # dice does not use NATS
            continue
        user = "rules" if name.startswith("rules-") else name
        ref = env["NATS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert (ref["name"], ref["key"]) == ("nats-users", user), name
        assert env["NATS_URL"]["value"] == f"nats://{user}:$(NATS_PASSWORD)@nats:4222", name
        names = [e["name"] for e in container(dep)["env"]]
        assert names.index("NATS_PASSWORD") < names.index("NATS_URL"), "k8s expands earlier vars only"


# -- least privilege: each pod gets only the secrets its service reads -------------------------

STORES = [name for name, needs in SECRETS_OF.items() if "DATABASE_URL" in needs]
LOGINS_SCRIPT = ROOT / "deploy/postgres-logins.sh"


def pods() -> dict[str, dict[str, Any]]:
    return {**objects("Deployment"), **objects("StatefulSet")}


def service_env(name: str) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container(pods()[name])["env"]}


def login(name: str) -> str:
    """A service's PostgreSQL login, also the name of its schema: rules-neon -> neon_rules_neon."""
    return "neon_" + name.replace("-", "_")


def secrets_given(name: str) -> set[str]:
    """What a service's pod gets of the secrets: the keys of neon-secrets it names, and a
    DATABASE_URL (a login of postgres-users)."""
    got = set()
    for variable, e in service_env(name).items():
        ref = e.get("valueFrom", {}).get("secretKeyRef")
        if ref and ref["name"] == "neon-secrets":
            assert ref["key"] == variable, name
            got.add(variable)
    return got | ({"DATABASE_URL"} & set(service_env(name)))


def test_no_pod_takes_a_whole_secret() -> None:
    for name, workload in pods().items():
        spec = workload["spec"]["template"]["spec"]
        for c in spec["containers"] + spec.get("initContainers", []):
            assert not [f for f in c.get("envFrom", []) if "secretRef" in f], name
        assert not [v for v in spec.get("volumes", []) if "secret" in v], name


def test_each_service_gets_exactly_the_secrets_its_code_reads() -> None:
    """The table SECRETS_OF against the manifests, and against the code: the signers are
    the services `neon serve` loads the signing key for (keys.signs), a store is an
    eventsourcing_env in the service's main.py, and nobody else reads the private key."""
    from services.platform.keys import signs

    assert set(SECRETS_OF) == set(DEFAULT_PORTS) | {"gateway"}
    for name, needs in SECRETS_OF.items():
        assert secrets_given(name) == set(needs), name
        assert signs(name) == ("NEON_SIGNING_KEY" in needs), name
        main = (ROOT / "services" / name.split("-")[0] / "main.py").read_text()
        assert ("eventsourcing_env(settings" in main) == ("DATABASE_URL" in needs), name
        assert "keys.token_secret" in main, name
        assert ("keys.signing_key" in main) == signs(name), name
    assert "NEON_SIGNING_KEY" not in secrets_given("gateway")
    assert "DATABASE_URL" not in secrets_given("gateway")
    for name in pods():
        refs = [e["valueFrom"]["secretKeyRef"] for e in container(pods()[name]).get("env", [])
                if "secretKeyRef" in e.get("valueFrom", {})]
        assert (("neon-secrets", "POSTGRES_PASSWORD") in {(r["name"], r["key"]) for r in refs}) \
            == (name == "postgres"), name


def test_each_store_connects_as_its_own_login_to_its_own_schema() -> None:
    users = objects("Secret")["postgres-users"]["stringData"]
    assert set(users) == set(STORES) and all(v == "REPLACE_ME" for v in users.values())
    postgres = service_env("postgres")
    for name in STORES:
        env = service_env(name)
        assert env["DATABASE_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
            "name": "postgres-users", "key": name}
        assert env["DATABASE_URL"]["value"] == (
            f"postgresql://{login(name)}:$(DATABASE_PASSWORD)@postgres:5432/neon")
        assert env["NEON_POSTGRES_SCHEMA"]["value"] == login(name)
        names = list(env)
        assert names.index("DATABASE_PASSWORD") < names.index("DATABASE_URL"), name
        variable = f"NEON_DB_PASSWORD_{env_key(name)}"
        assert postgres[variable]["valueFrom"]["secretKeyRef"] == {
            "name": "postgres-users", "key": name}, "the postgres pod makes the login with it"


def logins_script() -> tuple[dict[str, str], list[str]]:
    """deploy/postgres-logins.sh: psql variable -> environment variable, and its SQL
    statements (comments dropped, one per item)."""
    text = LOGINS_SCRIPT.read_text()
    variables = dict(re.findall(r'-v ([a-z0-9_]+)="\$\{([A-Z0-9_]+):\?\}"', text))
    body = text[text.index("<<'SQL'\n") + len("<<'SQL'\n"):text.rindex("\nSQL\n")]
    body = "\n".join(line for line in body.splitlines() if not line.startswith("--"))
    statements = [" ".join(s.split()) for s in re.split(r";|\\gexec", body) if s.strip()]
    return variables, statements


def test_the_logins_script_gives_each_login_its_own_schema_and_nothing_else() -> None:
    init = objects("ConfigMap")["postgres-init"]["data"]
    assert init == {"10-neon-logins.sh": LOGINS_SCRIPT.read_text()}
    sts = pods()["postgres"]["spec"]["template"]["spec"]
    mounts = {m["name"]: m["mountPath"] for m in container(pods()["postgres"])["volumeMounts"]}
    volume = next(v for v in sts["volumes"] if v.get("configMap", {}).get("name") == "postgres-init")
    assert mounts[volume["name"]] == "/docker-entrypoint-initdb.d"
    variables, statements = logins_script()
    postgres = service_env("postgres")
    roles = {login(n) for n in STORES}
    assert {m for s in statements for m in re.findall(r"^SELECT 'CREATE ROLE (\w+)'", s)} == roles
    assert 'REVOKE ALL ON DATABASE :"DBNAME" FROM PUBLIC' in statements
    assert "REVOKE ALL ON SCHEMA public FROM PUBLIC" in statements
    for name in STORES:
        role = login(name)
        mine = [s for s in statements if re.search(rf"\b{role}\b", s)]
        alter = [s for s in mine if s.startswith(f"ALTER ROLE {role} ")]
        assert len(alter) == 1, role
        for attribute in ("LOGIN", "NOSUPERUSER", "NOCREATEDB", "NOCREATEROLE", "NOREPLICATION",
                          "NOBYPASSRLS"):
            assert f" {attribute} " in alter[0], (role, attribute)
        password = re.search(r"PASSWORD :'(\w+)'$", alter[0])
        assert password, role
        ref = postgres[variables[password.group(1)]]["valueFrom"]["secretKeyRef"]
        assert ref == {"name": "postgres-users", "key": name}, "its own service's password"
        assert mine == [
            f"SELECT 'CREATE ROLE {role}' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}')",
            alter[0],
            f'GRANT CONNECT ON DATABASE :"DBNAME" TO {role}',
            f"CREATE SCHEMA IF NOT EXISTS {role} AUTHORIZATION {role}",
            f"ALTER SCHEMA {role} OWNER TO {role}",
            f"REVOKE ALL ON SCHEMA {role} FROM PUBLIC",
        ], role
    for s in statements:  # no grant of anything else, to anyone
        if s.startswith("GRANT"):
            assert re.fullmatch(r'GRANT CONNECT ON DATABASE :"DBNAME" TO (\w+)', s), s
    assert len(statements) == 2 + 6 * len(STORES), "nothing beyond the above"


def pod_environment(name: str, public_key: str, values: dict[str, str]) -> dict[str, str]:
    """The environment a service's pod starts with: neon-config (its NEON_PUBLIC_KEY set),
    then its env, a secret's key taken from ``values`` (by ``<secret>/<key>``), ``$(VAR)``
    expanded as Kubernetes does."""
    env = {**objects("ConfigMap")["neon-config"]["data"], "NEON_PUBLIC_KEY": public_key}
    for e in container(pods()[name])["env"]:
        if "value" in e:
            env[e["name"]] = re.sub(r"\$\(([A-Z_]+)\)", lambda m: env[m.group(1)], e["value"])
        elif "secretKeyRef" in e["valueFrom"]:
            ref = e["valueFrom"]["secretKeyRef"]
            if f"{ref['name']}/{ref['key']}" in values or not ref.get("optional"):
                env[e["name"]] = values[f"{ref['name']}/{ref['key']}"]
            # an optional key the Secret does not hold: not set, as Kubernetes does
    return env


def secret_values(signing_key: str) -> dict[str, str]:
    """A value for every key of every Secret, by ``<secret>/<key>``."""
    values = {f"{secret}/{key}": f"pw-{secret}-{key}"
              for secret, doc in objects("Secret").items() for key in doc["stringData"]}
    values["neon-secrets/NEON_TOKEN_SECRET"] = "t" * 32
    values["neon-secrets/NEON_SIGNING_KEY"] = signing_key
    return values


def test_every_token_checker_takes_a_rotations_earlier_secret_when_there_is_one() -> None:
    """Each pod that checks tokens names NEON_TOKEN_SECRET_PREVIOUS of neon-secrets, optional
    (secret.yaml holds no such key: the pods start without it), so that a rotation is a new
    key in the Secret and a restart, not an edit of every manifest. With it, a token of the
    earlier secret is taken, never minted; a malformed one stops the service."""
    from services.platform.keys import load_keys
    from services.platform.settings import load
    from services.platform.tokens import TokenIssuer

    assert "NEON_TOKEN_SECRET_PREVIOUS" not in objects("Secret")["neon-secrets"]["stringData"]
    values = secret_values("")
    rotated = {**values, "neon-secrets/NEON_TOKEN_SECRET_PREVIOUS": "o" * 32}
    old_token = TokenIssuer(b"o" * 32, external=None, previous=()).issue("organiser", "*",
                                                                        player="olga")
    for name in SECRETS_OF:
        refs = [e["valueFrom"]["secretKeyRef"] for e in container(pods()[name])["env"]
                if e["name"] == "NEON_TOKEN_SECRET_PREVIOUS"]
        assert refs == [{"name": "neon-secrets", "key": "NEON_TOKEN_SECRET_PREVIOUS",
                         "optional": True}], name
        assert "NEON_TOKEN_SECRET_PREVIOUS" not in pod_environment(name, "", values), name
        env = pod_environment(name, "", rotated)
        issuer = TokenIssuer(env["NEON_TOKEN_SECRET"].encode(), external=None,
                             previous=(env["NEON_TOKEN_SECRET_PREVIOUS"].encode(),))
        assert issuer.verify(old_token).player == "olga", name
        with pytest.raises(ValueError, match="NEON_TOKEN_SECRET_PREVIOUS"):
            load_keys(load({**env, "NEON_TOKEN_SECRET_PREVIOUS": "short"}), signing=False)


def test_each_service_starts_with_only_its_secrets_and_no_other() -> None:
    """The keys of each pod's environment load as `neon serve` loads them; the services
    that only verify do so with NEON_PUBLIC_KEY, and would not start the old way (both keys
    required), which they could not: they have no signing key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.keys import NoKeys, load_keys, signs
    from services.platform.settings import load
    from services.platform.signing import private_key_hex, public_key_hex

    key = Ed25519PrivateKey.generate()
    values = secret_values(private_key_hex(key))
    for name in SECRETS_OF:
        settings = load(pod_environment(name, public_key_hex(key), values))
        assert settings.tournament
        keys = load_keys(settings, signing=signs(name))
        assert keys.token_secret == b"t" * 32
        assert (keys.signing_key is not None) == signs(name), name
        assert keys.verify_key() == public_key_hex(key), name
        if not signs(name):
            with pytest.raises(NoKeys):
                load_keys(settings)
        if name in STORES:
            db = urlparse(settings.database_url)
            assert (db.username, db.password) == (login(name), f"pw-postgres-users-{name}")
            assert settings.persistence == "postgres" and settings.database_schema == login(name)
        else:
            assert settings.database_url == ""


def test_a_wrong_or_placeholder_public_key_stops_the_services() -> None:
    """NEON_PUBLIC_KEY must be the signing key's public half where both are given (else the
    signers' results would be refused by scoring), and the placeholder is no key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.keys import load_keys, signs
    from services.platform.settings import load
    from services.platform.signing import private_key_hex, public_key_hex

    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    values = secret_values(private_key_hex(key))
    with pytest.raises(ValueError, match="not the public half"):
        load_keys(load(pod_environment("rules-neon", public_key_hex(other), values)))
    placeholder = objects("ConfigMap")["neon-config"]["data"]["NEON_PUBLIC_KEY"]
    for name in ("gateway", "scoring", "tournament"):
        with pytest.raises(ValueError, match="NEON_PUBLIC_KEY"):
            load_keys(load(pod_environment(name, placeholder, values)), signing=signs(name))
