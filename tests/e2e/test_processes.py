"""Services as separate processes (`neon serve`): SIGKILL mid-match loses nothing; SIGTERM is clean.

Every service of the build runs as its own OS process against real NATS (NATS_URL) and, in
the postgres variant, real PostgreSQL (DATABASE_URL, a fresh schema per test). Matches are
played with the toy engine plug-in (NEON_ENGINES=toy=tests.support.toy).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2

from services.cli.client import RulesClient
from services.platform import bus
from services.platform.settings import DEFAULT_PORTS
from services.platform.tokens import TokenIssuer
from services.rules.verify import verify_export
from tests.e2e.procs import (
    Cluster,
    ServiceProcess,
    health,
    health_watch,
    port_env,
    service_env,
    services_in_build,
)
from tests.support import toy

SECRET = "e2e-token-secret-0123456789abcdef"
SIGNING = "11" * 32
GRACE = 3.0
EXIT_MARGIN = 3.0
"""Seconds allowed beyond NEON_GRACE_SECONDS for the interpreter to exit."""
ENGINES = "toy=tests.support.toy"
ORGANISER = TokenIssuer(SECRET.encode()).issue("organiser", "*")


def base_env(tmp_path: Path, nats_url: str) -> dict[str, str]:
    env = {
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(tmp_path / "var"),
        "NEON_TOKEN_SECRET": SECRET, "NEON_SIGNING_KEY": SIGNING,
        "NEON_ENGINES": ENGINES, "NEON_GRACE_SECONDS": str(GRACE),
        "NEON_PERSISTENCE": "sqlite", "NEON_LOG_LEVEL": "warning",
        "NEON_MATCHMAKING_INTERVAL": "0.1",
        **port_env([*DEFAULT_PORTS, "rules-toy"]),
    }
    env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
    return env


def use_postgres(env: dict[str, str], request: pytest.FixtureRequest) -> None:
    if not os.environ.get("DATABASE_URL"):
        pytest.skip("PostgreSQL variant: DATABASE_URL is not set")
    schema = request.getfixturevalue("postgres_schema")
    env.update(NEON_PERSISTENCE="postgres", DATABASE_URL=os.environ["DATABASE_URL"],
               NEON_POSTGRES_SCHEMA=schema)


@pytest.fixture
def cluster_env(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> dict[str, str]:
    """PostgreSQL when DATABASE_URL is set, else SQLite."""
    env = base_env(tmp_path, nats_url)
    if os.environ.get("DATABASE_URL"):
        use_postgres(env, request)
    return env


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.serial)])
def persistence_env(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> dict[str, str]:
    """Both stores: the postgres variant is skipped with the reason when DATABASE_URL is unset."""
    env = base_env(tmp_path, nats_url)
    if request.param == "postgres":
        use_postgres(env, request)
    return env


async def bus_counts(nats_url: str, game: str, match_ids: list[str]) -> dict[str, int]:
    """Messages on JetStream per match (subject neon.events.rules.<game>.<match id>)."""
    from services.platform.bus import connect

    nc = await connect(nats_url, "e2e-check")
    try:
        prefix = bus.subject_prefix()  # the worker's namespace, services run in it (procs.service_env)
        info = await nc.jetstream().stream_info(bus.stream_name(), subjects_filter=f"{prefix}.rules.{game}.>")
        subjects = info.state.subjects or {}
        return {m: subjects.get(f"{prefix}.rules.{game}.{m}", 0) for m in match_ids}
    finally:
        await nc.close()


async def wait_bus(nats_url: str, expected: dict[str, int], timeout: float = 10.0) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    while True:
        found = await bus_counts(nats_url, "toy", list(expected))
        if found == expected or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.2)


def records_of(export: bytes) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in export.splitlines()]
    return [r for r in rows if "n" in r]


class Table:
    """Matches played round-robin: every accepted command, in order, per match."""

    def __init__(self, prefix: str, count: int) -> None:
        self.ids = [f"{prefix}-{uuid.uuid4().hex[:8]}-{i}" for i in range(count)]
        self.tokens: dict[str, dict[int, str]] = {}
        self.accepted: dict[str, list[tuple[str, int, str]]] = {m: [] for m in self.ids}
        self.done: set[str] = set()

    async def create(self, client: RulesClient) -> None:
        for match_id in self.ids:
            created = await client.create(ORGANISER, match_id=match_id, mode="race", seats=2)
            self.tokens[match_id] = {t.seat: t.token for t in created.seat_tokens}

    def next_command(self, match_id: str) -> tuple[str, dict[str, Any]]:
        step = len(self.accepted[match_id])
        return f"{match_id}-c{step}", {"type": "pick", "step": 1 + step % 3}

    async def step(self, client: RulesClient, match_id: str) -> Any:
        """One action of ``match_id``; None when the match is over."""
        view = await client.view(match_id)
        if not view.pending:
            self.done.add(match_id)
            return None
        seat = view.pending[0].seat
        command_id, action = self.next_command(match_id)
        answer = await client.submit(self.tokens[match_id][seat], match_id, command_id, action)
        self.accepted[match_id].append((command_id, answer.version, answer.state_hash))
        return answer

    async def retry_last(self, client: RulesClient, match_id: str) -> Any:
        """The last command again, with its command id: answered from the log, never applied twice."""
        command_id, version, _ = self.accepted[match_id][-1]
        seat_tokens = self.tokens[match_id]
        step = len(self.accepted[match_id]) - 1
        for token in seat_tokens.values():
            try:
                return await client.submit(token, match_id, command_id,
                                           {"type": "pick", "step": 1 + step % 3})
            except grpc.aio.AioRpcError as err:
                if err.code() != grpc.StatusCode.PERMISSION_DENIED:
                    raise
        raise AssertionError(f"no seat could repeat {command_id} (version {version})")


async def until_answered(call: Any, timeout: float = 20.0) -> Any:
    """Retry a call while a dependency is down (UNAVAILABLE), as a client would."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await call()
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def check_match(table: Table, match_id: str, export: bytes) -> int:
    records = records_of(export)
    assert [r["n"] for r in records] == list(range(len(records))) or [
        r["n"] for r in records] == list(range(1, len(records) + 1)), "versions have a gap"
    stored = [(r["command_id"], r["n"], r["state_hash"]) for r in records
              if r["type"] == "ActionAccepted"]
    expected = table.accepted[match_id]
    assert [c for c, _, _ in stored] == [c for c, _, _ in expected], "an action lost or doubled"
    assert [h for _, _, h in stored] == [h for _, _, h in expected]
    assert records[-1]["type"] in ("MatchSealed", "MatchEnded")
    report = verify_export(export, engine=toy.ENGINE)
    assert report.ok, report.failure
    return len(records)


