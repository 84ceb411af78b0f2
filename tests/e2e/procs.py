"""Run services as separate OS processes (``neon serve``) for end-to-end tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]


def health(address: str, timeout: float = 0.5) -> int | None:
    with grpc.insecure_channel(address) as channel:
        try:
            return health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout
            ).status
        except grpc.RpcError:
            return None


class ServiceProcess:
    def __init__(self, service: str, env: dict[str, str], address: str, log_dir: Path) -> None:
        self.service, self.env, self.address = service, env, address
        self.log_path = log_dir / f"{service}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> ServiceProcess:
        log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "serve", self.service],
            env=self.env, cwd=ROOT, stdout=log, stderr=log,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.service} exited: {self.log_path.read_text()[-2000:]}")
            if health(self.address) == health_pb2.HealthCheckResponse.SERVING:
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.service} did not become healthy: {self.log_path.read_text()[-2000:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def service_env(base: dict[str, str], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(base)
    env.update(extra)
    env["PYTHONPATH"] = str(ROOT)
    return env
