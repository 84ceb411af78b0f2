"""Defend: up to 2 cards; Counters, Defend-icon Joysticks, a Button only with a Combo Breaker."""

from __future__ import annotations

from services.rules.games.neon_reign import ENGINE

from .support import attack, exchange, position, side

ATTACKER = ["NP-17", "NP-01", "NP-05"]  # Up Joystick, red 2, blue 2
DEFENDER = ["CF-33", "CF-34", "CF-37", "CF-38", "CF-41", "CF-42", "CF-01", "CF-21", "CF-25"]


def attacked(hero: str = "sol") -> object:
    return attack(position(side("brick", "neon-pulse", ATTACKER),
                           side(hero, "chrome-fury", DEFENDER)), *ATTACKER)


def test_passing_is_legal_and_listed() -> None:
    (decision,) = ENGINE.pending(attacked())
    assert decision.kind == "defend" and decision.optional
    assert decision.legal[0] == {"type": "pass"}


def test_the_defender_sees_the_attack_before_defending() -> None:
    assert ENGINE.view(attacked(), 1)["in_play"] == ATTACKER


def test_at_most_two_cards() -> None:
    reason = ENGINE.validate(attacked(), 1, {"type": "defend", "cards": ["CF-33", "CF-37", "CF-38"],
                                             "targets": ["NP-17", "NP-01", "NP-05"]})
    assert reason is not None and "at most 2 cards" in reason


def test_a_button_with_a_combo_breaker_is_outside_the_limit() -> None:
    action = {"type": "defend", "cards": ["CF-33", "CF-41", "CF-01"], "targets": ["NP-17"]}
    assert ENGINE.validate(attacked(), 1, action) is None
    legal = ENGINE.pending(attacked())[0].legal
    listed = [(sorted(a.get("cards", [])), a.get("targets")) for a in legal]
    assert (["CF-01", "CF-33", "CF-41"], ["NP-17"]) in listed


def test_one_button_per_combo_breaker() -> None:
    state = attack(position(side("brick", "neon-pulse", ATTACKER),
                            side("sol", "chrome-fury", ["CF-41", "CF-01", "CF-05"])), *ATTACKER)
    reason = ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-41", "CF-01", "CF-05"]})
    assert reason is not None and "Combo Breaker" in reason


def test_a_button_alone_cannot_defend() -> None:
    reason = ENGINE.validate(attacked(), 1, {"type": "defend", "cards": ["CF-01"]})
    assert reason is not None and "Combo Breaker" in reason


def test_a_hero_ability_can_allow_buttons_when_defending() -> None:
    # Mika may Defend with Buttons; they deal their damage in Step 3.
    state = attacked("mika")
    assert ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-01"]}) is None
    after = exchange(position(side("brick", "neon-pulse", ATTACKER),
                              side("mika", "chrome-fury", DEFENDER)), ATTACKER, ["CF-01"])
    assert after.sides[0].health == 22


def test_multiple_blocks_remove_one_button_each() -> None:
    start = position(side("brick", "neon-pulse", ATTACKER), side("sol", "chrome-fury", DEFENDER))
    after = exchange(start, ATTACKER, ["CF-37", "CF-38"], targets=["NP-01", "NP-05"])
    assert after.sides[1].health == 25
    assert after.sides[0].stars == 2  # the Up Joystick still resolves


def test_multiple_throws_remove_one_joystick_each() -> None:
    hand = ["NP-17", "NP-18", "NP-01"]
    start = position(side("brick", "neon-pulse", hand), side("sol", "chrome-fury", DEFENDER))
    after = exchange(start, hand, ["CF-33", "CF-34"], targets=["NP-17", "NP-18"])
    assert after.sides[0].stars == 0
    assert after.sides[1].health == 23


def test_a_combo_breaker_stops_every_universal_combo() -> None:
    hand = ["NP-09", "NP-10", "NP-11"]  # three greens: 3 + 3 pairs = 6 damage
    start = position(side("brick", "neon-pulse", hand),
                     side("sol", "chrome-fury", ["CF-41"]))
    after = exchange(start, hand, ["CF-41"])
    assert after.sides[1].health == 22


def test_only_defend_icon_joysticks() -> None:
    reason = ENGINE.validate(attacked(), 1, {"type": "defend", "cards": ["CF-25"]})
    assert reason is not None and "Defend icon" in reason


def test_each_target_matches_its_counter() -> None:
    state = attacked()
    assert "Joystick target" in str(ENGINE.validate(
        state, 1, {"type": "defend", "cards": ["CF-33"], "targets": ["NP-01"]}))
    assert "different" in str(ENGINE.validate(
        state, 1, {"type": "defend", "cards": ["CF-37"], "targets": ["CF-01"]}))
