"""The rulebook audit (RULES.md "Rulebook coverage"): the rules engine 0.4.0 changed, each
from the rulebook's own words and checked against 0.3.0, which old matches keep; then the
rules that were in the code without a test of their own."""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric import flow, monster
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.play import Play
from services.rules.games.barbaric.rulesets import RULESETS
from services.rules.games.barbaric.state import State, Table
from services.rules.games.contract import MatchConfig

from .support import ENGINE, A, B, FixedDice, owed, table, turn_of

V3 = BarbaricEngine(RULESETS["0.3.0"])
V4 = BarbaricEngine(RULESETS["0.4.0"])


def _act(state: State, seat: int, action: dict[str, Any], engine: BarbaricEngine = ENGINE,
         dice: Any = None) -> State:
    problem = engine.validate(state, seat, action)
    assert problem is None, problem
    return engine.apply(state, seat, action, dice or FixedDice()).state


def _at_act(t: Table, seat: int = A, engine: BarbaricEngine = ENGINE) -> State:
    return _act(turn_of(t, seat).freeze(), seat, {"type": "pass"}, engine)


def _legal(state: State, engine: BarbaricEngine = ENGINE) -> tuple[Any, ...]:
    (d,) = engine.pending(state)
    return d.legal


# -- Dive: "Avoid Damage Completely ... evade the damage and not be inflicted by the Debuff" --
def _time_rift_on_a_diver(engine: BarbaricEngine) -> dict[str, Any]:
    t = table(2, positions=[(1, -2), (1, -3)])
    t.minions = []
    t.players[A].learned = {"keltz-time-rift": ["keltz-time-rift/1"]}
    t.players[B].gear, t.players[B].tokens = "megalodon", ["dive"]
    state = _at_act(t, A, engine)
    state = _act(state, A, {"type": "skill", "skill": "keltz-time-rift", "at": [1, -3]}, engine)
    assert owed(state)[:2] == (A, "act")  # no damage to allocate: the Dive avoided it
    return state.data["players"][B]


def test_dive_avoids_the_debuff_of_the_damage_it_avoids() -> None:
    """TIME RIFT deals 1 damage and inflicts Time Dimension; a Character with a Dive token
    "Avoid[s] Damage Completely for the next damage", which "make[s] the player evade the
    damage and not be inflicted by the Debuff" (Appendix)."""
    b = _time_rift_on_a_diver(ENGINE)
    assert b["tokens"] == [] and b["health_damage"] == b["shield_damage"] == 0
    assert _time_rift_on_a_diver(V3)["tokens"] == ["time-dimension"]  # 0.3.0 inflicted it


def _diver_springs_a_trap(engine: BarbaricEngine) -> State:
    t = table(2, positions=[(4, -2), (2, 2)])
    t.minions = []
    t.players[B].gear, t.players[B].tokens = "megalodon", ["dive"]
    t.gadgets = [{"kind": "tidal-trap", "hex": (1, 2), "owner": A, "damage": 1}]
    state = _at_act(t, B, engine)
    return _act(state, B, {"type": "move", "to": [1, 2]}, engine)


def test_dive_avoids_a_tidal_traps_damage_and_its_vortex() -> None:
    """Tidal Trap: "they take the amount of damage ... and inflict them with Vortex token.
    Then, the Tidal Trap token is discarded"; with Dive, neither the damage nor the Debuff."""
    state = _diver_springs_a_trap(ENGINE)
    b = state.data["players"][B]
    assert b["tokens"] == [] and b["shield_damage"] == 0 and state.data["gadgets"] == []
    assert owed(state)[:2] == (B, "act")
    assert _diver_springs_a_trap(V3).data["players"][B]["tokens"] == ["vortex"]


# -- Mastery Markers: "place it on one of the Mastery Skills on their Rider Board" ----------
def _wander_to_the_mastery_icon(engine: BarbaricEngine, dial: int = 1,
                                mastery: dict[str, int] | None = None) -> State:
    t = table(2, positions=[(4, -2), (2, 2)])
    p = t.players[A]
    p.learned = {"keltz-wander": ["keltz-wander/1"]}
    p.dial["rider"] = p.dial_seen["rider"] = dial  # the next step shows the Mastery icon
    p.mastery = dict(mastery or {})
    state = _at_act(t, A, engine)
    return _act(state, A, {"type": "skill", "skill": "keltz-wander"}, engine)


