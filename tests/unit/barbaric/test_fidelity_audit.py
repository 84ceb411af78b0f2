"""The rules fidelity audit for engine 0.6.0 (RULES.md rulings 46-50): each rule the engine
got wrong, from the rulebook's own words, checked on the current engine and against 0.5.0,
which matches created before keep; then worked examples of the rulebook that had no test."""

from __future__ import annotations

from typing import Any

from services.rules.games.barbaric import flow
from services.rules.games.barbaric.damage import to_character
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.play import Play
from services.rules.games.barbaric.rulesets import RULESETS
from services.rules.games.barbaric.state import State, Table

from .support import ENGINE, A, B, C, D, FixedDice, owed, table, turn_of

V5 = BarbaricEngine(RULESETS["0.5.0"])


def _act(state: State, seat: int, action: dict[str, Any], engine: BarbaricEngine = ENGINE,
         dice: Any = None) -> State:
    problem = engine.validate(state, seat, action)
    assert problem is None, problem
    return engine.apply(state, seat, action, dice or FixedDice()).state


def _run(t: Table, engine: BarbaricEngine = ENGINE, dice: Any = None) -> State:
    """Run the automatic steps (and forced answers) of a table's agenda."""
    g = Play(t, dice or FixedDice(), engine.rules)
    flow.advance(g)
    return g.t.freeze()


def _legal(state: State, engine: BarbaricEngine = ENGINE) -> tuple[Any, ...]:
    (d,) = engine.pending(state)
    return d.legal


def test_the_current_engine_is_0_6_0() -> None:
    assert ENGINE.engine_version == "0.6.0"
    assert ENGINE.for_version("0.5.0").engine_version == "0.5.0"


# -- Damage: a Broken Gear stays Broken "until it has regained at least 1 Shield" ----------
def _broken_then_experienced(engine: BarbaricEngine) -> State:
    """A's Gear (Jackrabbit, 2 maximum Shields) is allocated 2 damage to its Shields (an
    event's damage dealt to Shields), then A uses CARROT MISSILE on B: 1 Gear experience turns
    the dial to 3 maximum Shields. No Shield was regained. A's next turn, at its Action Phase."""
    t = table(2, positions=[(4, -2), (3, -2)])
    t.minions = []
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    t = turn_of(t, A)
    t.agenda.insert(0, to_character(t.players[A], 2, {"kind": "event"}, None, "shields"))
    state = _run(t, engine)
    assert state.data["players"][A]["shield_damage"] == 2
    state = _act(state, A, {"type": "pass"}, engine)
    assert not [a for a in _legal(state, engine) if a["type"] == "move"]  # Broken
    state = _act(state, A, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                            "at": [3, -2]}, engine)
    state = _act(state, B, {"type": "allocate", "health": 0, "shields": 1}, engine)
    assert state.data["players"][A]["dial"]["gear"] == 1  # 3 maximum Shields now
    assert state.data["players"][A]["shield_damage"] == 2  # nothing regained
    return _next_turn(state, engine)


def _next_turn(state: State, engine: BarbaricEngine = ENGINE) -> State:
    """A's next turn, at its Action Phase (its Upkeep readied its Stamina and Energy)."""
    t = turn_of(state.table(), A)
    t.players[A].ready = {"rider": True, "gear": True}
    return _act(t.freeze(), A, {"type": "pass"}, engine)


def test_a_broken_gear_stays_broken_when_its_maximum_shields_grow() -> None:
    """"If a Gear is ever allocated an amount of damage equal to or greater than their maximum
    Shields that Gear is considered "Broken" and cannot use the "Move" action or be moved by
    any effect until it has regained at least 1 Shield." A larger maximum is not a Shield
    regained (ruling 46)."""
    state = _broken_then_experienced(ENGINE)
    assert not [a for a in _legal(state) if a["type"] == "move"]
    assert "broken" in state.data["players"][A]["tokens"]


def test_a_broken_gear_is_mended_by_a_regained_shield() -> None:
    state = _broken_then_experienced(ENGINE)
    t = state.table()
    t.players[A].hand = ["jackrabbit-nitro/1"]
    state = _act(t.freeze(), A, {"type": "repair"})
    state = _act(state, A, {"type": "discard", "card": "jackrabbit-nitro/1"})
    a = state.data["players"][A]
    assert a["shield_damage"] == 1 and "broken" not in a["tokens"]
    state = _next_turn(state)
    assert [x for x in _legal(state) if x["type"] == "move"]


