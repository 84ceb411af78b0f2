"""Rulings and rules one at a time: illegal actions are refused with a reason and change
nothing; damage, Recovery, experience, Whirlpools, the Rising Threat, victory, Solo."""

from __future__ import annotations

from services.rules.games.barbaric import flow, hexes
from services.rules.games.barbaric.play import Play

from .support import ENGINE, A, B, C, FixedDice, act, owed, table, turn_of

SPREAD = [(4, -2), (2, 2), (-2, 4), (-4, 2)]


def _refused(state, seat, action, words):
    reason = ENGINE.validate(state, seat, action)
    assert reason is not None and words in reason, reason


def _at_act(t, seat=A):
    state = turn_of(t, seat).freeze()
    return act(state, seat, {"type": "pass"})


def test_moving_into_an_occupied_space_or_a_nest_is_refused() -> None:
    t = table(4, positions=[(1, -2), (2, -1), (-2, 4), (-4, 2)])
    t.minions = [(2, -2)]
    state = _at_act(t)
    _refused(state, A, {"type": "move", "to": [2, -1]}, "occupied")
    _refused(state, A, {"type": "move", "to": [2, -2]}, "occupied")
    t = state.table()
    t.minions = []
    state = t.freeze()
    _refused(state, A, {"type": "move", "to": [2, -2]}, "Minion Nest")
    _refused(state, A, {"type": "move", "to": [3, -2]}, "adjacent")


def test_a_second_gear_action_is_refused() -> None:
    state = _at_act(table(4, positions=SPREAD))
    state = act(state, A, {"type": "move", "to": [3, -1]})
    assert state.data["players"][A]["ready"]["gear"] is False  # the Energy is on Cooldown
    _refused(state, A, {"type": "move", "to": [3, 0]}, "one Gear action")
    state = act(state, A, {"type": "search"})  # the Rider action is still there
    _refused(state, A, {"type": "search"}, "one Rider action")


def test_exiting_without_the_core_is_refused_and_with_it_wins() -> None:
    t = table(4, positions=[(4, -4), (2, 2), (-2, 4), (-4, 2)])
    state = _at_act(t)
    _refused(state, A, {"type": "move", "exit": True}, "Atomic Core")
    t = state.table()
    t.players[A].core, t.core_at = True, None
    state = act(t.freeze(), A, {"type": "move", "exit": True})
    out = ENGINE.outcome(state)
    assert out and out.placements == (1, 2, 2, 2)
    assert out.reason == "left the map with the Atomic Core"


def test_a_mastery_skill_is_not_usable_the_turn_it_is_gained() -> None:
    t = table(4, positions=SPREAD)
    p = t.players[A]
    p.subs["rider"] = p.subs_ready["rider"] = 1
    state = _at_act(t)
    t = state.table()
    t.players[A].mastery = {"keltz-drifter": t.turn.number}
    state = t.freeze()
    _refused(state, A, {"type": "mastery", "mastery": "keltz-drifter"}, "the turn it is gained")
    t = state.table()
    t.players[A].mastery = {"keltz-drifter": t.turn.number - 1}
    t.players[A].health_damage = 1
    state = act(t.freeze(), A, {"type": "mastery", "mastery": "keltz-drifter"})
    p = state.data["players"][A]
    assert p["health_damage"] == 0 and p["subs_ready"]["rider"] == 0
    assert p["mastery_cooldown"] == ["keltz-drifter"]
    _refused(state, A, {"type": "mastery", "mastery": "keltz-drifter"}, "not possible")