def test_the_player_chooses_the_mastery_skill_that_takes_the_marker() -> None:
    state = _wander_to_the_mastery_icon(ENGINE)
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "mastery_marker")
    assert [a["mastery"] for a in legal] == ["keltz-drifter", "keltz-scavenge"]
    state = _act(state, A, {"type": "mastery_marker", "mastery": "keltz-scavenge"})
    assert list(state.data["players"][A]["mastery"]) == ["keltz-scavenge"]
    assert owed(state)[:2] == (A, "act")
    # the second Mastery icon: one Mastery Skill left, so nobody is asked
    turn = state.data["turn"]["number"]
    state = _wander_to_the_mastery_icon(ENGINE, 5, {"keltz-scavenge": turn - 1})
    assert owed(state)[:2] == (A, "act")
    assert sorted(state.data["players"][A]["mastery"]) == ["keltz-drifter", "keltz-scavenge"]
    # 0.3.0: the first unmarked Mastery Skill took it, nobody was asked
    state = _wander_to_the_mastery_icon(V3)
    assert owed(state)[:2] == (A, "act")
    assert list(state.data["players"][A]["mastery"]) == ["keltz-drifter"]


# -- Minion Nests "may still be used for targeting and range for abilities" ------------------
def _trap_spaces(engine: BarbaricEngine) -> set[tuple[int, int]]:
    t = table(2, positions=[(1, 1), (4, -2)])
    t.minions = []  # every nest empty
    t.players[A].gear = "megalodon"
    t.players[A].learned = {"megalodon-tidal-trap": ["megalodon-tidal-trap/1"]}
    state = _at_act(t, A, engine)
    return {tuple(a["at"]) for a in _legal(state, engine)
            if a.get("skill") == "megalodon-tidal-trap"}


def test_an_empty_space_skill_may_target_an_empty_minion_nest() -> None:
    assert {(0, 2), (2, 0)} <= _trap_spaces(ENGINE)  # two empty nests next to (1, 1)
    assert not {(0, 2), (2, 0)} & _trap_spaces(V3)


# -- Solo: "Special Status Tokens ... treat the Monster (not Minions) as a Character" --------
def _solo_monster_routes_into_a_trap(engine: BarbaricEngine) -> State:
    t = table(1, mode="solo", positions=[(2, -1)])
    t.minions = []
    t.monster_deck = ["stalk"]
    t.gadgets = [{"kind": "tidal-trap", "hex": (1, -1), "owner": A, "damage": 2}]
    t.stage = 2  # the Day Monster Actions
    t.agenda = [{"step": "monster_card"}, {"step": "monster_end"}]
    g = Play(t, FixedDice(), engine.rules)
    flow.advance(g)
    state = g.t.freeze()
    assert owed(state)[:2] == (A, "route")
    return _act(state, A, {"type": "route", "to": [1, -1]}, engine)


def test_in_solo_the_monster_springs_a_tidal_trap() -> None:
    """Tidal Trap: "when a Character moves into a space containing a Tidal Trap token, they
    take the amount of damage ... and inflict them with Vortex token"; in Solo the Monster is
    treated as a Character, and its damage goes on the Armor (Monster Board B)."""
    d = _solo_monster_routes_into_a_trap(ENGINE).data
    assert d["monster"]["pos"] == [1, -1] and d["gadgets"] == []
    assert d["monster"]["armor_damage"] == 2 and d["monster"]["tokens"] == ["vortex"]
    d = _solo_monster_routes_into_a_trap(V3).data
    assert d["monster"]["armor_damage"] == 0 and len(d["gadgets"]) == 1