def test_engine_0_5_0_let_a_larger_maximum_mend_a_broken_gear() -> None:
    state = _broken_then_experienced(V5)
    assert [a for a in _legal(state, V5) if a["type"] == "move"]
    assert "broken" not in state.data["players"][A]["tokens"]


# -- Appendix: "All targets within Range: ... there is no limit on the number of targets" ---
# Rook (Rider) at (0, -1) with SCRAP STORM ("Deal 2 damage to all targets within Range 2"):
# within Range 2 stand the Monster, 4 Minions ((-2, 0), (-1, 1), (0, -2), (2, -2)) and 3 other
# Characters - 8 targets; the Minions at (0, 2) and (2, 0) are 3 spaces away.
STORM = [(0, -1), (1, -1), (-1, 0), (1, 0)]
STORM_MINIONS = [(-2, 0), (-1, 1), (0, -2), (2, -2), (2, 0), (0, 2)]


def _scrap_storm(engine: BarbaricEngine) -> State:
    t = table(4, positions=STORM)
    t.players[A].rider = "rook"
    t.players[A].hand = ["rook-scrap-storm/1"]
    t.players[A].subs["rider"] = t.players[A].subs_ready["rider"] = 1
    t.monster.pos = (0, 1)
    t.minions = sorted(STORM_MINIONS)
    state = _act(turn_of(t, A).freeze(), A, {"type": "pass"}, engine)
    return _act(state, A, {"type": "ultimate", "card": "rook-scrap-storm/1"}, engine,
                FixedDice([1]))


def _hit_seats(state: State) -> set[int]:
    return {s["seat"] for s in state.data["agenda"] if s["step"] == "allocate"}


def test_an_all_targets_skill_hits_every_target_within_range() -> None:
    """SCRAP STORM hits all 8: B, C and D are dealt 2 damage and every Minion within Range 2 is
    defeated (ruling 47)."""
    state = _scrap_storm(ENGINE)
    assert _hit_seats(state) == {B, C, D}
    assert sorted(map(tuple, state.data["minions"])) == [(0, 2), (2, 0)]
    assert state.data["tracker"] == 4


def test_engine_0_5_0_stopped_at_six_targets_in_map_order() -> None:
    state = _scrap_storm(V5)
    assert _hit_seats(state) == {B, C}  # D at (1, 0) was left out
    assert (2, -2) in map(tuple, state.data["minions"])


# -- 4.1: "the Monster must be moved into a position where it can carry out its attack" -----
def _tail_at_range_two(engine: BarbaricEngine, card: str = "ruthless-tail") -> State:
    """Six Rage Tokens removed: the Monster has Move 3, Attack 3 and Range 2. A (no damage) is
    2 spaces from it; B has 1 damage. RUTHLESS TAIL: "Move toward the Character with the
    least damage, then Attack all adjacent targets"."""
    t = table(2, positions=[(0, -2), (4, -2)])
    t.minions = []
    t.rage = 2
    t.players[A].dial["rider"] = 3  # 4 maximum Health: 3 damage is allocated, not fatal
    t.players[B].shield_damage = 1
    if card == "tail-whip":  # "Move toward the Character with the most damage"
        t.players[A].shield_damage, t.players[B].shield_damage = 1, 0
    t.time, t.stage = "twilight", 4
    t.monster_deck = [card]
    t.agenda = [{"step": "monster_card"}, {"step": "monster_end"}]
    return _run(t, engine, FixedDice([1]))


def test_an_all_adjacent_attack_moves_the_monster_next_to_its_target() -> None:
    """With Range 2 the Monster could stop 2 spaces away, but its card attacks only adjacent
    targets: the route must end next to the target, who is then attacked (ruling 48)."""
    for card in ("ruthless-tail", "tail-whip"):
        state = _tail_at_range_two(ENGINE, card)
        seat, kind, legal = owed(state)
        assert (seat, kind) == (A, "route")
        assert legal and all(max(abs(q), abs(r + 2), abs(q + r + 2)) == 1
                             for q, r in (a["to"] for a in legal))
        state = _act(state, A, legal[0])
        seat, kind, legal = owed(state)
        assert (seat, kind) == (A, "allocate")
        assert {a["health"] + a["shields"] for a in legal} == {3}


def test_engine_0_5_0_left_the_monster_two_spaces_away_attacking_nobody() -> None:
    state = _tail_at_range_two(V5)
    assert state.data["monster"]["pos"] == [0, 0]
    assert not [s for s in state.data["agenda"] if s["step"] == "allocate"]
    assert state.data["players"][A]["health_damage"] == 0


