"""A game's content pack: JSON files beside a ``schema.json`` that validates each of them.

Every game keeps its content data (cards, heroes, parts, maps) in its package's ``content/``
folder; ``schema.json`` holds one definition per file under ``$defs``. Pure file reading at
import, no other I/O: the engines stay pure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema


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

    def validate(self, name: str, data: Any) -> None:
        """Raise ``jsonschema.ValidationError`` when ``data`` is not a valid ``name`` file."""
        jsonschema.Draft202012Validator(self.schema_for(name)).validate(data)
