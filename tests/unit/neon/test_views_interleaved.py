"""NEON views keep parts in module-level slots (per fighter, per viewer, per stack depth...),
reused while the object a part was made from is the one asked about, and a fighter's public
part is remade from the last one for the fields that changed. Two matches of different
modes played in turns, each asked for every seat's and the spectator's view at every step:
each view equals the one made from nothing (the slots emptied), so no part of one match,
seat or mode shows in another's.
"""

from __future__ import annotations

import json
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import views
from services.rules.games.neon.engine import ENGINE


def _from_nothing(state: Any, viewer: int | None) -> str:
    """The view with every slot emptied first (nothing reused)."""
    for slots in (views._FIGHTERS, views._PUBLIC, views._LISTS, views._FRAMES):
        slots.clear()
    views._RING = [None, None, None, [], []]
    views._TABLE = (None, ())
    views._BOARD = ((), {})
    return json.dumps(ENGINE.view(state, viewer))


def test_interleaved_matches_seats_and_spectator_get_their_own_views() -> None:
    games = []
    for n, (mode, seats, options) in enumerate([
            ("coalition", 4, {"teams": [[0, 2], [1, 3]]}), ("battle-royale", 3, {}),
            ("coalition", 4, {"teams": [[0, 1], [2, 3]]})]):
        rng = SeededRandomness(f"views-interleaved:{n}")
        games.append([ENGINE.setup(MatchConfig(mode, seats, options), rng), rng,
                      SeededRandomness(f"views-interleaved-pick:{n}"), seats])
    compared = 0
    for _ in range(120):
        for game in games:
            state, rng, pick, seats = game
            pending = ENGINE.pending(state)
            if not pending:
                continue
            for viewer in (None, *range(seats)):
                cached = json.dumps(ENGINE.view(state, viewer))
                assert cached == _from_nothing(state, viewer), (viewer, state.mode)
                compared += 1
            decision = pending[pick.randbelow(len(pending))]
            action = decision.legal[pick.randbelow(len(decision.legal))]
            game[0] = ENGINE.apply(state, decision.seat, action, rng).state
    assert compared > 1000
