"""The Automa, scoring and tie-breaks, Coalition, fighter abilities and special tokens."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.rules.games.contract import ConfigError, MatchConfig
from services.rules.games.neon.automa import choose_target
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.flow import advance
from services.rules.games.neon.scoring import bot_points, outcome
from services.rules.games.neon.state import Draft
from tests.unit.neon.helpers import (
    Dice,
    Rng,
    act,
    arena,
    decision_kinds,
    fighter,
    go_on,
    legal,
    new_game,
    on_turn,
    set_fighter,
)

# ---- the Automa -------------------------------------------------------------------------------


def automa_game():
    state = new_game("rebirth", 2, ["ronin", "glyba"])
    return arena(state, f0=3, f1=5, f2=4)  # the Automa is participant 2


def test_automa_targets_most_health_within_range_three_ties_to_who_acted_last() -> None:
    state = automa_game()
    state = replace(state, acted_order=(1, 0))
    assert choose_target(state, 2) == 0  # equal health: Ronin acted last
    state = set_fighter(state, 0, health=((2,), (), ()))
    assert choose_target(state, 2) == 1
    state = set_fighter(state, 1, sector=8)  # range 4: out of reach
    assert choose_target(state, 2) == 0


def run_automa(state, dice):
    state = replace(state, phase="act", current=None, scoreboard=(8, 1, 2, 3, 4, 5, 6, 7, 9, 10))
    for i in (0, 1):
        state = set_fighter(state, i, acted=True, row=(("move",),) * 3, step=3, energy=0)
    w = Draft(state, dice)
    advance(w)
    return w.s


def test_automa_moves_toward_its_target_and_attacks_with_two_dice() -> None:
    state = automa_game()
    state = set_fighter(state, 0, health=((2,), (1,), ()))
    state = set_fighter(state, 1, sector=6)
    dice = Dice("hit", "hit", "fail")
    state = run_automa(state, dice)
    assert fighter(state, 2).sector == 5  # one step toward Glyba in 6
    assert dice.rolled[0] == ("hit", "hit")
    # Glyba has no energy for any effect: her die rolls at once and the Automa takes 2 trophies.
    assert fighter(state, 2).trophies == (2, 2)


def test_automa_without_target_moves_to_the_lower_numbered_neighbour() -> None:
    state = automa_game()
    state = set_fighter(state, 0, sector=9)
    state = set_fighter(state, 1, sector=9)
    state = run_automa(state, Dice())
    assert fighter(state, 2).sector == 3


def test_automa_defends_with_two_dice_rolled_with_the_attack() -> None:
    state = automa_game()
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    state = set_fighter(state, 0, sector=4, energy=0)
    dice = Dice("hit", "block", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:2"}, dice)
    assert dice.rolled[:2] == [("hit",), ("block", "fail")]
    assert fighter(state, 0).trophies == ()


def test_two_player_seats_and_the_automa_in_the_outcome() -> None:
    state = automa_game()
    state = set_fighter(state, 2, trophies=(3, 3))
    state = replace(state, ended="the last round has been played", leader=0)
    result = outcome(state)
    assert len(result.placements) == 2 and result.breakdown["automa"]["rank"] == 1
    assert result.placements == (2, 3)


# ---- scoring ----------------------------------------------------------------------------------


def test_victory_points_trophies_bots_pairs_and_leader() -> None:
    assert bot_points(["red-1", "red-2", "blue-1"]) == 4
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = set_fighter(state, 0, trophies=(3, 2, 1), bots=(("red-1", True), ("red-2", False)))
    state = replace(state, leader=0, ended="the last round has been played")
    result = ENGINE.outcome(state)
    assert result.scores[0] == 6 + 3 + 1 and result.placements[0] == 1


def test_ties_break_on_three_then_two_then_one_vp_tokens() -> None:
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = set_fighter(state, 0, trophies=(2, 2, 2))
    state = set_fighter(state, 1, trophies=(3, 1, 1, 1))
    state = set_fighter(state, 2, trophies=(2, 2, 1, 1))
    state = replace(state, leader=None, ended="the last round has been played")
    result = ENGINE.outcome(state)
    assert result.placements == (2, 1, 3)
    state = set_fighter(state, 2, trophies=(2, 2, 2))
    result = ENGINE.outcome(state)
    assert result.placements == (2, 1, 2)


def test_an_eliminated_fighter_cannot_win() -> None:
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    state = set_fighter(state, 0, trophies=(3, 3, 3), eliminated=True)
    state = set_fighter(state, 1, trophies=(1,))
    state = replace(state, leader=None, ended="the last round has been played")
    assert ENGINE.outcome(state).placements == (3, 1, 2)


def test_rebirth_with_no_fighter_left_has_no_winner_only_an_honorary_best_player() -> None:
    """Rulebook, Rebirth: "The fighter who has not been eliminated from the Tournament and has
    the most VP is declared the winner." and "If the most VP belongs to a fighter eliminated
    from the Tournament, they are awarded the honorary title of best player of the
    Tournament." With no fighter left on the arena nobody qualifies, so nobody wins."""
    state = new_game("rebirth", 3, ["ronin", "glyba", "snake"])
    for idx, trophies in ((0, (3, 3, 3)), (1, (1,)), (2, (2,))):
        state = set_fighter(state, idx, trophies=trophies, eliminated=True, sector=None)
    state = replace(state, leader=None, ended="no fighters remain on the arena")
    result = ENGINE.outcome(state)
    assert result.placements == (1, 1, 1) and result.draw
    assert result.scores == (9, 1, 2)
    assert result.breakdown["best_player"] == [0]


