"""Settings from environment variables, with defaults that run everything on one machine."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from services.platform.stream_limits import (
    DEFAULT_ANONYMOUS_CALLS_PER_SECOND,
    DEFAULT_ANONYMOUS_PER_CLIENT,
    DEFAULT_ANONYMOUS_PER_PEER,
    DEFAULT_CALLS_PER_SECOND,
    DEFAULT_PER_CALLER,
    DEFAULT_TOTAL,
    StreamLimits,
    parse_networks,
)

GAMES = ("neon-reign", "neon", "neon-knights-2086", "barbaric")

DEFAULT_PORTS = {
    "dice": 50051,
    "matchmaking": 50052,
    "scoring": 50053,
    "tournament": 50054,
    "rules-neon-reign": 50061,
    "rules-neon": 50062,
    "rules-neon-knights-2086": 50063,
    "rules-barbaric": 50064,
}

DEFAULT_METRICS_PORT = 9464
"""Where ``neon up`` serves ``/metrics`` when NEON_METRICS_PORT is not set (the Prometheus
exporters' usual port); ``neon serve`` serves none unless it is set."""


def env_key(service: str) -> str:
    """NEON_<SERVICE>_ADDR style prefix: rules-neon-reign -> RULES_NEON_REIGN."""
    return service.upper().replace("-", "_")


NAMESPACE = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?)?\Z")
"""A deployment namespace: lowercase letters, digits and inner hyphens, at most 32 (or empty)."""


def check_namespace(namespace: str) -> str:
    if not NAMESPACE.match(namespace):
        raise ValueError(f"NEON_NAMESPACE {namespace!r}: use 1-32 lowercase letters, digits and "
                         "inner hyphens (or leave it empty)")
    return namespace