def _solo_counter_disruption_with_haze(engine: BarbaricEngine) -> list[Any]:
    t = table(1, mode="solo", positions=[(2, -1)])
    t.minions = []
    t.rage = 2  # six Frenzy Levels revealed: the Monster's Range is 2
    t.monster.tokens = ["haze"]
    t.stage = 1  # the Day Player Phase, not a Monster Phase
    g = Play(t, FixedDice([6]), engine.rules)  # 6: Counter
    monster.disruption(g, A)
    flow.advance(g)
    return [e.data["seats"] for e in g.events if e.kind == "monster_attacks"]


def test_in_solo_haze_limits_the_monsters_range_only_in_the_monster_phase() -> None:
    """Haze: "During the Monster Phase, the Monster has a maximum range of 1"; a Disruption's
    Counterattack in the player's turn has the Monster's whole Range."""
    assert _solo_counter_disruption_with_haze(ENGINE) == [[A]]
    assert _solo_counter_disruption_with_haze(V3) == [[]]


# -- rules in the code that had no test of their own -----------------------------------------
def test_a_tunnel_moves_to_any_other_unoccupied_tunnel() -> None:
    """Map Icons, Tunnel: "can use the Move action to move to any other unoccupied Tunnel
    Space"."""
    t = table(2, positions=[(-3, 1), (3, -1)])
    t.minions = []
    moves = {tuple(a["to"]) for a in _legal(_at_act(t)) if a["type"] == "move" and "to" in a}
    assert (-1, 3) in moves and (3, -1) not in moves  # the other Tunnel is occupied


def test_time_dimension_allows_a_rider_or_a_gear_action_not_both() -> None:
    t = table(2, positions=SPREAD2)
    t.players[A].tokens = ["time-dimension"]
    state = _act(_at_act(t), A, {"type": "search"})
    assert [a["type"] for a in _legal(state)] == ["end_actions"]
    state = _act(state, A, {"type": "end_actions"})
    assert "time-dimension" not in state.data["players"][A]["tokens"]  # gone at Upkeep


def test_vortex_stops_the_move_action_but_not_consuming_fuel() -> None:
    t = table(2, positions=SPREAD2)
    t.players[A].tokens = ["vortex"]
    t.players[A].resources["fuel"] = 1
    state = turn_of(t, A).freeze()
    assert any(a.get("benefit") == "move" for a in _legal(state))
    state = _act(state, A, {"type": "pass"})
    assert not [a for a in _legal(state) if a["type"] == "move"]


def test_upkeep_readies_the_tokens_and_draws_one_card() -> None:
    t = table(2, positions=SPREAD2)
    p = t.players[A]
    p.subs["gear"], p.subs_ready["gear"], p.mastery_cooldown = 1, 0, ["jackrabbit-turbo"]
    state = _act(_at_act(t), A, {"type": "search"})
    state = _act(state, A, {"type": "end_actions"})
    a = state.data["players"][A]
    assert a["ready"] == {"rider": True, "gear": True} and a["subs_ready"]["gear"] == 1
    assert a["mastery_cooldown"] == [] and len(a["hand"]) == 1


def test_defeating_a_minion_moves_the_tracker_and_rolls_for_a_resource() -> None:
    """Damaging a Minion: "the Minion is defeated and removed from the Map. Move the Damage
    Cube on the Minion Tracker one space. Then, the player who defeated the Minion gains a
    Resource and rolls the Resource Die to randomly determine the type.\""""
    t = table(2, positions=[(3, -2), (-4, 2)])
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _act(_at_act(t), A, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                                 "at": [2, -2]}, dice=FixedDice(["food"]))
    d = state.data
    assert [2, -2] not in d["minions"] and d["tracker"] == 1
    assert d["players"][A]["resources"]["food"] == 1 and d["last_slayer"] == A


def test_a_card_without_a_resource_cost_cannot_be_learned() -> None:
    """Skill Card Components: "If a card does not have a Resource cost in the top left
    corner, it cannot become a Learned Skill" (Counter and Ultimate Skills)."""
    t = table(2, positions=SPREAD2)
    t.players[A].hand = ["keltz-chrono-break/1", "keltz-sidestep/1", "keltz-wander/1"]
    t.players[A].resources = {"fuel": 3, "food": 3, "scrap": 3}
    learns = [a["card"] for a in _legal(turn_of(t, A).freeze()) if a["type"] == "learn"]
    assert learns == ["keltz-wander/1"]


