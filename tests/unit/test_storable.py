"""services/platform/storable.py: the one check of JSON the event stores cannot keep."""

from __future__ import annotations

import re
from typing import Any

import pytest
from eventsourcing.persistence import JSONTranscoder

from services.platform.storable import STORE_TYPE_KEYS, unstorable_at, unstorable_reason
from services.scoring.results import MalformedResult, _check_storable


def _survives(value: Any) -> bool:
    """Whether eventsourcing's JSON transcoder (every store's) reads ``value`` back as it is."""
    transcoder = JSONTranscoder()
    try:
        return transcoder.decode(transcoder.encode(value)) == value
    except Exception:  # noqa: BLE001 - an unregistered name: not read at all
        return False


BAD = [
    {"_type_": "uuid_hex", "_data_": "00" * 16},
    {"a": [1, {"b": {"_data_": "1", "_type_": "decimal_str"}}]},
    [{"x": {"_type_": "no-such-type", "_data_": None}}],
    ({"_type_": 1, "_data_": 2},),
]
GOOD = [
    {}, {"_type_": "uuid_hex"}, {"_data_": 1}, {"_type_": 1, "_data_": 2, "more": 3},
    {"s": '{"_type_":"uuid_hex","_data_":"00"}'}, {"_type_x": 1, "_data_": 2},
    [1, "two", None, True, {"k": [{"_TYPE_": 1, "_data_": 2}]}],
]


@pytest.mark.parametrize("value", BAD)
def test_what_the_store_would_not_keep_is_found(value: Any) -> None:
    assert unstorable_at(value) is not None
    assert not _survives(list(value) if isinstance(value, tuple) else value)
    assert re.match(r"^thing.* exactly the keys '_type_' and '_data_'",
                    unstorable_reason(value, "thing") or "")


@pytest.mark.parametrize("value", GOOD)
def test_what_the_store_keeps_passes(value: Any) -> None:
    assert _survives(value)
    assert unstorable_at(value) is None
    assert unstorable_reason(value, "thing") is None


def test_the_path_names_where_it_is() -> None:
    assert unstorable_at({"_type_": 1, "_data_": 2}) == ""
    assert unstorable_at({"a": [0, {"b": {"_type_": 1, "_data_": 2}}]}) == ".a[1].b"
    assert unstorable_reason({"a": [{"_type_": 1, "_data_": 2}]}, "options_json") == (
        "options_json.a[0] is an object of exactly the keys '_type_' and '_data_', which the "
        "event store cannot keep as an object (it reads one back as a value of another type)")
    assert frozenset({"_type_", "_data_"}) == STORE_TYPE_KEYS


def test_values_orjson_refuses_are_walked() -> None:
    """Past orjson's depth, an integer past 64 bits, a key that is not a string: walked."""
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(1000):
        inner["a"] = {}
        inner = inner["a"]
    inner.update({"_type_": 1, "_data_": 2})
    assert unstorable_at(deep) == ".a" * 1000
    assert unstorable_at({"n": 2**70, "m": {"_data_": 0, "_type_": "x"}}) == ".m"
    assert unstorable_at({1: {"_data_": 0, "_type_": "x"}}) == ".1"
    assert unstorable_at({"n": 2**70, 1: [deep]}) is not None
    inner.clear()
    assert unstorable_at(deep) is None


def test_scoring_uses_the_shared_check() -> None:
    with pytest.raises(MalformedResult, match=r"outcome\.breakdown\.p .*'_type_' and '_data_'"):
        _check_storable({"p": {"_type_": "ann", "_data_": 3}})
    _check_storable({"p": {"_type_": "ann", "_data_": 3, "x": 1}})
