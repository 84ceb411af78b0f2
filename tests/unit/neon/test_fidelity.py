"""Issue 11: every choice the rulebook gives a player appears as legal actions for that seat."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.rules.games.contract import RESIGN, MatchConfig, TeamLayout
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.loot import place_actions
from services.rules.games.neon.scoring import outcome
from tests.unit.neon.helpers import (
    Dice,
    Rng,
    act,
    arena,
    decision_kinds,
    equip,
    fighter,
    go_on,
    legal,
    new_game,
    on_turn,
    set_fighter,
)


def duel(fighters=("ronin", "glyba", "snake"), **changes):
    state = new_game("rebirth", 3, list(fighters))
    state = arena(state, f0=6, f1=6, f2=1)
    state = set_fighter(state, 0, **changes) if changes else state
    return on_turn(state, 0, ["attack"], ["attack"], ["search"])


def test_the_defender_chooses_what_a_full_block_cancels() -> None:
    """"Each full block cancels 1 critical hit or 1 normal hit, at the defender's choice.\""""
    state = duel(equipment=equip("knuckles-1"), energy=0)
    state = set_fighter(state, 1, energy=0, equipment=equip("cap-visor-1"))
    dice = Dice("crit", "hit", "full")
    state = act(state, 0, {"type": "attack", "weapon": "knuckles-1", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    state = go_on(state, 0, "done", dice)
    assert decision_kinds(state) == [(1, "attack_blocks")]
    assert legal(state, 1) == [{"type": "assign_blocks", "on_crits": 1},
                               {"type": "assign_blocks", "on_crits": 0}]
    # The full block takes the normal hit; the helmet cancels the critical hit: no damage.
    state = act(state, 1, {"type": "assign_blocks", "on_crits": 0}, dice)
    assert fighter(state, 0).trophies == ()
    assert fighter(state, 1).equipment == ()


def test_the_player_names_the_supply_that_pays_or_applies_nothing() -> None:
    """"To apply an equipment card effect, discard a supply of the indicated type from under
    this card ... If the equipment card has no additional supplies of the needed type left,
    you can still apply its effect by discarding the card itself"; a bot token "flip it ...
    to use it as a supply of one of the types indicated on it". (Engine 5: the card only
    when no supply of the type is left under it, see ``test_rulebook_audit``.)"""
    state = duel(equipment=equip(("stinger-1", ["stinger-2"])), energy=0,
                 bots=(("red-1", False), ("blue-1", False)))
    state = act(state, 0, {"type": "attack", "weapon": "stinger-1", "target": "f:1"}, Rng(1))
    options = [a for a in legal(state, 0) if a["type"] == "boost"]
    pays = {a["pay"] for a in options}
    assert pays == {"supply:stinger-2", "bot:red-1"}  # the blue drone carries no ammo
    assert {"type": "roll"} in legal(state, 0)  # applying no effect at all


def test_hook_may_target_a_bot() -> None:
    """"If an effect's text says it applies to an opponent (or the target of an attack), it can
    be applied to both a fighter and a bot.\""""
    state = new_game("rebirth", 3, ["akari", "glyba", "snake"])
    state = arena(state, f0=5, f1=1, f2=1)
    state = replace(state, bots=((6, "red-1"),))
    state = on_turn(set_fighter(state, 0, energy=6), 0, ["attack"], ["move"], ["move"])
    hook = {"type": "attack", "weapon": "base", "target": "bot:6", "pull": True}
    assert hook in legal(state, 0)
    state = act(state, 0, hook)
    assert state.bots == ((5, "red-1"),)
    assert state.stack[-1].targets == ("bot:5",)


def test_abilities_may_be_used_again_in_the_same_attack() -> None:
    """"Unless stated otherwise, each ability can be used any number of times per round as long
    as you have enough energy.\""""
    state = duel(energy=6)
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, Rng(2))
    state = act(state, 0, {"type": "boost", "effect": "focus"})
    assert {"type": "boost", "effect": "focus"} in legal(state, 0)
    state = act(state, 0, {"type": "boost", "effect": "focus"})
    assert state.stack[-1].attack_dice == 3 and fighter(state, 0).energy == 2


def test_a_row_action_is_skipped_only_when_it_cannot_be_performed() -> None:
    """"these are the 3 actions your fighter will perform this round\""""
    state = on_turn(duel(), 0, ["move"], ["search"], ["move"])
    assert {"type": "pass"} not in legal(state, 0)
    state = replace(state, search=((6, 3),), search_supply=17)
    state = set_fighter(state, 0, step=1, energy=1)
    assert {"type": "pass"} in legal(state, 0)
    assert {"type": "search"} not in legal(state, 0)


def test_leadership_when_holding_the_token_still_gains_energy() -> None:
    """"If you already have the leader token at this moment, nothing happens. ... In addition,
    gain 1 energy.\""""
    state = on_turn(replace(duel(energy=2), leader=0), 0, ["leadership"], ["move"], ["move"])
    state = act(state, 0, {"type": "leadership"})
    assert state.leader == 0 and fighter(state, 0).energy == 3


def test_coalition_the_team_with_the_most_vp_wins_even_if_eliminated() -> None:
    """Coalition: "The team with the most VP wins." when the last round has been played
    (engine 7: not when one team is left on the arena, which "then wins automatically":
    ``test_rules_audit_7``; versions 3-6 ranked by VP then too)."""
    state = ENGINE.setup(MatchConfig("coalition", 4, {}), Rng(3))
    state = set_fighter(state, 0, eliminated=True, trophies=(3, 3))
    state = set_fighter(state, 2, eliminated=True)
    state = set_fighter(state, 1, trophies=(1,))
    state = replace(state, ended="the last round has been played", leader=None)
    assert outcome(state).placements == (1, 2, 1, 2)
    state = replace(state, ended="one team remains on the arena", ruleset="6")
    assert outcome(state).placements == (1, 2, 1, 2)


def test_equipment_may_cover_equipment_of_another_type_sharing_a_symbol() -> None:
    """"lay it in a free place in front of you or on top of another of your equipment cards";
    "A loot card can be laid on top of ... another loot card only if they share at least 1
    supply symbol.\""""
    state = duel(equipment=equip("stinger-1", "knuckles-1"))
    options = place_actions(state, fighter(state, 0), "cap-visor-1")
    assert {"type": "place", "card": "cap-visor-1", "as": "equipment"} in options
    assert {"type": "place", "card": "cap-visor-1", "as": "equipment", "on": "stinger-1"} in options
    assert {"type": "place", "card": "cap-visor-1", "as": "equipment",
            "on": "knuckles-1"} in options


@pytest.mark.parametrize(("mode", "seats"), [("coalition", 4), ("rebirth", 6)])
def test_the_automa_comes_with_more_participants(mode: str, seats: int) -> None:
    """"With more participants you may bring the Automa into the game if you wish.\""""
    state = ENGINE.setup(MatchConfig(mode, seats, {"automa": True}), Rng(4))
    assert state.automa and state.fighters[-1].automa and len(state.fighters) == seats + 1


def test_modes_and_match_options_say_what_matchmaking_used_to_hard_code() -> None:
    modes = ENGINE.modes()
    assert modes["coalition"].team_layouts == (TeamLayout(4, 2), TeamLayout(6, 3),
                                               TeamLayout(6, 2))
    assert all(m.ai_participants == ("automa",) for m in modes.values())
    assert ENGINE.match_options("rebirth", 2) == {"automa": True}
    assert ENGINE.match_options("rebirth", 3) == {}
    assert ENGINE.match_options("coalition", 4, [[0, 2], [1, 3]]) == {"teams": [[0, 2], [1, 3]]}
    state = ENGINE.setup(MatchConfig("coalition", 6, ENGINE.match_options(
        "coalition", 6, [[0, 1, 2], [3, 4, 5]])), Rng(5))
    assert state.teams == ((0, 1, 2), (3, 4, 5))


def test_the_other_side_of_the_round_board_may_be_chosen() -> None:
    """"you may choose the side of the round board that suits the pace of game you prefer\""""
    state = ENGINE.setup(MatchConfig("rebirth", 3, {"round_board": "4-6"}), Rng(6))
    assert state.cells == (1, 1, 1, 1, 2, 2)


def test_for_version_keeps_version_2_and_refuses_unknown_versions() -> None:
    assert ENGINE.for_version(ENGINE.engine_version) is ENGINE
    old = ENGINE.for_version("2")
    assert old.engine_version == "2"
    state = old.setup(MatchConfig("rebirth", 3, {}), Rng(7))
    assert "ruleset" not in old.encode(state) and old.standing(state) == ()
    with pytest.raises(KeyError):
        ENGINE.for_version("1")


def test_every_decision_names_a_legal_default() -> None:
    state = ENGINE.setup(MatchConfig("rebirth", 3, {}), Rng(8))
    for _ in range(200):
        decisions = ENGINE.pending(state)
        if not decisions:
            break
        d = decisions[0]
        assert d.default in d.legal
        state = ENGINE.apply(state, d.seat, d.default, Rng(_)).state


def test_a_seat_may_resign_at_any_time_and_is_placed_last() -> None:
    state = duel()
    assert {d.seat for d in ENGINE.standing(state)} == {0, 1, 2}
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, Rng(9))
    assert ENGINE.validate(state, 1, dict(RESIGN)) is None  # inside the attacker's window
    state = ENGINE.apply(state, 1, dict(RESIGN), Rng(10)).state
    assert fighter(state, 1).eliminated and fighter(state, 1).resigned
    assert all(d.seat != 1 for d in ENGINE.pending(state) + ENGINE.standing(state))
    rng = Rng(11)
    while ENGINE.outcome(state) is None:
        d = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, d.seat, d.default, rng).state
    assert ENGINE.outcome(state).placements[1] == 3
