"""The four built-in engines' action and config schemas take no object of exactly the keys
``_type_`` and ``_data_`` anywhere (every object they allow has ``additionalProperties:
false`` and no such properties): through actions and options such an object cannot reach
their matches' stores even before the rules host's own check (services/platform/storable.py),
which the host makes for every engine, a plug-in's (tests/support/loose.py) whose schemas
take anything included (tests/integration/test_store_keys_rules.py)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from services.platform.storable import unstorable_at
from services.rules.games import ENGINE_MODULES, load_engine
from tests.support import loose

_NOTES = ("description", "title", "default", "examples", "$comment")


def may_hold(schema: Any) -> bool:
    """Whether ``schema`` may take a value holding such an object, at any depth
    (conservative: True where it cannot tell)."""
    if schema is True or schema == {}:
        return True
    if schema is False:
        return False
    if any(k in schema for k in ("$ref", "$dynamicRef", "not", "if", "dependentSchemas")):
        return True
    if "const" in schema:
        return unstorable_at(schema["const"]) is not None
    if "enum" in schema:
        return any(unstorable_at(v) is not None for v in schema["enum"])
    if "allOf" in schema and not all(may_hold(b) for b in schema["allOf"]):
        return False
    branches = schema.get("anyOf", []) + schema.get("oneOf", [])
    if branches and not any(may_hold(b) for b in branches):
        return False
    rest = {k: v for k, v in schema.items() if k not in (*_NOTES, "anyOf", "oneOf", "allOf")}
    if branches and not rest:
        return True
    kinds = schema.get("type", ["object", "array"])
    kinds = {kinds} if isinstance(kinds, str) else set(kinds)
    if "object" in kinds:
        props = schema.get("properties", {})
        if schema.get("additionalProperties", True) is not False or "patternProperties" in schema \
                or {"_type_", "_data_"} <= set(props) or any(map(may_hold, props.values())):
            return True
    if "array" in kinds:
        return may_hold(schema.get("items", True)) or any(map(may_hold, schema.get("prefixItems", [])))
    return False


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_a_built_in_engines_schemas_take_no_such_object(game: str) -> None:
    engine = load_engine(game)
    typed = {"_type_": "uuid_hex", "_data_": "00" * 16}
    for schema in (engine.action_schema(), engine.config_schema()):
        assert not may_hold(schema), game
        validator = jsonschema.Draft202012Validator(schema)
        assert not validator.is_valid(typed)
        assert not validator.is_valid({"type": "pass", "x": typed})


def test_a_plug_in_engines_loose_schemas_are_seen_to_take_one() -> None:
    assert may_hold(loose.ENGINE.action_schema()) and may_hold(loose.ENGINE.config_schema())
    assert may_hold({"type": "object", "properties": {"a": {"type": "array"}},
                     "additionalProperties": False})
    assert not may_hold({"type": "object", "properties": {"a": {"type": "integer"}},
                         "additionalProperties": False})