# -- the whole build, SIGKILL of rules and dice mid-match ---------------------------------------

async def kill_dice_mid_match(cluster: Cluster, client: RulesClient, table: Table) -> None:
    """SIGKILL dice, then play one match on. The rules service draws from blocks it reserved
    ahead (services/rules/chance.py), so an action needs the dice service only when those
    run out: that action is refused UNAVAILABLE, leaves its match unchanged, and goes through
    after the restart. Or the match reaches its end first: its last action is stored and
    answered (the match has ended, nobody can act), and its seal, which reveals the seed and
    so needs the dice service, waits until the dice service is back (the next call on the
    match makes it). The match is played on until one of the two: a bound of a few rounds
    made the test depend on how long the dice let the race run."""
    cluster["dice"].kill()
    match_id = next(m for m in table.ids if m not in table.done)
    refused, steps = None, 0
    while refused is None and steps < 200:
        before = (await client.view(match_id)).version
        try:
            if await table.step(client, match_id) is None:
                break
        except grpc.aio.AioRpcError as err:
            refused = err
            assert (await client.view(match_id)).version == before
        steps += 1
    if refused is None:
        assert match_id in table.done, (
            f"{match_id} took {steps} actions with the dice service down and none was refused")
        view = await client.view(match_id)
        assert not view.pending and view.outcome_json, "ended with the dice down: no result"
        assert not await sealed(client, match_id), "sealed with the dice service down"
        cluster["dice"].start()
        deadline = time.monotonic() + 20
        while not await sealed(client, match_id):
            assert time.monotonic() < deadline, f"{match_id} was not sealed after dice came back"
            await asyncio.sleep(0.2)
        return
    assert refused.code() == grpc.StatusCode.UNAVAILABLE, refused
    cluster["dice"].start()
    await until_answered(lambda: table.step(client, match_id))


async def sealed(client: RulesClient, match_id: str) -> bool:
    """Whether the match's export ends with its seal (an export's call also seals a match
    whose seal waited, when the dice service answers)."""
    export = (await client.export(ORGANISER, match_id)).export_jsonl
    return [r["type"] for r in records_of(export)][-1:] == ["MatchSealed"]


