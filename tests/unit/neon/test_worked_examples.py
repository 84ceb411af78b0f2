"""Every worked example of the NEON rulebook, as a test."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.cards import round_order
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.flow import end_round
from services.rules.games.neon.state import Draft
from tests.unit.neon.helpers import (
    Dice,
    Rng,
    act,
    arena,
    equip,
    fighter,
    go_on,
    legal,
    new_game,
    on_turn,
    set_fighter,
)

PETER, IGOR, GALINA, OKSANA = 0, 1, 2, 3


def initiative_position(leader: int = PETER):
    """Peter 6, Galina 2, Oksana and Igor 3; Igor sits to Peter's left (clockwise next)."""
    state = new_game("rebirth", 4, ["akari", "glyba", "snake", "illusion"])
    for who, init in ((PETER, 6), (IGOR, 3), (GALINA, 2), (OKSANA, 3)):
        state = set_fighter(state, who, initiative=init, row=(("move",),) * 3)
    return replace(state, leader=leader, phase="act")


def test_initiative_example_galina_igor_oksana_peter() -> None:
    state = initiative_position()
    assert round_order(state) == (GALINA, IGOR, OKSANA, PETER)


def test_leadership_changes_the_order_later_in_the_same_round() -> None:
    state = initiative_position()
    state = on_turn(state, GALINA, ["leadership"], ["move"], ["move"])
    state = set_fighter(state, GALINA, initiative=2, sector=6)
    energy = fighter(state, GALINA).energy
    state = act(state, GALINA, {"type": "leadership"})
    assert state.leader == GALINA
    assert fighter(state, GALINA).energy == energy + 1
    # Clockwise from Galina now: Oksana before Igor.
    rest = [i for i in round_order(state) if i != GALINA]
    assert rest == [OKSANA, IGOR, PETER]


def reaper_position():
    """Galina (Ronin) with a Reaper carrying two ammo supplies, her target in her sector."""
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = arena(state, f0=6, f1=6, f2=1)
    state = set_fighter(state, 0, equipment=equip(("reaper-1", ["stinger-1", "stinger-2"])))
    return on_turn(state, 0, ["attack"], ["move"], ["move"])


def test_galina_reaper_example_discarding_the_card_itself() -> None:
    state = reaper_position()
    dice = Dice("hit", "hit", "block")
    state = act(state, 0, {"type": "attack", "weapon": "reaper-1", "target": "f:1"}, dice)
    # Before rolling: discard an ammo supply for +1 attack die.
    state = act(state, 0, {"type": "boost", "effect": "equip:reaper-1:0",
                           "pay": "supply:stinger-1"}, dice)
    assert fighter(state, 0).equipment[0].supplies == ("stinger-2",)
    state = go_on(state, 0, "roll", dice)
    assert dice.rolled[0] == ("hit", "hit")
    state = go_on(state, 0, "done", dice)
    state = go_on(state, 1, "roll", dice)
    state = go_on(state, 1, "done", dice)
    # After the defense roll: count the normal block as a fail. No energy ammo is left under
    # the Reaper, so the card itself is discarded, and the ammo under it goes with it.
    assert [a for a in legal(state, 0) if a.get("effect") == "equip:reaper-1:1"] == \
        [{"type": "effect", "effect": "equip:reaper-1:1", "pay": "card"}]
    state = act(state, 0, {"type": "effect", "effect": "equip:reaper-1:1", "pay": "card"}, dice)
    assert fighter(state, 0).equipment == ()
    assert set(state.loot_discards[0]) == {"stinger-1", "stinger-2"}
    assert state.loot_discards[1] == ("reaper-1",)
    # Nothing else can be applied: the attack resolves by itself.
    assert fighter(state, 0).trophies == (2, 2)
    assert fighter(state, 1).health == ((2,), (1, 1), (3,))


def shield_position(energy: int):
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = arena(state, f0=6, f1=6, f2=1)
    state = set_fighter(state, 1, energy=energy)
    return on_turn(state, 0, ["attack"], ["attack"], ["move"])


