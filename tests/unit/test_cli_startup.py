"""`neon` starts without gRPC, psycopg or the generated messages: every command pays for the
import of services/cli/main.py and the command modules it registers, so those import the heavy
parts inside the commands that need them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("grpc", "psycopg", "google.protobuf", "services.cli.client", "services.rules.bots",
         "structlog", "asyncio")


def test_importing_the_cli_leaves_grpc_psycopg_and_protobuf_unloaded() -> None:
    probe = (
        "import json, sys; import services.cli.main; "
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout) == []


def test_the_commands_that_need_them_still_load_them() -> None:
    probe = (
        "import services.cli.main as m, services.cli.mm_commands as mm, "
        "services.cli.tournament_commands as t; "
        "t.TournamentClient('127.0.0.1:1'); mm.MatchmakingClient('127.0.0.1:1'); "
        "mm.bot_chooser('seed'); import sys; print('grpc' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "True"


def test_verify_imports_neither_structlog_jsonschema_nor_asyncio(tmp_path) -> None:
    """`neon verify` logs nothing (structlog is configured only for bundles), runs no event
    loop (asyncio) and trusts the shipped content packs (validated.json, no jsonschema): none
    of them is imported on its way."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.rules.games import load_engine
    from services.rules.selfplay import export_game, setups

    export = tmp_path / "match.jsonl"
    export.write_bytes(export_game("neon-reign", "single",
                                   setups(load_engine("neon-reign"), "single")[0], 1,
                                   Ed25519PrivateKey.generate()))
    probe = (
        "import atexit, json, sys; "
        "atexit.register(lambda: print(json.dumps([m for m in ('structlog', 'jsonschema', 'asyncio', "
        "'services.rules.bots') if m in sys.modules]))); "
        "from services.cli.main import app; app()"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "verify", str(export)], capture_output=True, text=True,
        timeout=120, env={**os.environ, "NEON_VAR_DIR": str(tmp_path / "var")},
    )
    assert "verified: match" in out.stdout, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