def test_a_counter_is_offered_only_when_its_condition_is_met() -> None:
    """RIPOSTE: after you take damage, Counterattack the Attacker within Range 1."""
    t = table(4, positions=[(1, -2), (1, -3), (-2, 4), (-4, 2)])
    t.minions = []
    t.players[C].rider = "theodore"
    t.players[B].hand = ["theodore-riposte/1"]
    t.players[B].rider = "theodore"
    t.players[B].subs["rider"] = t.players[B].subs_ready["rider"] = 1
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _at_act(t)
    _refused(state, B, {"type": "counter", "card": "theodore-riposte/1"}, "condition is not met")
    state = act(state, A, {"type": "skill", "skill": "jackrabbit-carrot-missile", "at": [1, -3]})
    assert owed(state)[:2] == (B, "allocate")
    state = act(state, B, {"type": "allocate", "health": 0, "shields": 1})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (B, "counter")
    state = act(state, B, {"type": "counter", "card": "theodore-riposte/1"})
    assert owed(state)[:2] == (A, "allocate")  # RIPOSTE deals 2 damage to A
    state = act(state, A, {"type": "allocate", "health": 0, "shields": 2})
    b = state.data["players"][B]
    assert "theodore-riposte/1" in b["discard"] and b["dial"]["rider"] == 1  # experience


def test_allocation_choices_and_a_broken_gear() -> None:
    t = table(4, positions=SPREAD)
    g = Play(t, FixedDice())
    step = {"step": "allocate", "seat": A, "amount": 3, "source": {"kind": "event"},
            "credit": None, "designated": None}
    from services.rules.games.barbaric.damage import allocations
    assert allocations(g, step) == [(1, 2), (2, 1)]  # 2 Health and 2 Shields to take it
    t.players[A].shield_damage = 2
    state = _at_act(t)
    assert not [a for a in owed(state)[2] if a["type"] == "move"]  # Broken: no Move


def test_defeat_with_a_death_token_eliminates() -> None:
    t = table(2, positions=SPREAD[:2])
    t.players[B].death = 1
    t.players[B].health_damage = 1
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _at_act(t)
    t = state.table()
    t.players[B].pos = (3, -2)
    state = act(t.freeze(), A, {"type": "skill", "skill": "jackrabbit-carrot-missile",
                                "at": [3, -2]})
    state = act(state, B, {"type": "allocate", "health": 1, "shields": 0})
    assert state.data["players"][B]["eliminated"]
    out = ENGINE.outcome(state)
    assert out and out.reason == "every other player was eliminated"
    assert state.data["players"][A]["victory"] == 1


def test_recovery_status_and_respawn() -> None:
    t = table(4, positions=SPREAD)
    g = Play(t, FixedDice())
    p = t.players[B]
    p.health_damage, p.shield_damage, p.discard, p.tokens = 1, 2, ["pia-pickpocket/1"], ["haze"]
    p.ready = {"rider": False, "gear": False}
    from services.rules.games.barbaric.damage import defeat
    defeat(g, p, A)
    assert (p.recovering, p.pos, p.death, p.health_damage, p.shield_damage) == (
        True, None, 1, 0, 0)
    assert p.tokens == [] and p.discard == [] and "pia-pickpocket/1" in p.deck
    assert p.ready == {"rider": True, "gear": True} and t.players[A].victory == 1
    state = turn_of(t, B).freeze()
    t = state.table()
    t.agenda = [{"step": "start_turn", "seat": B}, {"step": "start_turn", "seat": C}]
    g = Play(t, FixedDice())
    flow.advance(g)
    assert (t.agenda[0]["step"], t.agenda[0]["seat"]) == ("spawn", B)
    spot = t.agenda and flow.options(g, t.agenda[0])[0]
    flow.answer(g, B, spot)
    flow.advance(g)
    assert not t.players[B].recovering and t.agenda[0] == {"step": "prep", "seat": C}


def test_drawing_from_an_empty_deck_reshuffles_and_gives_a_death_token() -> None:
    t = table(2, positions=SPREAD[:2])
    p = t.players[A]
    p.deck, p.discard = [], ["keltz-wander/1", "keltz-wander/2"]
    Play(t, FixedDice()).draw(p)
    assert p.death == 1 and len(p.hand) == 1 and len(p.deck) == 1 and p.discard == []