def test_an_occupied_next_whirlpool_is_passed_and_a_blocked_one_hurts() -> None:
    """Whirlpool (ruling 18): the next unoccupied Whirlpool clockwise; if none, 1 damage."""
    t = table(2, positions=[(1, -3), (2, -3)])
    t.minions = []
    state = _act(_at_act(t), A, {"type": "end_actions"})
    assert state.data["players"][A]["pos"] == [1, -2]
    t = table(3, positions=[(1, -3), (2, -3), (1, -2)])
    t.minions = []
    state = _act(_at_act(t), A, {"type": "end_actions"})
    assert owed(state)[:2] == (A, "allocate") and state.data["players"][A]["pos"] == [1, -3]


SPREAD2 = [(4, -2), (2, 2)]


def test_the_starting_hand_is_two_rider_and_two_gear_cards_of_different_names() -> None:
    """Game Setup 10: "Each player chooses 4 of their cards (2 Rider Skill and 2 Gear Skill
    Cards) to form their hand (do not choose the same name skill)"; the rest is shuffled into
    the Character deck."""
    from services.rules.games.barbaric.content import skill_of

    state = ENGINE.setup(MatchConfig("competitive", 2), SeededRandomness(3))
    while owed(state)[1] != "choose_card":
        state = _act(state, owed(state)[0], owed(state)[2][0])
    seat = owed(state)[0]
    state = _act(state, seat, owed(state)[2][0])
    first = state.data["players"][seat]["hand"][0]
    cards = [a["card"] for a in owed(state)[2]]
    assert skill_of(first).name not in {skill_of(c).name for c in cards}  # no second copy
    while owed(state)[:2] == (seat, "choose_card"):
        state = _act(state, seat, owed(state)[2][0])
    p = state.data["players"][seat]
    sides = sorted(skill_of(c).side for c in p["hand"])
    assert sides == ["gear", "gear", "rider", "rider"]
    assert len({skill_of(c).name for c in p["hand"]}) == 4 and len(p["deck"]) == 20 - 4


def test_consuming_scrap_regains_two_shields_or_draws_two_cards() -> None:
    """3.1.2: "Scrap: Either regain 2 Shields or draw 2 cards" (Fuel and Food in
    test_worked_examples)."""
    t = table(2, positions=SPREAD2)
    t.players[A].resources["scrap"] = 2
    t.players[A].shield_damage = 1
    t.players[A].dial["gear"] = 3  # 3 maximum Shields
    state = _act(turn_of(t, A).freeze(), A,
                 {"type": "consume", "resource": "scrap", "benefit": "shields"})
    state = _act(state, B, {"type": "pass"})
    assert state.data["players"][A]["shield_damage"] == 0
    t = state.table()
    state = _act(turn_of(t, A).freeze(), A,
                 {"type": "consume", "resource": "scrap", "benefit": "draw"})
    assert len(state.data["players"][A]["hand"]) == 2


def test_first_aid_heals_one_health_per_card_discarded() -> None:
    t = table(2, positions=SPREAD2)
    p = t.players[A]
    p.hand, p.health_damage, p.dial["rider"] = ["keltz-wander/1", "keltz-wander/2"], 2, 3
    state = _act(_at_act(t), A, {"type": "first_aid"})
    state = _act(state, A, {"type": "discard", "card": "keltz-wander/1"})
    state = _act(state, A, {"type": "done"})
    a = state.data["players"][A]
    assert (a["health_damage"], a["hand"], a["discard"]) == (1, ["keltz-wander/2"],
                                                             ["keltz-wander/1"])


def test_level_two_adds_its_bonus_to_the_level_one_effect() -> None:
    """Learning Skills: "If there are 2 copies ... resolve the Level I and Level II effect
    simultaneously" (CARROT MISSILE: 1 damage, II: +1 damage)."""
    t = table(2, positions=[(1, -2), (1, -3)])
    t.minions = []
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1",
                                                          "jackrabbit-carrot-missile/2"]}
    state = _act(_at_act(t), A, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                                 "at": [1, -3]})
    assert {a["health"] + a["shields"] for a in _legal(state)} == {2}


