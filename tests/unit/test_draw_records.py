"""Draw records built in one step (``_record``: verify parses every draw of an export and
recomputes it) are the records the dataclass builds, and ``from_json`` reads only what
``to_json`` writes.

``from_json`` used to convert with ``int()`` and ``str()``, and this test pinned that: a draw
whose numbers were spelled ``"7"``, ``true`` or ``1.0`` was read as the integer and matched the
seed's draw, and verify needed a second check of its own to refuse such draws. Every writer of
draws (``to_json``: the rules host, the dice service, self-play) writes integers, and every
recorded export, bundle and store holds only those, so ``from_json`` is now strict, and the
lenient cases below are refused with a reason naming the field.
"""

from __future__ import annotations

import pytest

from services.platform.draws import DrawRecord, DrawStream, MalformedDraw, perform

GOOD = [
    {"op": "randbelow", "n": 6, "count": 1, "result": [3], "first": 0, "next": 1},
    {"op": "shuffle", "n": 4, "count": 1, "result": [2, 0, 3, 1], "first": 5, "next": 7},
    {"op": "roll", "n": 6, "count": 3, "result": [1, 2, 5], "first": 7, "next": 9},
    {"op": "shuffle", "n": 1, "count": 1, "result": [], "first": 2, "next": 2},
]
_ROLL = {"op": "roll", "n": 6, "count": 3, "result": [1, 2, 5], "first": 7, "next": 10}
BAD = [  # (draw, words its refusal names)
    ({**_ROLL, "result": ["1", 2, True]}, 'result must be a list of integers; it holds "1"'),
    ({**_ROLL, "result": [1, True, 2]}, "result must be a list of integers; it holds true"),
    ({**_ROLL, "result": [1, 2.0]}, "result must be a list of integers; it holds 2.0"),
    ({**_ROLL, "result": [[1]]}, "result must be a list of integers; it holds [1]"),
    ({**_ROLL, "result": 5}, "result must be a list of integers, not an integer"),
    ({**_ROLL, "result": {"0": 1}}, "result must be a list of integers, not an object"),
    ({**_ROLL, "first": "7"}, 'first must be an integer, not "7"'),
    ({**_ROLL, "next": 10.0}, "next must be an integer, not 10.0"),
    ({**_ROLL, "n": True}, "n must be an integer, not true"),
    ({**_ROLL, "n": "six"}, 'n must be an integer, not "six"'),
    ({**_ROLL, "count": None}, "count must be an integer, not null"),
    ({**_ROLL, "op": "deal"}, 'op must be one of randbelow, shuffle, roll, not "deal"'),
    ({**_ROLL, "op": 1}, "op must be one of randbelow, shuffle, roll, not 1"),
    ({k: v for k, v in _ROLL.items() if k != "n"}, "a draw has no 'n'"),
    ({k: v for k, v in _ROLL.items() if k != "result"}, "a draw has no 'result'"),
    ([1, 2], "a draw is a JSON object, not a list"),
    (None, "a draw is a JSON object, not null"),
]


def _reference(data):
    return DrawRecord(op=data["op"], n=data["n"], count=data["count"],
                      result=tuple(data["result"]), first=data["first"], next=data["next"])


@pytest.mark.parametrize("data", GOOD)
def test_from_json_gives_the_dataclass_record(data):
    record = DrawRecord.from_json(data)
    want = _reference(data)
    assert record == want and hash(record) == hash(want) and repr(record) == repr(want)
    assert vars(record) == vars(want) and type(record) is DrawRecord
    assert record.to_json() == want.to_json()
    with pytest.raises(AttributeError):  # still frozen
        record.n = 3  # type: ignore[misc]


@pytest.mark.parametrize(("data", "reason"), BAD)
def test_a_draw_of_other_types_than_written_is_refused_naming_the_field(data, reason):
    with pytest.raises(MalformedDraw) as got:
        DrawRecord.from_json(data)
    assert str(got.value) == reason
    assert isinstance(got.value, ValueError)  # what replay and verify catch


def test_a_refusal_quotes_a_long_or_deep_value_short():
    with pytest.raises(MalformedDraw) as got:
        DrawRecord.from_json({**_ROLL, "n": "x" * 1000})
    assert len(str(got.value)) < 80
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(MalformedDraw, match="result must be a list of integers; it holds a list"):
        DrawRecord.from_json({**_ROLL, "result": [deep]})


def test_what_to_json_writes_reads_back():
    stream = DrawStream(b"\x02" * 32, "m")
    for op, n, count in [("randbelow", 10, 1), ("shuffle", 9, 1), ("roll", 6, 4), ("shuffle", 0, 1)]:
        record = perform(stream, op, n, count)
        assert DrawRecord.from_json(record.to_json()) == record


def test_perform_gives_the_dataclass_record():
    stream = DrawStream(b"\x01" * 32, "m")
    for op, n, count in [("randbelow", 10, 1), ("shuffle", 7, 1), ("roll", 6, 4)]:
        first = stream.counter
        record = perform(stream, op, n, count)
        assert record == DrawRecord(op, n, count, record.result, first, stream.counter)
        assert type(record) is DrawRecord
