"""On the real NATS and PostgreSQL: a test run's clean-up deletes its namespace's stream (with
its durable consumers), outbox KV bucket and schemas, and nothing of another run's; the sweep
at a run's start deletes what a run that is over left, and leaves a young or busy run alone
(tests/support/namespaces.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from nats.js.api import ConsumerConfig
from nats.js.errors import NotFoundError

from services.platform import bus
from tests.support import namespaces as ns

pytestmark = pytest.mark.postgres


class Made:
    """What a deployment in ``namespace`` makes: the stream, a scoring-style durable (the
    services' 14-day inactive_threshold), the outbox bucket with a key, the schema with a
    table, and a per-test schema of the fixture's form."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.durable = bus.durable_name(namespace, "scoring-toy")
        self.schemas = [ns.schema_of(namespace), f"{ns.schema_of(namespace)}_0123456789ab"]

    async def make(self, js: Any, postgres_url: str) -> None:
        import psycopg

        await bus.ensure_stream(js, replicas=1, namespace=self.namespace)
        await js.add_consumer(bus.stream_name(self.namespace), ConsumerConfig(
            durable_name=self.durable, inactive_threshold=14 * 24 * 3600.0,
            filter_subject=f"{bus.subject_prefix(self.namespace)}.results.>"))
        kv = await bus.positions(js, self.namespace)
        await kv.put("relay", b"42")
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            for schema in self.schemas:
                conn.execute(f'CREATE SCHEMA "{schema}"')
                conn.execute(f'CREATE TABLE "{schema}".stored_events (id int)')

    async def left(self, js: Any, postgres_url: str) -> set[str]:
        """Which of the things it made are still there."""
        import psycopg

        there = set()
        try:
            await js.stream_info(bus.stream_name(self.namespace))
            there.add("stream")
            await js.consumer_info(bus.stream_name(self.namespace), self.durable)
            there.add("durable")
        except NotFoundError:
            pass
        try:
            kv = await js.key_value(bus.positions_bucket(self.namespace))
            if (await kv.get("relay")).value == b"42":
                there.add("kv")
        except NotFoundError:
            pass
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            for schema in self.schemas:
                if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s",
                                (schema,)).fetchone():
                    there.add(schema)
        return there

    def everything(self) -> set[str]:
        return {"stream", "durable", "kv", *self.schemas}


@pytest.fixture
async def made(nats_url: str, postgres_url: str, nats_client: Any) -> AsyncIterator[list[Made]]:
    out: list[Made] = []
    yield out
    for m in out:
        await ns.forget(m.namespace, nats_url, postgres_url)


async def test_a_runs_clean_up_takes_its_namespace_and_leaves_another_runs(
        nats_url: str, postgres_url: str, nats_client: Any, made: list[Made]) -> None:
    js = nats_client.jetstream()
    mine = Made(ns.run_namespace(ns.new_run_id(), worker="gw0"))
    derived = Made(f"{mine.namespace}-x")  # a namespace a test made from the run's
    other = Made(ns.run_namespace(ns.new_run_id(), worker="gw0"))  # a concurrent run's
    made += [mine, derived, other]
    for m in made:
        await m.make(js, postgres_url)
        assert await m.left(js, postgres_url) == m.everything()

    done = await ns.forget(mine.namespace, nats_url, postgres_url)

    assert await mine.left(js, postgres_url) == set()
    assert await derived.left(js, postgres_url) == set()
    assert await other.left(js, postgres_url) == other.everything()
    assert done == ns.Choice(
        sorted([bus.stream_name(m.namespace) for m in (mine, derived)]
               + [f"KV_{bus.positions_bucket(m.namespace)}" for m in (mine, derived)]),
        sorted(mine.schemas + derived.schemas))


async def test_the_sweep_takes_a_run_that_is_over_and_leaves_a_young_or_busy_one(
        nats_url: str, postgres_url: str, nats_client: Any, made: list[Made]) -> None:
    js = nats_client.jetstream()
    five_hours_ago = time.time() - 5 * 3600
    over = Made(ns.run_namespace(ns.new_run_id(five_hours_ago), worker="gw1"))
    busy = Made(ns.run_namespace(ns.new_run_id(five_hours_ago), worker="gw0"))
    young = Made(ns.run_namespace(ns.new_run_id(), worker="gw0"))
    made += [over, busy, young]
    for m in made:
        await m.make(js, postgres_url)
    await asyncio.sleep(2.5)  # all idle for 2.5 s ...
    await js.publish(f"{bus.subject_prefix(busy.namespace)}.results.toy.m1", b"{}")  # but one
    runs = {ns.run_of(m.namespace) for m in made}

    # 2 s idle stands for the real hours (a run id tells its start to the minute: an hour for
    # a young run); only these runs, not the others on this NATS
    gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                          young=timedelta(hours=1), only=runs)

    assert await over.left(js, postgres_url) == set()
    assert await busy.left(js, postgres_url) == busy.everything()
    assert await young.left(js, postgres_url) == young.everything()
    assert gone == ns.Choice(
        sorted([bus.stream_name(over.namespace), f"KV_{bus.positions_bucket(over.namespace)}"]),
        sorted(over.schemas))
    # with the real idle time, nothing of these runs goes
    assert await ns.sweep(nats_url, postgres_url, only=runs) == ns.Choice([], [])
    assert await busy.left(js, postgres_url) == busy.everything()


