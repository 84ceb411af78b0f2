"""Neon Reign views are JSON values as a client reads them back, so self-play skips the
round trip.

``NeonReignEngine.json_views`` promises that a view (of a seat or a spectator) holds dicts
with string keys, lists (never tuples), strings, integers, booleans and ``None`` only: equal,
type for type, to ``json.loads(json.dumps(view))``. ``selfplay.client_view`` then hands the
view to the bots as it is; the bots read it and never change it, and each view is a new
value (a bot that kept one sees it unchanged by the next).
"""

from __future__ import annotations

import json
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE
from services.rules.selfplay import client_view, setups


def same_json(value: Any, back: Any, path: str = "view") -> None:
    """``value`` equals ``back`` with the same type at every level (``==`` alone takes a
    tuple for a list's equal, and True for 1)."""
    assert type(value) is type(back), f"{path}: {type(value).__name__} != {type(back).__name__}"
    if type(value) is dict:
        assert list(value) == list(back), f"{path}: keys"
        for key in value:
            same_json(value[key], back[key], f"{path}.{key}")
    elif type(value) is list:
        assert len(value) == len(back), f"{path}: length"
        for n, (a, b) in enumerate(zip(value, back, strict=True)):
            same_json(a, b, f"{path}[{n}]")
    else:
        assert value == back, path


def test_views_are_what_a_client_reads_and_bots_leave_them_as_they_are() -> None:
    engine = ENGINE
    assert engine.json_views
    assert client_view(engine)("x") == "x"  # handed over as it is
    phases: set[str] = set()
    for mode in ("single", "best-of-three", "hero-match", "solo"):
        plans = setups(engine, mode)
        for n, setup in enumerate(plans * 2):
            for bot in ("rule", "random"):
                rng = SeededRandomness(f"views-json:{mode}:{n}:{bot}")
                state = engine.setup(MatchConfig(mode, setup.seats, setup.options), rng)
                bots = [make_bot(bot, f"{n}-{seat}", "neon-reign") for seat in range(setup.seats)]
                kept: list[tuple[Any, str]] = []
                while pending := engine.pending(state):
                    decision = pending[0]
                    phases.add(state.phase)
                    spectator = engine.view(state, None)
                    same_json(spectator, json.loads(json.dumps(spectator)))
                    view = engine.view(state, decision.seat)
                    before = json.dumps(view)
                    same_json(view, json.loads(before))
                    kept.append((view, before))
                    action = bots[decision.seat].choose(decision, view)
                    assert json.dumps(view) == before, "a bot changed the view it read"
                    state = engine.apply(state, decision.seat, action, rng).state
                for view, before in kept:  # no later view or step changed an earlier one
                    assert json.dumps(view) == before
    assert phases >= {"pick", "turn", "defend", "shields"}
