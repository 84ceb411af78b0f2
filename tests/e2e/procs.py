"""Run services as separate OS processes (``neon serve``) for end-to-end tests."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.cli.processes import health_status

ROOT = Path(__file__).resolve().parents[2]


def health(address: str, timeout: float = 0.5) -> int | None:
    return health_status(address, timeout)


class NotOffered(RuntimeError):
    """``neon serve`` of this build does not offer the service (yet)."""


START_TIMEOUT = 120.0
"""Seconds from its spawn for a service to answer SERVING. A start is about one second of
CPU (the interpreter, the imports, the store's tables, the gRPC server): 1.1-1.6 s of wall
time on an idle machine, and the wall time is that second over the share of a core the
process gets, so load stretches it. Beside 10 busy loops on its core (a load of about 20 on
two cores, as when several suites run at once) dice took 34-41 s, matchmaking 24 s, for
1.1-1.2 s of CPU each; a 20 s bound failed a full run at load 10-24 ("matchmaking did not
become healthy"). 120 s holds at about three times that; a service that is stuck, not slow,
is told apart by :meth:`ServiceProcess.where` in the failure's message."""


class ServiceProcess:
    def __init__(self, service: str, env: dict[str, str], address: str, log_dir: Path) -> None:
        self.service, self.env, self.address = service, env, address
        self.log_path = log_dir / f"{service}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.spawned = 0.0

    def start(self, timeout: float = START_TIMEOUT) -> ServiceProcess:
        """Spawn the service and wait until it answers SERVING (see :data:`START_TIMEOUT`)."""
        self.spawn()
        return self.wait_healthy(timeout)

    def spawn(self) -> ServiceProcess:
        log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "serve", self.service],
            env=self.env, cwd=ROOT, stdout=log, stderr=log,
        )
        self.spawned = time.monotonic()
        return self

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> ServiceProcess:
        """Until the process spawned last answers SERVING, ``timeout`` seconds from its spawn."""
        assert self.proc is not None
        deadline = self.spawned + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_path.read_text()[-2000:]
                if self.proc.returncode == 2 and "unknown service" in tail:
                    raise NotOffered(f"`neon serve {self.service}` is not offered by this build")
                raise RuntimeError(f"{self.service} exited: {tail}")
            if health(self.address) == health_pb2.HealthCheckResponse.SERVING:
                return self
            time.sleep(0.1)
        where = self.where()
        self.stop()
        raise RuntimeError(f"{self.service} did not become healthy within {timeout:g} s; {where}")

    def where(self) -> str:
        """What a start that ran out of time was doing: the CPU time it had (a start takes
        about a second of it: much less, it was starved of CPU; that much and asleep, state
        S, it waits on something), the machine's load, and its log with its threads' stacks
        (``neon serve`` writes them on SIGUSR1 once it has set that up; before, the signal
        would kill it, so it is not sent then)."""
        assert self.proc is not None
        pid = self.proc.pid
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
            facts = f"{cpu:.1f} s of CPU, state {stat[0]}"
            status = Path(f"/proc/{pid}/status").read_text()
            caught = int(next(line.split()[1] for line in status.splitlines()
                              if line.startswith("SigCgt:")), 16)
        except (OSError, ValueError, IndexError, StopIteration):
            facts, caught = "CPU time unknown", 0
        stacks = bool(caught >> (signal.SIGUSR1 - 1) & 1) and self.proc.poll() is None
        if stacks:
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(1.0)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        tail = self.log_tail(6000) or "(empty: at NEON_LOG_LEVEL=warning a start logs nothing)"
        with_stacks = " with its threads' stacks" if stacks else ""
        return f"it had {facts}; load average {load}; its log{with_stacks}:\n{tail}"

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of this service's log (its stdout and stderr), for a failure's message."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError as err:
            return f"(no log: {err})"

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def service_env(base: dict[str, str], **extra: str) -> dict[str, str]:
    """This process's environment without its NEON_* settings, then ``base`` and ``extra``;
    the run's NEON_NAMESPACE stays (each pytest-xdist worker's own, tests/conftest.py), so
    services on the shared NATS keep to their worker's stream and durables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    if os.environ.get("NEON_NAMESPACE"):
        env["NEON_NAMESPACE"] = os.environ["NEON_NAMESPACE"]
    env.update(base)
    env.update(extra)
    env["PYTHONPATH"] = str(ROOT)
    return env


def health_watch(address: str, timeout: float) -> Iterator[int]:
    """Statuses from the gRPC health Watch stream of ``address`` (the overall service "")."""
    with grpc.insecure_channel(address) as channel:
        stream = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        try:
            for reply in stream:
                yield reply.status
        except grpc.RpcError:
            return


def services_in_build(engines: str) -> list[str]:
    """Services whose code is in this build, with the plug-in engines ``engines`` (NEON_ENGINES)."""
    from services.cli.processes import available_services

    old = os.environ.get("NEON_ENGINES")
    os.environ["NEON_ENGINES"] = engines
    try:
        return available_services()
    finally:
        if old is None:
            os.environ.pop("NEON_ENGINES", None)
        else:
            os.environ["NEON_ENGINES"] = old


TIERS = (("dice", "scoring"), ("rules",), ("matchmaking", "tournament"))


def tier(service: str) -> int:
    key = "rules" if service.startswith("rules-") else service
    return next(i for i, names in enumerate(TIERS) if key in names)


class Cluster:
    """Several ``neon serve`` processes, started in dependency order, stopped in reverse."""

    def __init__(self, services: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.procs = {
            name: ServiceProcess(name, env, address(env, name), log_dir)
            for name in sorted(services, key=tier)
        }

    def __getitem__(self, service: str) -> ServiceProcess:
        return self.procs[service]

    def start(self) -> Cluster:
        """Start them all; one that ``neon serve`` does not offer yet is left out (``missing``).

        The services of a tier are spawned together, then waited for (as ``neon up
        --processes`` does): their starts overlap, so a loaded machine stretches the
        cluster's start by its slowest service's, not by the sum of them all."""
        self.missing: list[str] = []
        try:
            for level in sorted({tier(name) for name in self.procs}):
                batch = [name for name in self.procs if tier(name) == level]
                for name in batch:
                    self.procs[name].spawn()
                for name in batch:
                    try:
                        self.procs[name].wait_healthy()
                    except NotOffered:
                        self.missing.append(name)
                        del self.procs[name]
        except BaseException:
            self.stop()
            raise
        return self

    def terminate_all(self, timeout: float) -> dict[str, tuple[int, float]]:
        """SIGTERM in reverse dependency order: {service: (exit code, seconds to exit)}."""
        out = {}
        for name in sorted(self.procs, key=tier, reverse=True):
            started = time.monotonic()
            code = self.procs[name].terminate(timeout)
            out[name] = (code, time.monotonic() - started)
        return out

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()


def address(env: dict[str, str], service: str) -> str:
    from services.platform.settings import env_key

    return env.get(f"NEON_{env_key(service)}_ADDR") or f"127.0.0.1:{env[f'NEON_{env_key(service)}_PORT']}"


def port_env(services: list[str]) -> dict[str, str]:
    """A free loopback port for each service (NEON_<SERVICE>_PORT), from :func:`listen_port`."""
    from services.platform.settings import env_key

    taken: set[int] = set()
    return {f"NEON_{env_key(name)}_PORT": str(listen_port(taken)) for name in services}


def listen_port(taken: set[int]) -> int:
    """A loopback port free now, below the kernel's ephemeral range, not in ``taken`` (and
    added to it). A port-0 pick comes from the ephemeral range, where any outgoing
    connection (to NATS, PostgreSQL, another service) may take it before the service binds
    it ("port busy": once seen in a full run); below that range only an explicit bind can."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    pick = random.SystemRandom()
    while True:
        port = pick.randrange(max(1024, low - 12000), low)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port


def wait_for(path: Path, text: str, proc: subprocess.Popen[bytes], timeout: float) -> str:
    """What ``proc`` (a command writing to ``path``) has written, once it holds ``text``;
    fails with that output when the command exits first or ``timeout`` seconds go by."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = path.read_text(errors="replace") if path.exists() else ""
        if text in out:
            return out
        assert proc.poll() is None, f"{' '.join(map(str, proc.args))} exited {proc.returncode}:\n{out}"
        time.sleep(0.1)
    raise AssertionError(f"no {text!r} after {timeout}s:\n{path.read_text(errors='replace')}")
