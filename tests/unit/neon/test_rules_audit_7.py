"""The rules-fidelity audit for engine 7: each rule the audit found the engine got wrong, as a
test quoting the rulebook's sentence, with the version-6 behaviour it replaces (kept for
replaying exports of earlier versions)."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.contract import MatchConfig
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.flow import advance
from services.rules.games.neon.scoring import outcome
from services.rules.games.neon.state import Draft
from tests.unit.neon import helpers as h
from tests.unit.neon.helpers import Rng, act, fighter, legal, new_game


def closing(sector: int, energy: int, ruleset: str = ENGINE.engine_version, **state_changes):
    """Akari (0) alone in ``sector``, which closes at the end of this round (ring 1..10)."""
    state = new_game("rebirth", 3, ["akari", "glyba", "snake"])
    state = h.arena(state, f0=sector, f1=7, f2=7)
    order = (sector,) + tuple(n for n in (7, 1, 2, 3, 4, 5, 6, 8, 9, 10) if n != sector)
    state = replace(state, scoreboard=order, search=(), search_supply=20, phase="act",
                    current=None, leader=1, ruleset=ruleset, **state_changes)
    for i in range(3):
        state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = h.set_fighter(state, 0, energy=energy)
    w = Draft(state, Rng(0))
    advance(w)
    return w.s


def cancels(state) -> set[int]:
    """The sectors Akari may evacuate to using Manoeuvre C."""
    return {a["sector"] for a in legal(state, 0) if a["manoeuvre_c"]}


# ---- Closing: "it moves to an adjacent sector ... and takes 1 damage" (then Manoeuvre C) -----


def test_energy_gained_on_entering_the_charging_station_pays_for_manoeuvre_c() -> None:
    """"If a fighter was in this sector, it moves to an adjacent sector of its choice and takes
    1 damage ... The fighter may use one of its standard abilities, "Manoeuvre C": spend 2
    energy to cancel this damage." and the Electric Charging Station: "[Upon entering the
    sector] gain 1 energy. This effect also applies if you moved into the sector not by the
    move action but as a result of some effect." The damage Manoeuvre C cancels is taken
    after the move, so the energy gained on entering counts: with 1 energy, a fighter leaving
    sector 4 for the Charging Station (3) cancels the damage, but not going to sector 5."""
    state = closing(4, energy=1)
    assert cancels(state) == {3}
    state = act(state, 0, {"type": "evacuate", "sector": 3, "manoeuvre_c": True})
    akari = fighter(state, 0)
    assert akari.sector == 3 and akari.tokens == 6 and akari.energy == 0
    # Version 6 paid before the move: 1 energy was not enough anywhere.
    assert cancels(closing(4, energy=1, ruleset="6")) == set()


def test_manoeuvre_c_costs_what_the_tv_tower_says_where_the_damage_is_taken() -> None:
    """TV Tower: "Using abilities costs 1 more energy. This effect applies both to the
    fighters' unique abilities and to the standard "Manoeuvre" abilities", and "The effect of
    any sector applies only to fighters located in that sector". Manoeuvre C is used when the
    damage comes, after the move: leaving the closing TV Tower (10) it costs 2; going into
    the TV Tower from sector 9 it costs 3."""
    state = closing(10, energy=2)
    assert cancels(state) == {9, 1}
    state = act(state, 0, {"type": "evacuate", "sector": 1, "manoeuvre_c": True})
    assert fighter(state, 0).tokens == 6 and fighter(state, 0).energy == 0
    state = closing(9, energy=2)
    assert cancels(state) == {8}
    refusal = ENGINE.validate(state, 0, {"type": "evacuate", "sector": 10, "manoeuvre_c": True})
    assert refusal is not None
    # Version 6 charged the closing sector's price before the move.
    assert cancels(closing(10, energy=2, ruleset="6")) == set()
    assert cancels(closing(9, energy=2, ruleset="6")) == {8, 10}


def test_a_neko_in_the_sector_moved_to_blocks_manoeuvre_c() -> None:
    """Neko: "Other fighters (including allies) cannot use their abilities in this sector
    while this token lies in it": Manoeuvre C, used after the move, is not offered into a
    sector holding another fighter's Neko."""
    state = closing(4, energy=3, tokens=(("neko", 1, 5),))
    assert cancels(state) == {3}


