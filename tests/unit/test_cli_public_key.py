"""``neon public-key``: the deployment's Ed25519 public key, the value an organiser pins with
``neon verify --public-key`` (before, no command showed it). It reads the keys, never makes
them: without them, tests/unit/test_cli_organiser_token.py."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from services.cli.main import app
from services.platform.keys import Keys, load_keys
from services.platform.settings import load
from services.platform.signing import private_key_hex, public_key_hex
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups

runner = CliRunner()


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_NAMESPACE": "", "NEON_TOKEN_SECRET": "",
            "NEON_SIGNING_KEY": "", **more}


def _key(env: dict[str, str]) -> str:
    result = runner.invoke(app, ["public-key"], env=env)
    assert result.exit_code == 0, result.output
    printed = result.output.strip()
    assert len(printed) == 64 and int(printed, 16) >= 0, printed
    return printed


def _deployment_keys(env: dict[str, str], monkeypatch) -> Keys:
    """The dev keys a backend of ``env`` makes on its first start (``neon public-key`` makes
    none: tests/unit/test_cli_organiser_token.py)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_keys(load())


def test_the_printed_key_pins_the_exports_this_deployment_signs(tmp_path: Path, monkeypatch) -> None:
    env = _env(tmp_path)
    signing = _deployment_keys(env, monkeypatch).signing_key
    printed = _key(env)
    assert printed == public_key_hex(signing) and _key(env) == printed
    plan = setups(load_engine("neon-reign"), "single")[0]
    export = tmp_path / "match.jsonl"
    export.write_bytes(export_game("neon-reign", "single", plan, 1, signing))
    ok = runner.invoke(app, ["verify", str(export), "--public-key", printed], env=env)
    assert ok.exit_code == 0, ok.output
    _deployment_keys(_env(tmp_path, NEON_NAMESPACE="other"), monkeypatch)
    other = runner.invoke(app, ["public-key"], env=_env(tmp_path, NEON_NAMESPACE="other"))
    assert other.exit_code == 0 and other.output.strip() != printed  # keys per namespace
    refused = runner.invoke(app, ["verify", str(export), "--public-key", other.output.strip()],
                            env=env)
    assert refused.exit_code == 1, refused.output


def test_a_production_key_from_the_environment(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    env = _env(tmp_path, NEON_SIGNING_KEY=private_key_hex(key), NEON_TOKEN_SECRET="s" * 32)
    assert _key(env) == public_key_hex(key)
    assert not (tmp_path / "var" / "keys.json").exists()  # nothing made on disk
    alone = _env(tmp_path, NEON_SIGNING_KEY=private_key_hex(key))  # no NEON_TOKEN_SECRET
    assert _key(alone) == public_key_hex(key)
    assert not (tmp_path / "var" / "keys.json").exists()