def test_sub_tokens_do_not_pay_for_action_phase_actions() -> None:
    """"Sub Stamina and Sub Energy cannot be used for the Rider or Gear actions in the Action
    Phase.\""""
    t = table(2, positions=SPREAD2)
    p = t.players[A]
    p.ready = {"rider": False, "gear": False}
    p.subs = p.subs_ready = {"rider": 1, "gear": 1}
    assert [a["type"] for a in _legal(_at_act(t))] == ["end_actions"]


def test_damage_dealt_directly_to_health_or_shields_goes_there() -> None:
    """Damage: "unless the damage was dealt directly to their Health or Shields. In that case,
    the damage must be allocated to where it was designated" (FEVER, RADIATION)."""
    from services.rules.games.barbaric.damage import allocations

    g = Play(table(2, positions=SPREAD2), FixedDice())
    step = {"step": "allocate", "seat": A, "amount": 1, "source": {"kind": "event"},
            "credit": None}
    assert allocations(g, {**step, "designated": "health"}) == [(1, 0)]
    assert allocations(g, {**step, "designated": "shields"}) == [(0, 1)]
    assert allocations(g, {**step, "designated": None}) == [(0, 1), (1, 0)]


def test_a_linear_skill_hits_the_first_target_in_the_line() -> None:
    """Linear: "affect the first target with a shorter range first" (BOUNTY SHOT: the first
    target in the line); the Minion behind the Character is not hit."""
    t = table(2, positions=[(4, -2), (3, -2)])
    t.players[A].rider = "pia"
    t.players[A].learned = {"pia-bounty-shot": ["pia-bounty-shot/1"]}
    state = _act(_at_act(t), A, {"type": "skill", "skill": "pia-bounty-shot", "dir": 3})
    assert owed(state)[:2] == (B, "allocate") and [2, -2] in state.data["minions"]


def test_solo_dive_halves_the_monsters_damage() -> None:
    """Solo, Megalodon's Dive: "When Megalodon takes damage from the Monster, reduce the
    damage by half (rounded up), then discard the Dive Token" (ruling 16: 2 becomes 1)."""
    t = table(1, mode="solo", positions=[(1, -1)])
    t.players[A].gear, t.players[A].tokens = "megalodon", ["dive"]
    g = Play(t, FixedDice())
    monster.monster_attack(g, {"target": A, "attack": "target"})
    assert t.agenda[0]["amount"] == 1 and t.players[A].tokens == []


# -- published exports: 0.3.0's replays with 0.3.0, 0.4.0's with 0.4.0 ----------------------
def _export(version: str) -> tuple[list[dict[str, Any]], bytes]:
    from pathlib import Path

    from services.platform.draws import state_key
    from services.rules.export import parse_export

    path = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
            / f"barbaric-{version}-competitive.jsonl")
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    assert records[0]["engine_version"] == version
    return records, state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])


def _as(version: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "engine_version": version} if r["type"] == "MatchCreated" else r
            for r in records]


def test_each_export_replays_only_with_its_own_version() -> None:
    """The fixtures cover the change: 0.4.0's has Mastery Marker choices, and 0.3.0's reaches
    a Mastery icon with two unmarked Mastery Skills, which 0.4.0 would ask about."""
    import pytest

    from services.rules.replay import ReplayError, replay

    new, new_key = _export("0.4.0")
    old, old_key = _export("0.3.0")
    assert any(r.get("decision") == "mastery_marker" for r in new)
    assert replay(V4, new, new_key).outcome is not None
    assert replay(V3, old, old_key).outcome is not None
    with pytest.raises(ReplayError):
        replay(V3, _as("0.3.0", new), new_key)
    with pytest.raises(ReplayError):
        replay(V4, _as("0.4.0", old), old_key)
    # engine 0.5.0 draws the starting hands' defaults and copies: 0.4.0's log has no such draws
    with pytest.raises(ReplayError):
        replay(ENGINE, _as(ENGINE.engine_version, new), new_key)