def test_a_fighter_a_trap_defeats_on_the_way_out_takes_no_closing_damage() -> None:
    """Moving out, a fighter that loses its last token to a Trap (Illusion's trophy) goes for
    maintenance: no closing damage is left to take or to cancel, its new side-B board keeps
    its 6 tokens."""
    state = new_game("rebirth", 3, ["snake", "glyba", "illusion"])
    state = h.arena(state, f0=4, f1=7, f2=7)
    state = replace(state, scoreboard=(4, 7, 1, 2, 3, 5, 6, 8, 9, 10), search=(),
                    search_supply=20, phase="act", current=None, leader=1,
                    tokens=(("trap", 2, 5),))
    for i in range(3):
        state = h.set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3)
    state = h.set_fighter(state, 0, energy=4, health=((), (), (3,)))
    w = Draft(state, Rng(0))
    advance(w)
    state = act(w.s, 0, {"type": "evacuate", "sector": 5, "manoeuvre_c": True})
    snake = fighter(state, 0)
    assert snake.side == "B" and snake.sector is None and snake.energy == 3
    assert snake.tokens == 6
    assert fighter(state, 2).trophies == (3,)


def test_battle_royale_last_two_sectors_manoeuvre_c_where_the_fighter_ends_up() -> None:
    """The last two sectors: "Fighters take 1 damage by the usual rules, but are not required
    to move": staying, Manoeuvre C is paid where the fighter stands; moving into the other
    sector (the Charging Station here), after entering it."""
    state = new_game("battle-royale", 3, ["akari", "glyba", "snake"])
    state = replace(state, ring=(3, 8), bots=(), scoreboard=(1, 2), round=9, search=(),
                    search_supply=20, phase="act", current=None, leader=0)
    for i, sector in enumerate((8, 8, 8)):
        state = h.set_fighter(state, i, sector=sector, acted=True, row=(("move",),) * 3,
                              step=3, energy=1)
    w = Draft(state, Rng(0))
    advance(w)
    assert cancels(w.s) == {3}


# ---- Coalition: "1 fighter remains on the arena (it then wins automatically)" ----------------


def coalition_end(ended: str, ruleset: str = ENGINE.engine_version):
    """Team (0, 2) fully eliminated with more VP than team (1, 3), which remains."""
    state = ENGINE.setup(MatchConfig("coalition", 4, {}), Rng(3))
    state = h.set_fighter(state, 0, eliminated=True, trophies=(3, 3))
    state = h.set_fighter(state, 2, eliminated=True)
    state = h.set_fighter(state, 1, trophies=(1,))
    return replace(state, ended=ended, leader=None, ruleset=ruleset)


def test_the_last_team_on_the_arena_wins_automatically() -> None:
    """Rebirth: "The game ends in any of three cases: ... 1 fighter remains on the arena (it
    then wins automatically)"; Coalition: "The game is played by the Rebirth mode rules with
    the following exceptions" (none about the end), and the end check "1 fighter (team)
    remains on the arena". The team left on the arena wins, whatever the VP of the team
    eliminated; the VP still rank the teams when the last round has been played."""
    state = coalition_end("one team remains on the arena")
    assert outcome(state).placements == (2, 1, 2, 1)
    assert outcome(state).scores == (6, 1, 6, 1)
    # The last round played: "The team with the most VP wins", eliminated or not.
    assert outcome(coalition_end("the last round has been played")).placements == (1, 2, 1, 2)
    # Version 6 ranked by VP in both cases.
    assert outcome(coalition_end("one team remains on the arena", "6")).placements == \
        (1, 2, 1, 2)
