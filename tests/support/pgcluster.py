"""A throwaway PostgreSQL cluster of the machine's binaries, on a free port, that tests may stop.

Never the machine's shared cluster: ``initdb`` into a fresh temporary folder, ``pg_ctl`` to
start and stop it. As root, the binaries run as the ``postgres`` user (initdb refuses root).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from services.platform.natsrv import free_port


def binaries() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl, if any."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").exists() and Path(folder, "pg_ctl").exists():
            return Path(folder)
    return None


class PgCluster:
    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="neon-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=timeout)

    def init(self) -> PgCluster:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                  "--auth=trust", "-E", "UTF8", "--no-sync")
        return self

    def start(self) -> PgCluster:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c max_connections=60")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
                  "-l", str(self.root / "log"), "-w", "-t", "30", "start")
        return self

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def destroy(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.root, ignore_errors=True)
