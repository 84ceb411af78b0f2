"""Make a deployment's stores with an EARLIER release, for the upgrade test.

    python scripts/make_store_fixture.py REF OUT [--keep] [--postgres URL]

Extracts the code of git ref REF (``git archive REF services protos pyproject.toml``), starts
THAT tree's ``neon up`` on a fresh var dir (SQLite, its bundled nats-server, dev keys: the
embedded defaults, no NATS_URL or DATABASE_URL), drives ``scripts/store_scenario.py`` against
it in a child process importing only the old tree, stops the backend as Ctrl-C does (SIGINT)
and packs the var dir (SQLite files, keys.json, organiser.token, the JetStream data; no logs)
with the scenario's ``manifest.json`` into OUT, an xz-compressed tarball.

tests/integration/test_store_upgrade.py loads such tarballs (tests/fixtures/stores/) with the
current code.

With ``--postgres URL`` the old release keeps its event stores in PostgreSQL instead:
``DATABASE_URL=URL`` and ``NEON_POSTGRES_SCHEMA`` a fresh schema of its own (created before,
dropped after); the rest is as above (bundled NATS, the var dir for keys, token and JetStream
data). After the stop, ``pg_dump --schema=<schema> --no-owner --no-privileges`` goes into the
tarball as ``postgres.sql`` and the manifest records the schema's name (``postgres_schema``),
so a test can restore it under a name of its own. Every service port is a free one (NEON_*_PORT), so a ``./dev up`` running on
the default ports is not disturbed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = Path(__file__).resolve().parent / "store_scenario.py"
SERVICES = ("dice", "matchmaking", "scoring", "tournament", "rules-neon-reign", "rules-neon",
            "rules-neon-knights-2086", "rules-barbaric", "gateway")
SKIPPED = {"logs", "embedded"}
"""Folders of the var dir left out of the tarball (logs are not state)."""


def old_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "services", "protos", "pyproject.toml"],
        check=True, capture_output=True).stdout
    tree = into / "tree"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def backend_env(tree: Path, var: Path, postgres: str = "", schema: str = "") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NATS_URL", "DATABASE_URL", "NEON_PERSISTENCE", "POSTGRES_PASSWORD",
                        "NEON_NAMESPACE", "NEON_POSTGRES_SCHEMA", "PYTHONPATH")
           and not k.endswith(("_PORT", "_ADDR"))}
    env.update({"PYTHONPATH": str(tree), "NEON_VAR_DIR": str(var), "NEON_LOG_LEVEL": "info",
                "NEON_MATCHMAKING_INTERVAL": "0.1", "NEON_GRACE_SECONDS": "5",
                "PYTHONDONTWRITEBYTECODE": "1"})
    if postgres:
        env.update({"DATABASE_URL": postgres, "NEON_PERSISTENCE": "postgres",
                    "NEON_POSTGRES_SCHEMA": schema})
    for service in SERVICES:
        env[f"NEON_{service.upper().replace('-', '_')}_PORT"] = str(free_port())
    return env


def wait_up(proc: subprocess.Popen[bytes], var: Path, env: dict[str, str], log: Path,
            timeout: float = 120.0) -> None:
    ports = [int(env[f"NEON_{s.upper().replace('-', '_')}_PORT"]) for s in SERVICES
             if s != "gateway"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the old backend exited with {proc.returncode}:\n"
                             + log.read_text()[-3000:])
        if (var / "organiser.token").exists() and all(_open(p) for p in ports):
            return
        time.sleep(0.2)
    raise SystemExit("the old backend did not come up in time:\n" + log.read_text()[-3000:])


def _open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def pg(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def dump_schema(url: str, schema: str) -> bytes:
    """The schema as plain SQL (tables, their rows, the functions eventsourcing made)."""
    dump = subprocess.run(
        ["pg_dump", "--schema", schema, "--no-owner", "--no-privileges", "--dbname", url],
        check=True, capture_output=True).stdout
    assert f"CREATE SCHEMA {schema};".encode() in dump, dump[:2000]
    return dump


def pack(var: Path, manifest: Path, out: Path, ref: str, commit: str,
         postgres: tuple[str, bytes] | None = None) -> None:
    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        if len(parts) > 1 and parts[1] in SKIPPED:
            return None
        if info.name.endswith((".log", ".lock", ".pid")):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    data = json.loads(manifest.read_text())
    data["ref"] = ref
    data["commit"] = commit
    if postgres:
        data["postgres_schema"] = postgres[0]
        if found := sorted(str(p.relative_to(var)) for p in var.rglob("*.sqlite*")):
            raise SystemExit(f"SQLite files in the var dir of a PostgreSQL run: {found}")
    body = (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:xz", preset=9) as tar:
        info = tarfile.TarInfo("manifest.json")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
        tar.add(var, arcname="var", filter=keep)
        if postgres:
            info = tarfile.TarInfo("postgres.sql")
            info.size = len(postgres[1])
            tar.addfile(info, io.BytesIO(postgres[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="a git ref of this repository (the earlier release)")
    parser.add_argument("out", type=Path, help="the tarball to write (.tar.xz)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--postgres", metavar="URL", default="",
                        help="keep the stores in this PostgreSQL database (a fresh schema, "
                             "dumped into the tarball as postgres.sql) instead of SQLite")
    args = parser.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.ref],
                            check=True, capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix=f"store-{commit}-"))
    tree = old_tree(args.ref, tmp)
    var = tmp / "var"
    schema = f"neonfx_{commit}_{uuid.uuid4().hex[:8]}" if args.postgres else ""
    env = backend_env(tree, var, args.postgres, schema)
    if schema:
        pg(args.postgres, f'CREATE SCHEMA "{schema}"')
        print(f"PostgreSQL schema {schema}", flush=True)
    try:
        run(args, tree, var, env, tmp, commit, schema)
    finally:
        if schema:
            pg(args.postgres, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    size = args.out.stat().st_size
    print(f"wrote {args.out}: {size:,} bytes ({size / 1024:.0f} KiB), from {args.ref} ({commit})")
    if not args.keep:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept {tmp}")
    return 0


def run(args: argparse.Namespace, tree: Path, var: Path, env: dict[str, str], tmp: Path,
        commit: str, schema: str) -> None:
    log = tmp / "up.log"
    print(f"old tree {args.ref} ({commit}) in {tree}; var dir {var}", flush=True)
    t0 = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from services.cli.main import app; app()", "up"],
            cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_up(proc, var, env, log)
        print(f"backend up after {time.monotonic() - t0:.1f} s; running the scenario", flush=True)
        manifest = tmp / "manifest.json"
        scenario = subprocess.run([sys.executable, str(SCENARIO), str(manifest)], cwd=tmp,
                                  env=env, capture_output=True, text=True)
        if scenario.returncode != 0:
            print(scenario.stdout[-3000:], scenario.stderr[-6000:], sep="\n", file=sys.stderr)
            raise SystemExit(f"the scenario failed (exit {scenario.returncode})")
        print(f"scenario done after {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # Ctrl-C
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise SystemExit("the old backend did not stop on SIGINT in 60 s") from None
    if proc.returncode != 0:
        raise SystemExit(f"the old backend exited with {proc.returncode} on SIGINT:\n"
                         + log.read_text()[-3000:])
    dump = (schema, dump_schema(args.postgres, schema)) if schema else None
    pack(var, manifest, args.out, args.ref, commit, dump)


if __name__ == "__main__":
    sys.exit(main())
