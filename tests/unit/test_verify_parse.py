"""verify parses exports with orjson and gives exactly what the json module's parse gave:
the same records and checkpoint and the same errors; "no float" only when the parsed values
hold none (it picks the chain's encoder, which is RFC 8785 for such values), and whenever
the json module's parse saw no float either."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import _float_free_walk
from services.rules.export import parse_export
from services.rules.verify import _Decoder, _parse

CHECKPOINT = b'{"type":"Checkpoint","match_id":"m"}'


def reference(data: bytes):
    """The parse before orjson: the json module, with a decoder noting any float."""
    decoder = _Decoder()
    try:
        records, checkpoint = parse_export(data, decoder.loads)
    except ValueError as err:
        return ("error", str(err))
    return (records, checkpoint, decoder.float_free)


def parsed(data: bytes):
    try:
        return _parse(data)
    except ValueError as err:
        return ("error", str(err))


def agrees(got, want) -> bool:
    if got[0] == "error" or want[0] == "error":
        return same(got, want)
    records, checkpoint, free = got
    if not same((records, checkpoint), want[:2]):
        return False
    if free and not _float_free_walk([records, checkpoint]):
        return False
    return free or not want[2]


def same(a, b) -> bool:
    """Equal, and of the same types all the way down (1 and 1.0 and True differ; NaN equals
    NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


keys = st.text(max_size=5) | st.sampled_from(["type", "n", "\u00e9", "\ud800", "a\"b", "\\"])
numbers = (st.integers() | st.integers(-(2**70), 2**70) | st.floats()
           | st.sampled_from([0, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1]))
values = st.recursive(
    st.none() | st.booleans() | numbers | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=15)


def _line(value, ascii_only: bool) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.dictionaries(keys, values, max_size=5), max_size=4), st.booleans(), values)
def test_any_export_parses_as_the_json_module_parses_it(rows, ascii_only, extra):
    lines = [_line(row, ascii_only) for row in rows]
    lines.append(_line({"type": "Checkpoint", "extra": extra}, ascii_only))
    data = b"\n".join(lines) + b"\n"
    want, got = reference(data), parsed(data)
    assert agrees(got, want), (got, want)


EDGES = [
    b'{"a":NaN}', b'{"a":Infinity}', b'{"a":-Infinity}', b'{"a":1E400}', b'{"a":1.0}',
    b'{"a":0e0}', b'{"a":-0}', b'{"a":18446744073709551615}', b'{"a":18446744073709551616}',
    b'{"a":-9223372036854775809}', b'{"a":123456789012345678901234567890}', b'{"a":"\\ud800"}',
    b'{"a":"\\udc00\\ud800"}', b'{"a":"\xed\xa0\x80"}', b'{"a":"\xc3"}', b'\xef\xbb\xbf{"a":1}',
    b'{"a":1,"a":2.5}', b'{"a":2.5,"a":1}', b'{"a":"\t"}', b'{"a":1,}', b'[1]', b'"x"',
    b'{"a":01}', b'  {"a" : [ 1 , 2 ] }  ', b'{"a":"\\u0000\\/"}', b'{"type":"Checkpoint"}',
    b'{"a":1}{"b":2}', b'{"a":true,"b":false,"c":null}', b'{"a":' + b"[" * 3000 + b"]" * 3000 + b"}",
]


@pytest.mark.parametrize("line", EDGES)
def test_edge_cases_parse_as_the_json_module_parses_them(line):
    for data in (line + b"\n" + CHECKPOINT + b"\n", CHECKPOINT + b"\n" + line + b"\n",
                 line + b"\n"):
        try:
            want = reference(data)
        except RecursionError:
            with pytest.raises(RecursionError):
                parsed(data)
            continue
        assert agrees(parsed(data), want)


def test_a_float_or_a_big_integer_is_noted_as_before():
    for line, float_free in ((b'{"a":1.5}', False), (b'{"a":18446744073709551616}', True),
                             (b'{"a":NaN}', False), (b'{"a":[1,{"b":2}]}', True)):
        records, _, free = _parse(line + b"\n" + CHECKPOINT + b"\n")
        assert free is float_free
        assert same(records, json.loads(b"[" + line + b"]"))


@pytest.mark.parametrize("line", EDGES)
def test_campaign_links_read_exports_as_json_loads_does(line):
    """``campaign_links`` parses with ``json.loads`` (bytes: BOM and UTF-16 detected) when
    orjson reads a float or refuses a line, as before."""
    for data in (line + b"\n" + CHECKPOINT + b"\n", line + b"\n"):
        try:
            want = parse_export(data, json.loads)
        except ValueError as err:
            want = ("error", str(err))
        except RecursionError:
            continue
        try:
            got = _parse(data, json.loads)[:2]
        except ValueError as err:
            got = ("error", str(err))
        assert same(got, want)
