"""Resigning reveals nothing: the fighter's hand, deck order and face-down card choice stay
as hidden as they were (RULES.md, "Hidden information"; ruling of version 4).

A twin pair for seat 0 (tests/support/campaign/twins.py) differs only in what seat 0 may not
see; after the same resignation, seat 0 and a spectator must still see the same.
"""

from __future__ import annotations

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.engine import ENGINE, ENGINES
from tests.support.campaign.twins import public_events, twin

RESIGN = {"type": "resign"}


def _chosen_face_down(engine=ENGINE):  # type: ignore[no-untyped-def]
    rng = SeededRandomness("resign-hidden")
    state = engine.setup(MatchConfig("rebirth", 3, dict(engine.match_options("rebirth", 3))), rng)
    d = next(d for d in engine.pending(state) if d.seat == 1)
    state = engine.apply(state, 1, d.legal[5], rng).state
    assert state.fighters[1].choice is not None and not state.fighters[1].row
    return state


def test_resigning_keeps_a_face_down_choice_hand_and_deck_hidden() -> None:
    state = _chosen_face_down()
    for t in range(8):
        other = twin("neon", state, 0, SeededRandomness(f"twin {t}"))
        assert other.fighters[1] != state.fighters[1]
        for viewer in (0, None):
            assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
        a = ENGINE.apply(state, 1, RESIGN, SeededRandomness("r"))
        b = ENGINE.apply(other, 1, RESIGN, SeededRandomness("r"))
        for viewer in (0, None):
            assert ENGINE.view(b.state, viewer) == ENGINE.view(a.state, viewer)
            assert public_events(b.events, viewer) == public_events(a.events, viewer)


def test_version_3_still_discards_what_the_resigning_fighter_held() -> None:
    """Exports of version 3 replay as they were played."""
    v3 = ENGINES["3"]
    state = _chosen_face_down(v3)
    f = state.fighters[1]
    after = v3.apply(state, 1, RESIGN, SeededRandomness("r")).state.fighters[1]
    assert after.discard == f.discard + f.hand + f.deck + (f.choice.top, f.choice.bottom)
    assert after.hand == after.deck == ()