def test_experience_gives_max_health_sub_stamina_and_paragon() -> None:
    t = table(2, positions=SPREAD[:2])
    g = Play(t, FixedDice())
    p = t.players[A]
    g.experience(p, "rider")
    assert g.max_of(p, "rider") == 3 and p.subs["rider"] == 1  # "Now Keltz has 3 maximum Health"
    for _ in range(10):
        g.experience(p, "rider")
    assert g.max_of(p, "rider") == 6 and p.subs["rider"] == 3
    # two Mastery icons: the player places each Marker (engine 0.4.0, ruling 21)
    assert [s["step"] for s in t.agenda] == ["mastery_marker", "mastery_marker"]
    for choices in (["keltz-drifter", "keltz-scavenge"], ["keltz-drifter"]):
        legal = flow.options(g, t.agenda[0])
        assert [a["mastery"] for a in legal] == choices
        flow.answer(g, A, legal[-1])
    assert list(p.mastery) == ["keltz-scavenge", "keltz-drifter"]
    p.health_damage = 2
    g.experience(p, "rider")  # Paragon: heal 1, then back to the number
    assert p.health_damage == 1 and g.max_of(p, "rider") == 6


def test_whirlpool_moves_clockwise_at_the_end_of_the_turn() -> None:
    t = table(2, positions=[(1, -3), (2, 2)])
    state = _at_act(t)
    state = act(state, A, {"type": "end_actions"})
    assert state.data["players"][A]["pos"] == [2, -3]


def test_rising_threat_after_the_fifth_minion() -> None:
    t = table(2, positions=SPREAD[:2])
    t.minions, t.tracker, t.last_slayer = [], 5, B
    state = _at_act(t)
    state = act(state, A, {"type": "end_actions"})
    for _ in range(2):
        seat, kind, legal = owed(state)
        assert (seat, kind) == (B, "nest")
        state = act(state, B, legal[0])
    assert len(state.data["minions"]) == 2 and state.data["tracker"] == 0
    assert state.data["rage"] == 7


def test_two_victory_tokens_win_three_with_five_players() -> None:
    assert flow.victory_tokens_needed(4) == 2 and flow.victory_tokens_needed(5) == 3
    t = table(4, positions=SPREAD)
    t.players[C].victory = 2
    state = _at_act(t)
    t = state.table()
    g = Play(t, FixedDice())
    flow.check_victory(g)
    assert t.over and t.winner == C and t.reason == "gained 2 Victory Tokens"


def test_solo_loses_when_the_event_deck_is_shuffled() -> None:
    t = table(1, mode="solo", positions=[(4, -2)])
    t.event_deck, t.event_discard, t.stage = [], ["calm"], 2
    g = Play(t, FixedDice())
    flow.next_stage(g)
    assert t.over and t.winner is None and t.reason == "the Event deck was shuffled"


def test_an_event_applies_to_all_and_an_empty_deck_is_reshuffled_first() -> None:
    """Event Phase: draw the top card, apply it to every Character; if the deck is empty at
    the beginning of the Event Phase, shuffle the discard pile to form the Event deck."""
    t = table(3, positions=SPREAD[:3])
    t.players[C].resigned, t.players[C].pos = True, None
    t.event_deck, t.event_discard, t.event_face = [], ["field-medic"], "scrap-yard"
    t.stage = len(flow.SEQUENCE["competitive"]) - 1  # the next phase: Event (Day)
    for p in t.players:
        p.health_damage = p.shield_damage = 1
    g = Play(t, FixedDice())
    flow.next_stage(g)
    kinds = [e.kind for e in g.events]
    assert kinds.index("events_reshuffled") < kinds.index("event")
    assert t.event_face == "field-medic" and t.event_deck == ["scrap-yard"]  # old face too
    assert [p.health_damage for p in t.players] == [0, 0, 1]  # FIELD MEDIC: heal 1, all in play
    assert not t.over


def test_solo_armor_three_then_a_disruption() -> None:
    t = table(1, mode="solo", positions=[(1, -1)])
    g = Play(t, FixedDice([1]))
    from services.rules.games.barbaric.damage import to_monster
    assert to_monster(g, 2, A) == [] and t.monster.armor_damage == 2
    assert to_monster(g, 1, A) == [{"step": "disruption", "seat": A}]
    assert t.monster.armor_damage == 0
    from services.rules.games.barbaric.monster import disruption
    disruption(g, A)  # rolls 1: Stuned, skips the next Monster Actions
    assert t.monster.skip_actions


