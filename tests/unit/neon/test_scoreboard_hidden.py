"""The scoreboard stack below its top token is hidden (RULES.md, "Hidden information").

"Shuffle the 10 scoreboard tokens face down and stack them. Then turn the stack face up ... The
top token shows the number of the sector that will close first" (neon.txt, Setup 2c). The
twin-state probe (tests/support/campaign/twins.py) moves hands, decks, card choices and private
loot, not this stack: here tables that differ only in the order of the tokens under the top one
must look the same to every viewer and ask the same.
"""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.engine import ENGINE
from tests.unit.neon.helpers import every_mode


def test_the_scoreboard_below_its_top_token_shows_nowhere() -> None:
    """Every seventh state of a seeded game of each mode, the tokens under the top one
    rotated."""
    checked = 0
    for n, state in enumerate(every_mode("scoreboard-hidden", 1)):
        if len(state.scoreboard) < 3 or n % 7:
            continue
        checked += 1
        under = list(state.scoreboard[1:])
        other = replace(state, scoreboard=(state.scoreboard[0], *under[1:], under[0]))
        assert [(d.seat, d.kind, d.legal) for d in ENGINE.pending(other)] == \
            [(d.seat, d.kind, d.legal) for d in ENGINE.pending(state)]
        for viewer in (None, *range(state.seats)):
            assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
    assert checked > 20
