"""Search, equipment and supplies, attacks, bots, sector effects in combat, defeat."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.content import LOOT
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.state import Equip
from tests.unit.neon.helpers import (
    Dice,
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


def duel(fighters=("ronin", "glyba", "snake"), a: int = 6, b: int = 6, **changes):
    state = new_game("rebirth", 3, list(fighters))
    state = arena(state, f0=a, f1=b, f2=1)
    state = set_fighter(state, 0, **changes) if changes else state
    return on_turn(state, 0, ["attack"], ["attack"], ["search"])


# ---- search and loot ----------------------------------------------------------------------------

def test_search_costs_the_search_tokens_and_is_refused_without_energy() -> None:
    state = duel(a=2, energy=1)
    state = replace(state, search=((2, 2),), search_supply=18)
    state = set_fighter(state, 0, step=2)
    assert {"type": "search"} not in legal(state, 0)
    assert ENGINE.validate(state, 0, {"type": "search"}) == \
        "searching here costs 2 energy and you have 1"
    state = set_fighter(state, 0, energy=2)
    state = act(state, 0, {"type": "search"})
    assert fighter(state, 0).energy == 0 and dict(state.search)[2] == 3


def test_class_one_sector_looks_at_three_green_and_keeps_two() -> None:
    state = set_fighter(duel(a=1), 0, step=2)
    state = act(state, 0, {"type": "search"})
    assert decision_kinds(state) == [(0, "keep_loot")]
    cards = state.stack[-1].get("cards")
    assert len(cards) == 3 and {LOOT[c].cls for c in cards} == {1}
    state = act(state, 0, {"type": "keep", "cards": list(cards[:2])})
    assert state.loot_discards[0] == (cards[2],)
    assert decision_kinds(state) == [(0, "place_loot")]


def test_class_three_looks_at_purple_and_green_and_the_mall_adds_an_orange() -> None:
    state = set_fighter(duel(a=6), 0, step=2)  # Shopping Mall, class III
    state = act(state, 0, {"type": "search"})
    cards = state.stack[-1].get("cards")
    assert sorted(LOOT[c].cls for c in cards) == [1, 2, 3]


def test_equipment_one_of_each_type_covering_and_supplies() -> None:
    state = duel(equipment=equip(("stinger-1", ["stinger-2"])))
    f = fighter(state, 0)
    from services.rules.games.neon.loot import place, place_actions
    from services.rules.games.neon.state import Draft
    from tests.unit.neon.helpers import Rng
    options = place_actions(state, f, "reaper-1")  # a pistol sharing the ammo symbol
    assert {"type": "place", "card": "reaper-1", "as": "equipment", "on": "stinger-1"} in options
    assert {"type": "place", "card": "reaper-1", "as": "equipment"} not in options
    assert {"type": "place", "card": "reaper-1", "as": "supply", "under": "stinger-1"} in options
    w = Draft(state, Rng(0))
    place(w, 0, "reaper-1", "equipment")
    assert fighter(w.s, 0).equipment == (Equip("reaper-1", ("stinger-1", "stinger-2")),)
    # Knuckles (batteries) share no symbol with the Reaper: as equipment in a free slot only.
    options = place_actions(w.s, fighter(w.s, 0), "knuckles-1")
    assert {"type": "place", "card": "knuckles-1", "as": "equipment"} in options
    assert not any(o.get("under") == "reaper-1" for o in options)
    # A full card takes no more supplies.
    options = place_actions(w.s, fighter(w.s, 0), "stinger-3")
    assert not any(o["as"] == "supply" for o in options)
    # A second pistol sharing a symbol covers the first (it cannot lie beside it).
    f2 = fighter(w.s, 0).but(equipment=(Equip("stinger-1"),))
    assert [o for o in place_actions(w.s, f2, "reaper-1") if o["as"] == "equipment"] == \
        [{"type": "place", "card": "reaper-1", "as": "equipment", "on": "stinger-1"}]


# ---- attacks ------------------------------------------------------------------------------------

def test_attacking_a_bot_rolls_its_defense_die_with_the_attack_and_wins_its_token() -> None:
    state = duel(a=6)
    state = replace(state, bots=((6, "red-1"),))
    dice = Dice("hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "bot:6"}, dice)
    state = go_on(state, 0, "roll", dice)
    assert dice.rolled[:2] == [("hit",), ("fail",)]  # in the same step, before any effect
    state = go_on(state, 0, "done", dice)
    assert state.bots == () and fighter(state, 0).bots == (("red-1", False),)


def test_bot_token_is_a_supply_but_not_in_the_attack_that_won_it() -> None:
    from services.rules.games.neon.loot import spend_supply
    from services.rules.games.neon.state import Draft
    from tests.unit.neon.helpers import Rng
    state = duel(equipment=equip("reaper-1"), bots=(("purple-1", False),))
    w = Draft(state, Rng(0))
    assert spend_supply(w, 0, "reaper-1", "energy", fresh=("purple-1",)) == "reaper-1"
    w = Draft(state, Rng(0))
    assert spend_supply(w, 0, "reaper-1", "energy") == "purple-1"
    assert fighter(w.s, 0).bots == (("purple-1", True),)
    assert fighter(w.s, 0).equipment == (Equip("reaper-1"),)


def test_at_most_five_attack_dice_and_three_defense_dice() -> None:
    state = duel(a=2, b=2, equipment=equip(("plasma-cannon-1", ["plasma-cannon-2"])),
                 upgrades=("targeting-module",), energy=6)
    state = arena(state, f0=2, f1=3)
    dice = Dice()
    state = act(state, 0, {"type": "attack", "weapon": "plasma-cannon-1", "target": "f:1"}, dice)
    assert {"type": "boost", "effect": "targeting-module"} in legal(state, 0)
    for effect in ("factory", "focus"):
        state = act(state, 0, {"type": "boost", "effect": effect}, dice)
    # 3 dice at range 1 + 2: the limit is reached, no more dice can be added.
    assert len(dice.rolled[0]) == 5
    assert fighter(state, 0).used_upgrades == ()


def test_one_reroll_per_side_and_highway_excludes_manoeuvre_a() -> None:
    state = duel(a=4, b=4)
    dice = Dice("miss", "hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    options = legal(state, 0)
    assert {"type": "reroll", "by": "highway", "dice": [0]} in options
    state = act(state, 0, {"type": "reroll", "by": "highway", "dice": [0]}, dice)
    assert fighter(state, 0).energy == 3
    assert not any(a["type"] == "reroll" for a in legal(state, 0))


def test_police_station_forbids_rerolls() -> None:
    state = duel(a=8, b=8)
    dice = Dice("miss")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    assert not any(a["type"] == "reroll" for a in legal(state, 0))


def test_stadium_normal_blocks_count_as_fails() -> None:
    state = duel(a=9, b=9, energy=0)
    state = set_fighter(state, 1, energy=0)
    dice = Dice("hit", "block")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    assert fighter(state, 0).trophies == (2,)


def test_park_flips_a_conditional_miss_for_one_energy() -> None:
    state = duel(a=1, b=1, energy=1)
    state = set_fighter(state, 1, energy=0)
    dice = Dice("maybe", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = act(state, 0, {"type": "effect", "effect": "park"}, dice)
    state = go_on(state, 0, "done", dice)
    assert fighter(state, 0).energy == 0 and fighter(state, 0).trophies == (2,)


def test_helmet_and_armour_mandatory_effects_spend_supplies() -> None:
    def attacked(ruleset):
        state = duel(a=5, b=5, energy=0)
        state = set_fighter(state, 1, energy=0,
                            equipment=equip(("cap-visor-1", ["padded-vest-1"]),
                                            ("padded-vest-2", [])))
        state = replace(state, ruleset=ruleset)
        dice = Dice("crit", "hit", "fail")
        state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
        state = set_fighter(state, 0, energy=0)
        state = go_on(state, 1, "roll", dice)
        return go_on(state, 1, "done", dice), dice

    # The base weapon rolls 1 die: the crit is cancelled by the helmet's mandatory effect,
    # paid "by discarding the corresponding supply": the battery under the visor is the only
    # way (the card itself pays only when no supply of the type is left under it).
    state, _ = attacked("5")
    glyba = fighter(state, 1)
    assert fighter(state, 0).trophies == ()
    assert glyba.equipment[0] == Equip("cap-visor-1", ())
    # Version 4 offered the card beside the supply: the defender named one.
    state, dice = attacked("4")
    assert decision_kinds(state) == [(1, "attack_worn")]
    assert legal(state, 1) == [
        {"type": "effect", "effect": "equip:cap-visor-1:0", "pay": "supply:padded-vest-1"},
        {"type": "effect", "effect": "equip:cap-visor-1:0", "pay": "card"}]
    state = act(state, 1, {"type": "effect", "effect": "equip:cap-visor-1:0",
                           "pay": "supply:padded-vest-1"}, dice)
    glyba = fighter(state, 1)
    assert fighter(state, 0).trophies == ()
    assert glyba.equipment[0] == Equip("cap-visor-1", ())


def test_manoeuvre_b_moves_after_an_unsuccessful_attack() -> None:
    state = duel(a=5, b=5, energy=1)
    state = set_fighter(state, 1, energy=0)
    dice = Dice("miss", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = go_on(state, 0, "done", dice)
    assert {"type": "dodge", "sector": 6} in legal(state, 0)
    state = act(state, 0, {"type": "dodge", "sector": 6}, dice)
    assert fighter(state, 0).sector == 6 and fighter(state, 0).energy == 0


def test_area_weapon_attacks_every_opponent_in_a_sector_rolling_once() -> None:
    state = duel(a=5, b=6, equipment=equip("frag-grenade-1"), energy=0)
    state = set_fighter(state, 2, sector=6, energy=0)
    state = set_fighter(state, 1, energy=0)
    state = replace(state, bots=((6, "blue-1"),))
    options = [a for a in legal(state, 0) if a.get("weapon") == "frag-grenade-1"]
    assert {"type": "attack", "weapon": "frag-grenade-1", "target": "sector:6"} in options
    dice = Dice("hit", "hit", "fail", "fail", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "frag-grenade-1", "target": "sector:6"},
                dice)
    state = go_on(state, 0, "roll", dice)
    assert dice.rolled[:2] == [("hit", "hit"), ("fail",)]  # the bot's die rolls with the attack
    assert fighter(state, 0).trophies == (2, 2, 2, 2) and fighter(state, 0).bots


# ---- defeat -------------------------------------------------------------------------------------

def test_maintenance_on_side_a() -> None:
    state = duel(a=5, b=5, energy=0, equipment=equip("katana-1"))
    state = set_fighter(state, 1, health=((), (), (3,)), energy=0,
                        equipment=equip(("stinger-1", ["stinger-2"]), "knuckles-1",
                                        "scrap-rifle-1"))
    dice = Dice("hit", "hit", "hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "katana-1", "target": "f:1"}, dice)
    state = go_on(state, 0, "roll", dice)
    state = go_on(state, 0, "done", dice)
    state = go_on(state, 1, "done", dice)
    assert decision_kinds(state) == [(0, "trophy_equipment")]
    assert len(legal(state, 0)) == 1 + 3 + 3  # none, one of 3, two of 3
    state = act(state, 0, {"type": "take_equipment", "cards": ["stinger-1"]})
    assert decision_kinds(state) == [(0, "place_loot")]
    state = act(state, 0, {"type": "place", "card": "stinger-1", "as": "equipment"})
    glyba = fighter(state, 1)
    assert fighter(state, 0).trophies == (3,)
    assert glyba.sector is None and glyba.side == "B" and glyba.energy == 3 and glyba.tokens == 6
    assert decision_kinds(state) == [(1, "place_loot")]
    assert sorted(LOOT[c].cls for c in state.stack[-1].get("cards")) == [1, 1, 2]
    for _ in range(3):
        card = state.stack[-1].get("cards")[0]
        state = act(state, 1, {"type": "place", "card": card, "as": "discard"})
    assert decision_kinds(state) == [(1, "choose_upgrade")]
    offered = state.stack[-1].get("cards")
    state = act(state, 1, {"type": "choose_upgrade", "card": offered[0]})
    assert fighter(state, 1).upgrades == (offered[0],)
    assert state.upgrade_deck[-1] == offered[1]
    assert "stinger-2" in state.loot_discards[0] and "knuckles-1" in state.loot_discards[0]


def test_side_b_defeat_eliminates() -> None:
    state = duel(a=5, b=5, energy=0)
    state = set_fighter(state, 1, health=((), (), (1,)), energy=0, side="B")
    dice = Dice("hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    glyba = fighter(state, 1)
    assert glyba.eliminated and glyba.sector is None


def test_battle_royale_damage_goes_to_the_supply() -> None:
    state = new_game("battle-royale", 3, ["ronin", "glyba", "snake"])
    state = on_turn(arena(state, f0=5, f1=5, f2=1), 0, ["attack"], ["move"], ["move"])
    state = set_fighter(state, 0, energy=0)
    state = set_fighter(state, 1, energy=0)
    supply = state.health_supply
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, Dice("hit", "fail"))
    assert fighter(state, 0).trophies == () and state.health_supply[1] == supply[1] + 1
