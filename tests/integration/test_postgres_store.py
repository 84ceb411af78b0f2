"""The same services on PostgreSQL: a match survives a full restart of the backend."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.support import toy

pytestmark = pytest.mark.postgres


async def test_match_on_postgres_resumes_after_restart(tmp_path: Path, nats_url: str, postgres_url: str,
                                                      postgres_schema: str) -> None:
    settings = dataclasses.replace(
        make_settings(tmp_path, nats_url, persistence="postgres"),
        database_url=postgres_url, postgres_schema=postgres_schema,
    )
    backend = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    client = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await client.create(organiser, match_id="pg-1", mode="race", seats=2, dev_seed="5")
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await client.submit(tokens[0], "pg-1", "a", {"type": "pick", "step": 3})
    await client.close()
    await backend.stop(1)

    backend = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    client = RulesClient(backend.address("rules-toy"))
    view = await client.view("pg-1", tokens[0])
    assert view.version == 3 and '"my_pick":3' in view.view_json
    step = 0
    while (view := await client.view("pg-1")).pending:
        seat = view.pending[0].seat
        await client.submit(tokens[seat], "pg-1", f"b{step}", {"type": "pick", "step": 2})
        step += 1
    export = (await client.export(backend.organiser_token(), "pg-1")).export_jsonl
    assert verify_export(export, engine=toy.ENGINE).ok
    await client.close()
    await backend.stop(1)


async def test_a_postgres_store_closes_when_idle(tmp_path: Path, nats_url: str, postgres_url: str,
                                                 postgres_schema: str) -> None:
    """PostgreSQL's pool is a psycopg_pool, which has no count of connections in use: the
    store still closes (it once raised AttributeError on stop and was left open)."""
    from eventsourcing.application import Application

    from services.platform.store import close_when_idle, eventsourcing_env, open_application

    settings = dataclasses.replace(
        make_settings(tmp_path, nats_url, persistence="postgres"),
        database_url=postgres_url, postgres_schema=postgres_schema,
    )
    app = open_application(settings, lambda: Application(env=eventsourcing_env(settings, "closing")))
    pool = app.recorder.datastore.pool  # type: ignore[attr-defined]
    assert not pool.closed
    await close_when_idle(app)
    assert pool.closed
