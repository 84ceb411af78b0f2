"""deploy/nats-auth.conf on a real nats-server: only rules publish match events and results;
scoring reads and acks through its consumer but cannot publish a result (issue 17, defect 3)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.js.api import AckPolicy, ConsumerConfig

from services.platform import bus
from services.platform.natsrv import binary, free_port, port_open

ROOT = Path(__file__).resolve().parents[2]
PASSWORDS = {"rules": "r-secret", "matchmaking": "m-secret", "scoring": "s-secret",
             "tournament": "t-secret"}


@pytest.fixture(scope="module")
def secured_nats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        exe = binary()
    except RuntimeError as err:
        pytest.skip(str(err))
    folder = tmp_path_factory.mktemp("nats-auth")
    port = free_port()
    (folder / "nats-auth.conf").write_text((ROOT / "deploy/nats-auth.conf").read_text())
    conf = (ROOT / "deploy/nats.conf").read_text()
    conf = conf.replace("0.0.0.0:4222", f"127.0.0.1:{port}").replace("http: 0.0.0.0:8222\n", "")
    conf = conf.replace("store_dir: /data", f"store_dir: {folder / 'js'}")
    (folder / "nats.conf").write_text(conf)
    env = {**os.environ, **{f"NATS_{u.upper()}_PASSWORD": p for u, p in PASSWORDS.items()}}
    log = open(folder / "server.log", "wb")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen([exe, "-c", str(folder / "nats.conf")], stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + 10
    while not port_open("127.0.0.1", port):
        assert proc.poll() is None, (folder / "server.log").read_text()
        assert time.monotonic() < deadline, "nats-server did not start"
        time.sleep(0.05)
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(5)


async def _connect(address: str, user: str | None) -> Any:
    async def on_error(err: Exception) -> None:
        pass  # permission violations are expected here

    creds = f"{user}:{PASSWORDS[user]}@" if user else ""
    nc = await nats.connect(f"nats://{creds}{address}", connect_timeout=2, allow_reconnect=False,
                            error_cb=on_error)
    return nc


async def test_anonymous_clients_are_refused(secured_nats: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 - nats-py raises its own auth errors
        await _connect(secured_nats, None)


async def test_only_rules_publish_results_and_scoring_only_reads(secured_nats: str) -> None:
    rules = await _connect(secured_nats, "rules")
    scoring = await _connect(secured_nats, "scoring")
    matchmaking = await _connect(secured_nats, "matchmaking")
    tournament = await _connect(secured_nats, "tournament")
    try:
        js = rules.jetstream()
        await bus.ensure_stream(js, replicas=1, namespace="")  # this NATS: no worker's
        ack = await js.publish("neon.events.results.neon.m1", b'{"type":"SignedResult"}',
                               stream=bus.STREAM, timeout=2)
        await js.publish("neon.events.rules.neon.m1", b"{}", stream=bus.STREAM, timeout=2)
        assert ack.seq >= 1

        # Each refused publish gets no ack: the server dropped it. They wait out their
        # timeouts side by side.
        refused = [(client, subject) for client in (scoring, matchmaking, tournament)
                   for subject in ("neon.events.results.neon.forged",
                                   "neon.events.rules.neon.forged")]
        refused += [(tournament, "neon.events.matchmaking.t1"),
                    (rules, "neon.events.matchmaking.t1")]
        answers = await asyncio.gather(
            *(client.jetstream().publish(subject, b"forged", timeout=1)
              for client, subject in refused), return_exceptions=True)
        assert all(isinstance(a, Exception) for a in answers), list(zip(refused, answers))
        await matchmaking.jetstream().publish("neon.events.matchmaking.t1", b"{}", timeout=2)
        await tournament.jetstream().publish("neon.events.tournament.t1", b"{}", timeout=2)

        # scoring reads the stream through its own durable consumer and acks.
        sjs = scoring.jetstream()
        await bus.ensure_stream(sjs, replicas=1, namespace="")
        await sjs.add_consumer(bus.STREAM, ConsumerConfig(
            durable_name="scoring-perm", ack_policy=AckPolicy.EXPLICIT,
            filter_subject="neon.events.results.>"))
        sub = await sjs.pull_subscribe_bind(durable="scoring-perm", stream=bus.STREAM)
        msgs = await sub.fetch(10, timeout=2)
        assert [m.data for m in msgs] == [b'{"type":"SignedResult"}']
        await msgs[0].ack_sync(timeout=2)
        got = await sjs.get_msg(bus.STREAM, seq=1, subject="neon.events.results.>", next=True)
        assert got.data == b'{"type":"SignedResult"}'
        # ...but may neither subscribe to the raw subjects nor purge the stream.
        seen: list[bytes] = []

        async def heard(msg: Any) -> None:
            seen.append(msg.data)

        await scoring.subscribe("neon.events.>", cb=heard)
        await scoring.flush()
        await rules.publish("neon.events.rules.neon.m2", b"live")
        await rules.flush()
        await asyncio.sleep(0.3)
        assert seen == []
        with pytest.raises(Exception):  # noqa: B017 - no answer within 1 s
            await scoring.jetstream(timeout=1).purge_stream(bus.STREAM)
        info = await js.stream_info(bus.STREAM)
        assert info.state.messages == 5  # four JetStream publishes and the core one: none purged
    finally:
        for nc in (rules, scoring, matchmaking, tournament):
            await nc.close()
