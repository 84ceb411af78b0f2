"""Event-store wiring: the same Application code on memory, SQLite or PostgreSQL."""

from __future__ import annotations

from urllib.parse import unquote, urlparse

from services.platform.settings import Settings


def eventsourcing_env(settings: Settings, service: str) -> dict[str, str]:
    """The eventsourcing ``env`` for one service's Application."""
    if settings.persistence == "memory":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    if settings.persistence == "sqlite":
        settings.var_dir.mkdir(parents=True, exist_ok=True)
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
        if settings.postgres_schema:
            env["POSTGRES_SCHEMA"] = settings.postgres_schema
        return env
    raise ValueError(f"unknown NEON_PERSISTENCE {settings.persistence!r}")


def app_name(service: str) -> str:
    """Application (and table) name for a service: rules-neon-reign -> rules_neon_reign."""
    return service.replace("-", "_")
