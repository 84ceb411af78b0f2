"""The rulebook audit for engine 1.3.0 (RULES.md, "Rulebook coverage"): rules of the book
that were in the code without a test, and the rule the engine got wrong, each from the
rulebook's own words (quoted above each test)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.content import COMPUTER_DECK
from services.rules.games.neon_reign.rulesets import V1_2
from services.rules.games.neon_reign.state import Side

from .support import act, attack, exchange, pass_, position, side


def solo(difficulty: str, hand: list[str], top: tuple[str, ...] = (), hero: str = "cpu-brick",
         **tokens: object) -> object:
    cpu_deck = top + tuple(c for c in COMPUTER_DECK if c not in top)
    return position(side("sol", "neon-pulse", hand, **tokens),
                    Side(hero, deck=cpu_deck, computer=True), mode="solo", difficulty=difficulty)


# "Training Mode — If you (the player) decide to recover, the Computer Hero will also
#  recover. This means they will take no action and just pass the turn back to you."
def test_training_a_recover_the_player_chose_is_mirrored_even_when_it_draws_nothing() -> None:
    # A full hand that can Attack: the player decides to Recover though it draws nothing.
    full = ["NP-45", "NP-46", "NP-33", "NP-34", "NP-37", "NP-38", "NP-41"]
    state = solo("training", full)
    transition = act(state, 0, {"type": "recover"})
    assert [e.kind for e in transition.events if e.kind.startswith("computer")] == [
        "computer_passes"]
    after = transition.state
    assert (after.active, after.phase, len(after.sides[1].deck)) == (0, "turn", 36)
    # Engine 1.2.0 mirrored only a Recover that drew a card: the Computer attacked.
    old = act(replace(state, rules=V1_2), 0, {"type": "recover"}).state
    assert (old.phase, len(old.sides[1].deck)) == ("defend", 35)


def test_training_a_recover_forced_on_a_stuck_player_is_not_mirrored() -> None:
    # Seven cards that only Defend, nothing drawn: the player had no choice but to Recover
    # (ruling: not a decision to recover, and mirroring it would stall the game for ever).
    stuck = ["NP-33", "NP-34", "NP-35", "NP-37", "NP-38", "NP-39", "NP-41"]
    after = act(solo("training", stuck), 0, {"type": "recover"}).state
    assert after.phase == "defend" and after.active == 1  # the Computer attacks


# "Normal Mode — The Computer Hero never recovers. They will always attack on their turn."
def test_normal_the_computer_attacks_after_the_player_recovers() -> None:
    after = act(solo("normal", ["NP-45"]), 0, {"type": "recover"}).state
    assert after.phase == "defend" and after.active == 1 and len(after.sides[1].deck) == 35


# "Hard Mode — ... When Attacked, the Computer Hero flips two cards when Defending instead of
#  just one." (and one card when it Attacks: "Draw the top card of the Computer deck")
def test_hard_the_computer_flips_one_card_when_it_attacks() -> None:
    after = act(solo("hard", ["NP-45"], top=("CPU-12",)), 0, {"type": "recover"}).state
    assert after.sides[1].discard == ("CPU-12",) and after.in_play == ("CPU-12:0",)


# "The Computer Hero gains all the same benefits from Universal Combos and Hero Abilities
#  that a normal player does."
def test_the_computer_gets_its_hero_ability() -> None:
    # cpu-volt: +1 damage for every blue Button; CPU-02 attacks with a blue 2.
    state = solo("normal", ["NP-45"], top=("CPU-05", "CPU-02"), hero="cpu-volt")
    state = act(state, 0, {"type": "attack", "cards": ["NP-45"]}).state
    assert state.in_play == ("CPU-02:0",)
    assert act(state, 0, {"type": "pass"}).state.sides[0].health == 22


# "There is no limit to the number of times a Star Power ability can activate during a single
#  turn."
def test_a_star_power_can_activate_twice_in_one_turn() -> None:
    # Volt (limit 5, 4 damage) at 4 Stars plays three Up Joysticks: 6 Stars + 3 Same Stick.
    hand = ["NP-17", "NP-18", "NP-19"]
    transition = act(attack(position(side("volt", "neon-pulse", hand, stars=4),
                                     side("brick", "chrome-fury", [])), *hand),
                     1, {"type": "pass"})
    assert [e.kind for e in transition.events].count("star_power") == 2
    assert (transition.state.sides[0].stars, transition.state.sides[1].health) == (3, 17)


# "Star Power abilities can activate when Attacking or Defending." / "Heart — Heal 1 for each
#  heart." ("Gain Health. (cannot heal above starting health)"): a Joystick played in defence
#  gives its effects in Step 2.
@pytest.mark.parametrize(("defender", "deck", "card", "tokens", "seen"), [
    # Volt (limit 5, 4 damage) at 3 Stars defends with an Up Joystick: its Star Power fires.
    ("volt", "chrome-fury", "CF-17", {"stars": 3}, {"stars": 0, "attacker_health": 21}),
    # NP-31 (reference-1): a Defend-only Down, 1 Shield and 1 Heart.
    ("brick", "neon-pulse", "NP-31", {"health": 20}, {"health": 21, "shields": 1}),
])
def test_a_joystick_played_in_defence_gives_its_effects(defender: str, deck: str, card: str,
                                                        tokens: dict[str, int],
                                                        seen: dict[str, int]) -> None:
    attacker_deck = "neon-pulse" if deck == "chrome-fury" else "chrome-fury"
    stick = "NP-25" if attacker_deck == "neon-pulse" else "CF-25"  # a Right Joystick, 1 Star
    state = position(side("sol", attacker_deck, [stick]), side(defender, deck, [card], **tokens))
    after = exchange(state, [stick], [card])
    got = {"stars": after.sides[1].stars, "health": after.sides[1].health,
           "shields": after.sides[1].shields, "attacker_health": after.sides[0].health}
    assert {key: got[key] for key in seen} == seen


# "Attack — Play 1-3 Joystick and/or Button cards in any combination (you must play at least
#  one card)." / "Counter Cards — These cards can be played only when Defending, not when
#  Attacking." / "Defend icon — Identifies a card can only be played when Defending."
def test_an_attack_plays_one_to_three_joysticks_and_buttons() -> None:
    hand = ["NP-45", "NP-46", "NP-47", "NP-17", "NP-33", "NP-37", "NP-41", "NP-31"]
    state = position(side("sol", "neon-pulse", hand), side("brick", "chrome-fury", []))
    assert "1 to 3" in str(ENGINE.validate(state, 0, {"type": "attack", "cards": []}))
    four = {"type": "attack", "cards": ["NP-45", "NP-46", "NP-47", "NP-17"]}
    assert "1 to 3" in str(ENGINE.validate(state, 0, four))
    for counter in ("NP-33", "NP-37", "NP-41", "NP-31"):  # Throw, Block, Combo Breaker,
        reason = ENGINE.validate(state, 0, {"type": "attack", "cards": [counter]})
        assert "cannot be played when Attacking" in str(reason)  # a Defend-only Joystick
    assert ENGINE.validate(state, 0, {"type": "attack", "cards": ["NP-45", "NP-17"]}) is None
    (decision,) = ENGINE.pending(state)
    played = {c for a in decision.legal for c in a.get("cards", ())}
    assert played == {"NP-45", "NP-46", "NP-47", "NP-17"}
    assert max(len(a.get("cards", ())) for a in decision.legal) == 3


# "Recover — Draw cards until you have 7. Your turn ends."
def test_recover_draws_until_seven_and_ends_the_turn() -> None:
    state = position(side("sol", "neon-pulse", ["NP-45", "NP-46"], top=["NP-17", "NP-18"]),
                     side("brick", "chrome-fury", ["CF-45"]))
    transition = act(state, 0, {"type": "recover"})
    after = transition.state
    assert len(after.sides[0].hand) == 7 and after.sides[0].hand[2:4] == ("NP-17", "NP-18")
    assert len(after.sides[0].deck) == len(state.sides[0].deck) - 5
    assert (after.active, after.phase) == (1, "turn")  # no Defend against a Recover
    drew = [e for e in transition.events if e.kind == "drew"]
    assert drew and all(e.visible_to == frozenset({0}) for e in drew)


# "When it is your turn, you are considered the Attacker." / Turn Conclusion: "After
#  resolving damage ... the turn ends"
def test_after_an_attack_the_other_player_attacks() -> None:
    state = position(side("sol", "neon-pulse", ["NP-45"]), side("brick", "chrome-fury", ["CF-45"]))
    after = pass_(attack(state, "NP-45"))
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind, after.turn) == (1, "turn", 2)


# 2v2 Hero Match: "When any Hero is KO'd, they are removed from the game." Ruling: a KO ends
# the resolution at once ("the match ends immediately"), so the rest of the Attack does not
# carry over to the hero who comes in.
def test_a_hero_knocked_out_mid_attack_takes_the_rest_of_the_attack_with_it() -> None:
    state = position(side("volt", "neon-pulse", ["NP-17", "NP-45"], stars=4),
                     replace(side("ruin", "chrome-fury", [], health=4), bench=("lux",)),
                     mode="hero-match")
    transition = act(attack(state, "NP-17", "NP-45"), 1, {"type": "pass"})
    kinds = [e.kind for e in transition.events]
    assert kinds.index("ko") < kinds.index("hero_enters")
    assert [e.data["source"] for e in transition.events if e.kind == "damage"] == ["star power"]
    lux = transition.state.sides[1]
    assert (lux.hero, lux.health, lux.fallen) == ("lux", 25, ("ruin",))
    assert transition.state.sides[0].discard == ("NP-17", "NP-45")  # the cards are put away
    assert transition.state.active == 1



# "Strike — Force an opponent to discard the top card from their deck." Ruling: with no card
# left in that deck the Strike does nothing (the hand is not touched).
def test_a_strike_on_an_empty_deck_does_nothing() -> None:
    state = position(side("sol", "neon-pulse", ["NP-28"]),
                     replace(side("brick", "chrome-fury", ["CF-45"]), deck=()))
    transition = act(attack(state, "NP-28"), 1, {"type": "pass"})
    assert "strike_missed" in [e.kind for e in transition.events]
    assert transition.state.sides[1].hand == ("CF-45",) and transition.state.sides[1].discard == ()


# Best of Three: "Once one or both heroes have been KO'd, award an Arcade token". Ruling: each
# game is dealt afresh, and every player keeps the hero (the mode says nothing of choosing again).
def test_best_of_three_keeps_the_heroes_for_the_next_game() -> None:
    state = position(side("volt", "neon-pulse", ["NP-45", "NP-46"]),
                     side("sol", "chrome-fury", ["CF-45"], health=8, stars=3),
                     mode="best-of-three")
    after = pass_(attack(state, "NP-45", "NP-46"))  # 4 + 4 + Double Tap 1 = 9
    assert after.game == 2 and after.tokens == (1, 0)
    assert [(s.hero, s.health, s.stars, s.shields) for s in after.sides] == [
        ("volt", 25, 0, 0), ("sol", 25, 0, 0)]


# Hard Mode: "the Computer Hero flips two cards when Defending". Ruling: with one card left it
# flips that one.
def test_hard_with_one_card_left_the_computer_flips_it() -> None:
    state = solo("hard", ["NP-45"])
    state = replace(state, sides=(state.sides[0], replace(state.sides[1], deck=("CPU-02",))))
    after = act(state, 0, {"type": "attack", "cards": ["NP-45"]}).state
    assert after.sides[1].deck == () and after.sides[1].discard == ("CPU-02",)
    assert (after.sides[1].health, after.sides[1].stars) == (21, 1)

def test_the_1_3_0_export_records_a_mirrored_recover_that_drew_nothing(monkeypatch) -> None:
    """tests/fixtures/exports/neon-reign-1.3.0-solo-training.jsonl (``neon play neon-reign
    --mode solo --bots random --options '{"difficulty": "training"}' --seed 1 --embedded
    --export``, engine 1.3.0) verifies; with 1.2.0's Training mirror it would not."""
    from pathlib import Path

    from services.rules.games.neon_reign import turns
    from services.rules.verify import verify_export

    path = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
            / "neon-reign-1.3.0-solo-training.jsonl")
    data = path.read_bytes()
    assert b'"engine_version":"1.3.0"' in data and b'"drew":0' in data
    assert verify_export(data).ok
    monkeypatch.setattr(turns, "mirrored", lambda state, side, drawn: bool(drawn))
    report = verify_export(data)
    assert not report.ok and "state" in str(report.failure)
