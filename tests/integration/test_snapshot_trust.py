"""Engine snapshots run no code from the database (services/rules/matchlog.py), over real
gRPC, real NATS and the SQLite store.

A row of the rules service's event table is written by whoever can write the table (an
injection elsewhere, a restored backup of unknown origin, a process holding the shared
login). Snapshots were ``pickle.loads``-ed at a match's rebuild, so a row naming
``os.system`` ran it. Now a snapshot is used only when its HMAC tag checks under a key of
the deployment's signing key, and is then loaded with an unpickler that resolves only the
classes engine states are made of; else the match is replayed from its log (and the next
snapshot boundary writes a tagged one). Each test failed before the change (the crafted
rows ran, an untagged snapshot was used).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
import structlog

from bench import longgame
from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.rules import host as host_module
from services.rules.host import MatchHost
from services.rules.matchlog import (
    SNAPSHOT_EVERY,
    SNAPSHOT_TAGGED,
    EngineSnapshot,
    snapshot_event,
    snapshot_tag,
    snapshot_uuid,
)
from tests.integration.conftest import make_settings
from tests.support.snapshot_rows import upsert_snapshot_row

pytestmark = pytest.mark.timeout(120)

STEP = json.dumps({"type": "step"})



def _host(backend: Backend) -> MatchHost:
    host = backend.services["rules-longgame"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def _race(backend: Backend, steps: int, actions: int = 400) -> tuple[str, dict[int, str]]:
    client = RulesClient(backend.address("rules-longgame"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2,
                                  options={"actions": actions}, dev_seed="5")
    await client.close()
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await _steps(backend, match_id, tokens, steps)
    return match_id, tokens


async def _steps(backend: Backend, match_id: str, tokens: dict[int, str], steps: int) -> None:
    """``steps`` more steps (the host's own submit: a served call's code, less time)."""
    host = _host(backend)
    claims = {s: host.issuer.verify(t) for s, t in tokens.items()}
    live = await host.live_match(match_id)
    for _ in range(steps):
        seat = live.engine.pending(live.state)[0].seat
        await host.submit(claims[seat], match_id, f"s{live.version}", STEP, None)
        live = await host.live_match(match_id)


def _write_row(host: MatchHost, match_id: str, version: int, blob: str) -> None:
    """The snapshot row of ``version`` of the match, holding ``blob``, written straight into
    the store's table (replacing the service's own when there is one)."""
    app = host.app
    event = EngineSnapshot(originator_id=snapshot_uuid(match_id), originator_version=version,
                           timestamp=EngineSnapshot.create_timestamp(),
                           engine_version=host.engine.engine_version, blob=blob)
    stored = app.mapper.to_stored_event(event)
    upsert_snapshot_row(app, match_id, version, stored.topic, stored.state)


def _stored_blob(host: MatchHost, match_id: str, version: int) -> str:
    events = list(host.app.events.get(snapshot_uuid(match_id), gt=version - 1, lte=version))
    assert len(events) == 1
    return str(events[0].blob)  # type: ignore[attr-defined]


def _tagged(host: MatchHost, match_id: str, version: int, data: bytes) -> str:
    """``data`` as a blob tagged under the service's own key (a forger who had it)."""
    tag = snapshot_tag(host.store.key, match_id, version, host.engine.engine_version, data)
    return SNAPSHOT_TAGGED + base64.b64encode(tag + data).decode()


