"""The replay's comparison of engine events with the stored ones (``replay._events_differ``)
takes a public event of the contract's own class by its fields (``__dict__``) instead of a
dict made for it: exactly the events the host writes (``records.engine_events_json``) still
compare equal, and anything else still differs."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest

from services.rules import records as rec
from services.rules.games.contract import EngineEvent
from services.rules.replay import _events_differ


@dataclass(frozen=True)
class _Tagged(EngineEvent):
    """An engine's own event class with a field the host does not write."""

    tag: str = "x"


EVENTS = (
    EngineEvent("moved", {"fighter": 0, "sector": 8}),
    EngineEvent("drew", {"cards": ["CF-1", "CF-2"], "seat": 1}, frozenset({1, 0})),
    EngineEvent("flag", {"on": True, "count": 1}),
)


def _stored(events: tuple[EngineEvent, ...]) -> list:
    """The events as an export holds them: the host's JSON, through a round trip."""
    return orjson.loads(orjson.dumps(rec.engine_events_json(events), option=orjson.OPT_SORT_KEYS))


def test_the_events_the_host_writes_compare_equal():
    assert _events_differ(_stored(EVENTS), EVENTS) is None
    assert _events_differ([], ()) is None


@pytest.mark.parametrize("change", [
    lambda s: s[0]["data"].update(sector=9),
    lambda s: s[2]["data"].update(on=1),  # true is not 1
    lambda s: s[2]["data"].update(count=True),
    lambda s: s[0].update(visible_to=[0]),
    lambda s: s[1].update(visible_to=None),
    lambda s: s[0].update(extra=1),
    lambda s: s.pop(),
    lambda s: s.append(dict(s[0])),
])
def test_anything_else_differs(change):
    stored = _stored(EVENTS)
    change(stored)
    assert _events_differ(stored, EVENTS) is not None


def test_an_event_of_a_subclass_compares_as_the_host_writes_it():
    events = (_Tagged("moved", {"fighter": 0}),)
    assert _events_differ(_stored(events), events) is None  # the host writes no tag
    tagged = _stored(events)
    tagged[0]["tag"] = "x"
    assert _events_differ(tagged, events) is not None