async def test_every_service_as_a_process_survives_sigkill_of_rules_and_dice(
    persistence_env: dict[str, str], tmp_path: Path, nats_url: str
) -> None:
    env = service_env(persistence_env)
    services = services_in_build(ENGINES)
    assert {"dice", "rules-toy"} <= set(services)
    cluster = Cluster(services, env, tmp_path).start()
    rules_addr = cluster["rules-toy"].address
    client = RulesClient(rules_addr)
    table = Table("e2e", 3)
    try:
        await table.create(client)
        killed = {"rules": False, "dice": False}
        total = 0
        while len(table.done) < len(table.ids):
            for match_id in table.ids:
                if match_id in table.done:
                    continue
                await table.step(client, match_id)
                total += 1
                if total == 7 and not killed["rules"]:
                    # the rules service dies between an answer and the next call
                    killed["rules"] = True
                    cluster["rules-toy"].kill()
                    await client.close()
                    with pytest.raises(grpc.aio.AioRpcError):
                        await RulesClient(rules_addr, timeout=1).view(match_id)
                    cluster["rules-toy"].start()
                    client = RulesClient(rules_addr)
                    again = await table.retry_last(client, match_id)
                    assert again.replayed and again.version == table.accepted[match_id][-1][1]
                if total == 13 and not killed["dice"]:
                    killed["dice"] = True
                    await kill_dice_mid_match(cluster, client, table)
        assert all(killed.values())
        counts = {}
        for match_id in table.ids:
            export = (await client.export(ORGANISER, match_id)).export_jsonl
            counts[match_id] = check_match(table, match_id, export)
        # every stored event went out on JetStream exactly once (outbox + Nats-Msg-Id dedup)
        assert await wait_bus(nats_url, counts) == counts
    finally:
        await client.close()
        stopped = cluster.terminate_all(GRACE + EXIT_MARGIN + 5)
        cluster.stop()
    for name, (code, seconds) in stopped.items():
        assert code == 0, f"{name} exited {code} on SIGTERM; its log ends:\n{cluster[name].log_tail()}"
        assert seconds < GRACE + EXIT_MARGIN, f"{name} took {seconds:.1f}s to stop"


# -- SIGTERM of each service ---------------------------------------------------------------------

DEPENDENCIES = {"rules-toy": ["dice"], "matchmaking": ["rules-toy"]}


def watch_statuses(address: str) -> tuple[list[int], threading.Thread]:
    """Follow the health Watch stream of ``address`` in a thread; the statuses seen so far."""
    seen: list[int] = []

    def run() -> None:
        for status in health_watch(address, timeout=GRACE + EXIT_MARGIN + 10):
            seen.append(status)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while not seen and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    return seen, thread


def start_alone(service: str, env: dict[str, str], tmp_path: Path) -> Cluster:
    """``service`` and what it needs to start, or skip when the build does not offer it."""
    if service not in services_in_build(ENGINES):
        pytest.skip(f"{service}: its code is not in this build yet")
    cluster = Cluster([*DEPENDENCIES.get(service, []), service], env, tmp_path).start()
    if service in cluster.missing:
        cluster.stop()
        pytest.skip(f"`neon serve {service}` is not offered by this build yet")
    return cluster


@pytest.mark.parametrize("service", ["dice", "rules-toy", "scoring", "matchmaking"])
def test_sigterm_stops_each_service_cleanly_within_its_grace_period(
    service: str, cluster_env: dict[str, str], tmp_path: Path
) -> None:
    cluster = start_alone(service, service_env(cluster_env), tmp_path)
    try:
        target = cluster[service]
        started = time.monotonic()
        code = target.terminate(GRACE + EXIT_MARGIN + 5)
        seconds = time.monotonic() - started
        assert code == 0, target.log_path.read_text()[-2000:]
        assert seconds < GRACE + EXIT_MARGIN, f"{service} took {seconds:.1f}s"
        assert health(target.address) is None, "still answering after exit"
    finally:
        cluster.stop()


def test_sigterm_marks_the_service_not_serving_for_health_watchers(
    cluster_env: dict[str, str], tmp_path: Path
) -> None:
    cluster = start_alone("dice", service_env(cluster_env), tmp_path)
    try:
        seen, watcher = watch_statuses(cluster["dice"].address)
        assert seen[:1] == [health_pb2.HealthCheckResponse.SERVING], seen
        assert cluster["dice"].terminate(GRACE + EXIT_MARGIN + 5) == 0
        watcher.join(5)
        assert health_pb2.HealthCheckResponse.NOT_SERVING in seen, seen
    finally:
        cluster.stop()


