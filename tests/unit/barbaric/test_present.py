"""The presentation works on served JSON of real games, validates, and leaks nothing."""

from __future__ import annotations

import io

import jsonschema
from rich.console import Console

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric import present
from services.rules.games.barbaric.bots import RuleBot
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.contract import MatchConfig

ENGINE = BarbaricEngine()


def test_views_events_and_words_of_a_real_game() -> None:
    rng = SeededRandomness(3)
    state = ENGINE.setup(MatchConfig("competitive", 3), rng)
    bots = [RuleBot(s) for s in range(3)]
    console = Console(file=io.StringIO(), width=160)
    for _ in range(300):
        if ENGINE.outcome(state) is not None:
            break
        (d,) = ENGINE.pending(state)
        view = ENGINE.view(state, d.seat)
        jsonschema.validate(view, present.view_schema())
        assert all(present.describe_action(a, view) for a in d.legal)
        action = bots[d.seat].choose(view, d)
        transition = ENGINE.apply(state, d.seat, action, rng)
        for e in transition.events:
            projected = {"kind": e.kind, "data": dict(e.data)}
            jsonschema.validate(projected, present.event_schema())
            line = present.describe_event(projected, d.seat)
            assert line
            if e.kind == "card_drawn":
                assert e.visible_to == frozenset({e.data["seat"]})
        state = transition.state
        console.print(present.render(ENGINE.view(state, 0), 0))
    spectator = ENGINE.view(state, None)
    assert all("hand" not in p for p in spectator["players"])


def test_content_names_ruthless_tail_and_the_skills() -> None:
    pack = present.content()
    assert any(c["name"] == "RUTHLESS TAIL" for c in pack["monster"]["cards"])
    assert present.describe_action({"type": "learn", "card": "jackrabbit-carrot-missile/1"},
                                   {}) == "learn CARROT MISSILE"
