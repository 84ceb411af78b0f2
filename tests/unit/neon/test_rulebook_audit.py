"""The rulebook audit for engine 5: each rule the audit found wrong or untested, as a test
quoting its sentence (RULES.md "Rulebook coverage" lists every rule and its test)."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.content import AUTOMA_HEALTH_ROWS
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.flow import advance, end_round
from services.rules.games.neon.state import Draft
from tests.unit.neon import helpers as h
from tests.unit.neon.helpers import Dice, Rng, act, fighter, legal, new_game


def duel(**changes):
    """Ronin (0) attacks Glyba (1) in sector 6; Snake (2) is far away."""
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = h.arena(state, f0=6, f1=6, f2=1)
    state = h.set_fighter(state, 0, energy=0, **changes)
    return h.on_turn(state, 0, ["attack"], ["attack"], ["move"])


def pays(state, seat, effect):
    return {a["pay"] for a in legal(state, seat) if a.get("effect") == effect}


def close(state):
    w = Draft(state, Rng(0))
    advance(w)
    return w.s


# ---- engine 5: "If the equipment card has no additional supplies of the needed type left" -------


def test_the_card_itself_pays_only_when_no_supply_of_the_type_is_left_under_it() -> None:
    """"To apply an equipment card effect, discard a supply of the indicated type from under
    this card ... If the equipment card has no additional supplies of the needed type left,
    you can still apply its effect by discarding the card itself as the required supply."
    A bot token is a supply but not one "from under this card": it does not stop the card
    paying for itself."""
    state = duel(equipment=h.equip(("stinger-1", ["stinger-2"])), bots=(("red-1", False),))
    state = act(state, 0, {"type": "attack", "weapon": "stinger-1", "target": "f:1"}, Rng(1))
    assert pays(state, 0, "equip:stinger-1:0") == {"supply:stinger-2", "bot:red-1"}
    refusal = ENGINE.validate(state, 0, {"type": "boost", "effect": "equip:stinger-1:0",
                                         "pay": "card"})
    assert refusal is not None and "no supply of the needed type" in refusal
    # No ammo left under it: the card itself may pay.
    state = duel(equipment=h.equip(("stinger-1", [])), bots=(("red-1", False),))
    state = act(state, 0, {"type": "attack", "weapon": "stinger-1", "target": "f:1"}, Rng(1))
    assert pays(state, 0, "equip:stinger-1:0") == {"bot:red-1", "card"}


def test_version_4_still_lets_the_card_pay_while_supplies_are_left() -> None:
    state = duel(equipment=h.equip(("stinger-1", ["stinger-2"])))
    state = replace(state, ruleset="4")
    state = act(state, 0, {"type": "attack", "weapon": "stinger-1", "target": "f:1"}, Rng(1))
    assert pays(state, 0, "equip:stinger-1:0") == {"supply:stinger-2", "card"}


def test_a_mandatory_armour_effect_is_paid_from_the_supply_under_it() -> None:
    """"If the attacker has uncancelled normal hit symbols left on the dice, the defender must
    apply the mandatory effects of the armour (if any) by discarding the corresponding
    supply": with one battery under the vest that supply is the only way to pay, so the
    engine applies it (version 4 asked, offering the vest itself too)."""
    def attacked(ruleset):
        state = duel()
        state = h.set_fighter(state, 1, equipment=h.equip(("padded-vest-1", ["knuckles-1"])))
        state = replace(state, ruleset=ruleset)
        dice = Dice("hit", "fail")
        state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
        state = h.go_on(state, 0, "roll", dice)
        state = h.go_on(state, 0, "done", dice)
        state = h.go_on(state, 1, "roll", dice)
        return h.go_on(state, 1, "done", dice)

    state = attacked("5")
    assert fighter(state, 1).equipment == h.equip(("padded-vest-1", []))
    assert fighter(state, 1).tokens == 6 and state.loot_discards[0] == ("knuckles-1",)
    old = attacked("4")
    assert h.decision_kinds(old) == [(1, "attack_worn")]
    assert {a["pay"] for a in legal(old, 1)} == {"supply:knuckles-1", "card"}


# ---- engine 5: the Automa in a closing sector "takes 1 damage and moves" ----------------------


def automa_closing(ruleset: str):
    """The Automa (2) with its last token in sector 4, which closes; Illusion's Trap waits in
    sector 3, the lower-numbered neighbour."""
    state = new_game("rebirth", 2, ["illusion", "glyba"])
    state = h.arena(state, f0=9, f1=9, f2=4)
    state = replace(state, scoreboard=(4, 7, 1, 2, 3, 5, 6, 8, 9, 10), phase="act",
                    current=None, tokens=(("trap", 0, 3),), ruleset=ruleset)
    for i in range(3):
        state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = h.set_fighter(state, 2, health=((), (), (2,)))
    return close(replace(state, acted_order=(0, 1, 2)))


def test_the_automa_takes_the_closing_damage_before_it_moves() -> None:
    """"Sector closing: if the Automa is in a closing sector, it takes 1 damage and moves to
    the adjacent sector with the lower number": its last token goes to the supply and it
    leaves the Tournament there, never reaching the Trap next door."""
    state = automa_closing("5")
    automa = fighter(state, 2)
    assert automa.eliminated and automa.sector is None
    assert fighter(state, 0).trophies == () and state.tokens == (("trap", 0, 3),)
    # Version 4 moved it first: the Trap took its last token as Illusion's trophy.
    old = automa_closing("4")
    assert fighter(old, 2).eliminated and fighter(old, 0).trophies == (2,)
    assert old.tokens == ()


def test_the_automa_that_survives_the_closing_damage_still_moves_down() -> None:
    state = new_game("rebirth", 2, ["illusion", "glyba"])
    state = h.arena(state, f0=9, f1=9, f2=4)
    state = replace(state, scoreboard=(4, 7, 1, 2, 3, 5, 6, 8, 9, 10), phase="act",
                    current=None, tokens=(("trap", 0, 3),))
    for i in range(3):
        state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = close(replace(state, acted_order=(0, 1, 2)))
    automa = fighter(state, 2)
    # 1 damage from the closing sector (to the supply), then 1 from the Trap (Illusion's).
    assert automa.sector == 3 and automa.tokens == 4
    assert fighter(state, 0).trophies == (1,) and state.tokens == ()


# ---- rules that had no test -------------------------------------------------------------------


def test_a_fail_with_energy_gives_the_defender_energy_unless_rerolled_away() -> None:
    """"Fail, gain 1 energy" ... "Only the results of the reroll are ever applied, so if a
    player rerolled a fail-with-energy result into another result, they do not gain 1 energy
    for the first roll.\""""
    state = duel()
    state = h.set_fighter(state, 1, energy=2)
    dice = Dice("miss", "fail_energy")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = h.go_on(state, 0, "roll", dice)
    state = h.go_on(state, 0, "done", dice)
    state = h.go_on(state, 1, "roll", dice)
    state = h.go_on(state, 1, "done", dice)
    assert fighter(state, 1).energy == 3
    state = duel()
    state = h.set_fighter(state, 1, energy=2)
    dice = Dice("miss", "fail_energy", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    state = h.go_on(state, 0, "roll", dice)
    state = h.go_on(state, 0, "done", dice)
    state = h.go_on(state, 1, "roll", dice)
    state = act(state, 1, {"type": "reroll", "by": "manoeuvre_a", "dice": [0]}, dice)
    state = h.go_on(state, 1, "done", dice)
    assert fighter(state, 1).energy == 2 - 1  # paid Manoeuvre A, no energy from the first roll


def test_shields_come_off_and_special_tokens_of_the_eliminated_leave_at_the_end_of_the_round():
    """"At the end of the round each player removes the shield tokens"; "If a fighter is
    eliminated from the game, discard its special token at the end of the round"; a fighter
    gone for maintenance keeps its token on the arena until "the start of its next turn"."""
    state = new_game("rebirth", 3, ["akari", "illusion", "glyba"])
    state = h.arena(state, f0=5, f1=6, f2=7)
    state = h.set_fighter(state, 0, shields=2)
    state = h.set_fighter(state, 1, eliminated=True, sector=None)
    state = h.set_fighter(state, 2, sector=None)  # on the landing ship after maintenance
    state = replace(state, tokens=(("neko", 0, 5), ("trap", 1, 6), ("smoke", 2, 7)))
    w = Draft(state, Rng(0))
    end_round(w)
    assert fighter(w.s, 0).shields == 0
    assert w.s.tokens == (("neko", 0, 5), ("smoke", 2, 7))


def test_a_closing_sector_sends_its_special_tokens_home() -> None:
    """Closing step 1: "Shield tokens and special fighter tokens lying in it go back to their
    owners' personal supplies.\""""
    state = new_game("rebirth", 3, ["akari", "illusion", "glyba"])
    state = h.arena(state, f0=9, f1=9, f2=9)
    state = replace(state, scoreboard=(4, 7, 1, 2, 3, 5, 6, 8, 9, 10), phase="act",
                    current=None, tokens=(("neko", 0, 4), ("trap", 1, 5)))
    for i in range(3):
        state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = close(state)
    assert state.tokens == (("trap", 1, 5),) and 4 not in state.ring


