"""Services as separate processes: SIGKILL mid-match loses nothing; SIGTERM is clean."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from services.cli.client import RulesClient
from services.platform.natsrv import free_port
from services.platform.tokens import TokenIssuer
from services.rules.verify import verify_export
from tests.e2e.procs import ServiceProcess, service_env
from tests.support import toy

SECRET = "e2e-token-secret-0123456789abcdef"
SIGNING = "11" * 32


@pytest.fixture
def cluster_env(tmp_path: Path, nats_url: str, request: pytest.FixtureRequest) -> dict[str, str]:
    env = {
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(tmp_path / "var"),
        "NEON_TOKEN_SECRET": SECRET, "NEON_SIGNING_KEY": SIGNING,
        "NEON_ENGINES": "toy=tests.support.toy", "NEON_GRACE_SECONDS": "3",
        "NEON_DICE_PORT": str(free_port()), "NEON_RULES_TOY_PORT": str(free_port()),
        "NEON_PERSISTENCE": "sqlite",
    }
    if os.environ.get("DATABASE_URL"):
        schema = request.getfixturevalue("postgres_schema")
        env.update(NEON_PERSISTENCE="postgres", DATABASE_URL=os.environ["DATABASE_URL"],
                   NEON_POSTGRES_SCHEMA=schema)
    env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
    return env


async def test_sigkill_of_the_rules_service_loses_no_action(cluster_env: dict[str, str], tmp_path: Path) -> None:
    env = service_env(cluster_env)
    rules_addr = f"127.0.0.1:{env['NEON_RULES_TOY_PORT']}"
    dice = ServiceProcess("dice", env, env["NEON_DICE_ADDR"], tmp_path).start()
    rules = ServiceProcess("rules-toy", env, rules_addr, tmp_path).start()
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    client = RulesClient(rules_addr)
    try:
        created = await client.create(organiser, match_id="kill-1", mode="race", seats=2)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        accepted = []
        step = 0
        while True:
            view = await client.view("kill-1")
            if not view.pending:
                break
            seat = view.pending[0].seat
            answer = await client.submit(tokens[seat], "kill-1", f"c{step}", {"type": "pick", "step": 1 + step % 3})
            accepted.append((f"c{step}", answer.version, answer.state_hash))
            step += 1
            if step == 5:
                rules.kill()
                await client.close()
                rules.start()
                client = RulesClient(rules_addr)
                again = await client.submit(tokens[seat], "kill-1", f"c{step - 1}",
                                            {"type": "pick", "step": 1 + (step - 1) % 3})
                assert again.replayed and again.version == answer.version
        export = (await client.export(organiser, "kill-1")).export_jsonl
        rows = [json.loads(line) for line in export.splitlines()]
        stored = [(r["command_id"], r["n"], r["state_hash"]) for r in rows if r["type"] == "ActionAccepted"]
        assert [c for c, _, _ in stored] == [c for c, _, _ in accepted]
        assert [h for _, _, h in stored] == [h for _, _, h in accepted]
        assert verify_export(export, engine=toy.ENGINE).ok
    finally:
        await client.close()
        rules.stop()
        dice.stop()


def test_sigterm_stops_each_service_within_its_grace_period(cluster_env: dict[str, str], tmp_path: Path) -> None:
    env = service_env(cluster_env)
    dice = ServiceProcess("dice", env, env["NEON_DICE_ADDR"], tmp_path).start()
    rules = ServiceProcess("rules-toy", env, f"127.0.0.1:{env['NEON_RULES_TOY_PORT']}", tmp_path).start()
    try:
        assert rules.terminate(timeout=3 + 5) == 0
        assert dice.terminate(timeout=3 + 5) == 0
    finally:
        rules.stop()
        dice.stop()