def test_day_night_marker_rounds_and_twilight() -> None:
    assert flow.SEQUENCE["competitive"] == ("event:day", "players:day", "event:night",
                                            "players:night", "monster")
    assert flow.SEQUENCE["solo"][2] == "monster_actions"  # after the Day turn in Solo


def test_theodore_defensive_stance_spends_sub_stamina_to_reduce_damage() -> None:
    t = table(2, positions=[(1, -2), (1, -3)])
    t.minions = []
    t.players[B].rider = "theodore"
    t.players[B].stance = "defensive"
    t.players[B].subs["rider"] = t.players[B].subs_ready["rider"] = 1
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _at_act(t)
    state = act(state, A, {"type": "skill", "skill": "jackrabbit-carrot-missile", "at": [1, -3]})
    seat, kind, legal = owed(state)
    assert {"type": "allocate", "health": 0, "shields": 0, "spend": 1} in legal
    state = act(state, B, {"type": "allocate", "health": 0, "shields": 0, "spend": 1})
    b = state.data["players"][B]
    assert (b["health_damage"], b["shield_damage"], b["subs_ready"]["rider"]) == (0, 0, 0)


def test_theodore_offensive_stance_spends_sub_stamina_to_add_damage() -> None:
    t = table(2, positions=[(1, -2), (1, -3)])
    t.minions = []
    t.players[A].rider = "theodore"
    t.players[A].stance = "offensive"
    t.players[A].subs["rider"] = t.players[A].subs_ready["rider"] = 1
    t.players[A].learned = {"theodore-shield-bash": ["theodore-shield-bash/1"]}
    state = _at_act(t)
    state = act(state, A, {"type": "skill", "skill": "theodore-shield-bash", "at": [1, -3],
                           "boost": 1})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (B, "allocate")
    assert {a["health"] + a["shields"] for a in legal} == {3}  # SHIELD BASH 2, +1 spent
    a = state.data["players"][A]  # spent 1, then the experience revealed a Sub Stamina
    assert (a["subs"]["rider"], a["subs_ready"]["rider"]) == (2, 1)


def test_solo_day_turn_is_followed_by_monster_actions_only() -> None:
    t = table(1, mode="solo", positions=[(4, -2)])
    t.monster_deck = ["stalk"]
    state = _at_act(t)
    state = act(state, A, {"type": "end_actions"})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "route")  # the targeted player chooses the Monster's route
    state = act(state, A, legal[0])
    d = state.data
    assert d["monster_face"] == "stalk" and d["time"] == "night"  # on to the Night
    assert d["monster"]["pos"] != [0, 0] and len(d["minions"]) == 6 and d["rage"] == 8


def test_solo_vortex_and_haze_on_the_monster() -> None:
    t = table(1, mode="solo", positions=[(2, -1)])
    t.monster.tokens = ["vortex", "vortex", "haze"]
    t.monster_deck = ["stalk"]
    t.agenda = [{"step": "monster_card"}, {"step": "monster_end"}]
    g = Play(t, FixedDice())
    flow.advance(g)
    assert t.monster.pos == (0, 0)  # 2 Vortex: the Monster cannot move
    assert t.monster.tokens == []  # discarded at the end of the Monster Phase


def test_the_atomic_core_is_taken_on_its_space_and_dropped_on_defeat() -> None:
    t = table(2, positions=[(1, -1), (2, 2)])
    t.minions, t.monster.pos = [], (3, -3)
    state = _at_act(t)
    state = act(state, A, {"type": "move", "to": [0, 0]})
    assert state.data["players"][A]["core"] and state.data["core_at"] is None
    t = state.table()
    from services.rules.games.barbaric.damage import defeat
    defeat(Play(t, FixedDice()), t.players[A], None)
    assert t.core_at == (0, 0) and not t.players[A].core


def test_solo_time_dimension_moves_the_monster_toward_the_player_instead() -> None:
    t = table(1, mode="solo", positions=[(4, -2)])
    t.monster.tokens = ["time-dimension", "time-dimension"]
    t.monster_deck = ["stalk"]
    t.stage = 2  # the Day Monster Actions
    t.agenda = [{"step": "monster_card"}, {"step": "monster_end"}]
    flow.advance(Play(t, FixedDice()))
    assert t.monster_deck == ["stalk"]  # no Monster card drawn
    assert hexes.distance(t.monster.pos, (4, -2)) == 3  # 1 space toward the player


