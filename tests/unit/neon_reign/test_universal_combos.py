"""Universal Combos: the rulebook's five worked examples, exactly.

The Attacker is Sol and the defender Brick: neither Hero Ability touches these plays.
Neon Pulse cards: NP-01 red 2, NP-09..12 green 1, NP-17.. Up (2 Stars), NP-21.. Down
(1 Star + 1 Shield), NP-25 Right (1 Star).
"""

from __future__ import annotations

from services.rules.games.neon_reign.combos import universal_combos
from services.rules.games.neon_reign.content import card

from .support import exchange, position, side


def duel(hand: list[str], **attacker_tokens: int):  # type: ignore[no-untyped-def]
    return position(side("sol", "neon-pulse", hand, **attacker_tokens),
                    side("brick", "chrome-fury", ["CF-01"]))


def test_joystick_and_two_buttons_of_the_same_colour() -> None:
    after = exchange(duel(["NP-21", "NP-09", "NP-10"]), ["NP-21", "NP-09", "NP-10"])
    sol, brick = after.sides
    assert (sol.stars, sol.shields, 25 - brick.health) == (1, 3, 3)


def test_joystick_and_a_button() -> None:
    before = duel(["NP-25", "NP-01"])
    top = before.sides[1].deck[0]
    after = exchange(before, ["NP-25", "NP-01"])
    sol, brick = after.sides
    assert sol.stars == 1
    assert brick.discard == (top,)  # Struck from the top of their deck
    assert 25 - brick.health == 2


def test_two_of_the_same_joystick() -> None:
    after = exchange(duel(["NP-17", "NP-18"]), ["NP-17", "NP-18"])
    assert after.sides[0].stars == 5


def test_joystick_and_two_different_buttons() -> None:
    after = exchange(duel(["NP-25", "NP-09", "NP-01"], health=20), ["NP-25", "NP-09", "NP-01"])
    sol, brick = after.sides
    assert (sol.stars, sol.health, 25 - brick.health) == (1, 23, 3)


def test_three_green_buttons_make_every_pair_a_combo() -> None:
    after = exchange(duel(["NP-09", "NP-10", "NP-11"]), ["NP-09", "NP-10", "NP-11"])
    assert 25 - after.sides[1].health == 6


def test_three_down_joysticks_make_every_pair_a_combo() -> None:
    after = exchange(duel(["NP-21", "NP-22", "NP-23"]), ["NP-21", "NP-22", "NP-23"])
    sol = after.sides[0]
    assert (sol.shields, sol.stars) == (3, 6)


def test_each_card_may_be_used_in_several_combos() -> None:
    hits = universal_combos(card(i) for i in ("NP-21", "NP-09", "NP-10"))
    assert sorted(hit.id for hit in hits) == ["double-tap", "guard-break"]


def test_every_combo_met_fires() -> None:
    hits = universal_combos(card(i) for i in ("NP-17", "NP-18", "NP-19"))
    assert [hit.id for hit in hits] == ["same-stick"] * 3
