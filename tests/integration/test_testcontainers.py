"""testcontainers: used when a Docker engine answers, skipped with the reason when none does."""

from __future__ import annotations

import pytest

from tests.conftest import docker_available


def test_docker_probe_answers_quickly_without_raising() -> None:
    ok, why = docker_available()
    assert ok or why.startswith("no Docker engine answers")


def test_nats_and_postgres_containers_serve_when_docker_answers() -> None:
    ok, why = docker_available()
    if not ok:
        pytest.skip(f"testcontainers: {why}")
    import psycopg
    from testcontainers.nats import NatsContainer
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer("postgres:16-alpine", driver=None) as pg, psycopg.connect(
        pg.get_connection_url()
    ) as conn:
        assert conn.execute("select 1").fetchone() == (1,)
    with NatsContainer("nats:2.10-alpine").with_command("-js") as nats:
        assert nats.nats_uri().startswith("nats://")