# -- Appendix "After X Takes Damage ... after the damage is dealt": none dealt, no Counter ---
def _stance_to_nothing(engine: BarbaricEngine) -> State:
    """C (Theodore, Defensive Stance, 1 Sub Stamina, RIPOSTE in hand) is dealt 1 damage by A's
    CARROT MISSILE from the next space and spends the Sub Stamina to reduce it to 0."""
    t = table(4, positions=[(1, -2), (4, -2), (1, -3), (-4, 2)])
    t.minions = []
    c = t.players[C]
    c.stance = "defensive"
    c.subs["rider"] = c.subs_ready["rider"] = 1
    c.subs["gear"] = c.subs_ready["gear"] = 1
    c.hand = ["theodore-riposte/1", "genbu-spiked-shell/1"]
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _act(turn_of(t, A).freeze(), A, {"type": "pass"}, engine)
    state = _act(state, A, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                            "at": [1, -3]}, engine)
    return _act(state, C, {"type": "allocate", "health": 0, "shields": 0, "spend": 1}, engine)


def test_damage_reduced_to_nothing_opens_no_response_window() -> None:
    """A Counter "After you take damage" needs damage dealt; reduced to 0 by the Defensive
    Stance, none was, so no response window opens (ruling 49)."""
    state = _stance_to_nothing(ENGINE)
    assert owed(state)[:2] == (A, "act")
    assert state.data["players"][C]["hand"] == ["theodore-riposte/1", "genbu-spiked-shell/1"]


def test_engine_0_5_0_offered_a_counter_after_no_damage() -> None:
    state = _stance_to_nothing(V5)
    (d,) = V5.pending(state)
    assert (d.seat, d.kind) == (C, "counter")
    assert {"type": "counter", "card": "genbu-spiked-shell/1"} in d.legal


# -- Offensive Stance: "when Theodore deals damage ... increase the damage" (Counters too) --
def _riposte_window(engine: BarbaricEngine) -> State:
    """A (Theodore, Offensive Stance, 2 Sub Stamina, RIPOSTE in hand) is dealt 1 damage by B's
    CARROT MISSILE from the next space."""
    t = table(2, positions=[(1, -3), (1, -2)])
    t.minions = []
    a = t.players[A]
    a.rider, a.stance = "theodore", "offensive"
    a.subs["rider"] = a.subs_ready["rider"] = 2
    a.hand = ["theodore-riposte/1"]
    t.players[B].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    t.players[B].gear = "jackrabbit"
    state = _act(turn_of(t, B).freeze(), B, {"type": "pass"}, engine)
    state = _act(state, B, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                            "at": [1, -3]}, engine)
    state = _act(state, A, {"type": "allocate", "health": 0, "shields": 1}, engine)
    assert owed(state)[:2] == (A, "counter")
    return state


def test_offensive_stance_adds_to_a_counterattack() -> None:
    """RIPOSTE (2 damage) played with 1 more Sub Stamina spent: B is dealt 3 (ruling 50)."""
    state = _riposte_window(ENGINE)
    play = {"type": "counter", "card": "theodore-riposte/1", "boost": 1}
    assert play in _legal(state)
    state = _act(state, A, play)
    seat, kind, legal = owed(state)
    assert (seat, kind) == (B, "allocate")
    assert {x["health"] + x["shields"] for x in legal} == {3}
    a = state.data["players"][A]  # 2 spent; then the experience revealed a Sub Stamina
    assert (a["subs"]["rider"], a["subs_ready"]["rider"]) == (3, 1)


def test_engine_0_5_0_offered_no_boost_to_a_counter() -> None:
    state = _riposte_window(V5)
    assert not [x for x in _legal(state, V5) if "boost" in x]


# -- Worked examples of 4.1 and 4.2 ----------------------------------------------------------
def test_monster_and_minion_stats_examples() -> None:
    """4.1: "Monster Stats Move 1, Attack 2, Range 1, plus Monster +1 Move: Move 1+1 = 2 /
    Attack Damage 2 / Range 1." 4.2: "Move 0 + 1 bonus, Attack Damage 1, Range 1, Health 1;
    with Minions +1 Move: Move 1 / Attack Damage 1 / Range 1 / Health 1." The reference
    Frenzy Level reveals Monster +1 Move first, then Minions +1 Move."""
    t = table(2)
    g = Play(t, FixedDice())
    t.rage = 8
    assert g.stats("monster") == {"move": 1, "attack": 2, "range": 1}
    assert g.stats("minion") == {"move": 0, "attack": 1, "range": 1, "health": 1}
    t.rage = 7
    assert g.stats("monster") == {"move": 2, "attack": 2, "range": 1}
    t.rage = 6
    assert g.stats("minion") == {"move": 1, "attack": 1, "range": 1, "health": 1}


