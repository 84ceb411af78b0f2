"""Issue 10: "a rules service killed while a clock runs applies the expiry once after
restart" — with the rules service as its own process, SIGKILLed."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from tests.e2e.procs import Cluster, port_env, service_env
from tests.e2e.test_processes import ORGANISER, SECRET, SIGNING, use_postgres


def env_for(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> dict[str, str]:
    env = {
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(tmp_path / "var"),
        "NEON_TOKEN_SECRET": SECRET, "NEON_SIGNING_KEY": SIGNING,
        "NEON_ENGINES": "duel=tests.support.duel", "NEON_PERSISTENCE": "sqlite",
        "NEON_LOG_LEVEL": "warning", **port_env(["dice", "rules-duel"]),
    }
    env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
    if os.environ.get("DATABASE_URL"):
        use_postgres(env, request)
    return service_env(env)


async def test_a_killed_rules_service_applies_a_running_expiry_once_after_restart(
        tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> None:
    cluster = Cluster(["dice", "rules-duel"], env_for(tmp_path, nats_url, request), tmp_path).start()
    rules = cluster["rules-duel"]
    client = RulesClient(rules.address)
    try:
        request_ = rules_pb2.CreateMatchRequest(match_id="killed-clock", mode="duel", seats=2)
        request_.clock.CopyFrom(rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION,
                                                      per_decision_ms=2_000))
        await client.stub.CreateMatch(request_, metadata=(("authorization", f"Bearer {ORGANISER}"),),
                                      timeout=10)
        await client.close()
        rules.kill()  # SIGKILL while the first decision's clock runs
        await asyncio.sleep(2.5)  # its deadline passes while nothing runs
        rules.start()
        client = RulesClient(rules.address)
        records: list[dict] = []
        for _ in range(60):
            export = (await client.export(ORGANISER, "killed-clock")).export_jsonl
            records = [json.loads(line) for line in export.splitlines()[:-1]]
            if any(r.get("timeout") for r in records):
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.0)  # a second expiry of the same deadline would land by now
        export = (await client.export(ORGANISER, "killed-clock")).export_jsonl
        records = [json.loads(line) for line in export.splitlines()[:-1]]
        timeouts = [r for r in records if r.get("timeout")]
        assert timeouts, "no expiry after the restart"
        assert timeouts[0]["n"] == 3, "the first decision's default applied as record 3"
        assert len({r["n"] for r in timeouts}) == len(timeouts)
        assert sum(1 for r in timeouts if r["decision"] == records[2]["decision"]
                   and r["n"] == 3) == 1, "the expiry applied once"
        # the clock went on: the next decision has its own deadline
        assert records[-1]["clocks"]["seats"], records[-1]
    finally:
        await client.close()
        cluster.stop()
