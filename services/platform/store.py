"""Event-store wiring: the same Application code on memory, SQLite or PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

from services.platform.settings import Settings
from services.platform.storehealth import fail_fast_env

T = TypeVar("T")
SCHEMA_LOCK = 0x4E454F4E  # "NEON": one advisory lock for every service's table set-up


def eventsourcing_env(settings: Settings, service: str) -> dict[str, str]:
    """The eventsourcing ``env`` for one service's Application."""
    if settings.persistence == "memory":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    if settings.persistence == "sqlite":
        settings.sqlite_path(service).parent.mkdir(parents=True, exist_ok=True)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(settings.sqlite_path(service)),
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    if settings.persistence == "postgres":
        url = urlparse(settings.database_url or "postgresql://postgres@127.0.0.1:5432/postgres")
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": (url.path or "/postgres").lstrip("/") or "postgres",
            "POSTGRES_HOST": url.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(url.port or 5432),
            "POSTGRES_USER": unquote(url.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(url.password or ""),
            "POSTGRES_POOL_SIZE": "5",
            "POSTGRES_CONNECT_TIMEOUT": "5",
        }
        if settings.database_schema:
            env["POSTGRES_SCHEMA"] = settings.database_schema
        return fail_fast_env(env)
    raise ValueError(f"unknown NEON_PERSISTENCE {settings.persistence!r}")


def app_name(service: str) -> str:
    """Application (and table) name for a service: rules-neon-reign -> rules_neon_reign."""
    return service.replace("-", "_")


def open_application(settings: Settings, factory: Callable[[], T]) -> T:
    """Build an eventsourcing Application, one service at a time on PostgreSQL.

    Each Application creates its tables, types and functions when built. Several services
    (or replicas) starting at once against one database race on those statements
    ("tuple concurrently updated"), so on PostgreSQL the build holds an advisory lock.
    """
    if settings.persistence != "postgres":
        return factory()
    import psycopg

    env = eventsourcing_env(settings, "lock")
    with psycopg.connect(
        dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], autocommit=True,
        connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]),
    ) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            # a namespace's schema is made on first use; a schema that is there already is
            # not made again, so a login given only its own schema (k8s/postgres.yaml) needs
            # no CREATE on the database (which CREATE SCHEMA IF NOT EXISTS checks first)
            if settings.database_schema and not conn.execute(
                    "SELECT 1 FROM pg_namespace WHERE nspname = %s",
                    (settings.database_schema,)).fetchone():
                from psycopg import sql

                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    sql.Identifier(settings.database_schema)))
            app = factory()
            try:
                _refuse_store_left_behind(conn, settings.database_schema, app)
            except BaseException:
                app.close()  # type: ignore[attr-defined]
                raise
            return app
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


class StoreLeftBehind(RuntimeError):
    """The service's store is empty in its schema while another login's table of the same
    name in ``public`` holds it: a deployment from before per-service logins, not moved."""


def _refuse_store_left_behind(conn: Any, schema: str, app: Any) -> None:
    """Refuse to start on an empty store in ``schema`` when ``public`` has this store's
    events table owned by another login: the tables of a deployment from before each service
    had its own login and schema (k8s/README.md, "Upgrading"), which the service would
    otherwise silently start without (no matches, tickets or tournaments, and their ids
    reused). Tables of the same login in ``public`` (one login, several schemas: a
    developer's or a test's database) are not this case."""
    if not schema or schema == "public":
        return
    from psycopg import sql

    table = str(getattr(app.recorder, "events_table_name", "")).rpartition(".")[2]
    if not table:
        return
    row = conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND "
                       "tablename = %s AND tableowner <> current_user", (table,)).fetchone()
    if row is None:
        return
    if conn.execute(sql.SQL("SELECT 1 FROM {}.{} LIMIT 1").format(
            sql.Identifier(schema), sql.Identifier(table))).fetchone():
        return  # this store is in use here: the old table is a leftover, not ours to judge
    raise StoreLeftBehind(
        f"this service's store in schema {schema} is empty, and public.{table} (of login "
        f"{row[0]}) holds a store of the same name: the tables of a deployment from before "
        "each service had its own login and schema. Move them into the service's schema "
        "first (k8s/README.md, \"Upgrading\"), or drop them if they are not wanted; the "
        "service does not start on an empty store meanwhile.")


async def close_when_idle(app: Any, poll: float = 0.01) -> None:
    """``app.close()`` once no thread holds a connection of its store.

    eventsourcing's pool ``close()`` also closes the connections that are in use, and closing
    an SQLite connection while another thread runs a statement on it crashes the process (a
    segfault seen in the suite: a scoring save still running in a worker thread when an
    embedded stack shut down). Services stop taking work first (server, consumers), so the
    wait ends when the last store call in flight returns; ``RunningService.stop`` bounds it
    with its grace period (past which the store is left open, never closed under a thread).
    """
    pool = getattr(getattr(getattr(app, "recorder", None), "datastore", None), "pool", None)
    # eventsourcing's own pools (SQLite) count the connections in use; PostgreSQL's is a
    # psycopg_pool, whose close() leaves a connection in use to be closed on its return.
    while getattr(pool, "num_in_use", 0):
        await asyncio.sleep(poll)
    app.close()