def _bool(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


CLOCK_GRACE_MS = 30_000
"""The default of ``Settings.clock_grace_ms`` (and of the rules host's)."""
CLOCK_HEARTBEAT_MS = 5_000
"""The default of ``Settings.clock_heartbeat_ms``."""


@dataclass(frozen=True)
class Settings:
    """Every knob a service reads. Build with :func:`load`."""

    env: str = "dev"
    """"dev" or "tournament" (tournament refuses dev seeds and requires real keys)."""
    var_dir: Path = Path("var")
    persistence: str = "sqlite"
    """"sqlite" (embedded default), "postgres" or "memory"."""
    database_url: str = ""
    postgres_schema: str = ""
    nats_url: str = "nats://127.0.0.1:4222"
    nats_configured: bool = False
    """NATS_URL was set: join that NATS; else ``neon up`` and ``--embedded`` bundle their own."""
    host: str = "127.0.0.1"
    bind_host: str = "127.0.0.1"
    ports: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PORTS))
    addresses: dict[str, str] = field(default_factory=dict)
    """Where each service is reached, by service name (host:port)."""
    token_secret: str = ""
    token_secret_previous: str = ""
    """NEON_TOKEN_SECRET_PREVIOUS: the token secret before a rotation, by which tokens are
    still taken (never minted) until the operator removes it (docs/ACCESS.md, "Rotating
    keys"); empty: none."""
    signing_key: str = ""
    """Ed25519 private key, PEM or hex of the 32 raw bytes."""
    previous_public_keys: tuple[str, ...] = ()
    """NEON_PREVIOUS_PUBLIC_KEYS (comma separated): the public keys (hex) of the organiser's
    signing keys before a rotation, which the services trust beside the current one for what
    was signed before it (results in flight, a tournament's earlier round checkpoints):
    platform/keys.py ``Keys.trusted_keys``."""
    public_key: str = ""
    """The organiser's Ed25519 public key, 64 hex digits (NEON_PUBLIC_KEY): what a service
    that only verifies (the gateway's replay reports, scoring's trusted result key) takes
    instead of the private key (platform/keys.py)."""
    log_level: str = "info"
    log_format: str = "json"
    grace_seconds: float = 10.0
    call_timeout: float = 5.0
    seat_token_ttl: int = 7 * 24 * 3600
    clock_grace_ms: int = CLOCK_GRACE_MS
    """A turn clock that ran while its match had no rules service (a restart, an upgrade)
    gets this much from when the service takes the match up again, capped at a whole
    decision's time (``NEON_CLOCK_GRACE_MS``; 0: no grace)."""
    clock_heartbeat_ms: int = CLOCK_HEARTBEAT_MS
    """How often a rules process writes its heartbeat to its match store
    (``NEON_CLOCK_HEARTBEAT_MS``), so that its successor knows when it stopped serving and
    pauses the running turn clocks for the downtime (services/rules/clockwork.py). 0: no
    heartbeat and no pause (the grace alone; the downtime beyond it counts)."""
    outbox_interval: float = 0.05
    stream_replicas: int = 1
    """JetStream replicas of the event stream (3 on a three-node NATS cluster)."""
    namespace: str = ""
    """Prefixes the stream, subjects, durables and tables (NEON_NAMESPACE; empty: none), so
    several deployments can share one NATS and one database without seeing each other."""
    jwt_public_key: str = ""
    """An external identity provider's public key (PEM text or a path to a PEM file)."""
    jwt_jwks_file: str = ""
    jwt_audience: str = ""
    jwt_issuer: str = ""
    rules_peers: tuple[str, ...] = ()
    """The replicas of this rules service, host:port in ordinal order (NEON_RULES_PEERS, comma
    separated); each match has one owner among them (rules/routing.py). Empty: one replica."""
    metrics_port: int | None = None
    """Port of the ``/metrics`` endpoint (NEON_METRICS_PORT; unset: none for ``neon serve``,
    DEFAULT_METRICS_PORT for ``neon up``; 0: none)."""
    metrics_host: str = ""
    """Where ``/metrics`` binds (NEON_METRICS_HOST; empty: the bind host)."""
    rules_ordinal: int = -1
    """This replica's place in rules_peers: NEON_RULES_ORDINAL, else the number that ends the pod
    name (NEON_POD_NAME or HOSTNAME, as a StatefulSet names pods: rules-neon-reign-1)."""
    max_streams_per_caller: int = DEFAULT_PER_CALLER
    """NEON_MAX_STREAMS_PER_CALLER: open streams (WatchMatch, Play, WatchTicket, ...) one seat or
    player token may hold on one service process; organiser and service tokens are not limited
    per caller (platform/stream_limits.py). 0: no limit."""
    max_anonymous_streams_per_peer: int = DEFAULT_ANONYMOUS_PER_PEER
    """NEON_MAX_ANONYMOUS_STREAMS_PER_PEER: open streams without a token from one host (a gateway
    or a NAT carries many people). 0: no limit."""
    max_streams: int = DEFAULT_TOTAL
    """NEON_MAX_STREAMS: open streams of one service process in all. 0: no limit."""
    max_anonymous_streams_per_client: int = DEFAULT_ANONYMOUS_PER_CLIENT
    """NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT: open streams without a token of one HTTP client
    of one trusted gateway (``trusted_gateways``), as the gateway names the client; such
    streams do not count toward the gateway host's ``max_anonymous_streams_per_peer``. 0: no
    limit."""
    trusted_gateways: tuple[str, ...] | None = None
    """NEON_TRUSTED_GATEWAYS: comma-separated addresses or networks (CIDR) of the gateways in
    front of this service. Only from a peer among them is the client the gateway names
    (x-neon-client metadata) taken, so that its spectators are counted per client, not all
    as the gateway's host (platform/stream_limits.py); anyone else's is ignored. Set but empty:
    nobody's. Unset (None): nobody's, except that the one-process backend (``neon up``,
    cli/backend.py), whose gateway runs beside it, trusts loopback."""
    max_calls_per_second: int = DEFAULT_CALLS_PER_SECOND
    """NEON_MAX_CALLS_PER_SECOND: calls a second (unary calls, stream openings, each message
    sent on a Play stream) one seat or player token may make on one service process, with
    bursts of twice that; the same for each client a trusted gateway names. Organiser and
    service tokens are not limited (platform/call_limits.py). Past it a call is
    RESOURCE_EXHAUSTED with ``retry-after-ms``. 0: no limit."""
    max_anonymous_calls_per_second: int = DEFAULT_ANONYMOUS_CALLS_PER_SECOND
    """NEON_MAX_ANONYMOUS_CALLS_PER_SECOND: calls a second without a token from one host (a
    gateway or a NAT carries many people), bursts of twice that. 0: no limit."""

    def stream_limits(self) -> StreamLimits:
        """The kernel interceptor's limits: open streams and call rates."""
        return StreamLimits(self.max_streams_per_caller, self.max_anonymous_streams_per_peer,
                            self.max_streams, self.max_anonymous_streams_per_client,
                            self.trusted_gateways or (), self.max_calls_per_second,
                            self.max_anonymous_calls_per_second)

    @property
    def metrics_bind_host(self) -> str:
        return self.metrics_host or self.bind_host

    @property
    def serves_metrics(self) -> bool:
        """Whether this process serves ``/metrics`` (a metrics port set, not 0). When it does
        not, the services collect nothing for it: no gRPC interceptor, no HTTP middleware, no
        rules meter, no gauge refreshes (and so no store reads for them)."""
        return bool(self.metrics_port)

    @property
    def tournament(self) -> bool:
        return self.env == "tournament"

    def address(self, service: str) -> str:
        return self.addresses.get(service) or f"{self.host}:{self.ports[service]}"

    @property
    def state_dir(self) -> Path:
        """The deployment's own folder: ``<var>``, or ``<var>/<namespace>`` with a namespace
        (its SQLite files, its dev keys, its organiser token)."""
        return self.var_dir / self.namespace if self.namespace else self.var_dir

    def sqlite_path(self, service: str) -> Path:
        """``<var>/<service>.sqlite``; with a namespace ``<var>/<namespace>/<service>.sqlite``."""
        return self.state_dir / f"{service}.sqlite"

    @property
    def database_schema(self) -> str:
        """The PostgreSQL schema: NEON_POSTGRES_SCHEMA, else ``neon_<namespace>`` with a
        namespace (hyphens as underscores), else the default (public)."""
        if self.postgres_schema:
            return self.postgres_schema
        return f"neon_{self.namespace.replace('-', '_')}" if self.namespace else ""


