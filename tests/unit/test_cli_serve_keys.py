"""`neon serve` without the keys its service needs (tournament mode: a pod given only its own
secrets) says which, exit 2 (a deployment's settings, as the README's exit codes say), not
"unexpected error: NoKeys"; a public key that is not one is said the same way."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from services.cli.main import app
from services.platform.natsrv import free_port

runner = CliRunner()


def serve(tmp_path: Path, service: str, **env: str) -> tuple[int, str]:
    # a free port of its own: at its default (another test's service there) the command
    # stopped at "port busy" before it looked at its keys
    port = f"NEON_{service.upper().replace('-', '_')}_PORT"
    base = {"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_ENV": "tournament",
            "NEON_METRICS_PORT": "", "NATS_URL": "nats://127.0.0.1:1", "DATABASE_URL": "",
            port: str(free_port())}
    result = runner.invoke(app, ["serve", service], env={**base, **env})
    return result.exit_code, result.output


def test_a_signer_without_the_signing_key_says_so(tmp_path: Path) -> None:
    code, out = serve(tmp_path, "rules-neon", NEON_TOKEN_SECRET="s" * 32, NEON_SIGNING_KEY="")
    assert code == 2, out
    assert "neon serve rules-neon: tournament mode needs NEON_TOKEN_SECRET and NEON_SIGNING_KEY" \
        in " ".join(out.split()), out
    assert "unexpected error" not in out


def test_a_public_key_that_is_not_one_is_said(tmp_path: Path) -> None:
    code, out = serve(tmp_path, "dice", NEON_TOKEN_SECRET="s" * 32, NEON_PUBLIC_KEY="abc")
    assert code == 2, out
    assert "NEON_PUBLIC_KEY" in out and "unexpected error" not in out