@pytest.fixture
def folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions of the records the host folds (a rebuild's replay)."""
    folded: list[int] = []
    real = host_module._fold

    def fold(engine: Any, config: Any, state: Any, record: dict[str, Any]) -> Any:
        folded.append(int(record["n"]))
        return real(engine, config, state, record)

    monkeypatch.setattr(host_module, "_fold", fold)
    return folded


def _refusals(logged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in logged if e["event"].startswith("snapshot not used")]


# ------------------------------------------------------- 1. restricted unpickling


def _payload(module: str, name: str, marker: Path) -> bytes:
    """A pickle that makes ``marker`` when ``module.name`` runs (protocol 0, by name)."""
    arg = f"touch {marker}" if name == "system" else \
        f"__import__('os').system('touch {marker}')"
    return f"c{module}\n{name}\n(V{arg}\ntR.".encode()


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
@pytest.mark.parametrize("module,name", [("os", "system"), ("builtins", "eval")])
async def test_a_snapshot_row_naming_code_never_runs_and_the_match_is_served_from_its_log(
        long_backend: Backend, tmp_path: Path, folds: list[int], module: str, name: str,
        tagged: bool) -> None:
    """Untagged, the tag refuses it; tagged with the service's own key (a forger who has
    it), the unpickler refuses the global: either way it never runs."""
    host = _host(long_backend)
    match_id, tokens = await _race(long_backend, SNAPSHOT_EVERY + 5)
    client = RulesClient(long_backend.address("rules-longgame"))
    before = await client.view(match_id, tokens[0])
    marker = tmp_path / f"ran-{module}-{name}"
    data = _payload(module, name, marker)
    blob = _tagged(host, match_id, SNAPSHOT_EVERY, data) if tagged \
        else base64.b64encode(data).decode()
    _write_row(host, match_id, SNAPSHOT_EVERY, blob)
    host.live.drop(match_id)
    host.finals.clear()
    folds.clear()
    with structlog.testing.capture_logs() as logged:
        after = await client.view(match_id, tokens[0])
    assert not marker.exists(), "the snapshot row ran code"
    assert after == before
    assert json.loads(after.view_json)["count"] == SNAPSHOT_EVERY + 5
    assert folds[0] == 1, "not replayed from the log's start"
    refused = _refusals(logged)
    assert len(refused) == 1, logged
    reason = refused[0]["reason"]
    assert (f"{module}.{name}" in reason) if tagged else ("not tagged" in reason)
    assert "touch" not in json.dumps(refused, default=str), "the blob was logged"
    # and it goes on from there, in step with the log
    moved = await client.submit(tokens[after.pending[0].seat], match_id, "after", {"type": "step"})
    assert moved.version == before.version + 1
    await client.close()


@pytest.mark.postgres
async def test_a_snapshot_row_naming_code_never_runs_on_postgresql(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        folds: list[int]) -> None:
    """The same on the PostgreSQL store: rows naming ``os.system``, untagged and tagged,
    stored by the store's own recorder (the latest snapshot once stored)."""
    settings = dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                                   database_url=postgres_url, postgres_schema=postgres_schema)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"longgame": longgame.ENGINE})
    client = RulesClient(backend.address("rules-longgame"))
    try:
        host = _host(backend)
        match_id, tokens = await _race(backend, SNAPSHOT_EVERY + 5)
        before = await client.view(match_id, tokens[0])
        for version, tagged in ((SNAPSHOT_EVERY + 2, False), (SNAPSHOT_EVERY + 3, True)):
            marker = tmp_path / f"ran-{version}"
            data = _payload("os", "system", marker)
            blob = _tagged(host, match_id, version, data) if tagged \
                else base64.b64encode(data).decode()
            host.store.save([EngineSnapshot(
                originator_id=snapshot_uuid(match_id), originator_version=version,
                timestamp=EngineSnapshot.create_timestamp(),
                engine_version=host.engine.engine_version, blob=blob)])
            host.live.drop(match_id)
            folds.clear()
            assert await client.view(match_id, tokens[0]) == before
            assert not marker.exists(), "the snapshot row ran code"
            assert folds[0] == 1, "not replayed from the log's start"
    finally:
        await client.close()
        await backend.stop(1)


# ------------------------------------------------------- 2. authenticated snapshots


@pytest.mark.parametrize("how", ["untagged", "forged"])
async def test_an_untagged_or_forged_snapshot_is_not_used_and_the_next_boundary_writes_a_tagged_one(
        long_backend: Backend, folds: list[int], how: str) -> None:
    host = _host(long_backend)
    match_id, tokens = await _race(long_backend, SNAPSHOT_EVERY + 5)
    client = RulesClient(long_backend.address("rules-longgame"))
    before = await client.view(match_id, tokens[0])
    state = host.live.get(match_id).state  # type: ignore[union-attr]
    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    if how == "untagged":  # as every snapshot written before tags: the right state, even
        blob = base64.b64encode(data).decode()
    else:  # a tag under another key, of the right state
        blob = SNAPSHOT_TAGGED + base64.b64encode(bytes(32) + data).decode()
    _write_row(host, match_id, SNAPSHOT_EVERY, blob)
    host.live.drop(match_id)
    host.finals.clear()
    folds.clear()
    with structlog.testing.capture_logs() as logged:
        after = await client.view(match_id, tokens[0])
    assert after == before
    assert folds == list(range(1, before.version + 1)), "the snapshot was used"
    assert len(_refusals(logged)) == 1

    # the next boundary writes a tagged snapshot, and a rebuild then starts from it
    await _steps(long_backend, match_id, tokens, SNAPSHOT_EVERY)
    live = host.live.get(match_id)
    assert live is not None
    boundary = live.version - live.version % SNAPSHOT_EVERY
    assert boundary > SNAPSHOT_EVERY
    assert _stored_blob(host, match_id, boundary).startswith(SNAPSHOT_TAGGED)
    view = await client.view(match_id, tokens[0])
    host.live.drop(match_id)
    folds.clear()
    with structlog.testing.capture_logs() as logged:
        assert await client.view(match_id, tokens[0]) == view
    assert folds == list(range(boundary + 1, view.version + 1))
    assert _refusals(logged) == []
    await client.close()


async def test_a_tagged_snapshot_is_used(long_backend: Backend, folds: list[int]) -> None:
    """The service's own snapshot (tagged) is where a rebuild starts: only the records after
    it are folded."""
    host = _host(long_backend)
    match_id, tokens = await _race(long_backend, SNAPSHOT_EVERY + 5)
    client = RulesClient(long_backend.address("rules-longgame"))
    before = await client.view(match_id, tokens[0])
    assert _stored_blob(host, match_id, SNAPSHOT_EVERY).startswith(SNAPSHOT_TAGGED)
    host.live.drop(match_id)
    host.finals.clear()
    folds.clear()
    with structlog.testing.capture_logs() as logged:
        after = await client.view(match_id, tokens[0])
    assert after == before
    assert folds == list(range(SNAPSHOT_EVERY + 1, before.version + 1))
    assert _refusals(logged) == []
    loaded = host.store.latest_snapshot(match_id, host.engine.engine_version)
    assert loaded is not None and loaded[0] == SNAPSHOT_EVERY
    # a second process of the same deployment (same signing key) reads it too
    assert snapshot_event(match_id, SNAPSHOT_EVERY, host.engine.engine_version, loaded[1],
                          host.store.key).blob == _stored_blob(host, match_id, SNAPSHOT_EVERY)
    await client.close()
