"""Solo Mode: the Computer/Solo deck, Computer Offense and Computer Defense."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.content import COMPUTER_DECK
from services.rules.games.neon_reign.state import Side

from .support import act, new_match, position, side


def solo(difficulty: str, hand: list[str], top: tuple[str, ...] = (), **tokens: int):  # type: ignore[no-untyped-def]
    cpu_deck = top + tuple(c for c in COMPUTER_DECK if c not in top)
    return position(side("sol", "neon-pulse", hand, **tokens),
                    Side("cpu-brick", deck=cpu_deck, computer=True), mode="solo",
                    difficulty=difficulty)


def test_solo_setup() -> None:
    state = new_match("solo", 1, difficulty="hard", heroes=["volt"], computer_hero="cpu-rex")
    human, cpu = state.sides
    assert (human.hero, len(human.hand), cpu.hero, len(cpu.deck), cpu.hand) == (
        "volt", 7, "cpu-rex", 36, ())
    assert state.active == 0  # the human player always goes first


def test_training_the_computer_recovers_when_you_recover() -> None:
    state = solo("training", ["NP-01"])
    after = act(state, 0, {"type": "recover"}).state
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind) == (0, "turn")
    assert len(after.sides[1].deck) == 36


def test_normal_the_computer_attacks_by_flipping_its_top_card() -> None:
    state = solo("normal", ["NP-01"], top=("CPU-05", "CPU-12"))  # CPU-05 defends, CPU-12 attacks
    after = act(state, 0, {"type": "attack", "cards": ["NP-01"]}).state
    assert after.in_play == ("CPU-12:0",)  # a 3-damage red Button
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind, decision.optional) == (0, "defend", True)
    done = act(after, 0, {"type": "pass"}).state
    assert done.sides[0].health == 22


def test_computer_defense_resolves_the_defend_section() -> None:
    # CPU-01 defends with a Block: the human's Button is removed.
    state = solo("normal", ["NP-01"], top=("CPU-01",))
    after = act(state, 0, {"type": "attack", "cards": ["NP-01"]}).state
    assert after.sides[1].health == 25
    assert after.sides[1].discard[0] == "CPU-01"


def test_hard_the_computer_flips_two_cards_when_defending() -> None:
    state = solo("hard", ["NP-01"], top=("CPU-02", "CPU-05", "CPU-12"))
    after = act(state, 0, {"type": "attack", "cards": ["NP-01"]}).state
    assert after.sides[1].discard[:2] == ("CPU-02", "CPU-05")
    assert after.sides[1].shields == 0 and after.sides[1].health == 25  # 2 Shields soaked 2
    assert after.sides[1].stars == 1


def test_the_computer_gets_universal_combos() -> None:
    # CPU-11 attacks with two Up Joysticks: 2 + 2 + 1 Same Stick = 5 Stars: cpu-brick's limit.
    state = solo("normal", ["NP-01"], top=("CPU-10", "CPU-11"))
    after = act(act(state, 0, {"type": "attack", "cards": ["NP-01"]}).state, 0,
                {"type": "pass"}).state
    assert after.sides[1].shields == 4  # cpu-brick's Star Power


def test_an_empty_computer_deck_cannot_attack() -> None:
    state = replace(solo("normal", ["NP-01", "NP-02"]), sides=(
        side("sol", "neon-pulse", ["NP-01", "NP-02"]),
        Side("cpu-brick", deck=(), discard=COMPUTER_DECK, computer=True)))
    after = act(state, 0, {"type": "attack", "cards": ["NP-01"]}).state
    (decision,) = ENGINE.pending(after)
    assert (decision.seat, decision.kind) == (0, "turn")


def test_solo_outcome_for_the_single_seat() -> None:
    state = solo("normal", ["NP-01", "NP-02"], top=("CPU-10",))
    state = replace(state, sides=(state.sides[0], replace(state.sides[1], health=4)))
    outcome = ENGINE.outcome(act(state, 0, {"type": "attack", "cards": ["NP-01", "NP-02"]}).state)
    assert outcome is not None
    assert (outcome.placements, outcome.breakdown["winner"]) == ((1,), 0)
    lost = solo("normal", ["NP-01"], top=("CPU-10", "CPU-12"), health=3)
    lost = act(act(lost, 0, {"type": "attack", "cards": ["NP-01"]}).state, 0,
               {"type": "pass"}).state
    outcome = ENGINE.outcome(lost)
    assert outcome is not None
    assert (outcome.placements, outcome.breakdown["winner"]) == ((2,), "computer")
