"""`neon up --processes`: one OS process per service, a bundled NATS, a clean Ctrl-C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from services.cli.client import RulesClient
from services.platform.natsrv import port_open
from services.platform.settings import DEFAULT_PORTS, env_key
from services.platform.tokens import TokenIssuer
from tests.e2e.procs import ROOT, health, port_env, service_env, services_in_build, wait_for
from tests.e2e.test_processes import ENGINES, GRACE, SECRET, SIGNING


# the gateway on 8080 and NATS on 4222 when free; on PostgreSQL, 62 connections
@pytest.mark.serial
async def test_up_processes_starts_every_service_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    env = service_env({
        "NEON_VAR_DIR": str(tmp_path / "var"), "NEON_ENGINES": ENGINES,
        "NEON_TOKEN_SECRET": SECRET, "NEON_SIGNING_KEY": SIGNING,
        "NEON_GRACE_SECONDS": str(GRACE), "NEON_LOG_LEVEL": "warning",
        **port_env([*DEFAULT_PORTS, "rules-toy"]),
    })
    env.pop("NATS_URL", None)  # no NATS_URL: the bundled nats-server starts (a free port if 4222 is taken)
    env.pop("NEON_NAMESPACE", None)  # which is this test's alone: var/organiser.token, as on a fresh clone
    out = tmp_path / "up.out"
    with open(out, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli.main", "up", "--processes"],
                                env=env, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    try:
        text = wait_for(out, "Ctrl-C stops", proc, timeout=90)
        expected = services_in_build(ENGINES)
        running = [s for s in expected if f"{s} " in text or f"{s}\u2502" in text]
        assert {"dice", "rules-toy"} <= set(running), text
        bundled = re.search(r"nats://127\.0\.0\.1:(\d+)\s+\(bundled\)", text)
        assert bundled, f"no bundled NATS in the endpoints:\n{text}"
        nats_port = int(bundled.group(1))
        assert port_open("127.0.0.1", nats_port), "the bundled NATS is not up"
        addresses = {s: f"127.0.0.1:{env[f'NEON_{env_key(s)}_PORT']}" for s in running}
        for service, address in addresses.items():
            assert health(address) == 1, f"{service} at {address} is not SERVING"
            assert address in text
        token_file = tmp_path / "var" / "organiser.token"
        assert token_file.stat().st_mode & 0o777 == 0o600  # a 30-day organiser token
        for service in running:
            assert (tmp_path / "var" / "logs" / f"{service}.log").exists()
        # a match through the separate processes
        client = RulesClient(addresses["rules-toy"])
        try:
            organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
            match_id = f"up-proc-{uuid.uuid4().hex[:8]}"  # DATABASE_URL may outlive the test
            created = await client.create(organiser, match_id=match_id, mode="race", seats=2)
            token = {t.seat: t.token for t in created.seat_tokens}
            view = await client.view(match_id)
            seat = view.pending[0].seat
            answer = await client.submit(token[seat], match_id, "c0", {"type": "pick", "step": 1})
            assert answer.version > 0
            # each child serves /metrics on a port of its own, printed among the endpoints
            found = re.search(r"metrics: rules-toy\W+(http://127\.0\.0\.1:\d+/metrics)", text)
            assert found, text
            with urllib.request.urlopen(found.group(1), timeout=10) as scraped:
                body = scraped.read().decode()
            assert 'neon_rules_actions_total{game="toy",service="rules-toy"} 1.0' in body, body
            assert match_id not in body and 'service="dice"' not in body
        finally:
            await client.close()
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        code = proc.wait(3 * (GRACE + 5))
        text = out.read_text(errors="replace")
        assert code == 0, text
        assert "stopped" in text and "not clean" not in text, text
        assert time.monotonic() - started < 3 * (GRACE + 5)
        for address in addresses.values():
            assert health(address) is None
        assert not port_open("127.0.0.1", nats_port), "the bundled NATS was left running"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