def defend_with_shield(state, dice):
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    state = go_on(state, 0, "done", dice)
    assert {"type": "boost", "effect": "shield"} in legal(state, 1)
    state = act(state, 1, {"type": "boost", "effect": "shield"}, dice)
    # 1 base die + 2: the limit of 3 is reached, so the dice are rolled at once.
    assert len(dice.rolled[-1]) == 3
    if legal(state, 1):
        state = go_on(state, 1, "done", dice)
    return state


def test_glyba_shield_example_used_against_each_of_two_attacks() -> None:
    state = shield_position(energy=4)
    dice = Dice("miss", "fail", "fail", "fail", "miss", "fail", "fail", "fail")
    state = defend_with_shield(state, dice)
    assert fighter(state, 1).energy == 2
    state = go_on(state, 0, "done", dice)  # no Manoeuvre B
    assert not state.stack
    state = defend_with_shield(state, dice)
    assert fighter(state, 1).energy == 0


def test_glyba_shield_needs_two_energy() -> None:
    state = shield_position(energy=1)
    dice = Dice("hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    state = go_on(state, 0, "done", dice)
    assert {"type": "boost", "effect": "shield"} not in legal(state, 1)


def stabilizer_position():
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = arena(state, f0=6, f1=6, f2=1)
    state = set_fighter(state, 0, upgrades=("stabilizer",), energy=0)
    return on_turn(state, 0, ["attack"], ["attack"], ["move"])


def test_stabilizer_example_once_per_round() -> None:
    state = stabilizer_position()
    dice = Dice("maybe", "fail", "maybe", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    assert {"type": "effect", "effect": "stabilizer"} in legal(state, 0)
    state = act(state, 0, {"type": "effect", "effect": "stabilizer"}, dice)
    assert state.stack[-1].attack_roll == ("hit",)
    assert fighter(state, 0).used_upgrades == ("stabilizer",)
    state = go_on(state, 0, "done", dice)
    state = go_on(state, 1, "roll", dice)
    state = go_on(state, 1, "done", dice)
    assert fighter(state, 0).trophies == (2,)
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    assert {"type": "effect", "effect": "stabilizer"} not in legal(state, 0)
    w = Draft(state, Rng(0))
    end_round(w)
    assert fighter(w.s, 0).used_upgrades == ()


def range_position():
    """Peter's weapon: 1 die in his sector, 2 dice at range 1, nothing at range 2."""
    state = new_game("rebirth", 4, ["ronin", "glyba", "snake", "volt"])
    state = arena(state, f0=6, f1=6, f2=7, f3=8)
    state = set_fighter(state, 0, equipment=equip("reaper-1"))
    return on_turn(state, 0, ["attack"], ["move"], ["move"])


def test_range_example_dice_by_distance() -> None:
    state = range_position()
    options = [a for a in legal(state, 0) if a.get("weapon") == "reaper-1"]
    assert {a["target"] for a in options} == {"f:1", "f:2"}
    for target, count in (("f:1", 1), ("f:2", 2)):
        t = ENGINE.apply(state, 0, {"type": "attack", "weapon": "reaper-1", "target": target},
                         Rng(0))
        declared = next(e for e in t.events if e.kind == "attack_declared")
        assert declared.data["dice"] == count


def test_range_example_empty_sector_cannot_be_attacked() -> None:
    state = range_position()
    reason = ENGINE.validate(state, 0, {"type": "attack", "weapon": "reaper-1", "target": "f:3"})
    assert reason == "the target is out of range of that weapon"


def test_howitzer_attacks_beyond_range_two() -> None:
    state = new_game("rebirth", 3, ["glyba", "ronin", "snake"])
    state = arena(state, f0=1, f1=5, f2=2)
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    options = legal(state, 0)
    assert {"type": "attack", "weapon": "howitzer", "target": "f:1"} in options
    assert {"type": "attack", "weapon": "howitzer", "target": "f:2"} not in options
