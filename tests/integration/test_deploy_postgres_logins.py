"""deploy/postgres-logins.sh (k8s ConfigMap postgres-init, compose's postgres) on a real
PostgreSQL, in a throwaway database whose logins are dropped afterwards: each service's
login builds its store in its own schema, and cannot read, write, drop or create anything in
another service's schema, in public, or a schema of its own making."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest

from services.platform.settings import Settings
from services.platform.store import eventsourcing_env, open_application
from tests.unit.test_deploy_k8s import LOGINS_SCRIPT, STORES, login

psycopg = pytest.importorskip("psycopg")
pytestmark = pytest.mark.postgres

LOCK = 0x4E4C4F47  # "NLOG": the logins are the server's, not the database's: one run at a time


def url_as(admin: str, user: str, password: str, database: str) -> str:
    parts = urlparse(admin)
    netloc = f"{user}:{password}@{parts.hostname}:{parts.port or 5432}"
    return urlunparse(parts._replace(netloc=netloc, path=f"/{database}"))


@pytest.fixture
def logins(postgres_url: str) -> Iterator[tuple[str, dict[str, str]]]:
    """A new database with the script run in it (twice: it is idempotent); its name and each
    service's password."""
    admin = urlparse(postgres_url)
    database = f"neon_logins_{uuid.uuid4().hex[:10]}"
    passwords = {name: uuid.uuid4().hex for name in STORES}
    env = {**os.environ, "PGHOST": admin.hostname or "127.0.0.1", "PGPORT": str(admin.port or 5432),
           "PGPASSWORD": admin.password or "", "POSTGRES_USER": admin.username or "postgres",
           "POSTGRES_DB": database}
    env.update({f"NEON_DB_PASSWORD_{name.replace('-', '_').upper()}": pw
                for name, pw in passwords.items()})
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (LOCK,))
        try:
            conn.execute(f'CREATE DATABASE "{database}"')
            try:
                for _ in range(2):
                    done = subprocess.run(["sh", str(LOGINS_SCRIPT)], env=env, text=True,
                                          capture_output=True, timeout=60)
                    assert done.returncode == 0, done.stderr
                yield database, passwords
            finally:
                conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
                for name in STORES:
                    conn.execute(f'DROP ROLE IF EXISTS "{login(name)}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK,))


def service_settings(postgres_url: str, database: str, name: str, password: str,
                     tmp_path: Path) -> Settings:
    """What the service's pod reads: its own login in DATABASE_URL, its schema."""
    return dataclasses.replace(Settings(), var_dir=tmp_path, persistence="postgres",
                               database_url=url_as(postgres_url, login(name), password, database),
                               postgres_schema=login(name))


def test_each_service_login_builds_its_store_in_its_schema_and_touches_no_other(
        postgres_url: str, logins: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    from services.dice.app import DiceApplication
    from services.scoring.app import ScoringApplication

    database, passwords = logins
    dice_settings = service_settings(postgres_url, database, "dice", passwords["dice"], tmp_path)
    scoring_settings = service_settings(postgres_url, database, "scoring", passwords["scoring"],
                                        tmp_path)
    apps: list[Any] = []
    try:
        # the services' own start-up path (open_application: no CREATE on the database needed)
        apps.append(open_application(dice_settings, lambda: DiceApplication(
            env=eventsourcing_env(dice_settings, "dice"), dev_secret=b"k" * 32)))
        apps.append(open_application(scoring_settings, lambda: ScoringApplication(
            eventsourcing_env(scoring_settings, "scoring"), ["neon"])))
        admin = url_as(postgres_url, urlparse(postgres_url).username or "postgres",
                       urlparse(postgres_url).password or "", database)
        with psycopg.connect(admin) as conn:
            tables = conn.execute("SELECT schemaname, tablename, tableowner FROM pg_tables "
                                  "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
                                  ).fetchall()
        assert {(s, o) for s, _, o in tables} == {("neon_dice", "neon_dice"),
                                                  ("neon_scoring", "neon_scoring")}, tables
        scoring_table = next(t for s, t, _ in tables if s == "neon_scoring")
        refused = [
            f"SELECT * FROM neon_scoring.{scoring_table}",
            f"DELETE FROM neon_scoring.{scoring_table}",
            f"DROP TABLE neon_scoring.{scoring_table}",
            "CREATE TABLE neon_scoring.planted (x int)",
            "CREATE TABLE public.planted (x int)",
            "CREATE SCHEMA planted",
            "CREATE TABLE neon_tournament.planted (x int)",
            "SET ROLE neon_scoring",
        ]
        with psycopg.connect(dice_settings.database_url, autocommit=True) as dice:
            assert dice.execute("SELECT current_user").fetchone() == ("neon_dice",)
            dice.execute("CREATE TABLE neon_dice.its_own (x int)")  # its schema: it may
            for statement in refused:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    dice.execute(statement)
        # every service's login is there, none the administrator, none can make databases
        with psycopg.connect(admin) as conn:
            roles = conn.execute(
                "SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolcanlogin FROM pg_roles "
                "WHERE rolname = ANY(%s)", ([login(n) for n in STORES],)).fetchall()
            schemas = dict(conn.execute(
                "SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace "
                "WHERE nspname LIKE 'neon\\_%'").fetchall())
        assert sorted(roles) == sorted((login(n), False, False, False, True) for n in STORES)
        assert schemas == {login(n): login(n) for n in STORES}
    finally:
        for app in apps:
            app.close()


def pod_env(name: str, public_key: str, values: dict[str, str], **local: str) -> dict[str, str]:
    """The k8s pod's environment of ``name`` (tests/unit/test_deploy_k8s.py), for a process
    here: ``local`` in place of what names the cluster (addresses, ports)."""
    from tests.e2e.procs import service_env
    from tests.unit.test_deploy_k8s import pod_environment

    env = pod_environment(name, public_key, values)
    env.update(NEON_BIND_HOST="127.0.0.1", NEON_HOST="127.0.0.1", NEON_METRICS_PORT="",
               NEON_LOG_LEVEL="warning", **local)
    inherited = {"DATABASE_URL", "POSTGRES_PASSWORD", "NATS_URL"} - set(env)  # this run's
    return {k: v for k, v in service_env(env).items() if k not in inherited}


def test_neon_serve_starts_each_pod_with_its_secrets_only(
        postgres_url: str, logins: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """`neon serve` in tournament mode with the pods' environments: dice (its own login, no
    signing key) and the gateway (no store, no signing key: the public key) serve; a rules
    service without the signing key does not start, and says why."""
    import time
    import urllib.request

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.signing import private_key_hex, public_key_hex
    from tests.e2e.procs import ServiceProcess, listen_port
    from tests.unit.test_deploy_k8s import secret_values

    database, passwords = logins
    key = Ed25519PrivateKey.generate()
    values = secret_values(private_key_hex(key))
    values["postgres-users/dice"] = passwords["dice"]
    taken: set[int] = set()
    port = listen_port(taken)
    dice_env = pod_env("dice", public_key_hex(key), values, NEON_DICE_PORT=str(port),
                       NEON_VAR_DIR=str(tmp_path / "dice"), DATABASE_URL=url_as(
                           postgres_url, "neon_dice", passwords["dice"], database))
    assert "NEON_SIGNING_KEY" not in dice_env and dice_env["NEON_ENV"] == "tournament"
    dice = ServiceProcess("dice", dice_env, f"127.0.0.1:{port}", tmp_path).start()
    try:
        http = listen_port(taken)
        gateway_env = pod_env("gateway", public_key_hex(key), values,
                              NEON_GATEWAY_PORT=str(http), NEON_DICE_ADDR=f"127.0.0.1:{port}",
                              NEON_VAR_DIR=str(tmp_path / "gateway"))
        assert not {"NEON_SIGNING_KEY", "DATABASE_URL"} & set(gateway_env)
        gateway = ServiceProcess("gateway", gateway_env, "", tmp_path).spawn()
        try:
            deadline = time.monotonic() + 60
            while True:
                assert gateway.proc is not None and gateway.proc.poll() is None, gateway.log_tail()
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{http}/healthz", timeout=2):
                        break
                except OSError:
                    assert time.monotonic() < deadline, gateway.where()
                    time.sleep(0.2)
        finally:
            gateway.stop()
    finally:
        dice.stop()
    rules_env = pod_env("rules-neon", public_key_hex(key), values,
                        NEON_VAR_DIR=str(tmp_path / "rules"),
                        NEON_RULES_NEON_PORT=str(listen_port(taken)))  # not 50062: may be busy
    del rules_env["NEON_SIGNING_KEY"]
    rules = ServiceProcess("rules-neon", rules_env, "", tmp_path).spawn()
    assert rules.proc is not None
    assert rules.proc.wait(60) != 0
    assert "NEON_SIGNING_KEY" in rules.log_tail()


def test_a_store_left_in_public_by_the_shared_login_stops_the_service_from_starting_empty(
        postgres_url: str, logins: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """A deployment from before per-service logins kept dice's tables in ``public``, as the
    shared login: dice started as its own login in its own, empty schema would serve without
    its sessions (their ids reused). It refuses to start, naming the table and what to do;
    once the tables are moved into its schema (k8s/README.md, "Upgrading") it starts on them."""
    from services.dice.app import DiceApplication
    from services.platform.store import StoreLeftBehind

    database, passwords = logins
    admin = url_as(postgres_url, urlparse(postgres_url).username or "postgres",
                   urlparse(postgres_url).password or "", database)
    before = dataclasses.replace(Settings(), var_dir=tmp_path, persistence="postgres",
                                 database_url=admin, postgres_schema="")
    old = DiceApplication(env=eventsourcing_env(before, "dice"), dev_secret=b"k" * 32)
    try:  # the old deployment's store, in public, with a row in it
        table = old.recorder.events_table_name
    finally:
        old.close()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"INSERT INTO public.{table} (originator_id, originator_version, topic, "
                     "state) VALUES (%s, 1, 'x', 'y')", (uuid.uuid4(),))
    settings = service_settings(postgres_url, database, "dice", passwords["dice"], tmp_path)

    def start() -> Any:
        return open_application(settings, lambda: DiceApplication(
            env=eventsourcing_env(settings, "dice"), dev_secret=b"k" * 32))

    with pytest.raises(StoreLeftBehind) as refused:
        start()
    said = str(refused.value)
    assert f"public.{table}" in said and "neon_dice" in said and "Upgrading" in said, said
    with psycopg.connect(admin, autocommit=True) as conn:  # the README's move, for dice
        conn.execute(f"DROP TABLE neon_dice.{table}")
        conn.execute(f"ALTER TABLE public.{table} SET SCHEMA neon_dice")
        conn.execute(f"ALTER TABLE neon_dice.{table} OWNER TO neon_dice")
    app = start()
    try:
        with psycopg.connect(settings.database_url) as conn:
            assert conn.execute(f"SELECT count(*) FROM neon_dice.{table}").fetchone() == (1,)
    finally:
        app.close()
