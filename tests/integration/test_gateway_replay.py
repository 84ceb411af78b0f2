"""Replays through the gateway: verified server-side, stepped through in public frames only;
refused while a match runs; never a crash on a file that is not an export."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest

from services.cli.backend import Backend
from services.gateway import main as gateway_main
from services.gateway.config import GatewayConfig
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.natsrv import free_port
from services.platform.playing import play_table, random_choice
from tests.browser.leakscan import scan, secrets_by_version
from tests.support.gateway import gateway_for, upstreams

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def gateway(backend: Backend) -> AsyncIterator[tuple[Backend, str]]:
    async with gateway_for(backend) as running:
        yield backend, running.url


async def finished_match(backend: Backend, play: bool = True) -> tuple[str, bytes]:
    organiser = [("authorization", f"Bearer {backend.organiser_token()}")]
    async with grpc.aio.insecure_channel(backend.address("rules-neon-reign")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = await stub.CreateMatch(
            rules_pb2.CreateMatchRequest(mode="single", seats=2, dev_seed="replay"),
            metadata=organiser,
        )
        if not play:
            return created.match_id, b""
        await play_table(
            stub,
            created.match_id,
            {t.seat: t.token for t in created.seat_tokens},
            random_choice("replay"),
        )
        for _ in range(100):
            exported = await stub.ExportMatch(
                rules_pb2.ExportMatchRequest(match_id=created.match_id), metadata=organiser
            )
            if b'"MatchSealed"' in exported.export_jsonl:
                return created.match_id, bytes(exported.export_jsonl)
            await asyncio.sleep(0.05)
    raise AssertionError("never sealed")


async def post(url: str, data: bytes = b"", forwarded_for: str = "") -> tuple[int, Any]:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    async with aiohttp.ClientSession() as http, http.post(url, data=data, headers=headers) as r:
        return r.status, await r.json()


async def test_a_finished_match_replays_in_public_frames_with_its_verification(
    gateway: Any,
) -> None:
    backend, url = gateway
    match_id, export = await finished_match(backend)
    status, report = await post(f"{url}/api/games/neon-reign/matches/{match_id}/replay")
    assert status == 200, report
    verification = report["verification"]
    assert verification["ok"] and verification["public_key_pinned"], verification
    assert any("rules replay" in c for c in verification["checks"])
    records = export.splitlines()[:-1]
    assert [f["n"] for f in report["frames"]] == list(range(1, len(records) + 1))
    assert report["stopped"] == ""
    assert all('"draws"' not in json.dumps(f) for f in report["frames"])  # no draw records (the text may say 'draws')
    assert any(f["text"] for f in report["frames"]) and report["frames"][-2]["outcome"]
    body = json.dumps(report).encode()
    # who created the match is in the export, never in what seats and spectators are shown
    assert b'"created_by"' in export and b"created_by" not in body
    leaks, checked = scan([(f"{url}/replay", body)], export)
    assert checked == len(records) and leaks == []
    status, uploaded = await post(f"{url}/api/replay", export)
    assert status == 200 and uploaded["frames"] == report["frames"]


async def test_the_leak_scan_finds_a_planted_hidden_card(gateway: Any) -> None:
    """The browser tests' scan is not vacuous: a hand card in a message is found."""
    backend, _ = gateway
    _, export = await finished_match(backend)
    by_version, _ = secrets_by_version(export)
    version, hidden = next((v, s) for v, s in sorted(by_version.items()) if s)
    card = sorted(hidden)[0]
    planted = json.dumps(
        {"version": str(version), "viewJson": json.dumps({"sides": [{"hand": [card]}]})}
    )
    leaks, _ = scan([("http://x/GetView", planted.encode())], export)
    assert leaks and card in leaks[0]
    clean = json.dumps({"version": str(version), "viewJson": json.dumps({"sides": []})})
    assert scan([("http://x/GetView", clean.encode())], export)[0] == []


