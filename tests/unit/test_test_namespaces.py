"""The suite's own namespaces (tests/support/namespaces.py): each run's name, and what a
sweep at the start of a run deletes of what earlier runs left on a shared NATS and database."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import pytest

from services.platform import bus
from services.platform.settings import NAMESPACE, Settings
from tests.support import namespaces as ns

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def run_id(hours_ago: float, random: int = 7) -> str:
    return ns.new_run_id((NOW - timedelta(hours=hours_ago)).timestamp(), random)


def test_a_run_id_tells_when_the_run_started_to_the_minute() -> None:
    rid = ns.new_run_id(NOW.timestamp() + 59, random=1234)
    assert ns.RUN_ID.fullmatch(rid) and len(rid) == 13
    assert ns.run_started(rid) == NOW
    assert ns.new_run_id(NOW.timestamp(), 1) != ns.new_run_id(NOW.timestamp(), 2)
    assert len({ns.new_run_id() for _ in range(50)}) > 45  # random beyond the minute
    wrong = rid[:-1] + ("0" if rid[-1] != "0" else "1")  # its check digits do not match
    assert ns.run_started(wrong) is None and ns.run_of(f"{wrong}-gw0") is None
    assert ns.run_of(f"thermodynamic-{rid}-gw0") == rid  # a given part of the same shape first


@pytest.mark.parametrize(("given", "worker", "expected"), [
    ("", "", "{rid}"),
    ("", "gw0", "{rid}-gw0"),
    ("blue", "gw13", "blue-{rid}-gw13"),
    (" blue ", "", "blue-{rid}"),
    ("a-very-long-deployment-name-indeed", "gw1", "a-very-long-de-{rid}-gw1"),
    ("abcdefghijklm-rst", "gw1", "abcdefghijklm-{rid}-gw1"),  # no hyphen left at the cut
    ("abcdefghijklmnopqrstuvwxyz", "", "abcdefghijklmnopqr-{rid}"),
])
def test_a_run_namespace_follows_the_given_one_and_fits_every_name_limit(
        given: str, worker: str, expected: str) -> None:
    rid = run_id(0)
    namespace = ns.run_namespace(rid, given, worker)
    assert namespace == expected.format(rid=rid)
    assert NAMESPACE.match(namespace) and len(namespace) <= 32
    assert ns.run_of(namespace) == rid
    schema = Settings(namespace=namespace).database_schema
    assert schema == ns.schema_of(namespace)
    assert len(f"{schema}_{'0' * 12}".encode()) <= 63  # PostgreSQL's limit, per-test schemas too


def test_this_run_has_a_namespace_of_its_own() -> None:
    namespace = os.environ["NEON_NAMESPACE"]
    assert ns.run_of(namespace) == os.environ["NEON_TEST_RUN_ID"]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    assert namespace.endswith(f"-{worker}" if worker else os.environ["NEON_TEST_RUN_ID"])


@pytest.mark.parametrize(("namespace", "run"), [
    ("gw0", "gw0"), ("gw12", "gw12"),  # before run ids: every run's workers shared these
    ("", None), ("blue", None), ("NEON", None), ("neon", None), ("alpha-5dc2936f", None),
    ("sr0123456789", None), ("gw0-blue", None), ("blue-gw0", None),
    ("prod-tabcdefghi", None),  # the shape of a run id, but of a minute in 2002
    # deployments whose name has a part of a run id's shape and of a past minute: never a run
    ("throughput", None), ("eu-throughput", None), ("thresholds-blue", None),
    ("prod-therapists", None),
])
def test_only_test_runs_namespaces_belong_to_a_run(namespace: str, run: str | None) -> None:
    assert ns.run_of(namespace) == run


def test_stream_bucket_and_schema_names_lead_to_their_run() -> None:
    rid = run_id(5)
    mine = ns.run_namespace(rid, "blue", "gw0")
    assert ns.stream_namespace(bus.stream_name(mine)) == mine
    assert ns.stream_namespace(f"KV_{bus.positions_bucket(mine)}") == mine
    for other in (bus.STREAM, f"KV_{bus.POSITIONS_BUCKET}", "KV_gw0_other", "gw0_OTHER", "ORDERS"):
        assert ns.stream_namespace(other) is None, other
    assert ns.schema_run(ns.schema_of(mine)) == rid
    assert ns.schema_run(f"{ns.schema_of(mine)}_0123456789ab") == rid  # a per-test schema
    assert ns.schema_run("neon_gw1") == "gw1"
    for other in ("public", "t_0123456789ab", "neon_blue", "neon", "alpha_thsfk0a9x2q7m"):
        assert ns.schema_run(other) is None, other


def test_a_deployment_named_like_a_run_is_never_swept() -> None:
    """A deployment's namespace whose part reads as a run id of a past minute (``throughput``:
    t, "hroug" = September 2026, "hput") is no test run's: idle for days, nothing of it goes."""
    deployments = ("throughput", "eu-throughput", "thresholds-blue", "prod-therapists")
    long_ago = NOW - timedelta(days=3)
    streams = {s: long_ago for n in deployments for s in names(n)}
    schemas = [ns.schema_of(n) for n in deployments]
    assert ns.choose(streams, schemas, NOW) == ns.Choice([], [])


