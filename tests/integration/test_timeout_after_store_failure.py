"""A turn clock's timeout whose commit fails is tried again, and applies exactly once.

Found by the rules API audit: a deadline fires once (the scheduler forgets it as it fires).
When the store failed under the timeout's commit (a blip, a commit timed out), the match
was dropped from memory, as any commit of unknown outcome drops it, and nothing armed its
clock again: no later timer, no rebuild arms one (only a commit or a restart does). A seat
that had gone away (the reason its clock ran out) never answered, so the match waited for
ever. The same for a bot-played seat's move and a rebuild that failed when the timer fired.

Now an expiry that fails arms a retry (``MatchHost.expiry_retry_ms``): the match is loaded
again (from the store: whether the lost commit landed is its answer) and its clock armed
from what is stored, so a timeout that did land is not applied again and one that did not
applies once. Real gRPC, real NATS, the SQLite store and PostgreSQL; the store's failure is
the host's committer raising, as a stopped PostgreSQL makes it
(tests/integration/test_seal_after_lost_commit.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.export import parse_export
from services.rules.host import MatchHost
from services.rules.records import check_chain
from tests.integration.conftest import make_settings
from tests.support import toy

pytestmark = pytest.mark.timeout(120)

CLOCK = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=300)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def toy_backend(request: pytest.FixtureRequest, tmp_path: Path,
                      nats_url: str) -> AsyncIterator[Backend]:
    """Dice and the Hidden Race toy's rules service, on SQLite and on PostgreSQL."""
    settings = make_settings(tmp_path, nats_url, persistence=request.param)
    if request.param == "postgres":
        settings = dataclasses.replace(settings, database_url=request.getfixturevalue("postgres_url"),
                                       postgres_schema=request.getfixturevalue("postgres_schema"))
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


def _host(backend: Backend) -> MatchHost:
    host = backend.services["rules-toy"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


def _timeouts(export: bytes) -> list[tuple[int, int]]:
    records, _ = parse_export(export)
    return [(r["n"], r["seat"]) for r in records
            if r.get("type") == "ActionAccepted" and r.get("timeout") is True]


@pytest.mark.parametrize("landed", [False, True], ids=["lost", "landed-answer-lost"])
async def test_a_timeout_whose_commit_failed_applies_once(
        toy_backend: Backend, monkeypatch: pytest.MonkeyPatch, landed: bool) -> None:
    host = _host(toy_backend)
    host.expiry_retry_ms = 300
    real_commit = host.committer.commit
    failed: list[int] = []

    async def commit(events: list[Any]) -> None:
        timeout = [e for e in events if getattr(e, "record", {}).get("timeout") is True]
        if timeout and not failed:
            failed.append(timeout[0].record["n"])
            if landed:  # stored, but the answer was lost: the host cannot tell
                await real_commit(events)
            raise TimeoutError("the store went away")
        await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    created = await client.create(organiser, mode="race", seats=2, dev_seed="3", clock=CLOCK)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    start = (await client.view(match_id)).version

    # nobody answers: both seats time out, round after round, the first try of the first
    # timeout failing; the match goes on (it waited for ever)
    view = None
    for _ in range(100):
        await asyncio.sleep(0.1)
        view = await client.view(match_id, tokens[0])
        if view.version >= start + 4:
            break
    assert failed, "the first timeout's commit was failed"
    assert view is not None and view.version >= start + 4, "the clock stopped after the failure"
    await client.abandon(organiser, match_id, "audit: enough")
    export = (await client.export(organiser, match_id)).export_jsonl
    records, _ = parse_export(export)
    assert check_chain(match_id, records) is None  # one log, no gap, nothing twice
    timeouts = _timeouts(export)
    seats = [seat for _, seat in timeouts]
    # each round both seats time out once: never one seat twice in a round (a doubled
    # timeout), the versions consecutive from the start (no gap)
    assert [n for n, _ in timeouts] == list(range(start + 1, start + 1 + len(timeouts)))
    for i in range(0, len(seats) - 1, 2):
        assert sorted(seats[i:i + 2]) == [0, 1], seats
    await client.close()


async def test_an_expiry_that_fails_for_a_bug_is_not_tried_again_and_again(
        toy_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a failure that may pass (the store, the dice service, a concurrent change) is
    tried again: an engine's error would fail the same way every second for ever."""
    host = _host(toy_backend)
    host.expiry_retry_ms = 100
    calls: list[object] = []

    async def broken(match_id: str, token: object) -> None:
        calls.append(token)
        raise RuntimeError("an engine's bug")

    monkeypatch.setattr(host, "_apply_expiry", broken)
    client = RulesClient(toy_backend.address("rules-toy"))
    created = await client.create(toy_backend.organiser_token(), mode="race", seats=2,
                                  dev_seed="4", clock=CLOCK)
    await asyncio.sleep(1.5)
    assert len(calls) == 1, calls
    assert host.clockwork.armed(created.match_id) is None
    await client.close()
