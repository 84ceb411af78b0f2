"""``neon up --processes``: every service as its own OS process (``neon serve``), on loopback.

The supervisor finds the services whose code is in this build (dice; scoring and matchmaking
once their packages exist; one rules service per engine present, plug-ins included), starts a
bundled nats-server unless ``NATS_URL`` is set, starts the services in dependency order
(dice and scoring, then the rules services, then matchmaking and tournament), waits for each to answer its gRPC
health check with SERVING, and prints the endpoints. Each service logs to
``<NEON_VAR_DIR>/logs/<service>.log``.

Ctrl-C or SIGTERM stops them in the reverse order: each gets SIGTERM (it marks itself
NOT_SERVING, finishes its calls in flight and its outbox), and is killed only if it has not
exited after ``NEON_GRACE_SECONDS`` plus a margin. A second Ctrl-C kills at once. A service that
dies on its own is restarted (a few times, with a pause), so the rest keep running.

The children run in their own process group, so a terminal's Ctrl-C reaches only the supervisor,
which forwards it in order; on Linux they also get SIGTERM should the supervisor itself die.
"""

from __future__ import annotations

import ctypes
import dataclasses
import importlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from services.cli.files import write_private
from services.cli.ports import busy, busy_message, port_offset
from services.platform.natsrv import EmbeddedNats, free_port, port_open
from services.platform.settings import Settings, env_key
from services.platform.stream_limits import LOOPBACK_GATEWAYS

SERVICE_MODULES = {
    "dice": "services.dice.main",
    "scoring": "services.scoring.main",
    "matchmaking": "services.matchmaking.main",
    "tournament": "services.tournament.main",
    "gateway": "services.gateway.main",
}
"""Services other than the rules services, and the module whose ``start`` runs each."""

TIERS: tuple[tuple[str, ...], ...] = (
    ("dice", "scoring"), ("rules",), ("matchmaking", "tournament"), ("gateway",))
"""Start order; stopping goes the other way (the gateway calls everyone, matchmaking and
tournament call rules, rules call dice)."""
HTTP_SERVICES = {"gateway": 8080}
"""Services that answer HTTP rather than gRPC (their health is GET /healthz), default port."""

STOP_MARGIN = 5.0
"""Seconds beyond NEON_GRACE_SECONDS before a service that ignores SIGTERM is killed."""
MAX_RESTARTS = 3
HOST = "127.0.0.1"


def _has_start(module: str) -> bool:
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):  # the package itself is not there yet
            return False
        raise
    return callable(getattr(loaded, "start", None))


def available_services() -> list[str]:
    """The gRPC services whose code is in this build, in start order."""
    from services.rules.games import available

    present: list[str] = []
    for tier in TIERS:
        for name in tier:
            if name == "rules":
                present += [f"rules-{game}" for game in available()]
            elif name in HTTP_SERVICES:
                continue  # gRPC services only; `neon up --processes` adds the gateway itself
            elif _has_start(SERVICE_MODULES[name]):
                present.append(name)
    return present


def tier_of(service: str) -> int:
    key = "rules" if service.startswith("rules-") else service
    return next(i for i, tier in enumerate(TIERS) if key in tier)


def _parent_death_signal() -> Callable[[], None] | None:
    """A preexec_fn asking Linux to SIGTERM the child when the supervisor dies.

    Only for the bundled nats-server, started before the supervisor has any thread: a
    preexec_fn runs Python between fork and exec, and in a process with threads (gRPC's,
    once a health check ran) the child can deadlock there, and the parent with it, waiting
    in ``Popen`` for an exec that never comes (seen: `neon up --processes` hung, silent, on
    spawning matchmaking). Services ask for the signal themselves (:func:`die_with_supervisor`).
    """
    prctl = _prctl()
    if prctl is None:
        return None

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))

    return preexec


PR_SET_PDEATHSIG = 1
SUPERVISOR_PID = "NEON_SUPERVISOR_PID"
"""Set by `neon up --processes` in each service's environment: the pid that, when it dies,
takes the service with it (:func:`die_with_supervisor`)."""


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def die_with_supervisor(environ: Mapping[str, str] = os.environ) -> bool:
    """In a service started by `neon up --processes`: SIGTERM this process when the
    supervisor dies (Linux), and exit at once if it already has. False when not supervised."""
    pid = environ.get(SUPERVISOR_PID, "")
    if not pid.isdigit():
        return False
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != int(pid):  # the supervisor died before the signal was asked for
        raise SystemExit(f"the supervisor (pid {pid}) is gone")
    return True