def test_rebirth_ends_after_the_last_cell_without_closing_it_battle_royale_goes_on() -> None:
    """Rebirth: "the last round has been played (the one in which the last empty cell on the
    round board must be closed)", checked before sectors close; Battle Royale: "the game
    continues even if all scoreboard tokens have been placed on the round board"."""
    def last_round(mode):
        state = new_game(mode, 3, ["akari", "illusion", "glyba"])
        state = h.arena(state, ring=(1, 2, 3), f0=1, f1=2, f2=3)
        state = replace(state, round=8, scoreboard=(1, 2, 3), phase="act", current=None)
        for i in range(3):
            state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
        return close(state)

    state = last_round("rebirth")
    assert state.ended == "the last round has been played" and state.ring == (1, 2, 3)
    royale = last_round("battle-royale")
    assert not royale.ended and royale.round == 8
    assert h.decision_kinds(royale) == [(0, "evacuate")]
    royale = act(royale, 0, {"type": "evacuate", "sector": 2, "manoeuvre_c": False})
    assert royale.ring == (2, 3) and royale.round == 9


def test_the_automa_board_holds_five_ones_and_a_two() -> None:
    """"Lay out 6 health tokens on it: 5 green with value "1" and 1 yellow with value "2"";
    "Place the Automa marker in the sector whose number is shown on the top scoreboard
    token.\""""
    state = new_game("rebirth", 2, ["akari", "glyba"])
    automa = fighter(state, 2)
    assert sorted(v for row in AUTOMA_HEALTH_ROWS for v in row) == [1, 1, 1, 1, 1, 2]
    assert automa.health == AUTOMA_HEALTH_ROWS and automa.sector == state.scoreboard[0]


