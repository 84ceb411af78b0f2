"""A game's content pack: JSON files beside a ``schema.json`` that validates each of them.

Every game keeps its content data (cards, heroes, parts, maps) in its package's ``content/``
folder; ``schema.json`` holds one definition per file under ``$defs``. Pure file reading at
import, no other I/O: the engines stay pure.

**Shipped content is validated once, not at every import** (issue 18: JSON Schema validation
was a third of ``neon verify``'s start-up). ``validated.json``, beside this module, holds the
digests of the (content, definition, schema) triples that passed validation; :meth:`ContentPack.validate`
trusts a value whose digest is listed and validates anything else with jsonschema, as before.
The digest is SHA-256 over the value as orjson writes it (so an edited file, a value changed
after ``load_raw`` read it, or user-supplied content is a different digest and is validated),
the definition's name and the bytes of the pack's ``schema.json`` (an edited schema
validates everything again).

After changing any content or schema file, regenerate the list (it validates every game's
shipped content on the way, and refuses to write when one is invalid)::

    python -m services.rules.games.content_pack          # rewrite validated.json
    python -m services.rules.games.content_pack --check  # exit 1 when it is out of date

tests/unit/test_content_pack.py runs ``--check``, so a content change without regenerating
fails the suite.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import orjson

VALIDATED = Path(__file__).with_name("validated.json")
"""Digests of the shipped content that passed validation (see the module docstring)."""

_recording: dict[str, str] | None = None
"""While regenerating: digest -> what it is; every value is validated and noted."""


def _load_validated() -> frozenset[str]:
    try:
        return frozenset(json.loads(VALIDATED.read_bytes())["validated"])
    except (OSError, ValueError, KeyError, TypeError):  # missing or broken: validate all
        return frozenset()


_validated: frozenset[str] | None = None


def _trusted() -> frozenset[str]:
    global _validated
    if _validated is None:
        _validated = _load_validated()
    return _validated


class ContentPack:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load_raw(self, name: str) -> Any:
        """The parsed ``<name>.json`` of the pack."""
        return json.loads((self.directory / f"{name}.json").read_text(encoding="utf-8"))

    def schema_for(self, name: str) -> dict[str, Any]:
        """The JSON Schema of one file: its ``$defs`` entry, with the other definitions."""
        root = json.loads((self.directory / "schema.json").read_text(encoding="utf-8"))
        return {"$ref": f"#/$defs/{name}", "$defs": root["$defs"]}

    def digest(self, name: str, data: Any) -> str | None:
        """The digest ``validated.json`` lists when ``data`` passed as a ``name`` file of
        this pack's schema (``None``: a value orjson does not write, never trusted)."""
        try:
            encoded = orjson.dumps(data)
        except TypeError:
            return None
        schema = (self.directory / "schema.json").read_bytes()
        digest = hashlib.sha256()
        for part in (hashlib.sha256(encoded).digest(), name.encode(),
                     hashlib.sha256(schema).digest()):
            digest.update(part)
        return digest.hexdigest()

    def validate(self, name: str, data: Any) -> None:
        """Raise ``jsonschema.ValidationError`` when ``data`` is not a valid ``name`` file.

        Shipped content listed in ``validated.json`` is not validated again."""
        digest = self.digest(name, data)
        if _recording is None and digest is not None and digest in _trusted():
            return
        import jsonschema  # only for content not validated before (a sixth of a second)

        jsonschema.Draft202012Validator(self.schema_for(name)).validate(data)
        if _recording is not None and digest is not None:
            _recording[digest] = f"{_label(self.directory)}: {name}"


def _label(directory: Path) -> str:
    try:
        return directory.resolve().relative_to(Path(__file__).resolve().parent).as_posix()
    except ValueError:
        return directory.as_posix()


def shipped_digests() -> dict[str, str]:
    """Validate every built-in game's content (importing its package) and give the digests
    of what passed. Run in a fresh process: a game imported before is not imported again."""
    global _recording
    from services.rules.games import ENGINE_MODULES

    _recording = {}
    try:
        for module in ENGINE_MODULES.values():
            importlib.import_module(module)
        return dict(sorted(_recording.items(), key=lambda item: (item[1], item[0])))
    finally:
        _recording = None


def render(digests: dict[str, str]) -> bytes:
    return (json.dumps({
        "about": "Digests of the shipped content files that passed JSON Schema validation; "
                 "regenerate with: python -m services.rules.games.content_pack",
        "validated": digests,
    }, indent=1) + "\n").encode()


def main(argv: list[str]) -> int:
    # ``python -m`` runs this file as __main__: the engines import the package's module.
    from services.rules.games import content_pack

    wanted = content_pack.render(content_pack.shipped_digests())
    if "--check" in argv:
        current = VALIDATED.read_bytes() if VALIDATED.exists() else b""
        if current != wanted:
            print(f"{VALIDATED} is out of date: run python -m services.rules.games.content_pack",
                  file=sys.stderr)
            return 1
        return 0
    VALIDATED.write_bytes(wanted)
    print(f"wrote {VALIDATED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