def health_status(address: str, timeout: float = 0.5) -> int | None:
    """The overall gRPC health status at ``address``; None when it does not answer."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError:
            return None
        return int(reply.status)


def http_serving(address: str, timeout: float = 0.5) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://{address}/healthz", timeout=timeout) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def serving(address: str) -> bool:
    from grpc_health.v1 import health_pb2

    return health_status(address) == health_pb2.HealthCheckResponse.SERVING


class SessionNats(EmbeddedNats):
    """The bundled nats-server in its own session (as every bundled one), like the services,
    and stopped by Linux when the supervisor dies."""

    def popen_options(self) -> dict[str, Any]:
        return {**super().popen_options(), "preexec_fn": _parent_death_signal()}

    def start(self, timeout: float = 10.0) -> SessionNats:
        try:
            super().start(timeout)
        except RuntimeError as err:
            raise StartError(str(err)) from None
        return self


class StartError(RuntimeError):
    pass


class NotServable(StartError):
    """``neon serve`` of this build does not offer the service (yet)."""


@dataclass
class Child:
    service: str
    address: str
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    restarts: list[float] = field(default_factory=list)
    metrics_port: int = 0
    """Its own ``/metrics`` port (0: none): each child is a process with its own registry."""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def spawn(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log: IO[bytes] = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "services.cli.main", "serve", self.service],
                env={**self.env, SUPERVISOR_PID: str(os.getpid()),
                     "NEON_METRICS_PORT": str(self.metrics_port)}, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        finally:
            log.close()

    def wait_serving(self, timeout: float, cancelled: Callable[[], bool] = lambda: False) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cancelled():
                raise StartError("interrupted")
            code = self.proc.poll()
            if code is not None:
                tail = self.log_tail()
                if code == 2 and "unknown service" in tail:
                    raise NotServable(f"{self.service}: `neon serve` does not offer it yet")
                raise StartError(f"{self.service} exited with {code} while starting:\n{tail}")
            if http_serving(self.address) if self.service in HTTP_SERVICES else serving(self.address):
                return
            time.sleep(0.1)
        raise StartError(f"{self.service} did not answer SERVING within {timeout:.0f}s; where it "
                         f"was (its log, its threads' stacks last):\n{self.stacks()}")

    def stacks(self, wait: float = 1.0) -> str:
        """The log's tail after asking the process for its threads' stacks (``neon serve``
        writes them to its log on SIGUSR1): where a service that does not start is stuck."""
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(wait)
        return self.log_tail(6000)

    def terminate(self) -> None:
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        if self.running():
            assert self.proc is not None
            self.proc.kill()

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


@dataclass
class Supervisor:
    settings: Settings
    environ: dict[str, str]
    out: Callable[[str], None] = print
    start_timeout: float = 120.0
    """Seconds a child has from its spawn to answer SERVING: a start is about a second of CPU,
    but on a loaded machine it took 24-41 s of wall time (tests/e2e/procs.py, START_TIMEOUT); a
    child that exits before is said at once."""
    services: list[str] | None = None
    children: dict[str, Child] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    nats: EmbeddedNats | None = None
    nats_url: str = ""
    _signals: int = 0

    # -- set-up ---------------------------------------------------------------------------

    def plan(self) -> dict[str, str]:
        """Pick the services and their loopback ports; the environment every child shares."""
        names = self.services if self.services is not None else [*available_services(), "gateway"]
        env = dict(self.environ)
        env.setdefault("NEON_HOST", HOST)
        env.setdefault("NEON_BIND_HOST", HOST)
        # the gateway runs beside the services and calls them over loopback: its spectators
        # are counted per client there, as the one-process backend does (cli/backend.py)
        env.setdefault("NEON_TRUSTED_GATEWAYS", ",".join(LOOPBACK_GATEWAYS))
        env["NEON_VAR_DIR"] = str(Path(self.settings.var_dir).resolve())
        metrics_base = env.pop("NEON_METRICS_PORT", "").strip()  # one port per child, not shared
        for index, name in enumerate(names):
            key = f"NEON_{env_key(name)}_PORT"
            if not env.get(key):
                port = self.settings.ports.get(name) or free_port()  # plug-in games: any port
                if name in HTTP_SERVICES:  # the browser's door: its usual port when free
                    usual = HTTP_SERVICES[name]
                    port = usual if not port_open(env["NEON_HOST"], usual) else free_port()
                env[key] = str(port)
            address = env.get(f"NEON_{env_key(name)}_ADDR") or f"{env['NEON_HOST']}:{env[key]}"
            if busy(env["NEON_BIND_HOST"], int(env[key])):
                raise StartError(busy_message(env["NEON_BIND_HOST"], {name: int(env[key])},
                                              port_offset(env)))
            self.children[name] = Child(name, address, env, Path(env["NEON_VAR_DIR"]) / "logs"
                                        / f"{name}.log",
                                        metrics_port=_metrics_port(metrics_base, index))
        return env

    def start_nats(self, env: dict[str, str]) -> None:
        host, port = _nats_host_port(self.settings.nats_url)
        if self.settings.nats_configured:
            self.nats_url = self.settings.nats_url
        else:
            port = free_port() if port_open(host, port) else port
            self.nats = SessionNats(Path(env["NEON_VAR_DIR"]) / "nats", port=port, host=host).start()
            self.nats_url = self.nats.url
        env["NATS_URL"] = self.nats_url

    def start(self) -> None:
        env = self.plan()
        self.start_nats(env)
        for tier in range(len(TIERS)):
            batch = [c for c in self.children.values() if tier_of(c.service) == tier]
            for child in batch:
                child.env = env
                child.spawn()
            for child in batch:
                try:
                    child.wait_serving(self.start_timeout, lambda: self._signals > 0)
                except NotServable as err:
                    self.skipped[child.service] = str(err)
                    self.out(f"note: {err}; left out")
            for name in [c.service for c in batch if c.service in self.skipped]:
                self.children.pop(name)

    def endpoints(self) -> dict[str, str]:
        out = {name: child.address for name, child in self.children.items()}
        out["nats"] = self.nats_url + ("  (bundled)" if self.nats else "")
        for name, child in self.children.items():
            if child.metrics_port:
                host = child.address.rpartition(":")[0] or HOST
                out[f"metrics: {name}"] = f"http://{host}:{child.metrics_port}/metrics"
        return out

    # -- running --------------------------------------------------------------------------

    def on_signal(self, signum: int, frame: Any) -> None:
        self._signals += 1
        if self._signals > 1:  # a second Ctrl-C: do not wait any longer
            for child in self.children.values():
                child.kill()

    def watch(self, poll: float = 0.2) -> int:
        """Until a signal: restart services that die. 1 when one keeps dying, else 0."""
        while not self._signals:
            for child in self.children.values():
                if child.running() or self._signals:
                    continue
                code = child.proc.returncode if child.proc else None
                now = time.monotonic()
                child.restarts = [t for t in child.restarts if now - t < 60] + [now]
                if len(child.restarts) > MAX_RESTARTS:
                    self.out(f"{child.service} keeps exiting (last code {code}); stopping all."
                             f" Its log: {child.log_path}")
                    return 1
                self.out(f"{child.service} exited with code {code}; restarting it")
                time.sleep(0.5 * len(child.restarts))
                child.spawn()
                try:
                    child.wait_serving(self.start_timeout, lambda: self._signals > 0)
                except StartError as err:
                    self.out(str(err))
            time.sleep(poll)
        return 0

    def stop(self) -> dict[str, int | None]:
        """SIGTERM each tier in reverse order, waiting for its exit; kill after the grace."""
        codes: dict[str, int | None] = {}
        limit = self.settings.grace_seconds + STOP_MARGIN
        for tier in reversed(range(len(TIERS))):
            batch = [c for c in self.children.values() if tier_of(c.service) == tier]
            for child in batch:
                child.terminate()
            deadline = time.monotonic() + limit
            for child in batch:
                if child.proc is None:
                    continue
                try:
                    codes[child.service] = child.proc.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.out(f"{child.service} did not stop within {limit:.0f}s; killing it")
                    child.kill()
                    child.proc.wait(10)
                    codes[child.service] = None
        if self.nats is not None:
            self.nats.stop()
            self.nats = None
        return codes


def _metrics_port(base: str, index: int) -> int:
    """A child's metrics port: NEON_METRICS_PORT plus its place (0: none), else a free one."""
    if not base:
        return free_port()
    return int(base) + index if int(base) else 0


