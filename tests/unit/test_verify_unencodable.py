"""An export holding a number canonical JSON cannot encode (NaN, Infinity, 1e400), a number
beyond RFC 8785's range, or a line nested too deeply fails its file with a reason: it does not
crash `neon verify` (which verified the other files) with a traceback. And verify_export pauses
the garbage collector only while it runs."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from services.cli.main import app
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import campaign_links, verify_export

KEY = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def export() -> bytes:
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 3,
                       KEY)


def _with(data: bytes, line: int, extra: bytes) -> bytes:
    """The export with ``"x": extra`` added to the record on ``line`` (1-based)."""
    lines = data.splitlines()
    lines[line - 1] = lines[line - 1][:-1] + b',"x":' + extra + b"}"
    return b"\n".join(lines) + b"\n"


UNENCODABLE = {
    "nan": b"NaN",
    "infinity": b"Infinity",
    "minus-infinity": b"-Infinity",
    "overflow": b"1e400",
    "nested-nan": b'[{"y":[NaN]}]',
    "big-integer-beside-a-float": b"[1.5, 123456789012345678901234567890]",
}


@pytest.mark.parametrize("value", UNENCODABLE.values(), ids=list(UNENCODABLE))
def test_a_value_canonical_json_cannot_encode_fails_the_export(export: bytes, value: bytes):
    report = verify_export(_with(export, 2, value))
    assert not report.ok
    assert report.failure.startswith("event 2: holds a value canonical JSON cannot encode ("), \
        report.failure


@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_a_line_nested_too_deeply_fails_the_export(export: bytes, depth: int):
    report = verify_export(_with(export, 3, b"[" * depth + b"]" * depth))
    assert not report.ok
    assert report.failure.startswith("line 3 is not JSON: "), report.failure
    assert "nested too deeply" in report.failure
    assert campaign_links([_with(export, 1, b"[" * depth + b"]" * depth)])[0].startswith(
        "line 1 is not JSON: ")


def test_the_command_fails_the_file_and_verifies_the_others(export: bytes, tmp_path, monkeypatch):
    monkeypatch.setenv("NEON_VAR_DIR", str(tmp_path / "var"))
    good = tmp_path / "good.jsonl"
    good.write_bytes(export)
    bad = tmp_path / "nan.jsonl"
    bad.write_bytes(_with(export, 2, b"NaN"))
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(_with(export, 1, b"[" * 5_000 + b"]" * 5_000))
    result = CliRunner().invoke(app, ["verify", "--jobs", "1", str(good), str(bad), str(deep)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "good.jsonl: verified: match" in result.output
    assert "nan.jsonl: FAILED: event 2: holds a value canonical JSON cannot encode (" \
        in result.output
    assert "deep.jsonl: FAILED: line 1 is not JSON: " in result.output
    assert "unexpected error" not in result.output


def test_verify_pauses_the_garbage_collector_and_restores_it(export: bytes, monkeypatch):
    import gc

    from services.rules import verify

    seen = []
    real = verify._check_draws

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(verify, "_check_draws", spy)
    assert gc.isenabled()
    assert verify_export(export).ok
    assert seen == [False] and gc.isenabled()

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(verify, "_check_draws", boom)
    with pytest.raises(RuntimeError):
        verify_export(export)
    assert gc.isenabled()  # back on after a failure
    gc.disable()
    try:
        assert verify_export(_with(export, 2, b"NaN")).failure
        assert not gc.isenabled()  # left off when it was off
    finally:
        gc.enable()
