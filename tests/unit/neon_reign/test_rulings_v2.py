"""Engine 1.2.0: the choices the rulebook gives players (issue 11), each through the legal
actions of the right seat at the right time, next to what engine 1.1.0 did."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.rules.games.contract import RESIGN, answering
from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.rulesets import V1_1

from .support import act, attack, pass_, position, side


# "Shield ... These tokens may be discarded at any time to prevent 1 damage per Shield token,
#  except in response to Star Power abilities"
def test_spending_shields_is_the_damaged_players_choice() -> None:
    state = position(side("sol", "neon-pulse", ["NP-45"]),
                     side("brick", "chrome-fury", ["CF-33"], shields=3))
    state = act(state, 0, {"type": "attack", "cards": ["NP-45"]}).state
    state = act(state, 1, {"type": "pass"}).state
    (decision,) = ENGINE.pending(state)
    assert (decision.seat, decision.kind) == (1, "shields")
    assert decision.legal == tuple({"type": "shields", "spend": n} for n in (3, 2, 1, 0))
    assert decision.default == {"type": "shields", "spend": 3}
    assert ENGINE.view(state, 0)["pending_damage"] == {
        "side": 1, "amount": 4, "most": 3, "source": "buttons"}
    kept = act(state, 1, {"type": "shields", "spend": 0}).state
    assert (kept.sides[1].health, kept.sides[1].shields) == (21, 3)
    spent = act(state, 1, {"type": "shields", "spend": 2}).state
    assert (spent.sides[1].health, spent.sides[1].shields) == (23, 1)
    assert ENGINE.validate(state, 1, {"type": "shields", "spend": 4}) is not None
    assert ENGINE.validate(state, 0, {"type": "shields", "spend": 0}) is not None


def test_no_shield_decision_without_shields_nor_against_a_star_power() -> None:
    # Volt (limit 5, Star Power 4 damage) at 4 Stars: the Star Power cannot be Shielded.
    state = position(side("volt", "neon-pulse", ["NP-25"], stars=4),
                     side("brick", "chrome-fury", [], shields=4))
    state = pass_(attack(state, "NP-25"))
    assert state.sides[1].health == 21 and state.sides[1].shields == 4


def test_engine_1_1_0_spent_shields_without_asking() -> None:
    state = position(side("sol", "neon-pulse", ["NP-45"]),
                     side("brick", "chrome-fury", [], shields=3), rules=V1_1)
    state = act(act(state, 0, {"type": "attack", "cards": ["NP-45"]}).state, 1,
                {"type": "pass"}).state
    assert state.phase == "turn" and (state.sides[1].health, state.sides[1].shields) == (24, 0)


# "On your turn, you must take one of the following actions. ... Recover — Draw cards until
#  you have 7. Your turn ends."
def test_recover_stays_legal_even_when_it_draws_nothing() -> None:
    full = ["NP-45", "NP-46", "NP-33", "NP-34", "NP-37", "NP-38", "NP-41"]
    state = position(side("sol", "neon-pulse", full), side("brick", "chrome-fury", ["CF-45"]))
    (decision,) = ENGINE.pending(state)
    assert {"type": "recover"} in decision.legal
    # A clock does not stall a game that can go on: it Attacks with the first single card.
    assert decision.default == {"type": "attack", "cards": ["NP-45"]}
    after = act(state, 0, {"type": "recover"}).state
    assert after.sides[0].hand == tuple(full) and ENGINE.outcome(after) is None
    assert (after.active, after.phase) == (1, "turn")


# FAQ: "Can I play a Counter card when it will have no effect? No." and "Combo Breaker — Stops
# all Universal Combos and allows the player to play a single Button card when Defending"
def test_no_idle_second_combo_breaker_next_to_one_that_brings_a_button() -> None:
    # Down Joystick + two reds: Guard Break and Double Tap fire.
    state = position(side("sol", "neon-pulse", ["NP-21", "NP-45", "NP-46"]),
                     side("brick", "chrome-fury", ["CF-41", "CF-42", "CF-45"]))
    state = attack(state, "NP-21", "NP-45", "NP-46")
    (decision,) = ENGINE.pending(state)
    idle = {"type": "defend", "cards": ["CF-41", "CF-42", "CF-45"]}
    assert idle not in decision.legal
    assert "no effect" in str(ENGINE.validate(state, 1, idle))
    assert {"type": "defend", "cards": ["CF-41", "CF-45"]} in decision.legal
    assert {"type": "defend", "cards": ["CF-41"]} in decision.legal  # stops the combos alone
    old = replace(state, rules=V1_1)
    assert ENGINE.validate(old, 1, idle) is None


# "All effects that occur in the same step happen simultaneously." / "It is possible for both
#  players to activate Star Power Abilities at the same time. If this happens and both heroes
#  are reduced to 0 health at the same time, the game will end in a double KO."
def test_star_powers_reached_in_the_same_step_are_simultaneous() -> None:
    # Volt needs 1 Star (4 damage), Ruin needs 2 (4 damage); both at 4 health.
    def exchange(rules: object) -> object:
        state = position(side("volt", "neon-pulse", ["NP-25"], stars=4, health=4),
                         side("ruin", "chrome-fury", ["CF-17"], stars=4, health=4),
                         rules=rules)
        state = act(state, 0, {"type": "attack", "cards": ["NP-25"]}).state
        return ENGINE.outcome(act(state, 1, {"type": "defend", "cards": ["CF-17"]}).state)

    now = exchange(ENGINE.rules)
    assert now is not None and now.draw and now.placements == (1, 1)
    before = exchange(V1_1)  # 1.1.0: Volt's first Star fired before Ruin's second arrived
    assert before is not None and before.placements == (1, 2)


# FAQ: "If both players run out of cards before either player is KO'd, it ends in a double KO."
def test_a_hero_match_where_both_run_out_of_cards_ends_in_a_double_ko() -> None:
    def play(rules: object) -> object:
        state = position(replace(side("sol", "neon-pulse", ["NP-45"]), deck=()),
                         replace(side("brick", "chrome-fury", ["CF-33"]), deck=(),
                                 bench=("kira",)), mode="hero-match", rules=rules)
        return ENGINE.outcome(pass_(attack(state, "NP-45")))

    now = play(ENGINE.rules)
    assert now is not None and now.draw and now.placements == (1, 1)
    assert "ran out of cards" in now.reason
    before = play(V1_1)  # 1.1.0: the seat with a spare hero was handed the win
    assert before is not None and before.placements == (2, 1)


# FAQ: "If either player runs out of cards, they have no resources to continue and can no
# longer Attack."
SEVEN_P = ["NP-33", "NP-34", "NP-35", "NP-37", "NP-38", "NP-39", "NP-41"]
SEVEN_C = ["CF-33", "CF-34", "CF-35", "CF-37", "CF-38", "CF-39", "CF-41"]


def test_seven_defend_only_cards_with_a_full_deck_is_not_running_out_of_cards() -> None:
    state = position(side("sol", "neon-pulse", SEVEN_P), side("brick", "chrome-fury", ["CF-45"]))
    (decision,) = ENGINE.pending(state)
    assert decision.legal == ({"type": "recover"},)  # no card can Attack; Recover ends the turn
    after = act(state, 0, {"type": "recover"}).state
    assert ENGINE.outcome(after) is None  # the opponent can Attack, so seat 0 will Defend again


def test_both_stuck_with_seven_defend_only_cards_is_a_double_ko_though_decks_are_full() -> None:
    state = position(side("sol", "neon-pulse", SEVEN_P), side("brick", "chrome-fury", SEVEN_C))
    outcome = ENGINE.outcome(act(state, 0, {"type": "recover"}).state)
    assert outcome is not None and outcome.draw
    assert "ever again" in outcome.reason and "ran out of cards" not in outcome.reason


# Contract v2: resigning at any time; the opponent (in Solo, the Computer) wins.
def test_either_seat_may_resign_at_any_time() -> None:
    state = attack(position(side("sol", "neon-pulse", ["NP-45"]),
                            side("brick", "chrome-fury", ["CF-37"])), "NP-45")
    standing = ENGINE.standing(state)
    assert [(d.seat, d.kind, d.standing, d.default) for d in standing] == [
        (0, "resign", True, None), (1, "resign", True, None)]
    assert answering([*ENGINE.pending(state), standing[0]], RESIGN) is standing[0]
    assert ENGINE.validate(state, 0, RESIGN) is None  # the Attacker, during the defence
    after = act(state, 0, dict(RESIGN)).state
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.placements == (2, 1) and "resigned" in outcome.reason
    assert ENGINE.pending(after) == () and ENGINE.standing(after) == ()


def test_resigning_in_solo_lets_the_computer_win() -> None:
    from .support import new_match
    state = new_match("solo", 1, difficulty="normal")
    outcome = ENGINE.outcome(act(state, 0, dict(RESIGN)).state)
    assert outcome is not None and outcome.placements == (2,)
    assert outcome.breakdown["winner"] == "computer" and "Computer wins" in outcome.reason


def test_every_owed_decision_names_a_legal_default() -> None:
    from .support import new_match
    state = new_match("hero-match", 2)
    for decision in ENGINE.pending(state):
        # one of the seat's heroes, by its hand (1.4.0: test_hidden_pick.py)
        assert decision.default in decision.legal and decision.default["type"] == "pick_hero"
    state = position(side("sol", "neon-pulse", ["NP-45"]), side("brick", "chrome-fury", []))
    (turn,) = ENGINE.pending(state)
    assert turn.default == {"type": "recover"}  # Recover draws a card: the cheapest answer
    (defend,) = ENGINE.pending(attack(state, "NP-45"))
    assert defend.default == {"type": "pass"}


def test_engine_versions_are_kept_for_replay() -> None:
    assert ENGINE.contract_version == 2 and ENGINE.engine_version == "1.5.0"
    assert ENGINE.for_version("1.5.0") is ENGINE
    assert ENGINE.for_version("1.4.0").engine_version == "1.4.0"
    assert ENGINE.for_version("1.3.0").engine_version == "1.3.0"
    old = ENGINE.for_version("1.1.0")
    assert (old.engine_version, old.content_version) == ("1.1.0", "reference-1")
    before = ENGINE.for_version("1.2.0")
    assert (before.engine_version, before.content_version) == ("1.2.0", "reference-2")
    with pytest.raises(KeyError):
        ENGINE.for_version("0.9.0")
    assert ENGINE.match_options("single", 2) == {}
    assert ENGINE.modes()["solo"].ai_participants == ("computer",)