def test_the_all_targets_skills_are_those_whose_text_says_all_or_everyone() -> None:
    """The convention ruling 47 reads: max_targets 6 in the reference pack is "all". The one
    other "all targets" skill, FEEDING FRENZY, is a Fan of Range 1: 3 spaces, 3 targets."""
    from services.rules.games.barbaric.content import SKILLS
    from services.rules.games.barbaric.skills import ALL_TARGETS

    unlimited = {s.id for s in SKILLS.values() if s.max_targets >= ALL_TARGETS}
    said = {s.id for s in SKILLS.values()
            if " all adjacent" in s.text or "all targets" in s.text or "everyone" in s.text}
    assert unlimited == said - {"megalodon-feeding-frenzy"} and "rook-scrap-storm" in unlimited
    frenzy = SKILLS["megalodon-feeding-frenzy"]
    assert (frenzy.shape, frenzy.range, frenzy.max_targets) == ("fan", 1, 3)


# -- published exports: 0.5.0's replays with 0.5.0 only, 0.6.0's with 0.6.0 only -----------
def test_the_0_5_0_and_0_6_0_exports_each_replay_only_with_their_own_version() -> None:
    """The 0.6.0 fixture (4 seats, random bots, ``selfplay.export_game`` seed 60) breaks
    Gears (the ``broken`` marker of ruling 46, which 0.5.0 does not keep) and draws
    RUTHLESS TAIL and TAIL WHIP; the 0.5.0 fixture breaks Gears without the marker."""
    import pytest

    from services.rules.replay import ReplayError, replay

    from .test_rulebook_audit import _as, _export

    new, new_key = _export("0.6.0")
    old, old_key = _export("0.5.0")
    events = [e for r in new for e in (r.get("events") or [])]
    assert any(e["kind"] == "gear_broken" for e in events)
    assert {"ruthless-tail", "tail-whip"} <= {e["data"]["card"] for e in events
                                              if e["kind"] == "monster_card"}
    assert replay(ENGINE, new, new_key).outcome is not None
    assert replay(V5, old, old_key).outcome is not None
    with pytest.raises(ReplayError):
        replay(V5, _as("0.5.0", new), new_key)
    with pytest.raises(ReplayError):
        replay(ENGINE, _as("0.6.0", old), old_key)


def test_a_boosted_counter_keeps_its_boost_when_the_active_player_orders_the_chain() -> None:
    """RUSTY BLADE hits B (Theodore, Offensive Stance) and C (Pia); both Counter, B with 1
    Sub Stamina more. A adds C's first, so B's resolves first: 2 + 1 damage, then C's 1."""
    t = table(3, positions=[(1, -2), (1, -3), (2, -3)])
    t.minions = []
    t.players[A].learned = {"keltz-rusty-blade": ["keltz-rusty-blade/1"]}
    b, c = t.players[B], t.players[C]
    b.rider, b.stance, b.hand = "theodore", "offensive", ["theodore-riposte/1"]
    b.subs["rider"] = b.subs_ready["rider"] = 2
    c.rider, c.hand = "pia", ["pia-return-fire/1"]
    c.subs["rider"] = c.subs_ready["rider"] = 1
    state = _act(turn_of(t, A).freeze(), A, {"type": "pass"})
    state = _act(state, A, {"type": "skill", "skill": "keltz-rusty-blade"})
    for seat in (B, C):
        state = _act(state, seat, {"type": "allocate", "health": 0, "shields": 1})
    state = _act(state, B, {"type": "counter", "card": "theodore-riposte/1", "boost": 1})
    state = _act(state, C, {"type": "counter", "card": "pia-return-fire/1"})
    assert owed(state)[:2] == (A, "chain_order")
    state = _act(state, A, {"type": "chain", "seat": C, "card": "pia-return-fire/1"})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "allocate") and {x["health"] + x["shields"] for x in legal} == {3}
    later = [s for s in state.data["agenda"] if s["step"] == "counter_resolve"]
    assert [(s["seat"], s.get("boost")) for s in later] == [(C, None)]