def test_face_up_events_limit_range_and_exchanges() -> None:
    """"Event Cards affect all players while they are face-up": DUST STORM, MARKET CRASH."""
    t = table(2, positions=[(1, -1), (-2, 1)])
    t.minions = []
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    t.players[A].resources["fuel"] = 2
    state = _at_act(t)
    aim = {"type": "skill", "skill": "jackrabbit-carrot-missile", "at": [-2, 1]}  # Range 3
    assert aim in owed(state)[2]
    assert ENGINE.validate(state, A, {"type": "exchange", "give": "fuel", "get": "food"}) is None
    t = state.table()
    t.event_face = "dust-storm"
    assert aim not in owed(t.freeze())[2]
    t.event_face = "market-crash"
    _refused(t.freeze(), A, {"type": "exchange", "give": "fuel", "get": "food"}, "not possible")


def test_oil_hunt_moves_adjacent_only_to_a_target_at_half_shields() -> None:
    """OIL HUNT: "Move adjacent to the target. Usage condition: the target must have half
    or less of their total Shields remaining." """
    t = table(2, positions=[(1, -3), (-1, -1)])
    t.minions = []
    t.players[A].gear = "megalodon"
    t.players[A].learned = {"megalodon-oil-hunt": ["megalodon-oil-hunt/1"]}
    state = _at_act(t)
    assert not [a for a in owed(state)[2] if a.get("skill") == "megalodon-oil-hunt"]
    t = state.table()
    t.players[B].shield_damage = 1  # 1 of 2 Shields left: half
    state = t.freeze()
    hunts = [a for a in owed(state)[2] if a.get("skill") == "megalodon-oil-hunt"]
    assert hunts and all(a["at"] == [-1, -1] for a in hunts)
    state = act(state, A, hunts[0])
    assert hexes.distance(tuple(state.data["players"][A]["pos"]), (-1, -1)) == 1


def test_a_counter_of_a_counter_resolves_last_in_first_out() -> None:
    t = table(2, positions=[(1, -2), (1, -3)])
    t.minions = []
    for p in t.players:
        p.rider = "theodore"
        p.dial = {"rider": 7, "gear": 7}  # 6 Health and 6 Shields
        p.subs["rider"] = p.subs_ready["rider"] = 1
    t.players[A].hand = ["theodore-riposte/1"]
    t.players[B].hand = ["theodore-riposte/2"]
    t.players[A].learned = {"theodore-shield-bash": ["theodore-shield-bash/1"]}
    state = _at_act(t)
    state = act(state, A, {"type": "skill", "skill": "theodore-shield-bash", "at": [1, -3]})
    state = act(state, B, {"type": "allocate", "health": 0, "shields": 2})
    state = act(state, B, {"type": "counter", "card": "theodore-riposte/2"})
    state = act(state, A, {"type": "allocate", "health": 0, "shields": 2})
    assert owed(state)[:2] == (A, "counter")  # A answers B's Counterattack in turn
    state = act(state, A, {"type": "counter", "card": "theodore-riposte/1"})
    state = act(state, B, {"type": "allocate", "health": 0, "shields": 2})
    assert owed(state)[:2] == (A, "act")  # the chain is resolved; back to A's Action Phase
    assert [p["shield_damage"] for p in state.data["players"]] == [2, 4]


def test_search_with_two_question_marks_rolls_the_resource_die_twice() -> None:
    t = table(2, positions=[(-1, -2), (2, 2)])  # a "??" space
    state = _at_act(t)
    state = act(state, A, {"type": "search"}, FixedDice(["scrap", "blank"]))
    assert state.data["players"][A]["resources"] == {"fuel": 0, "food": 0, "scrap": 1}
    t = table(2, positions=[(1, 1), (2, 2)])  # a "?" space
    state = act(_at_act(t), A, {"type": "search"}, FixedDice(["any"]))
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "choose_resource") and len(legal) == 3  # any 1 Resource


