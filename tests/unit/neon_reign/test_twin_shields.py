"""The twin-state probe looks into a resolution paused for a Shield decision.

A Neon Reign state paused for a Shield decision keeps the sides as the defence left them
(``resolving.before``), hands and decks included, and the resolution starts again from them
when the damaged player answers. The twins (tests/support/campaign/twins.py) used to move
the cards of the sides only, so a twin resolved from the original hands and decks: its public
events differed for no leak of the engine's (a card struck from a deck top), and a leak of
``before`` could not be seen. The leak checker (tests/support/campaign/leaks.py) counted the
cards there as seen, likewise. Both now treat ``before`` as the hidden zones it holds.
"""

from __future__ import annotations

from typing import Any

from services.rules.games.neon_reign.state import SHIELDS
from tests.support.campaign.leaks import secrets
from tests.support.campaign.twins import probe
from tests.unit.test_twin_states import Planted, _view_with

# A random-bot Hero Match whose step 44 is a Shield decision in a paused resolution; the
# struck deck top that follows is public.
GAME, MODE, SEATS, SEED, STEPS = "neon-reign", "hero-match", 2, 1002, 50


def test_twins_of_a_paused_resolution_resolve_the_same_in_public() -> None:
    assert probe(GAME, MODE, SEATS, SEED, steps=STEPS, refusals=1) == []


def test_a_planted_leak_of_a_paused_resolutions_hands_is_found() -> None:
    def before_hands(state: Any, viewer: Any) -> Any:
        if state.resolving is None:
            return None
        return [list(side.hand) for i, side in enumerate(state.resolving.before) if i != viewer]

    engine = Planted(GAME, view=_view_with(before_hands))
    found = probe(GAME, MODE, SEATS, SEED, steps=STEPS, engine=engine, first=True)
    assert any("view differs" in f for f in found), found


def test_the_leak_checker_counts_a_paused_resolutions_cards_as_hidden() -> None:
    from services.platform.draws import SeededRandomness
    from services.rules.bots import RandomBot
    from services.rules.games import load_engine
    from services.rules.games.contract import MatchConfig

    engine = load_engine(GAME)
    rng = SeededRandomness(f"twins:{GAME}:{MODE}:{SEATS}:{SEED}")
    state = engine.setup(MatchConfig(MODE, SEATS, {}), rng)
    bot = RandomBot(f"twins:{GAME}:{SEED}")
    for _ in range(STEPS):
        if state.phase == SHIELDS:
            break
        pending = engine.pending(state)
        decision = pending[bot.pick(list(range(len(pending))))]
        state = engine.apply(state, decision.seat, bot.choose(decision), rng).state
    assert state.phase == SHIELDS
    encoded = engine.encode(state)
    for viewer in (None, 0, 1):
        hidden = secrets(GAME, encoded, viewer)
        for index, side in enumerate(state.resolving.before):
            assert set(side.deck) - set(side.discard) <= hidden | _public(state)
            if index != viewer:
                assert set(side.hand) - _public(state) <= hidden


def _public(state: Any) -> set[str]:
    """Cards face up now: discard piles and the Attack in play."""
    return {c for side in state.sides for c in side.discard} | set(state.in_play)
