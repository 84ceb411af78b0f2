"""The engine's own constructors of events, resolutions and defences (an instance dict set
at once) make exactly the objects the dataclasses' constructors make."""

from __future__ import annotations

import pickle

from services.rules.games.contract import EngineEvent
from services.rules.games.neon_reign.state import (
    Defense,
    Resolving,
    Side,
    defense,
    event,
    resolving,
)


def _same(a, b):
    assert a == b and type(a) is type(b)
    assert list(vars(a).items()) == list(vars(b).items())  # same fields, same order
    assert repr(a) == repr(b)
    assert pickle.loads(pickle.dumps(a)) == b


def test_event_is_an_engine_event():
    _same(event("drew", {"side": 1, "cards": ["NP-01"]}, frozenset({1})),
          EngineEvent("drew", {"side": 1, "cards": ["NP-01"]}, frozenset({1})))
    _same(event("passed", {"side": 0}), EngineEvent("passed", {"side": 0}))


def test_resolving_and_defense_are_the_dataclasses():
    sides = (Side("volt"), Side("kira"))
    made = defense(("B-1", "T-1"), ("J-2",), 1, 0, 0, (), (), ())
    want = Defense(cards=("B-1", "T-1"), targets=("J-2",), throws=1)
    _same(made, want)
    _same(resolving(sides, made), Resolving(sides, want))


def test_they_stay_frozen():
    import dataclasses

    import pytest

    for obj in (event("x", {}), defense((), (), 0, 0, 0, (), (), ()),
                resolving((Side("a"), Side("b")), Defense())):
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.kind = "y"  # type: ignore[misc]
