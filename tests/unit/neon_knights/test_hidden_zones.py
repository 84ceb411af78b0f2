"""The discarded Fan Bets are nobody's to see (RULES.md, "Hidden information: what each seat
receives").

A driver who draws a Fan Bet discards one of its bets, or keeps them all, in a hidden decision;
the card discarded lies in the Fan Bet discard pile until Clean Up shuffles it back into the
deck. Views show the pile's size only. The twin-state probe (tests/support/campaign/twins.py)
moves hands, packets, picks and deck orders, not this pile: here tables that differ only in
which bets are in the discard pile and which in the deck look the same to every viewer and ask
the same.
"""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot

from .support import ENGINE, edit, new_game


def test_the_discarded_fan_bets_show_nowhere() -> None:
    rng = SeededRandomness("discarded-bets")
    bot = RandomBot("discarded-bets")
    state = new_game(3, seed="discarded-bets")
    checked = 0
    for _ in range(1200):
        if ENGINE.outcome(state) is not None:
            break
        doc = state.doc
        if doc["discards"]["bets"] and doc["decks"]["bets"]:
            checked += 1

            def swap(d: dict[str, Any]) -> None:
                pile, deck = d["discards"]["bets"], d["decks"]["bets"]
                pile[0], deck[-1] = deck[-1], pile[0]

            other = edit(state, swap)
            assert other.doc["discards"]["bets"] != doc["discards"]["bets"]
            assert [(d.seat, d.kind, d.legal) for d in ENGINE.pending(other)] == \
                [(d.seat, d.kind, d.legal) for d in ENGINE.pending(state)]
            for viewer in (None, 0, 1, 2):
                assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
        decision = ENGINE.pending(state)[bot.pick(list(range(len(ENGINE.pending(state)))))]
        state = ENGINE.apply(state, decision.seat, bot.choose(decision), rng).state
    assert checked > 10
