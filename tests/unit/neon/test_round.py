"""Set-up, choosing cards, the action phase, moving, sector effects and closing sectors."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.cards import action_row, choice_of
from services.rules.games.neon.content import ACTION_CARDS, FIGHTER_HEALTH_ROWS
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.state import CardChoice
from tests.unit.neon.helpers import (
    Rng,
    act,
    arena,
    decision_kinds,
    fighter,
    legal,
    new_game,
    on_turn,
    set_fighter,
)


def test_setup_for_every_mode() -> None:
    state = new_game("rebirth", 4)
    assert sorted(state.ring) == list(range(1, 11)) and sorted(state.scoreboard) == list(range(1, 11))
    assert len(state.bots) == 10 and {s for s, _ in state.bots} == set(state.ring)
    assert state.cells == (1, 1, 1, 1, 2, 2)
    assert len(state.upgrade_deck) == 8 and state.leader is not None
    for f in state.fighters:
        assert (f.energy, len(f.hand), len(f.deck), f.side, f.sector) == (3, 3, 4, "A", None)
        assert f.health == FIGHTER_HEALTH_ROWS
    assert state.health_supply == (30 - 8, 30 - 12, 12 - 4)
    royale = new_game("battle-royale", 3)
    assert {f.side for f in royale.fighters} == {"B"} and royale.upgrade_deck == ()
    assert royale.cells == (1,) * 8


def test_two_players_always_bring_the_automa_to_the_first_closing_sector() -> None:
    state = new_game("rebirth", 2)
    assert state.automa and len(state.fighters) == 3
    automa = state.fighters[2]
    assert automa.automa and automa.sector == state.scoreboard[0]
    assert sorted(v for row in automa.health for v in row) == [1, 1, 1, 1, 1, 2]
    assert [seat for seat, _ in decision_kinds(state)] == [0, 1]


def test_card_choice_is_simultaneous_hidden_and_bounded() -> None:
    state = new_game("rebirth", 3)
    decisions = ENGINE.pending(state)
    assert [d.seat for d in decisions] == [0, 1, 2]
    assert all(d.hidden and len(d.legal) == 48 for d in decisions)
    first = decisions[0].legal[0]
    t = ENGINE.apply(state, 0, first, Rng(0))
    public = [e for e in t.events if e.visible_to is None]
    assert public and all("top" not in e.data for e in public)
    assert [d.seat for d in ENGINE.pending(t.state)] == [1, 2]
    view = ENGINE.view(t.state, 1)
    assert view["fighters"][0]["chosen"] and "choice" not in view["fighters"][0]


def test_action_row_overlap_and_rotation() -> None:
    # akari-1 is [move | attack], akari-2 is [attack | search].
    left = CardChoice("akari-1", "akari-2", "left", False, False)
    assert action_row(left) == (("move",), ("attack",), ("search",))
    right = CardChoice("akari-1", "akari-2", "right", False, False)
    assert action_row(right) == (("attack",), ("move",), ("attack",))
    rotated = CardChoice("akari-1", "akari-2", "right", True, True)
    assert action_row(rotated) == (("search",), ("attack",), ("move",))


def test_reveal_sets_initiative_from_the_top_card_and_shields_from_defense() -> None:
    state = new_game("rebirth", 3, ["akari", "glyba", "snake"])
    hands = {0: ("akari-3", "akari-6", "akari-1"), 1: ("glyba-1", "glyba-2", "glyba-4"),
             2: ("snake-1", "snake-2", "snake-4")}
    for seat, hand in hands.items():
        state = set_fighter(state, seat, hand=hand)
    # Akari: two Defense halves (akari-3 right half, akari-6 left half).
    state = act(state, 0, {"type": "choose_cards", "top": "akari-6", "bottom": "akari-3",
                           "cover": "left", "top_rotated": False, "bottom_rotated": False})
    assert fighter(state, 0).hand == ("akari-1",)
    for seat in (1, 2):
        state = act(state, seat, dict(ENGINE.pending(state)[0].legal[0]))
    akari = fighter(state, 0)
    assert akari.row == (("defense",), ("attack", "energy2"), ("defense",))
    assert akari.shields == 2
    assert akari.initiative == ACTION_CARDS["akari-6"].initiative[0]  # the top card, upright


def test_landing_comes_before_the_first_action_and_ship_fighters_cannot_be_attacked() -> None:
    state = new_game("rebirth", 3, ["akari", "glyba", "snake"])
    state = arena(state, f0=None, f1=5)
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    assert decision_kinds(state) == [(0, "land")]
    assert len(legal(state, 0)) == 10
    state = on_turn(state, 1, ["attack"], ["move"], ["move"])
    assert not any(a.get("target") == "f:0" for a in legal(state, 1))


def test_defense_on_your_turn_gains_two_energy_and_energy_is_capped_at_six() -> None:
    state = arena(new_game("rebirth", 3, ["akari", "glyba", "snake"]), f0=5, f1=6, f2=6)
    state = on_turn(state, 0, ["defense"], ["move", "energy1"], ["move"])
    state = set_fighter(state, 0, energy=5)
    state = act(state, 0, {"type": "defense"})
    assert fighter(state, 0).energy == 6
    state = act(state, 0, {"type": "gain_energy", "amount": 1})
    assert fighter(state, 0).energy == 6


def test_joker_offers_move_attack_search_energy_but_not_defense_or_leadership() -> None:
    state = arena(new_game("rebirth", 3, ["akari", "glyba", "snake"]), f0=5, f1=5, f2=6)
    joker = ("move", "attack", "search", "energy1")
    state = on_turn(state, 0, joker, joker, joker)
    kinds = {a["type"] for a in legal(state, 0)}
    assert {"move", "attack", "search", "gain_energy"} <= kinds
    assert not kinds & {"defense", "leadership"}


def test_turn_end_discards_and_draws_two_reshuffling_when_needed() -> None:
    state = arena(new_game("rebirth", 3, ["akari", "glyba", "snake"]), f0=5, f1=6, f2=6)
    state = set_fighter(state, 0, hand=("akari-3",), deck=("akari-4",),
                        discard=("akari-5", "akari-6", "akari-7"),
                        choice=choice_of({"top": "akari-1", "bottom": "akari-2", "cover": "left",
                                          "top_rotated": False, "bottom_rotated": False}))
    state = on_turn(state, 0, ["move"], ["move"], ["move"])
    state = set_fighter(state, 0, step=2)
    t = ENGINE.apply(state, 0, {"type": "pass"}, Rng(0))
    akari = fighter(t.state, 0)
    assert len(akari.hand) == 3 and "akari-4" in akari.hand
    assert sorted(akari.hand + akari.deck + akari.discard) == [f"akari-{i}" for i in range(1, 8)]
    assert "deck_reshuffled" in [e.kind for e in t.events]
    drawn = [e for e in t.events if e.kind == "cards_drawn_private"]
    assert drawn and drawn[0].visible_to == frozenset({0})


def test_move_either_way_and_closed_sectors_make_neighbours_adjacent() -> None:
    state = arena(new_game("rebirth", 3, ["akari", "glyba", "snake"]),
                  ring=(1, 2, 4, 5, 6, 8, 9, 10), f0=4, f1=9, f2=9)
    state = on_turn(state, 0, ["move"], ["move"], ["move"])
    assert sorted(a["sector"] for a in legal(state, 0) if a["type"] == "move") == [2, 5]


def test_railway_station_moves_anywhere_and_charging_station_gives_energy() -> None:
    state = arena(new_game("rebirth", 3, ["akari", "glyba", "snake"]), f0=7, f1=9, f2=9)
    state = on_turn(state, 0, ["move"], ["move"], ["move"])
    assert sorted(a["sector"] for a in legal(state, 0) if a["type"] == "move") == \
        [1, 2, 3, 4, 5, 6, 8, 9, 10]
    state = act(state, 0, {"type": "move", "sector": 3})
    assert fighter(state, 0).energy == 4


def closing_position(sector_effect_sector: int = 4, energy: int = 3):
    state = new_game("rebirth", 3, ["akari", "glyba", "snake"])
    state = arena(state, f0=sector_effect_sector, f1=9, f2=9)
    state = replace(state, scoreboard=(sector_effect_sector, 7, 1, 2, 3, 5, 6, 8, 9, 10),
                    search=((3, 2), (sector_effect_sector, 1), (5, 1)), bots=((4, "red-1"),),
                    search_supply=16, phase="act", current=None, leader=1)
    for i in range(3):
        state = set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    return set_fighter(state, 0, energy=energy)


def close(state):
    """Let the end of the round run (nobody has actions left)."""
    from services.rules.games.neon.flow import advance
    from services.rules.games.neon.state import Draft

    w = Draft(state, Rng(0))
    advance(w)
    return w.s


def test_closing_a_sector_step_by_step() -> None:
    state = close(closing_position(4))
    assert decision_kinds(state) == [(0, "evacuate")]
    assert state.bots == ()
    assert dict(state.search).get(4) is None and dict(state.search)[3] == 1
    assert dict(state.search).get(5) is None
    options = legal(state, 0)
    assert {a["sector"] for a in options} == {3, 5}
    assert {"type": "evacuate", "sector": 5, "manoeuvre_c": True} in options
    state = act(state, 0, {"type": "evacuate", "sector": 5, "manoeuvre_c": False})
    akari = fighter(state, 0)
    assert akari.sector == 5 and akari.tokens == 5 and state.health_supply[1] == 30 - 9 + 1
    assert 4 not in state.ring and state.round_board == ((4,),)
    assert state.round == 2 and state.scoreboard[0] == 7


def test_manoeuvre_c_cancels_the_closing_damage() -> None:
    state = close(closing_position(4))
    state = act(state, 0, {"type": "evacuate", "sector": 3, "manoeuvre_c": True})
    akari = fighter(state, 0)
    assert akari.tokens == 6 and akari.energy == 3 - 2 + 1  # +1 at the Charging Station


def test_underpass_closing_deals_no_damage() -> None:
    state = close(closing_position(5))
    options = legal(state, 0)
    assert all(not a["manoeuvre_c"] for a in options)
    state = act(state, 0, {"type": "evacuate", "sector": 4, "manoeuvre_c": False})
    assert fighter(state, 0).tokens == 6


def test_two_sectors_close_in_a_two_symbol_round() -> None:
    state = closing_position(4)
    state = replace(state, cells=(2, 1, 1), ring=tuple(range(1, 11)))
    state = set_fighter(state, 0, sector=6)
    state = close(state)
    assert state.round_board == ((4, 7),) and 4 not in state.ring and 7 not in state.ring


def test_battle_royale_last_two_sectors_stay_and_everyone_in_them_is_hit() -> None:
    state = new_game("battle-royale", 3, ["akari", "glyba", "snake"])
    state = replace(state, ring=(3, 8), bots=(), scoreboard=(1, 2), round=9,
                    search=((3, 2), (8, 1)), search_supply=17, phase="act", current=None)
    for i, sector in enumerate((3, 8, 8)):
        state = set_fighter(state, i, sector=sector, acted=True, row=(("move",),) * 3, step=3,
                            energy=0)
    state = close(state)
    assert decision_kinds(state)[0][1] == "evacuate"
    assert {a["sector"] for a in legal(state, state.stack[-1].owner)} == {3, 8}
    while state.stack:
        owner = state.stack[-1].owner
        here = fighter(state, owner).sector
        state = act(state, owner, {"type": "evacuate", "sector": here, "manoeuvre_c": False})
    assert state.ring == (3, 8) and dict(state.search) == {3: 1}
    assert [f.tokens for f in state.fighters] == [5, 5, 5]


def test_choice_of_roundtrip() -> None:
    action = {"type": "choose_cards", "top": "a", "bottom": "b", "cover": "right",
              "top_rotated": True, "bottom_rotated": False}
    assert choice_of(action) == CardChoice("a", "b", "right", True, False)


def test_several_fighters_leave_a_closing_sector_from_the_leader_clockwise() -> None:
    state = closing_position(4)
    state = set_fighter(state, 1, sector=4)
    state = set_fighter(state, 2, sector=4)
    state = replace(state, leader=2)
    state = close(state)
    order = []
    while state.stack and state.stack[-1].kind == "evacuate":
        owner = state.stack[-1].owner
        order.append(owner)
        state = act(state, owner, {"type": "evacuate", "sector": 5, "manoeuvre_c": False})
    assert order == [2, 0, 1]


def test_the_automa_in_a_closing_sector_takes_damage_and_goes_to_the_lower_neighbour() -> None:
    state = new_game("rebirth", 2, ["akari", "glyba"])
    state = arena(state, f0=9, f1=9, f2=4)
    state = replace(state, scoreboard=(4, 7, 1, 2, 3, 5, 6, 8, 9, 10), phase="act",
                    current=None)
    for i in range(3):
        state = set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = replace(state, acted_order=(0, 1, 2))
    state = close(state)
    automa = fighter(state, 2)
    assert automa.sector == 3 and automa.tokens == 5 and 4 not in state.ring
