"""Isolated deployments: NEON_NAMESPACE prefixes the stream, subjects, durables and tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.platform import bus
from services.platform.settings import load
from services.platform.store import eventsourcing_env


def test_without_a_namespace_the_names_are_todays() -> None:
    settings = load({})
    assert settings.namespace == ""
    assert bus.stream_name(settings) == "NEON_EVENTS"
    assert bus.subject_prefix(settings) == "neon.events"
    assert bus.events_subject(settings, "results", "neon", "m1") == "neon.events.results.neon.m1"
    assert bus.durable_name(settings, "scoring-abc") == "scoring-abc"
    assert bus.positions_bucket(settings) == "neon_outbox_positions"
    assert settings.sqlite_path("dice") == Path("var/dice.sqlite")
    assert settings.database_schema == ""


def test_a_namespace_prefixes_every_shared_name() -> None:
    blue = load({"NEON_NAMESPACE": "blue-1"})
    assert bus.stream_name(blue) == "blue-1_NEON_EVENTS"
    assert bus.subject_prefix(blue) == "blue-1.neon.events"
    assert bus.events_subject(blue, "rules", "neon", "m1") == "blue-1.neon.events.rules.neon.m1"
    assert bus.durable_name(blue, "scoring-abc") == "blue-1-scoring-abc"
    assert bus.positions_bucket(blue) == "blue-1_neon_outbox_positions"
    assert blue.sqlite_path("dice") == Path("var/blue-1/dice.sqlite")
    assert blue.database_schema == "neon_blue_1"


def test_two_namespaces_share_no_name() -> None:
    a, b, plain = (load({"NEON_NAMESPACE": n}) for n in ("a", "b", ""))
    for name in (bus.stream_name, bus.subject_prefix, bus.positions_bucket):
        assert len({name(a), name(b), name(plain)}) == 3
    # neither's subjects fall under another's stream
    for one in (a, b, plain):
        for other in (a, b, plain):
            subject = bus.events_subject(one, "results", "g", "m")
            captured = subject.startswith(bus.subject_prefix(other) + ".")
            assert captured == (one is other)
            assert (bus.stream_for_subject(subject) == bus.stream_name(other)) == (one is other)


def test_the_stores_follow_the_namespace(tmp_path: Path) -> None:
    sqlite = load({"NEON_NAMESPACE": "blue", "NEON_VAR_DIR": str(tmp_path)})
    assert eventsourcing_env(sqlite, "scoring")["SQLITE_DBNAME"] == str(tmp_path / "blue" / "scoring.sqlite")
    assert (tmp_path / "blue").is_dir()
    pg = load({"NEON_NAMESPACE": "blue", "DATABASE_URL": "postgresql://u@h:5432/test"})
    assert eventsourcing_env(pg, "scoring")["POSTGRES_SCHEMA"] == "neon_blue"
    explicit = load({"NEON_NAMESPACE": "blue", "DATABASE_URL": "postgresql://u@h/test",
                     "NEON_POSTGRES_SCHEMA": "mine"})
    assert eventsourcing_env(explicit, "scoring")["POSTGRES_SCHEMA"] == "mine"


@pytest.mark.parametrize("bad", ["Blue", "a.b", "a_b", "a>", "-a", "a-", "x" * 33, "a b"])
def test_a_namespace_that_cannot_name_a_stream_or_subject_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="NEON_NAMESPACE"):
        load({"NEON_NAMESPACE": bad})