def names(namespace: str) -> list[str]:
    return [bus.stream_name(namespace), f"KV_{bus.positions_bucket(namespace)}"]


def test_a_sweep_takes_runs_that_are_over_and_nothing_else() -> None:
    dead = ns.run_namespace(run_id(hours_ago=30), worker="gw0")
    dead_other_worker = ns.run_namespace(run_id(hours_ago=30), worker="gw1")
    busy = ns.run_namespace(run_id(hours_ago=30, random=8), worker="gw0")  # a long soak run
    busy_idle_worker = ns.run_namespace(run_id(hours_ago=30, random=8), worker="gw1")
    young = ns.run_namespace(run_id(hours_ago=1), "blue")  # idle, but started an hour ago
    future = ns.run_namespace(run_id(hours_ago=-5))  # a clock ahead: not ours to judge
    long_ago = NOW - timedelta(hours=20)
    streams = {s: long_ago for n in (dead, dead_other_worker, busy_idle_worker, young, future,
                                     "gw0", "alpha-5dc2936f", "blue") for s in names(n)}
    streams |= {bus.STREAM: long_ago, f"KV_{bus.POSITIONS_BUCKET}": long_ago,
                bus.stream_name(busy): NOW - timedelta(minutes=5),
                bus.stream_name("gw1"): NOW - timedelta(hours=1)}  # an older checkout's run
    schemas = [ns.schema_of(n) for n in (dead, busy, young, "gw0", "gw1", "gw2", "blue")]
    schemas += [f"{ns.schema_of(dead)}_0123456789ab", f"{ns.schema_of(young)}_0123456789ab",
                ns.schema_of(run_id(hours_ago=50, random=9)),  # its run's streams are gone
                "public", "t_0123456789ab"]

    choice = ns.choose(streams, schemas, NOW)

    assert choice.streams == sorted(names(dead) + names(dead_other_worker) + names("gw0"))
    assert choice.schemas == sorted([ns.schema_of(dead), f"{ns.schema_of(dead)}_0123456789ab",
                                     ns.schema_of(run_id(hours_ago=50, random=9)),
                                     "neon_gw0", "neon_gw2"])
    # idle for 40 hours: only what has no stream left and a run (if known) older than that
    assert ns.choose(streams, schemas, NOW, idle=timedelta(hours=40)) == ns.Choice(
        [], sorted([ns.schema_of(run_id(hours_ago=50, random=9)), "neon_gw2"]))


def test_a_clean_up_never_fails_the_run() -> None:
    from tests.conftest import _best_effort

    start = time.monotonic()
    assert not _best_effort("forget", ns.forget("thsfk0a9x2q7m-gw0", "nats://127.0.0.1:1", None))
    assert not _best_effort("forget", ns.forget("thsfk0a9x2q7m-gw0", None,
                                                "postgresql://nobody@127.0.0.1:1/none"))
    assert not _best_effort("sweep", ns.sweep("nats://127.0.0.1:1", None))
    assert _best_effort("sweep", ns.sweep(None, None))  # nothing to sweep: done at once
    assert time.monotonic() - start < 20
