"""Side channels: views and the public pending list never depend on a hidden zone.

Twin states differ from a random-bot game's states only in what the viewer may not see (deck
orders, other seats' hands reshuffled with their decks); the viewer's view and who is asked
for what, ``(seat, kind)`` as the host shows everyone, must be the same for both.
"""

from __future__ import annotations

import pytest

from tests.support.campaign.leaks import setups
from tests.support.campaign.twins import probe

GAMES = ("neon", "neon-reign", "neon-knights-2086", "barbaric")


@pytest.mark.parametrize("game", GAMES)
def test_twin_states_look_the_same_and_ask_the_same_seats(game: str) -> None:
    combos = list(setups(game))
    found: list[str] = []
    for i in range(3):
        mode, seats = combos[i % len(combos)]
        found += [f for f in probe(game, mode, seats, i, steps=120)
                  if "view differs" in f or ": pending " in f]
    assert found == []
