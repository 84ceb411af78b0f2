"""The rulebook's worked examples, set up, played and checked against what it says."""

from __future__ import annotations

from services.rules.games.barbaric.state import State

from .support import A, B, C, D, FixedDice, act, answer_until, owed, table, turn_of

SPREAD = [(4, -2), (2, 2), (-2, 4), (-4, 2)]
"""Four Spawning Spaces, well apart."""


def _play_turn(state: State, seat: int, action: dict | None) -> State:
    """Pass Preparation (everyone), take ``action`` (then discard nothing), end the turn."""
    state = answer_until(state, lambda s, k: k == "prep" and s == seat)
    state = act(state, seat, {"type": "pass"})
    if action is not None:
        state = act(state, seat, action)
        if action["type"] in ("first_aid", "repair"):
            state = act(state, seat, {"type": "done"})
    return act(state, seat, {"type": "end_actions"})


def test_initiative_example_four_players() -> None:
    """A and B take their turns without First Aid or Repair; C uses First Aid, D Repair:
    the next round starts with D, C, A, B on the Night Track."""
    t = table(4, positions=SPREAD)
    t.tracks = {"day": [A, B, C, D], "night": []}
    t.minions = []
    state = turn_of(t, A).freeze()
    for seat, action in ((A, None), (B, None), (C, {"type": "first_aid"}),
                         (D, {"type": "repair"})):
        state = _play_turn(state, seat, action)
        if seat == C:
            assert state.data["tracks"]["night"][0] == C
    assert state.data["tracks"] == {"day": [], "night": [D, C, A, B]}
    assert state.data["time"] == "night"
    seat, kind, _ = owed(state)
    assert (seat, kind) == (D, "prep")  # the Night Player Phase starts with D