def test_discovering_survivors_plunder_and_rescue() -> None:
    t = table(2, positions=[(3, 0), (2, 2)])  # a Survivors Space
    t.survivor_deck = ["survivor-01", "survivor-02"]
    state = act(_at_act(t), A, {"type": "search"})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "discover") and {"type": "decline"} in legal
    state = act(state, A, {"type": "discover"})
    seat, kind, legal = owed(state)
    assert {"type": "rescue"} not in legal  # RESCUE needs 1 Sub Stamina
    state = act(state, A, {"type": "plunder"})
    state = act(state, A, {"type": "allocate", "health": 0, "shields": 1})
    d = state.data
    assert d["players"][A]["resources"]["fuel"] == 1 and [3, 0] not in d["survivor_tokens"]
    t = table(2, positions=[(0, 3), (2, 2)])
    t.survivor_deck = ["survivor-01"]
    t.players[A].subs["rider"] = t.players[A].subs_ready["rider"] = 1
    state = act(_at_act(t), A, {"type": "search"})
    state = act(state, A, {"type": "discover"})
    state = act(state, A, {"type": "rescue"})
    a = state.data["players"][A]
    assert a["survivors"] == ["survivor-01"] and a["subs_ready"]["rider"] == 0
    t = state.table()
    t.players[A].shield_damage = 1
    state = act(t.freeze(), A, {"type": "survivor", "card": "survivor-01"})  # once per turn
    assert state.data["players"][A]["shield_damage"] == 0
    _refused(state, A, {"type": "survivor", "card": "survivor-01"}, "not possible")


def test_monster_reaction_rampage_lets_the_roller_attack_and_take_the_victory_token() -> None:
    """Board A: a Character damaging the Monster rolls the Monster Die; the roller controls
    the Monster, and a Character defeated by it gives the roller a Victory Token."""
    t = table(3, positions=[(2, -1), (-1, 1), (-4, 2)])
    t.minions = []
    t.players[B].health_damage = 1
    t.players[A].learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    state = _at_act(t)
    state = act(state, A, {"type": "skill", "skill": "jackrabbit-carrot-missile", "at": [0, 0]},
                FixedDice([5]))  # 5: Rampage
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "control_move")
    state = act(state, A, {"type": "control_move", "to": [0, 0]})
    seat, kind, legal = owed(state)
    assert (seat, kind, legal) == (A, "control_attack", ({"type": "control_attack", "seat": B},))
    state = act(state, A, legal[0])
    state = act(state, B, {"type": "allocate", "health": 1, "shields": 1})
    assert state.data["players"][B]["recovering"] and state.data["players"][A]["victory"] == 1


def _end_of_round(rounds: int, victory: list[int], engine=ENGINE):
    t = table(3, positions=SPREAD[:3])
    t.round, t.stage, t.time = rounds, len(flow.SEQUENCE["competitive"]) - 1, "twilight"
    for p, v in zip(t.players, victory, strict=True):
        p.victory = v
    t.players[C].eliminated, t.players[C].pos = True, None
    g = Play(t, FixedDice(), engine.rules)
    flow.advance(g)
    return g.t.freeze()


def test_round_cap_ends_a_competitive_game_after_round_100() -> None:
    """Ruling 27: the rulebook allows endless games (the Event deck reshuffles); after the
    100th round's Monster Phase the player still in the game with the most Victory Tokens
    wins; tied leaders draw; players out of the game rank last."""
    state = _end_of_round(99, [1, 0, 1])
    assert not state.data["over"] and state.data["round"] == 100
    state = _end_of_round(100, [1, 0, 1])
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason == flow.ROUND_CAP_REASON
    assert outcome.placements == (1, 2, 3) and not outcome.draw
    outcome = ENGINE.outcome(_end_of_round(100, [1, 1, 0]))
    assert outcome is not None and outcome.placements == (1, 1, 3) and outcome.draw
    old = ENGINE.for_version("0.1.0")  # engine 0.1.0 had no cap
    assert old.outcome(_end_of_round(100, [1, 0, 1], old)) is None