def test_battle_royale_last_fighter_wins() -> None:
    state = new_game("battle-royale", 3, ["ronin", "glyba", "snake"])
    state = set_fighter(state, 0, eliminated=True)
    state = set_fighter(state, 1, eliminated=True)
    state = replace(state, eliminations=((0, 5), (1, 9)), ended="one fighter remains")
    assert ENGINE.outcome(state).placements == (3, 2, 1)


# ---- Coalition --------------------------------------------------------------------------------


def coalition():
    state = new_game("coalition", 4, ["ronin", "glyba", "snake", "illusion"])
    return arena(state, f0=5, f1=5, f2=5, f3=6)  # teams (0, 2) and (1, 3)


def test_coalition_teams_and_config() -> None:
    assert coalition().teams == ((0, 2), (1, 3))
    state = new_game("coalition", 6, teams=2)
    assert state.teams == ((0, 2, 4), (1, 3, 5))
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("coalition", 5, {}), Rng(0))
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("coalition", 4, {"teams": [[0, 1], [1, 2]]}), Rng(0))
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("rebirth", 2, {"automa": False}), Rng(0))
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("rebirth", 3, {"colour": "red"}), Rng(0))


def test_allies_cannot_attack_each_other() -> None:
    state = on_turn(coalition(), 0, ["attack"], ["move"], ["move"])
    targets = {a["target"] for a in legal(state, 0) if a["type"] == "attack"}
    assert "f:2" not in targets and "f:1" in targets
    assert ENGINE.validate(state, 0, {"type": "attack", "weapon": "base", "target": "f:2"}) == \
        "allies cannot attack each other in Coalition"


def test_coalition_trophies_and_bots_are_shared() -> None:
    state = coalition()
    state = set_fighter(state, 0, trophies=(2,), bots=(("red-1", False),))
    state = set_fighter(state, 2, trophies=(1,), bots=(("red-2", False),))
    state = set_fighter(state, 1, trophies=(3, 2))
    state = replace(state, leader=3, ended="the last round has been played")
    result = ENGINE.outcome(state)
    assert result.scores == (6, 6, 6, 6)
    assert result.placements == (2, 1, 2, 1)  # tie broken by 3-VP tokens
    assert result.teams == ((0, 2), (1, 3))


def test_trap_hurts_enemies_but_not_allies() -> None:
    state = coalition()
    state = replace(state, tokens=(("trap", 3, 6),))
    state = on_turn(state, 2, ["move"], ["move"], ["move"])  # snake, enemy of Illusion (3)
    state = act(state, 2, {"type": "move", "sector": 6})
    assert fighter(state, 2).tokens == 5 and fighter(state, 3).trophies == (2,)
    assert state.tokens == ()
    state = replace(state, tokens=(("trap", 3, 4),))
    state = on_turn(state, 1, ["move"], ["move"], ["move"])  # glyba is Illusion's ally
    state = act(state, 1, {"type": "move", "sector": 4})
    assert fighter(state, 1).tokens == 6 and state.tokens == (("trap", 3, 4),)