def test_a_fighter_defeated_on_its_own_turn_loses_the_rest_of_its_row() -> None:
    """Maintenance: "move your fighter figure to the landing ship" ... "at the start of their
    next turn they land in any sector": the defeat ends the turn that caused it."""
    state = new_game("rebirth", 3, ["akari", "illusion", "glyba"])
    state = h.arena(state, f0=4, f1=5, f2=9)
    state = replace(state, tokens=(("trap", 1, 5),))
    state = h.set_fighter(state, 0, health=((), (), (3,)))
    state = h.on_turn(state, 0, ["move"], ["move"], ["move"])
    state = act(state, 0, {"type": "move", "sector": 5})
    akari = fighter(state, 0)
    assert akari.side == "B" and akari.sector is None and fighter(state, 1).trophies == (3,)
    assert akari.step == 3  # nothing left of its row
    assert {d.kind for d in ENGINE.pending(state)} <= {"place_loot", "choose_upgrade"}


def test_the_automa_goes_to_the_lower_numbered_neighbour_when_its_target_is_halfway_round():
    """"If the Automa's target is at equal distance in both directions ... the Automa moves to
    the adjacent sector with the lower number.\""""
    from services.rules.games.neon.automa import automa_turn

    state = new_game("rebirth", 2, ["ronin", "glyba"])
    state = h.arena(state, ring=(1, 2, 3, 4), f0=2, f1=2, f2=4)
    state = replace(state, phase="act")
    w = Draft(state, Rng(0))
    automa_turn(w, 2)
    assert fighter(w.s, 2).sector == 1


def test_shields_add_defense_dice_even_before_the_defenders_turn() -> None:
    """"It rolls 1 more defense die for each such token during all defense rolls this round.
    This effect lasts for the entire action phase (even if the fighter must defend before its
    turn has come).\""""
    state = duel()
    state = h.set_fighter(state, 1, shields=2, energy=0, acted=False)
    dice = Dice("miss", "fail", "fail", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    h.go_on(state, 0, "done", dice)
    assert dice.rolled[-1] == ("fail", "fail", "fail")


def test_an_empty_loot_deck_is_made_again_from_its_discard_pile() -> None:
    """"If you must take cards from a loot deck and it has run out, shuffle its discard pile
    and form a new loot deck from it. Then draw the required cards from it.\""""
    from services.rules.games.neon.loot import draw_loot

    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = replace(state, loot_decks=(("stinger-1",),) + state.loot_decks[1:],
                    loot_discards=(("knuckles-1", "knuckles-2"), (), ()))
    w = Draft(state, Rng(0))
    drawn = draw_loot(w, 1, 2)
    assert drawn[0] == "stinger-1" and drawn[1] in ("knuckles-1", "knuckles-2")
    assert len(w.s.loot_decks[0]) == 1 and w.s.loot_discards[0] == ()
    assert [e.kind for e in w.events] == ["loot_reshuffled"]


def test_melee_weapons_reach_only_their_own_sector() -> None:
    """"A melee weapon can only be used in your own sector. Each fighter has a base melee
    weapon that allows an attack with 1 attack die in their own sector.\""""
    from services.rules.games.neon.content import FIGHTERS, LOOT

    melee = [c for c in LOOT.values() if c.type == "melee"]
    assert melee and all(c.range[0] and not any(c.range[1:]) for c in melee)
    assert all(f.base_weapon == 1 for f in FIGHTERS.values())