def _nats_host_port(url: str) -> tuple[str, int]:
    rest = url.split("://", 1)[-1].split(",")[0].rsplit("@", 1)[-1]
    host, _, port = rest.partition(":")
    return host or HOST, int(port or 4222)


def run_processes(settings: Settings, print_table: Callable[[dict[str, str]], None] | None = None,
                  out: Callable[[str], None] = print, environ: Mapping[str, str] | None = None,
                  log_path: Path | None = None) -> int:
    """The body of ``neon up --processes``; the exit code. The children get ``environ``
    (default the process's); ``log_path`` is where the supervisor's own log lines go."""
    from services.platform.keys import load_keys
    from services.platform.tokens import TokenIssuer

    settings = dataclasses.replace(settings, var_dir=Path(settings.var_dir).resolve())
    keys = load_keys(settings)  # in dev: makes var/keys.json once, before any child reads it
    sup = Supervisor(settings, dict(os.environ if environ is None else environ), out=out)
    previous = {sig: signal.signal(sig, sup.on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        try:
            sup.start()
        except StartError as err:
            out(f"could not start: {err}")
            return 1
        token_file = settings.state_dir / "organiser.token"  # var/<namespace>/ with one
        write_private(token_file, TokenIssuer(keys.token_secret).issue(
            "organiser", "*", player="organiser", ttl=30 * 24 * 3600) + "\n")
        if print_table:
            print_table(sup.endpoints())
        else:
            for name, address in sup.endpoints().items():
                out(f"{name:<28} {address}")
        logs = f"logs in {settings.var_dir / 'logs'}" + (
            f" ({log_path.name}, and one per service)" if log_path else "")
        out(f"one process per service; {logs}; organiser token: {token_file}  (Ctrl-C stops)")
        code = sup.watch()
    finally:
        out("stopping...")
        codes = sup.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        unclean = {name: c for name, c in codes.items() if c != 0}
        if unclean:
            out("stopped; not clean: " + ", ".join(f"{n} ({c})" for n, c in unclean.items()))
            code = code or 1
        else:
            out("stopped")
    return code