async def test_a_running_match_is_not_replayed_and_garbage_is_a_clear_failure(gateway: Any) -> None:
    backend, url = gateway
    match_id, _ = await finished_match(backend, play=False)
    status, err = await post(f"{url}/api/games/neon-reign/matches/{match_id}/replay")
    assert (status, err["code"]) == (400, "failed_precondition") and "not over" in err["message"]
    status, err = await post(f"{url}/api/games/neon-reign/matches/nope/replay")
    assert (status, err["code"]) == (404, "not_found")
    status, err = await post(f"{url}/api/replay")
    assert (status, err["code"]) == (400, "invalid_argument")
    for garbage in (b"\xff\xfe garbage", b'{"type": "MatchCreated"}\n', b"[]\n[]\n"):
        status, report = await post(f"{url}/api/replay", garbage)
        assert status == 200 and not report["verification"]["ok"]
        assert report["verification"]["failure"] and report["frames"] == []


async def test_an_upload_signed_elsewhere_is_stepped_through_up_to_a_limit(
    gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export another deployment (or a player, or anyone) signed is still shown: its
    verification says what does not hold, and it is stepped through as far as its records
    let a replay go. Stepping costs a rules step and a spectator view per event (a view per
    frame in the answer), so such an export is stepped through only up to
    MAX_FOREIGN_EVENTS events: an anonymous upload of a long self-made match (up to 32 MB)
    would otherwise buy minutes of CPU and hundreds of MB. The deployment's own exports are
    stepped through whole."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.gateway import replays
    from services.rules.games import load_engine
    from services.rules.selfplay import export_game, setups

    backend, url = gateway
    engine = load_engine("neon-reign")
    foreign = export_game("neon-reign", "single", setups(engine, "single")[0], 3,
                          Ed25519PrivateKey.generate(), bot="random")
    lines = foreign.rstrip(b"\n").count(b"\n") + 1
    status, report = await post(f"{url}/api/replay", foreign)
    assert status == 200, report
    assert not report["verification"]["ok"]
    assert "another key" in report["verification"]["failure"]
    assert report["frames"] and not report["stopped"].startswith("not stepped through")
    assert report["game_id"] == "neon-reign" and report["match_id"]

    monkeypatch.setattr(replays, "MAX_FOREIGN_EVENTS", lines - 1)
    status, report = await post(f"{url}/api/replay", foreign)
    assert status == 200, report
    assert report["frames"] == []
    assert report["stopped"].startswith("not stepped through"), report["stopped"]
    assert f"{lines:,} lines" in report["stopped"]
    assert report["game_id"] == "neon-reign" and report["match_id"]

    _, export = await finished_match(backend)  # the deployment's own: stepped through whole
    monkeypatch.setattr(replays, "MAX_FOREIGN_EVENTS", 1)
    status, report = await post(f"{url}/api/replay", export)
    assert status == 200 and report["verification"]["ok"] and report["frames"]
    assert report["stopped"] == ""


async def test_uploads_replayed_at_once_are_bounded(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most UPLOAD_REPLAYS uploads are verified and stepped through at once by a gateway
    process (each holds a worker thread and up to seconds of CPU), and UPLOADS_PER_CLIENT of
    one client's (by address; X-Forwarded-For from a trusted proxy); one more meanwhile is
    answered resource_exhausted (429) at once, and the slots come back afterwards."""
    import threading

    from services.gateway import app as gateway_app

    _, export = await finished_match(backend)
    release = threading.Event()
    entered = threading.Semaphore(0)
    real = gateway_app.replay_report

    def held(data: bytes, public_key: str | None = None) -> dict[str, Any]:
        entered.release()
        release.wait(30)
        return real(data, public_key)

    monkeypatch.setattr(gateway_app, "replay_report", held)
    config = GatewayConfig(port=0, trusted_proxies=("127.0.0.0/8",))
    async with gateway_for(backend, config) as running:
        url = f"{running.url}/api/replay"
        clients = [f"198.51.100.{i}" for i in range(1, gateway_app.UPLOAD_REPLAYS + 2)]
        assert gateway_app.UPLOADS_PER_CLIENT == 1
        slow = []
        try:
            for n, client in enumerate(clients[:gateway_app.UPLOAD_REPLAYS]):
                slow.append(asyncio.create_task(post(url, export, client)))
                assert await asyncio.to_thread(entered.acquire, True, 30)
                if n == 0:  # a slot is free, but not for the client already using its one
                    status, err = await post(url, export, client)
                    assert (status, err) == (429, {
                        "code": "resource_exhausted",
                        "message": "an upload from this address is being replayed now: send "
                                   "the next when it has been answered"})
            status, err = await post(url, export, clients[-1])
            assert (status, err) == (429, {
                "code": "resource_exhausted",
                "message": f"{gateway_app.UPLOAD_REPLAYS} uploaded exports are being replayed "
                           "now: try again shortly"})
        finally:
            release.set()
        for task in slow:
            status, report = await task
            assert status == 200 and report["verification"]["ok"] and report["frames"]
        status, report = await post(url, export, clients[0])  # the slots came back
        assert status == 200 and report["frames"]
        status, report = await post(url, export, clients[-1])
        assert status == 200 and report["frames"]


async def test_replays_from_the_services_can_be_turned_off(backend: Backend) -> None:
    async with gateway_for(backend, GatewayConfig(port=0, replay_from_service=False)) as running:
        status, err = await post(f"{running.url}/api/games/neon-reign/matches/x/replay")
        assert (status, err["code"]) == (501, "unimplemented")


async def test_neon_serve_gateway_runs_as_its_own_process_and_stops_on_sigterm(
    backend: Backend,
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "NEON_GATEWAY_PORT": str(port),
        "NEON_VAR_DIR": str(backend.settings.var_dir),
        "NEON_RULES_NEON_REIGN_ADDR": backend.address("rules-neon-reign"),
        "NEON_DICE_ADDR": backend.address("dice"),
        "NEON_LOG_LEVEL": "warning",
        "PYTHONPATH": str(ROOT),
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.cli.main",
        "serve",
        "gateway",
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as http:
            deadline = time.monotonic() + 30
            while True:
                try:
                    async with http.get(base + "/healthz") as r:
                        assert r.status == 200
                        break
                except aiohttp.ClientConnectionError:
                    assert time.monotonic() < deadline and proc.returncode is None
                    await asyncio.sleep(0.2)
            async with http.post(
                base + "/games/neon-reign/neon.rules.v1.RulesService/GetGameInfo",
                data=b"{}",
                headers={"Content-Type": "application/json"},
            ) as r:
                assert (await r.json())["gameId"] == "neon-reign"
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_an_upload_signed_by_the_deployments_key_before_a_rotation_is_its_own(
    backend: Backend,
) -> None:
    """After a rotation of the signing key, an export signed with the earlier key (named in
    NEON_PREVIOUS_PUBLIC_KEYS) is still this deployment's: verified as pinned and stepped
    through whole, not as another deployment's (the gateway pinned the current key alone)."""
    import dataclasses

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.gateway import replays
    from services.platform.signing import public_key_hex
    from services.rules.games import load_engine
    from services.rules.selfplay import export_game, setups

    old = Ed25519PrivateKey.generate()
    export = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                         4, old, bot="random")
    lines = export.rstrip(b"\n").count(b"\n") + 1
    rotated = dataclasses.replace(backend.keys, previous_public_keys=(public_key_hex(old),))
    saved = replays.MAX_FOREIGN_EVENTS
    replays.MAX_FOREIGN_EVENTS = lines - 1  # another deployment's would not be stepped through
    try:
        for keys, ours in ((backend.keys, False), (rotated, True)):
            running = await gateway_main.start(backend.settings, keys, GatewayConfig(port=0),
                                               addresses=upstreams(backend))
            try:
                status, report = await post(f"{running.url}/api/replay", export)
            finally:
                await running.stop()
            assert status == 200, report
            verification = report["verification"]
            assert verification["ok"] is ours, verification
            if ours:
                assert verification["public_key_pinned"] and not report["stopped"], report["stopped"]
                assert len(report["frames"]) == lines - 1
            else:
                assert "another key" in verification["failure"]
                assert report["stopped"].startswith("not stepped through"), report["stopped"]
    finally:
        replays.MAX_FOREIGN_EVENTS = saved