def switch(environ: Mapping[str, str], name: str) -> bool:
    """An on/off setting: 1, true, yes, on; 0, false, no, off or unset. Anything else is an
    error at start-up, not a guess (a typo must not quietly decide what is rated)."""
    value = (environ.get(name) or "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}: {value!r} is neither on (1, true, yes, on) nor off "
                     "(0, false, no, off)")


def limit_from_env(e: Mapping[str, str], name: str, default: int,
                   use: str = "a whole number, 0 for no limit") -> int:
    """A limit from the environment: an integer, 0 or more (0: no limit, unless ``use``, the
    advice given for anything else, says what 0 means there)."""
    raw = e.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise ValueError(f"{name} {raw!r}: use {use}")
    return int(raw)


def _rules_ordinal(e: dict[str, str]) -> int:
    if e.get("NEON_RULES_ORDINAL", "").strip():
        return int(e["NEON_RULES_ORDINAL"])
    found = re.search(r"-(\d+)$", (e.get("NEON_POD_NAME") or e.get("HOSTNAME") or "").strip())
    return int(found.group(1)) if found else -1




def load(environ: dict[str, str] | None = None) -> Settings:
    e = dict(os.environ if environ is None else environ)
    database_url = e.get("DATABASE_URL", "")
    persistence = e.get("NEON_PERSISTENCE") or ("postgres" if database_url else "sqlite")
    ports = dict(DEFAULT_PORTS)
    addresses: dict[str, str] = {}
    plugins = {
        "rules-" + m.group(1).lower().replace("_", "-")
        for m in (re.match(r"^NEON_RULES_([A-Z0-9_]+)_(?:PORT|ADDR)$", k) for k in e)
        if m
    }
    for service in sorted(set(DEFAULT_PORTS) | plugins):
        key = env_key(service)
        if e.get(f"NEON_{key}_PORT"):
            ports[service] = int(e[f"NEON_{key}_PORT"])
        if e.get(f"NEON_{key}_ADDR"):
            addresses[service] = e[f"NEON_{key}_ADDR"]
    return Settings(
        env=e.get("NEON_ENV", "dev"),
        var_dir=Path(e.get("NEON_VAR_DIR", "var")),
        persistence=persistence,
        database_url=database_url,
        postgres_schema=e.get("NEON_POSTGRES_SCHEMA", ""),
        nats_url=e.get("NATS_URL") or "nats://127.0.0.1:4222",
        nats_configured=bool(e.get("NATS_URL")),
        host=e.get("NEON_HOST", "127.0.0.1"),
        bind_host=e.get("NEON_BIND_HOST", e.get("NEON_HOST", "127.0.0.1")),
        ports=ports,
        addresses=addresses,
        token_secret=e.get("NEON_TOKEN_SECRET", ""),
        token_secret_previous=e.get("NEON_TOKEN_SECRET_PREVIOUS", ""),
        signing_key=e.get("NEON_SIGNING_KEY", ""),
        previous_public_keys=tuple(k.strip() for k in e.get("NEON_PREVIOUS_PUBLIC_KEYS", "")
                                   .split(",") if k.strip()),
        public_key=e.get("NEON_PUBLIC_KEY", "").strip(),
        log_level=e.get("NEON_LOG_LEVEL", "info"),
        log_format=e.get("NEON_LOG_FORMAT", "json"),
        grace_seconds=float(e.get("NEON_GRACE_SECONDS", "10")),
        call_timeout=float(e.get("NEON_CALL_TIMEOUT", "5")),
        seat_token_ttl=int(e.get("NEON_SEAT_TOKEN_TTL", str(7 * 24 * 3600))),
        clock_grace_ms=int(e.get("NEON_CLOCK_GRACE_MS", str(CLOCK_GRACE_MS))),
        clock_heartbeat_ms=limit_from_env(e, "NEON_CLOCK_HEARTBEAT_MS", CLOCK_HEARTBEAT_MS,
                                          "a whole number of milliseconds, 0 for no heartbeat"),
        outbox_interval=float(e.get("NEON_OUTBOX_INTERVAL", "0.05")),
        stream_replicas=int(e.get("NEON_STREAM_REPLICAS", "1")),
        namespace=check_namespace(e.get("NEON_NAMESPACE", "").strip()),
        jwt_public_key=e.get("NEON_JWT_PUBLIC_KEY", ""),
        jwt_jwks_file=e.get("NEON_JWT_JWKS_FILE", ""),
        jwt_audience=e.get("NEON_JWT_AUDIENCE", ""),
        jwt_issuer=e.get("NEON_JWT_ISSUER", ""),
        rules_peers=tuple(p.strip() for p in e.get("NEON_RULES_PEERS", "").split(",") if p.strip()),
        rules_ordinal=_rules_ordinal(e),
        max_streams_per_caller=limit_from_env(e, "NEON_MAX_STREAMS_PER_CALLER", DEFAULT_PER_CALLER),
        max_anonymous_streams_per_peer=limit_from_env(e, "NEON_MAX_ANONYMOUS_STREAMS_PER_PEER",
                                              DEFAULT_ANONYMOUS_PER_PEER),
        max_streams=limit_from_env(e, "NEON_MAX_STREAMS", DEFAULT_TOTAL),
        max_anonymous_streams_per_client=limit_from_env(
            e, "NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT", DEFAULT_ANONYMOUS_PER_CLIENT),
        max_calls_per_second=limit_from_env(e, "NEON_MAX_CALLS_PER_SECOND",
                                            DEFAULT_CALLS_PER_SECOND,
                                            "a whole number of calls a second, 0 for no limit"),
        max_anonymous_calls_per_second=limit_from_env(
            e, "NEON_MAX_ANONYMOUS_CALLS_PER_SECOND", DEFAULT_ANONYMOUS_CALLS_PER_SECOND,
            "a whole number of calls a second, 0 for no limit"),
        trusted_gateways=(parse_networks(e["NEON_TRUSTED_GATEWAYS"], "NEON_TRUSTED_GATEWAYS")
                          if "NEON_TRUSTED_GATEWAYS" in e else None),
        metrics_port=int(e["NEON_METRICS_PORT"]) if e.get("NEON_METRICS_PORT", "").strip() else None,
        metrics_host=e.get("NEON_METRICS_HOST", "").strip(),
    )
