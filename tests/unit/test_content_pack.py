"""Shipped content is validated by the suite, not at every import: validated.json lists the
digests of the content that passed, and anything else (an edited file, a value changed after
it was read, another pack's files) is still validated by jsonschema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from services.rules.games import content_pack
from services.rules.games.content_pack import VALIDATED, ContentPack

ROOT = Path(__file__).resolve().parents[2]
REIGN = ROOT / "services" / "rules" / "games" / "neon_reign" / "content"


def test_validated_json_lists_exactly_the_shipped_content_that_validates():
    """Validates every game's shipped content in a fresh process and compares the digests:
    a content or schema change without ``python -m services.rules.games.content_pack`` fails."""
    done = subprocess.run([sys.executable, "-m", "services.rules.games.content_pack", "--check"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(VALIDATED.read_bytes())["validated"]


def test_validated_json_is_package_data():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"*" = ["*.json"' in pyproject  # [tool.setuptools.package-data] ships it


def _no_jsonschema(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = jsonschema.Draft202012Validator

    def spy(schema: object) -> object:
        calls.append("validated")
        return real(schema)

    monkeypatch.setattr(jsonschema, "Draft202012Validator", spy)
    return calls


def test_shipped_content_is_trusted_and_anything_else_validated(monkeypatch):
    calls = _no_jsonschema(monkeypatch)
    pack = ContentPack(REIGN)
    pack.validate("heroes", pack.load_raw("heroes"))
    assert calls == []  # listed: not validated again
    changed = pack.load_raw("heroes")
    changed["heroes"][0]["name"] += " II"
    pack.validate("heroes", changed)  # still valid, but not the shipped value: validated
    assert calls == ["validated"]
    changed["heroes"][0]["id"] = 7
    with pytest.raises(jsonschema.ValidationError):
        pack.validate("heroes", changed)
    with pytest.raises(jsonschema.ValidationError):  # listed as heroes, not as combos
        pack.validate("combos", pack.load_raw("heroes"))


def test_a_changed_value_is_validated_even_in_the_object_load_raw_gave():
    pack = ContentPack(REIGN)
    decks = pack.load_raw("decks")
    decks["decks"][0]["cards"][0]["play"] = "defend"
    with pytest.raises(jsonschema.ValidationError):
        pack.validate("decks", decks)


def test_a_pack_with_another_schema_is_validated(tmp_path: Path, monkeypatch):
    copy = tmp_path / "content"
    shutil.copytree(REIGN, copy)
    schema = json.loads((copy / "schema.json").read_text())
    schema["$defs"]["heroes"]["required"] = [*schema["$defs"]["heroes"].get("required", []),
                                             "not-there"]
    (copy / "schema.json").write_text(json.dumps(schema))
    calls = _no_jsonschema(monkeypatch)
    pack = ContentPack(copy)
    with pytest.raises(jsonschema.ValidationError):
        pack.validate("heroes", pack.load_raw("heroes"))
    assert calls == ["validated"]


def test_without_the_list_everything_is_validated(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(content_pack, "VALIDATED", tmp_path / "missing.json")
    monkeypatch.setattr(content_pack, "_validated", None)
    calls = _no_jsonschema(monkeypatch)
    pack = ContentPack(REIGN)
    pack.validate("heroes", pack.load_raw("heroes"))
    assert calls == ["validated"]