async def test_sigterm_finishes_calls_in_flight_and_the_outbox(
    cluster_env: dict[str, str], tmp_path: Path, nats_url: str
) -> None:
    """A call held up inside the rules service (its dice call waits on a paused dice process)
    when SIGTERM arrives is finished and answered; everything stored is on JetStream before
    the process exits."""
    env = service_env(cluster_env)
    cluster = Cluster(["dice", "rules-toy"], env, tmp_path).start()
    rules, dice = cluster["rules-toy"], cluster["dice"]
    assert rules.proc is not None and dice.proc is not None
    client = RulesClient(rules.address)
    table = Table("term", 3)
    paused = False
    try:
        await table.create(client)
        for match_id in table.ids[1:]:  # other matches with stored events, for the outbox
            for _ in range(3):
                await table.step(client, match_id)
        for _ in range(2):
            await table.step(client, table.ids[0])
        # Actions draw from blocks reserved in advance, so what still waits on the dice
        # service is a new match: its session and first blocks. Create one while dice is paused.
        held = f"term-held-{uuid.uuid4().hex[:8]}"
        os.kill(dice.proc.pid, signal.SIGSTOP)
        paused = True
        call = asyncio.create_task(client.create(ORGANISER, match_id=held, mode="race", seats=2))
        await asyncio.sleep(1.0)
        assert not call.done(), "creating a match did not wait on the dice service"
        rules.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.5)  # the call is in flight while the server drains
        assert rules.proc.poll() is None, "exited without waiting for its call in flight"
        os.kill(dice.proc.pid, signal.SIGCONT)
        paused = False
        created = await call  # finished and answered, not cut off
        assert created.match_id == held and created.version == 2
        table.ids.append(held)
        table.accepted[held] = []
        code = await asyncio.to_thread(rules.proc.wait, GRACE + EXIT_MARGIN + 5)
        assert code == 0, rules.log_path.read_text()[-2000:]
        on_bus = await bus_counts(nats_url, "toy", table.ids)  # before any restart
        rules.start()
        await client.close()
        client = RulesClient(rules.address)
        stored = {}
        for match_id in table.ids:
            records = records_of((await client.export(ORGANISER, match_id)).export_jsonl)
            stored[match_id] = len(records)
            accepted = [r["command_id"] for r in records if r["type"] == "ActionAccepted"]
            assert accepted == [c for c, _, _ in table.accepted[match_id]]
        assert on_bus == stored, "the outbox was not published before the exit"
    finally:
        if paused:
            os.kill(dice.proc.pid, signal.SIGCONT)
        await client.close()
        cluster.stop()


def test_sigterm_with_nats_gone_still_exits_cleanly(tmp_path: Path) -> None:
    """A NATS outage at shutdown: the outbox stays in the store, the process still exits 0."""
    from services.platform.natsrv import EmbeddedNats

    nats = EmbeddedNats(tmp_path / "nats").start()
    env = service_env(base_env(tmp_path, nats.url))
    dice = ServiceProcess("dice", env, env["NEON_DICE_ADDR"], tmp_path)
    rules = ServiceProcess("rules-toy", env, f"127.0.0.1:{env['NEON_RULES_TOY_PORT']}", tmp_path)
    try:
        dice.start()
        rules.start()
        nats.stop()
        assert rules.terminate(GRACE + EXIT_MARGIN + 5) == 0, rules.log_path.read_text()[-2000:]
        assert dice.terminate(GRACE + EXIT_MARGIN + 5) == 0
    finally:
        rules.stop()
        dice.stop()
        nats.stop()


def test_the_health_check_script_of_the_image_answers_for_a_running_service(
    cluster_env: dict[str, str], tmp_path: Path, dead_port: int
) -> None:
    import subprocess
    import sys

    from tests.e2e.procs import ROOT

    env = service_env(cluster_env)
    dice = ServiceProcess("dice", env, env["NEON_DICE_ADDR"], tmp_path).start()
    script = str(ROOT / "deploy" / "healthcheck.py")
    try:
        ok = subprocess.run([sys.executable, script, "dice"], env=env, capture_output=True,
                            timeout=30)
        assert ok.returncode == 0 and b"SERVING" in ok.stdout, ok
        dead = subprocess.run([sys.executable, script, f"127.0.0.1:{dead_port}"], env=env,
                              capture_output=True, timeout=30)
        assert dead.returncode == 1
    finally:
        dice.stop()
