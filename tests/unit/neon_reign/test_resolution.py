"""Resolution Order, Star Power Resolution, tokens and Hero Abilities."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon_reign import ENGINE

from .support import act, attack, defend, exchange, position, side


def test_shields_stack_to_four_at_most() -> None:
    state = position(side("sol", "neon-pulse", ["NP-21", "NP-22"], shields=3),
                     side("brick", "chrome-fury", []))
    assert exchange(state, ["NP-21", "NP-22"]).sides[0].shields == 4


def test_no_healing_above_starting_health() -> None:
    state = position(side("sol", "neon-pulse", ["NP-25", "NP-09", "NP-01"], health=24),
                     side("brick", "chrome-fury", []))
    assert exchange(state, ["NP-25", "NP-09", "NP-01"]).sides[0].health == 25


def test_strike_discards_the_top_card_face_up() -> None:
    state = position(side("sol", "neon-pulse", ["NP-28"]),
                     side("brick", "chrome-fury", [], top=["CF-44"]))
    transition = act(attack(state, "NP-28"), 1, {"type": "pass"})
    assert transition.state.sides[1].discard == ("CF-44",)
    struck = [e for e in transition.events if e.kind == "struck"]
    assert struck[0].data["card"] == "CF-44" and struck[0].visible_to is None


def test_draw_is_seen_only_by_the_drawer() -> None:
    state = position(side("sol", "neon-pulse", ["NP-27"], top=["NP-44"]),
                     side("brick", "chrome-fury", []))
    transition = act(attack(state, "NP-27"), 1, {"type": "pass"})
    assert "NP-44" in transition.state.sides[0].hand
    for event in transition.events:
        if "NP-44" in str(event.data):
            assert event.visible_to == frozenset({0})


def test_throw_recycle_returns_a_throw_from_the_discard_pile() -> None:
    state = position(replace(side("sol", "neon-pulse", ["NP-30"]), discard=("NP-33",)),
                     side("brick", "chrome-fury", []))
    after = exchange(state, ["NP-30"])
    assert "NP-33" in after.sides[0].hand and "NP-33" not in after.sides[0].discard


def test_both_star_powers_at_once_can_double_ko() -> None:
    # Volt (limit 5, 4 damage) attacks with an Up Joystick; Gato (limit 6, 3 damage)
    # defends with one. Both powers fire on the first Star each: simultaneous.
    state = position(side("volt", "neon-pulse", ["NP-17"], stars=4, health=3),
                     side("gato", "chrome-fury", ["CF-17"], stars=5, health=3))
    after = exchange(state, ["NP-17"], ["CF-17"])
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.draw and outcome.placements == (1, 1)


def test_a_ko_during_a_star_power_ends_the_match_before_the_buttons() -> None:
    state = position(side("volt", "neon-pulse", ["NP-17", "NP-01"], stars=4),
                     side("ruin", "chrome-fury", [], health=4))
    transition = act(attack(state, "NP-17", "NP-01"), 1, {"type": "pass"})
    assert [e.data["source"] for e in transition.events if e.kind == "damage"] == ["star power"]
    outcome = ENGINE.outcome(transition.state)
    assert outcome is not None and outcome.placements == (1, 2)


def test_button_damage_from_both_sides_is_simultaneous() -> None:
    state = position(side("brick", "neon-pulse", ["NP-01"], health=2),
                     side("mika", "chrome-fury", ["CF-01"], health=2))
    outcome = ENGINE.outcome(exchange(state, ["NP-01"], ["CF-01"]))
    assert outcome is not None and outcome.draw


class TestHeroAbilities:
    def test_colour_bonus_counts_every_button_of_that_colour(self) -> None:
        # Volt: blue +1. Two blues: 2 + 2, +1 +1, Double Tap +1 = 7.
        state = position(side("volt", "neon-pulse", ["NP-05", "NP-06"]),
                         side("brick", "chrome-fury", []))
        assert exchange(state, ["NP-05", "NP-06"]).sides[1].health == 18

    def test_colour_bonus_applies_when_defending_too(self) -> None:
        state = position(side("brick", "neon-pulse", ["NP-17", "NP-01"]),
                         side("volt", "chrome-fury", ["CF-41", "CF-05"]))
        assert exchange(state, ["NP-17", "NP-01"], ["CF-41", "CF-05"]).sides[0].health == 22

    def test_joystick_star_bonus(self) -> None:
        state = position(side("kira", "neon-pulse", ["NP-17"]), side("brick", "chrome-fury", []))
        assert exchange(state, ["NP-17"]).sides[0].stars == 3

    def test_shield_on_block(self) -> None:
        # Brick blocks the red; the Shield it gains stops the green's 1 damage.
        state = position(side("sol", "neon-pulse", ["NP-01", "NP-09"]),
                         side("brick", "chrome-fury", ["CF-37"]))
        after = exchange(state, ["NP-01", "NP-09"], ["CF-37"], targets=["NP-01"])
        assert (after.sides[1].health, after.sides[1].shields) == (25, 0)

    def test_strike_on_throw(self) -> None:
        state = position(side("sol", "neon-pulse", ["NP-17"], top=["NP-40"]),
                         side("nyx", "chrome-fury", ["CF-33"]))
        after = exchange(state, ["NP-17"], ["CF-33"], targets=["NP-17"])
        assert after.sides[0].discard == ("NP-40", "NP-17")

    def test_heal_on_recover(self) -> None:
        state = position(side("sol", "neon-pulse", ["NP-01"], health=20),
                         side("brick", "chrome-fury", []))
        assert act(state, 0, {"type": "recover"}).state.sides[0].health == 22

    def test_combo_damage_bonus_for_every_combo(self) -> None:
        # Rex: three greens = 3 + 3 Double Taps + 3 (one per combo) = 9.
        hand = ["NP-09", "NP-10", "NP-11"]
        state = position(side("rex", "neon-pulse", hand), side("brick", "chrome-fury", []))
        assert exchange(state, hand).sides[1].health == 16

    def test_star_on_damage_taken(self) -> None:
        state = position(side("sol", "neon-pulse", ["NP-01"]), side("ruin", "chrome-fury", []))
        assert exchange(state, ["NP-01"]).sides[1].stars == 1


def test_played_cards_go_to_the_discard_pile_after_the_turn() -> None:
    state = position(side("sol", "neon-pulse", ["NP-01"]), side("brick", "chrome-fury", ["CF-37"]))
    after = defend(attack(state, "NP-01"), "CF-37", targets=["NP-01"])
    assert after.sides[0].discard == ("NP-01",) and after.sides[1].discard == ("CF-37",)
