"""Illegal actions are refused with a reason, reveal nothing hidden, and change nothing."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from services.rules.games.neon.engine import ENGINE
from tests.unit.neon.helpers import arena, new_game, on_turn, set_fighter


def refused(state, seat, action) -> str:
    before = json.dumps(ENGINE.encode(state), sort_keys=True)
    reason = ENGINE.validate(state, seat, action)
    assert reason, f"{action} should be refused"
    assert json.dumps(ENGINE.encode(state), sort_keys=True) == before
    return reason


def turn_state():
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    state = arena(state, f0=5, f1=5, f2=8)
    return on_turn(state, 0, ["move"], ["search"], ["attack"])


def test_an_action_out_of_row_order() -> None:
    assert refused(turn_state(), 0, {"type": "search"}) == \
        "actions go left to right: your next action is move"
    assert refused(turn_state(), 0, {"type": "attack", "weapon": "base", "target": "f:1"})


def test_search_without_the_energy() -> None:
    state = set_fighter(turn_state(), 0, step=1, energy=0)
    state = replace(state, search=((5, 1),), search_supply=19)
    assert refused(state, 0, {"type": "search"}) == \
        "searching here costs 1 energy and you have 0"


def test_attacking_out_of_range_and_an_absent_weapon() -> None:
    state = set_fighter(turn_state(), 0, step=2)
    assert refused(state, 0, {"type": "attack", "weapon": "base", "target": "f:2"}) == \
        "the target is out of range of that weapon"
    assert refused(state, 0, {"type": "attack", "weapon": "reaper-1", "target": "f:1"}) == \
        "you have no such weapon laid out"


def test_attacking_an_ally_in_coalition() -> None:
    state = new_game("coalition", 4, ["akari", "ronin", "glyba", "snake"])
    state = on_turn(arena(state, f0=5, f1=5, f2=5, f3=5), 0, ["attack"], ["move"], ["move"])
    assert refused(state, 0, {"type": "attack", "weapon": "base", "target": "f:2"}) == \
        "allies cannot attack each other in Coalition"


def test_using_an_ability_in_a_sector_with_neko() -> None:
    state = replace(turn_state(), tokens=(("neko", 0, 5),))
    state = on_turn(state, 1, ["move"], ["move"], ["move"])
    assert refused(state, 1, {"type": "ability", "ability": "dash", "sector": 4}) == \
        "the Neko token blocks other fighters' abilities in this sector"


def test_not_your_turn_and_malformed_actions() -> None:
    state = turn_state()
    assert refused(state, 1, {"type": "move", "sector": 4}) == "it is not your turn to act"
    assert refused(state, 0, {"sector": 4}) == "an action is an object with a type"
    assert refused(state, 0, "move") == "an action is an object with a type"


def test_card_choice_refusal_does_not_reveal_the_hand() -> None:
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    other_hand = state.fighters[1].hand
    reason = refused(state, 0, {"type": "choose_cards", "top": other_hand[0],
                                "bottom": other_hand[1], "cover": "left",
                                "top_rotated": False, "bottom_rotated": False})
    assert not any(card in reason for card in other_hand)


def test_nothing_is_legal_once_the_game_is_over() -> None:
    state = replace(turn_state(), ended="the last round has been played", phase="over")
    assert ENGINE.pending(state) == ()
    assert refused(state, 0, {"type": "pass"}) == "the game is over"


@pytest.mark.parametrize("action", [{"type": "move", "sector": 7}, {"type": "land", "sector": 3}])
def test_moving_to_a_non_adjacent_sector(action) -> None:
    assert refused(turn_state(), 0, action)