# ---- abilities and special tokens --------------------------------------------------------------


def test_neko_blocks_other_fighters_abilities_in_its_sector() -> None:
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    state = arena(state, f0=5, f1=5, f2=6)
    state = on_turn(state, 0, ["move"], ["move"], ["move"])
    state = act(state, 0, {"type": "ability", "ability": "neko"})
    assert state.tokens == (("neko", 0, 5),) and fighter(state, 0).energy == 1
    assert {"type": "ability", "ability": "neko"} not in legal(state, 0)
    state = on_turn(state, 1, ["move"], ["move"], ["move"])
    assert not any(a["type"] == "ability" for a in legal(state, 1))
    assert ENGINE.validate(state, 1, {"type": "ability", "ability": "dash", "sector": 6}) == \
        "the Neko token blocks other fighters' abilities in this sector"


def test_special_tokens_return_at_the_start_of_the_owners_next_turn() -> None:
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    state = arena(state, f0=5, f1=5, f2=6)
    state = replace(state, tokens=(("neko", 0, 5),), phase="act", current=None)
    for i in range(3):
        state = set_fighter(state, i, row=(("move",),) * 3, initiative=i + 1)
    w = Draft(state, Rng(0))
    advance(w)
    assert w.s.current == 0 and w.s.tokens == ()


def test_tv_tower_makes_abilities_cost_one_more() -> None:
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    state = arena(state, f0=10, f1=5, f2=6)
    state = set_fighter(state, 0, energy=2)
    state = on_turn(state, 0, ["move"], ["move"], ["move"])
    assert {"type": "ability", "ability": "neko"} not in legal(state, 0)
    state = set_fighter(state, 0, energy=3)
    assert {"type": "ability", "ability": "neko"} in legal(state, 0)


def test_smoke_grenade_adds_a_defense_die_to_everyone_in_its_sector_bots_too() -> None:
    state = new_game("rebirth", 3, ["ronin", "snake", "glyba"])
    state = arena(state, f0=6, f1=6, f2=1)
    state = replace(state, tokens=(("smoke", 1, 6),), bots=((6, "red-1"),))
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    state = set_fighter(state, 0, energy=0)
    dice = Dice("hit", "fail", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "bot:6"}, dice)
    state = go_on(state, 0, "roll", dice)
    assert len(dice.rolled[1]) == 2


def test_akari_pulls_a_target_from_an_adjacent_sector() -> None:
    state = new_game("rebirth", 3, ["akari", "ronin", "glyba"])
    state = arena(state, f0=5, f1=6, f2=1)
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    action = {"type": "attack", "weapon": "base", "target": "f:1", "pull": True}
    assert action in legal(state, 0)
    state = act(state, 0, action, Dice("miss", "fail"))
    assert fighter(state, 1).sector == 5 and fighter(state, 0).energy <= 1


def test_an_ally_in_the_sector_may_reroll_with_manoeuvre_a_and_lend_team_effects() -> None:
    state = coalition()  # 0 and 2 are allies, both in sector 5 with enemy 1
    from tests.unit.neon.helpers import equip

    state = set_fighter(state, 2, equipment=equip(("reaper-1", ["stinger-1"])), energy=1)
    state = set_fighter(state, 0, energy=0)
    state = set_fighter(state, 1, energy=0)
    state = on_turn(state, 0, ["attack"], ["move"], ["move"])
    dice = Dice("miss", "miss", "hit", "fail")
    state = act(state, 0, {"type": "attack", "weapon": "base", "target": "f:1"}, dice)
    # Before the roll the ally may add a die with the Reaper's team effect.
    assert decision_kinds(state) == [(2, "attack_help")]
    state = act(state, 2, {"type": "boost", "effect": "team:reaper-1",
                           "pay": "supply:stinger-1"}, dice)
    assert dice.rolled[0] == ("miss", "miss")
    assert fighter(state, 2).equipment[0].supplies == ()
    # After the roll the ally may reroll the attacker's dice for 1 energy.
    assert {"type": "reroll", "by": "ally_manoeuvre_a", "dice": [0]} in legal(state, 2)
    state = act(state, 2, {"type": "reroll", "by": "ally_manoeuvre_a", "dice": [0]}, dice)
    assert fighter(state, 2).energy == 0
    assert fighter(state, 0).trophies == (2,)
