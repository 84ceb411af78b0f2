"""The rulebook's FAQ, one answer per test."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.rulesets import V1_1

from .support import act, attack, defend, exchange, pass_, position, side


def test_a_star_power_cannot_be_reacted_to_or_shielded() -> None:
    # Volt: star limit 5, Star Power deals 4. Brick holds the maximum 4 Shields.
    state = position(side("volt", "neon-pulse", ["NP-17"], stars=4),
                     side("brick", "chrome-fury", ["CF-33"], shields=4))
    after = exchange(state, ["NP-17"])
    assert after.sides[1].health == 21
    assert after.sides[1].shields == 4


def test_stars_are_gained_one_at_a_time_so_none_is_lost() -> None:
    # 4 Stars, limit 5, an Up Joystick gains 2: the power fires once and 1 Star remains.
    state = position(side("volt", "neon-pulse", ["NP-17"], stars=4),
                     side("brick", "chrome-fury", []))
    after = exchange(state, ["NP-17"])
    assert after.sides[0].stars == 1
    assert after.sides[1].health == 21


def test_extra_stars_keep_coming_after_the_star_power_resolves() -> None:
    # 3 Stars + two Up Joysticks (2 + 2 + 1 Same Stick = 5): fires at the 2nd, then 3 more.
    state = position(side("volt", "neon-pulse", ["NP-17", "NP-18"], stars=3),
                     side("brick", "chrome-fury", []))
    after = exchange(state, ["NP-17", "NP-18"])
    assert after.sides[0].stars == 3
    assert after.sides[1].health == 21


def test_counters_answer_a_joystick_only_attack_but_a_block_cannot() -> None:
    state = attack(position(side("sol", "neon-pulse", ["NP-17"]),
                            side("brick", "chrome-fury", ["CF-33", "CF-37"])), "NP-17")
    (decision,) = ENGINE.pending(state)
    assert {"type": "defend", "cards": ["CF-33"], "targets": ["NP-17"]} in decision.legal
    assert not any("CF-37" in a.get("cards", ()) for a in decision.legal)
    reason = ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-37"]})
    assert reason is not None and "no effect" in reason


def test_no_universal_combos_when_defending() -> None:
    # Two Down Joysticks played in defence: 2 Stars and 2 Shields, no Same Stick Star.
    state = position(side("brick", "neon-pulse", ["NP-09"]),
                     side("sol", "chrome-fury", ["CF-21", "CF-22"]))
    after = exchange(state, ["NP-09"], ["CF-21", "CF-22"])
    assert (after.sides[1].stars, after.sides[1].shields) == (2, 1)  # 1 Shield spent on NP-09


def test_no_defending_against_a_defence_but_shields_block_its_damage() -> None:
    # Gato's Combo Breaker brings a 3-damage red Button: Volt's 2 Shields soak 2 of it.
    state = position(side("volt", "neon-pulse", ["NP-25", "NP-05"], shields=2),
                     side("sol", "chrome-fury", ["CF-41", "CF-01"]))
    after = exchange(state, ["NP-25", "NP-05"], ["CF-41", "CF-01"])
    assert (after.sides[0].health, after.sides[0].shields) == (24, 0)
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind) == (1, "turn")  # the Attacker gets no answer


def test_cards_drawn_by_a_star_power_cannot_be_played_that_turn() -> None:
    # Mika: limit 5, Star Power draws 2 and deals 2.
    state = position(side("mika", "neon-pulse", ["NP-17", "NP-01"], stars=3),
                     side("brick", "chrome-fury", []))
    after = exchange(state, ["NP-17"])
    assert len(after.sides[0].hand) == 3  # NP-01 plus the 2 drawn
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind) == (1, "turn")  # the turn is already over


def test_a_counter_with_no_effect_cannot_be_played() -> None:
    state = attack(position(side("sol", "neon-pulse", ["NP-13"]),
                            side("brick", "chrome-fury", ["CF-33", "CF-37", "CF-41"])), "NP-13")
    assert "no effect" in str(ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-33"]}))
    # A lone yellow Button triggers no Universal Combo: a bare Combo Breaker does nothing.
    assert "no effect" in str(ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-41"]}))
    assert ENGINE.validate(state, 1, {"type": "defend", "cards": ["CF-37"],
                                      "targets": ["NP-13"]}) is None


def test_a_button_with_a_combo_breaker_can_ko_before_the_attackers_damage() -> None:
    # Volt at 2 health would fire a 4-damage Star Power in Step 2; Gato's Button lands first.
    state = position(side("volt", "neon-pulse", ["NP-17", "NP-01"], stars=4, health=2),
                     side("gato", "chrome-fury", ["CF-41", "CF-03"]))
    after = exchange(state, ["NP-17", "NP-01"], ["CF-41", "CF-03"])
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.placements == (2, 1)
    assert after.sides[1].health == 25


def test_no_reshuffle_when_a_deck_runs_out() -> None:
    state = position(replace(side("sol", "neon-pulse", ["NP-33"]), deck=(),
                             discard=("NP-02", "NP-03")),
                     side("brick", "chrome-fury", ["CF-01"]))
    after = act(state, 0, {"type": "recover"}).state
    assert after.sides[0].hand == ("NP-33",)
    assert after.sides[0].deck == ()
    assert after.sides[0].discard == ("NP-02", "NP-03")


def test_engine_1_1_0_refused_a_recover_that_draws_nothing_while_an_attack_is_possible() -> None:
    full = ["NP-01", "NP-02", "NP-33", "NP-34", "NP-37", "NP-38", "NP-41"]
    state = position(side("sol", "neon-pulse", full), side("brick", "chrome-fury", ["CF-01"]),
                     rules=V1_1)
    (decision,) = ENGINE.pending(state)
    assert {"type": "recover"} not in decision.legal
    assert ENGINE.validate(state, 0, {"type": "recover"}) == (
        "Recover would draw no card while you can Attack: Attack instead")
    empty_deck = position(replace(side("sol", "neon-pulse", ["NP-01"]), deck=()),
                          side("brick", "chrome-fury", ["CF-01"]), rules=V1_1)
    assert ENGINE.validate(empty_deck, 0, {"type": "recover"}) is not None


def test_a_full_hand_that_can_only_defend_may_still_end_its_turn() -> None:
    defensive = ["NP-31", "NP-32", "NP-33", "NP-34", "NP-37", "NP-38", "NP-41"]
    state = position(side("sol", "neon-pulse", defensive), side("brick", "chrome-fury", ["CF-01"]))
    (decision,) = ENGINE.pending(state)
    assert decision.legal == ({"type": "recover"},)
    after = act(state, 0, {"type": "recover"}).state
    assert after.sides[0].hand == tuple(defensive) and ENGINE.outcome(after) is None


def test_engine_1_1_0_called_neither_player_able_to_attack_or_draw_out_of_cards() -> None:
    """Both hands full of cards that only Defend, decks not empty: nobody can ever act."""
    a = ["NP-31", "NP-32", "NP-33", "NP-34", "NP-37", "NP-38", "NP-41"]
    b = ["CF-33", "CF-34", "CF-35", "CF-36", "CF-37", "CF-38", "CF-41"]
    state = position(side("sol", "neon-pulse", a), side("brick", "chrome-fury", b[:6]),
                     rules=V1_1)
    after = act(state, 0, {"type": "recover"}).state  # brick can still draw: play goes on
    assert ENGINE.outcome(after) is None
    state = position(side("sol", "neon-pulse", a), side("brick", "chrome-fury", b), rules=V1_1)
    outcome = ENGINE.outcome(act(state, 0, {"type": "recover"}).state)
    assert outcome is not None and outcome.draw and "ran out of cards" in outcome.reason


def test_a_player_out_of_cards_can_no_longer_attack() -> None:
    state = position(replace(side("sol", "neon-pulse", ["NP-33"]), deck=()),
                     side("brick", "chrome-fury", ["CF-01"]))
    (decision,) = ENGINE.pending(state)
    assert decision.legal == ({"type": "recover"},)


def test_both_players_out_of_cards_is_a_double_ko() -> None:
    state = position(replace(side("sol", "neon-pulse", ["NP-13"]), deck=()),
                     replace(side("brick", "chrome-fury", ["CF-33"]), deck=()))
    after = pass_(attack(state, "NP-13"))
    outcome = ENGINE.outcome(after)
    assert outcome is not None
    assert outcome.draw and outcome.placements == (1, 1)
    assert "ran out of cards" in outcome.reason
    assert ENGINE.pending(after) == ()


def test_defend_is_not_offered_to_the_attacker() -> None:
    state = attack(position(side("sol", "neon-pulse", ["NP-13"]),
                            side("brick", "chrome-fury", ["CF-37"])), "NP-13")
    assert ENGINE.validate(state, 0, {"type": "pass"}) == "only the defender may answer an Attack"
    assert defend(state, "CF-37", targets=["NP-13"]).sides[1].health == 25
