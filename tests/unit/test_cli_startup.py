"""`neon` starts without gRPC, psycopg or the generated messages: every command pays for the
import of services/cli/main.py and the command modules it registers, so those import the heavy
parts inside the commands that need them."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("grpc", "psycopg", "google.protobuf", "services.cli.client", "services.rules.bots")


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
        "mm.random_chooser('seed'); import sys; print('grpc' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "True"