def test_learn_a_skill_example() -> None:
    """A spends 1 Scrap to learn CARROT MISSILE; B exchanges 2 Fuel for 1 Food and learns
    RADAR SYSTEM with it; C and D pass."""
    t = table(4, positions=SPREAD)
    t.players[A].hand = ["jackrabbit-carrot-missile/1"]
    t.players[A].resources["scrap"] = 1
    t.players[B].gear = "jackrabbit"
    t.players[B].hand = ["jackrabbit-radar-system/1"]
    t.players[B].resources["fuel"] = 2
    state = turn_of(t, A).freeze()
    state = act(state, A, {"type": "learn", "card": "jackrabbit-carrot-missile/1"})
    assert owed(state)[:2] == (B, "prep_follow")
    state = act(state, B, {"type": "exchange", "give": "fuel", "get": "food"})  # any time
    assert owed(state)[:2] == (B, "prep_follow")
    state = act(state, B, {"type": "learn", "card": "jackrabbit-radar-system/1"})
    assert owed(state)[:2] == (C, "prep_follow")
    state = act(state, C, {"type": "pass"})
    state = act(state, D, {"type": "pass"})
    a, b = state.data["players"][A], state.data["players"][B]
    assert a["learned"] == {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    assert a["resources"]["scrap"] == 0
    assert b["learned"] == {"jackrabbit-radar-system": ["jackrabbit-radar-system/1"]}
    assert b["resources"] == {"fuel": 0, "food": 0, "scrap": 0}
    assert owed(state)[:2] == (A, "act")


def test_learning_a_second_copy_costs_level_two() -> None:
    t = table(4, positions=SPREAD)
    p = t.players[A]
    p.hand = ["jackrabbit-carrot-missile/2"]
    p.learned = {"jackrabbit-carrot-missile": ["jackrabbit-carrot-missile/1"]}
    p.resources["scrap"] = 1
    state = turn_of(t, A).freeze()
    assert {"type": "learn", "card": "jackrabbit-carrot-missile/2"} not in owed(state)[2]
    t = state.table()
    t.players[A].resources["scrap"] = 2
    state = act(t.freeze(), A, {"type": "learn", "card": "jackrabbit-carrot-missile/2"})
    assert state.data["players"][A]["resources"]["scrap"] == 0  # the Level II cost: 2
    assert len(state.data["players"][A]["learned"]["jackrabbit-carrot-missile"]) == 2


def test_consume_a_resource_example() -> None:
    """C discards 1 Fuel to Move 1 space; D exchanges 2 Scrap for 1 Food and consumes it to
    heal 2 Health; A and B pass."""
    t = table(4, positions=SPREAD)
    t.tracks = {"day": [C, D, A, B], "night": []}
    t.players[C].resources["fuel"] = 1
    t.players[D].resources["scrap"] = 2
    t.players[D].health_damage = 2
    t.players[D].dial["rider"] = 3  # 3 maximum Health, so 2 damage leaves it standing
    state = turn_of(t, C).freeze()
    state = act(state, C, {"type": "consume", "resource": "fuel", "benefit": "move",
                           "to": [-2, 3]})
    assert state.data["players"][C]["pos"] == [-2, 3]
    assert owed(state)[:2] == (D, "prep_follow")
    state = act(state, D, {"type": "exchange", "give": "scrap", "get": "food"})
    state = act(state, D, {"type": "consume", "resource": "food", "benefit": "heal"})
    state = act(state, A, {"type": "pass"})
    state = act(state, B, {"type": "pass"})
    d = state.data["players"][D]
    assert d["health_damage"] == 0 and d["resources"] == {"fuel": 0, "food": 0, "scrap": 0}
    assert owed(state)[:2] == (C, "act")


# The Monster Phase example: positions found so that A and C can be attacked together after
# the Monster moves 3, and each Minion is nearest to two Characters (A/D and B/D).
POSITIONS = [(-2, -2), (-4, 3), (0, -3), (-4, 2)]
MINIONS = [(-2, 0), (-2, 2)]


def test_monster_phase_example_ruthless_tail() -> None:
    t = table(4, positions=POSITIONS)
    t.minions = list(MINIONS)
    t.players[D].shield_damage = 1  # D has 1 damage on their Gear Board
    t.rage = 4  # revealed: Monster Move +2, Minion Move +1, Monster Attack +1
    t.time, t.stage = "twilight", 4
    t.monster_deck = ["ruthless-tail"]
    t.agenda = [{"step": s} for s in ("monster_card", "minions", "respawn", "frenzy",
                                      "monster_end")]
    dice = FixedDice([1, 3, 5])  # A, B and C roll the Monster Die; A rolls the lowest
    state = _start(t, dice)
    assert state.data["monster_face"] == "ruthless-tail"
    assert state.data["monster_target"] == A
    seat, kind, legal = owed(state)
    assert (seat, kind) == (A, "route")
    assert {"type": "route", "to": [-1, -2]} in legal  # adjacent to both A and C
    state = act(state, A, {"type": "route", "to": [-1, -2]})
    # Move 1 + 2 = 3, Attack 2 + 1 = 3, Range 1: A and C are dealt 3 damage each
    hits = []
    for _ in range(2):
        seat, kind, legal = owed(state)
        assert kind == "allocate" and {a["health"] + a["shields"] for a in legal} == {3}
        hits.append(seat)
        state = act(state, seat, {"type": "allocate", "health": 1, "shields": 2})
    assert sorted(hits) == [A, C]
    assert state.data["players"][B]["health_damage"] == 0
    # Minions: A decides that each Minion attacks D, who is defeated; no Victory Token
    for _ in range(2):
        state = answer_until(state, lambda s, k: k in ("minion_target", "allocate"))
        seat, kind, legal = owed(state)
        if kind == "minion_target":
            assert seat == A and {a["seat"] for a in legal} in ({A, D}, {B, D})
            state = act(state, A, {"type": "minion_target", "seat": D})
            state = answer_until(state, lambda s, k: k == "allocate")
        seat, kind, legal = owed(state)
        assert seat == D
        state = act(state, D, {"type": "allocate", "health": 1, "shields": 0})
    d = state.data["players"][D]
    assert d["recovering"] and d["death"] == 1 and d["pos"] is None
    assert all(p["victory"] == 0 for p in state.data["players"])
    # Respawning: A chooses 4 empty Minion Nest Spaces, until 6 Minions are on the Map
    for _ in range(4):
        seat, kind, legal = owed(state)
        assert (seat, kind) == (A, "nest")
        state = act(state, A, legal[0])
    assert len(state.data["minions"]) == 6
    assert state.data["rage"] == 3  # a Rage Token removed from the Frenzy Level


def _start(t, dice) -> State:
    """Run the automatic steps of a frozen table with the given dice."""
    from services.rules.games.barbaric import flow
    from services.rules.games.barbaric.play import Play

    g = Play(t, dice)
    flow.advance(g)
    return g.t.freeze()
