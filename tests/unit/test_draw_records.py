"""Draw records built in one step (``_record``: verify parses every draw of an export and
recomputes it) are the records the dataclass builds, and malformed ones fail the same way."""

from __future__ import annotations

import pytest

from services.platform.draws import DrawRecord, DrawStream, perform


def _reference(data):
    return DrawRecord(op=str(data["op"]), n=int(data["n"]), count=int(data["count"]),
                      result=tuple(int(x) for x in data["result"]), first=int(data["first"]),
                      next=int(data["next"]))


GOOD = [
    {"op": "randbelow", "n": 6, "count": 1, "result": [3], "first": 0, "next": 1},
    {"op": "shuffle", "n": 4, "count": 1, "result": [2, 0, 3, 1], "first": 5, "next": 7},
    {"op": "roll", "n": 6, "count": 3, "result": ["1", 2, True], "first": "7", "next": 9},
]
BAD = [
    {"op": "roll", "n": 6, "count": 3, "result": 5, "first": 0, "next": 1},
    {"op": "roll", "n": "six", "count": 3, "result": [1], "first": 0, "next": 1},
    {"op": "roll", "count": 3, "result": [1], "first": 0, "next": 1},
    {"op": "roll", "n": 6, "count": 3, "result": [[1]], "first": 0, "next": 1},
    {"op": "roll", "n": 6, "count": None, "result": [1], "first": 0, "next": 1},
]


@pytest.mark.parametrize("data", GOOD)
def test_from_json_gives_the_dataclass_record(data):
    record = DrawRecord.from_json(data)
    want = _reference(data)
    assert record == want and hash(record) == hash(want) and repr(record) == repr(want)
    assert vars(record) == vars(want) and type(record) is DrawRecord
    assert record.to_json() == want.to_json()
    with pytest.raises(AttributeError):  # still frozen
        record.n = 3  # type: ignore[misc]


@pytest.mark.parametrize("data", BAD)
def test_a_malformed_draw_fails_as_before(data):
    with pytest.raises((KeyError, TypeError, ValueError)) as got:
        DrawRecord.from_json(data)
    with pytest.raises((KeyError, TypeError, ValueError)) as want:
        _reference(data)
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))


def test_perform_gives_the_dataclass_record():
    stream = DrawStream(b"\x01" * 32, "m")
    for op, n, count in [("randbelow", 10, 1), ("shuffle", 7, 1), ("roll", 6, 4)]:
        first = stream.counter
        record = perform(stream, op, n, count)
        assert record == DrawRecord(op, n, count, record.result, first, stream.counter)
        assert type(record) is DrawRecord