def test_solo_has_no_round_cap() -> None:
    t = table(1, mode="solo", positions=SPREAD[:1])
    t.round, t.stage = 100, len(flow.SEQUENCE["solo"]) - 1
    g = Play(t, FixedDice())
    flow.advance(g)
    assert not g.t.over and g.t.round == 101


def _megalodon_with_traps(traps: list[tuple[int, int]], engine=ENGINE):
    t = table(2, positions=[(1, 1), (4, -2)])
    t.minions = []
    t.players[A].gear = "megalodon"
    t.players[A].learned = {"megalodon-tidal-trap": ["megalodon-tidal-trap/1"]}
    t.gadgets = [{"kind": "tidal-trap", "hex": h, "owner": A, "damage": 1} for h in traps]
    state = turn_of(t, A).freeze()
    state = ENGINE.apply(state, A, {"type": "pass"}, FixedDice()).state
    return state, [a for a in engine.pending(state)[0].legal
                   if a.get("skill") == "megalodon-tidal-trap"]


def test_a_tidal_trap_hurts_and_vortexes_another_character_but_not_its_owner() -> None:
    """Gadget: a Character moving into a Tidal Trap takes its damage and a Vortex token, and
    the trap is discarded; "the Gadget's owners ... will not take damage" from it."""
    state, traps = _megalodon_with_traps([])
    assert {"type": "skill", "skill": "megalodon-tidal-trap", "at": [1, 2]} in traps
    state = act(state, A, {"type": "skill", "skill": "megalodon-tidal-trap", "at": [1, 2]})
    assert state.data["gadgets"] == [{"kind": "tidal-trap", "hex": [1, 2], "owner": A,
                                      "damage": 1}]
    t = state.table()
    t.players[B].pos = (2, 2)  # next to the trap
    state = turn_of(t, B).freeze()
    state = act(state, B, {"type": "pass"})
    state = act(state, B, {"type": "move", "to": [1, 2]})
    seat, kind, legal = owed(state)
    assert (seat, kind) == (B, "allocate") and legal[0]["health"] + legal[0]["shields"] == 1
    b = state.data["players"][B]
    assert "vortex" in b["tokens"] and state.data["gadgets"] == []
    t = state.table()
    t.gadgets = [{"kind": "tidal-trap", "hex": (1, 2), "owner": A, "damage": 1}]
    t.players[B].pos, t.players[A].pos = (4, -2), (2, 2)
    t.players[A].tokens, t.players[A].ready = [], {"rider": True, "gear": True}
    state = act(act(turn_of(t, A).freeze(), A, {"type": "pass"}), A,
                {"type": "move", "to": [1, 2]})
    assert state.data["players"][A]["tokens"] == [] and len(state.data["gadgets"]) == 1


def test_at_the_gadget_limit_the_player_chooses_which_trap_to_move() -> None:
    """"If ... there are no more Gadget Tokens remaining, that player may move a Gadget of
    that name to a space within Range instead" (Tidal Trap: Gadget Limit 5)."""
    five = [(-3, 1), (-3, 3), (3, -3), (0, -3), (1, 3)]
    state, traps = _megalodon_with_traps(five)
    assert traps and all("from" in a for a in traps)
    assert {tuple(a["from"]) for a in traps} == set(five)  # any of the five, player's choice
    state = act(state, A, {"type": "skill", "skill": "megalodon-tidal-trap", "at": [1, 2],
                           "from": [3, -3]})
    assert sorted(tuple(g["hex"]) for g in state.data["gadgets"]) == sorted(
        [(-3, 1), (-3, 3), (1, 2), (0, -3), (1, 3)])
    # another player's traps do not count toward this player's limit
    t = state.table()
    for g in t.gadgets[:2]:
        g["owner"] = B
    state, traps = _megalodon_with_traps([tuple(g["hex"]) for g in t.gadgets[2:]])
    assert traps and not any("from" in a for a in traps)
    old = ENGINE.for_version("0.1.0")  # 0.1.0: the oldest trap moves, nobody chooses
    _, traps = _megalodon_with_traps(five, old)
    assert traps and not any("from" in a for a in traps)
