"""The Resolution Chain (engine 0.2.0): Counter Skills used in response to one damage
instance are offered in turn order from the active player, the active player decides the
order they are added to the chain, and they resolve last in, first out.

The rulebook's example: "Player A, Player B, Player C play Counter Skills in that order;
start with the last Counter Skill Card, Player C's."
"""

from __future__ import annotations

from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.rulesets import RULESETS

from .support import ENGINE, A, B, C, D, FixedDice, owed, table, turn_of

# D (Rook) in the middle of A (Keltz), B (Pia Amber) and C (Theodore), far from the Monster.
AROUND_D = [(-2, 3), (-3, 2), (-4, 3), (-3, 3)]
COUNTERS = {A: "keltz-sidestep/1", B: "pia-return-fire/1", C: "theodore-riposte/1"}


def _scrap_storm(engine: BarbaricEngine = ENGINE, stop_after: int = 3):
    """D, the active player, uses the Ultimate SCRAP STORM (2 damage to all within Range 2);
    A, B and C each allocate the 2 damage and hold a Counter Skill and a Sub Stamina."""
    t = table(4, positions=AROUND_D)
    t.minions = []
    for p in t.players:
        p.dial = {"rider": 6, "gear": 6}  # 5 Health, 5 Shields: nobody is defeated
        p.subs["rider"] = p.subs_ready["rider"] = 1
    for seat, card in COUNTERS.items():
        t.players[seat].hand = [card]
    t.players[D].hand = ["rook-scrap-storm/1"]
    t.players[D].rider = "rook"
    state = turn_of(t, D).freeze()
    state = _do(engine, state, D, {"type": "pass"})
    state = _do(engine, state, D, {"type": "ultimate", "card": "rook-scrap-storm/1"})
    for _ in range(stop_after):
        seat, kind, _legal = _owed(engine, state)
        assert kind == "allocate"
        state = _do(engine, state, seat, {"type": "allocate", "health": 0, "shields": 2})
    return state


def _do(engine, state, seat, action, log=None):
    problem = engine.validate(state, seat, action)
    assert problem is None, problem
    tr = engine.apply(state, seat, action, FixedDice())
    if log is not None:
        log += [e for e in tr.events if e.kind == "counter_resolved"]
    return tr.state


def _owed(engine, state):
    (d,) = engine.pending(state)
    return d.seat, d.kind, d.legal


def _respond_in_turn_order(state):
    for seat in (A, B, C):  # the window goes from the active player D in turn order
        who, kind, legal = owed(state)
        assert (who, kind) == (seat, "counter") and {"type": "pass"} in legal
        assert ENGINE.view(state, None)["waiting_for"] == {"step": "counter", "seat": seat}
        state = _do(ENGINE, state, seat, {"type": "counter", "card": COUNTERS[seat]})
    return state


def _resolve(state, log):
    while True:
        seat, kind, legal = owed(state)
        if kind == "act":
            return state
        assert seat == D and kind == "allocate", (seat, kind)
        (d,) = ENGINE.pending(state)
        state = _do(ENGINE, state, D, d.default, log)  # as little as possible on Health


def test_the_last_counter_played_resolves_first() -> None:
    state = _respond_in_turn_order(_scrap_storm())
    seat, kind, legal = owed(state)
    assert (seat, kind) == (D, "chain_order")  # the active player orders the responses
    log: list = []
    while kind == "chain_order":
        (d,) = ENGINE.pending(state)
        state = _do(ENGINE, state, D, d.default, log)  # default: the order they were played
        seat, kind, legal = owed(state)
    state = _resolve(state, log)
    assert [e.data["seat"] for e in log] == [C, B, A]
    assert owed(state)[:2] == (D, "act")
    players = state.data["players"]
    assert all(COUNTERS[s] in players[s]["discard"] for s in (A, B, C))
    assert [players[s]["dial"]["rider"] for s in (A, B, C)] == [7, 7, 7]  # 1 experience each
    assert players[D]["shield_damage"] + players[D]["health_damage"] == 4  # 1 + 2 + 1


def test_the_active_player_decides_the_order_of_responses_to_one_instance() -> None:
    state = _respond_in_turn_order(_scrap_storm())
    log: list = []
    for seat in (C, A):  # D adds C's Counter first, then A's; B's is added last
        legal = owed(state)[2]
        pick = next(a for a in legal if a["seat"] == seat)
        state = _do(ENGINE, state, D, pick, log)
    state = _resolve(state, log)
    assert [e.data["seat"] for e in log] == [B, A, C]


def test_passing_players_are_left_out_and_a_single_response_needs_no_ordering() -> None:
    state = _scrap_storm()
    early = ENGINE.validate(state, C, {"type": "counter", "card": COUNTERS[C]})
    assert early is not None and "seat 0 answers first" in early  # turn order: A first
    state = _do(ENGINE, state, A, {"type": "pass"})
    state = _do(ENGINE, state, B, {"type": "counter", "card": COUNTERS[B]})
    log: list = []
    state = _do(ENGINE, state, C, {"type": "pass"}, log)  # the window closes: B's resolves
    state = _resolve(state, log)
    assert [e.data["seat"] for e in log] == [B]
    assert ENGINE.validate(state, A, {"type": "counter", "card": COUNTERS[A]}) is not None


def test_engine_0_1_0_resolves_each_counter_right_after_its_own_damage() -> None:
    old = ENGINE.for_version("0.1.0")
    assert old.rules is RULESETS["0.1.0"]
    state = _scrap_storm(old, stop_after=0)
    first, kind, _ = _owed(old, state)
    assert kind == "allocate"
    state = _do(old, state, first, {"type": "allocate", "health": 0, "shields": 2})
    seat, kind, _ = _owed(old, state)
    assert (seat, kind) == (first, "counter")  # its own window, before the others allocate
    state = _do(old, state, first, {"type": "counter", "card": COUNTERS[first]})
    seat, kind, _ = _owed(old, state)
    assert (seat, kind) == (D, "allocate")  # A's Counterattack resolves at once