async def test_the_sweep_leaves_a_deployment_whose_name_looks_like_a_run(
        nats_url: str, postgres_url: str, nats_client: Any, made: list[Made]) -> None:
    """A deployment on the shared NATS and PostgreSQL named ``throughput-...`` (its first part
    has a run id's shape, of a minute in September 2026), idle: a sweep leaves all of it."""
    import secrets

    js = nats_client.jetstream()
    deployment = Made(f"throughput-{secrets.token_hex(4)}")
    made.append(deployment)
    await deployment.make(js, postgres_url)
    await asyncio.sleep(2.5)

    # only the run its name would be read as (not other runs' on this NATS)
    gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                          young=timedelta(hours=1), only={"throughput"})

    assert await deployment.left(js, postgres_url) == deployment.everything()
    assert gone == ns.Choice([], [])


async def test_the_sweep_leaves_a_live_run_however_old_it_looks(
        nats_url: str, postgres_url: str, nats_client: Any, made: list[Made]) -> None:
    """A run that is still going (it holds its liveness lock on the shared PostgreSQL) is not
    swept though its id and its streams look over: a run longer than the idle time, or a
    sweeping machine whose clock is hours ahead. Once it has ended, it goes."""
    js = nats_client.jetstream()
    rid = ns.new_run_id(time.time() - 5 * 3600)
    live = Made(ns.run_namespace(rid, worker="gw0"))
    made.append(live)
    await live.make(js, postgres_url)
    await asyncio.sleep(2.5)

    with ns.alive(rid, postgres_url):
        gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                              young=timedelta(hours=1), only={rid})
        assert gone == ns.Choice([], [])
        assert await live.left(js, postgres_url) == live.everything()

    gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                          young=timedelta(hours=1), only={rid})
    assert await live.left(js, postgres_url) == set()
    assert gone.schemas == sorted(live.schemas)


async def test_a_schema_still_locked_is_left_and_the_rest_still_go(
        nats_url: str, postgres_url: str, nats_client: Any, made: list[Made],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A process of the run that is over still holds a lock in one of its schemas (a
    connection left open): the sweep skips that schema after the lock timeout, drops every
    other thing, and takes the held one at a later sweep, once the lock is gone."""
    import psycopg

    monkeypatch.setattr(ns, "LOCK_TIMEOUT", "300ms")
    js = nats_client.jetstream()
    over = Made(ns.run_namespace(ns.new_run_id(time.time() - 5 * 3600), worker="gw0"))
    made.append(over)
    await over.make(js, postgres_url)
    held, free = over.schemas
    await asyncio.sleep(2.5)

    with psycopg.connect(postgres_url) as holder:  # a transaction open on the held schema
        holder.execute(f'LOCK TABLE "{held}".stored_events IN ACCESS SHARE MODE')
        gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                              young=timedelta(hours=1), only={ns.run_of(over.namespace)})
        assert gone.schemas == [free]
        assert await over.left(js, postgres_url) == {held}
        holder.rollback()

    gone = await ns.sweep(nats_url, postgres_url, idle=timedelta(seconds=2),
                          young=timedelta(hours=1), only={ns.run_of(over.namespace)})
    assert gone == ns.Choice([], [held])
    assert await over.left(js, postgres_url) == set()


def test_this_run_is_marked_live_on_the_shared_database() -> None:
    """The suite's run holds its liveness lock from its start (tests/conftest.py)."""
    import os

    import psycopg

    url = os.environ.get("DATABASE_URL")
    if not url:
        pytest.skip("no shared database (DATABASE_URL): nothing to mark the run live on")
    with psycopg.connect(url, autocommit=True) as conn:
        assert ns._live(conn, os.environ["NEON_TEST_RUN_ID"])
        assert not ns._live(conn, ns.new_run_id())  # another run's, not going
