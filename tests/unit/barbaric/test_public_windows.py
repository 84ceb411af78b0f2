"""Response windows depend on public information only (engine 0.3.0; RULES.md ruling 32).

Engine 0.2.0 opened a Counter response window, and asked a seat in it, only when that seat
held a usable Counter Skill: the pending list (seat, kind), the seat's clock and the wait
told everyone what was in a hidden hand. From 0.3.0 every seat that took the damage and could
hold a playable Counter judging by what is public is asked in turn order; a seat with none in
hand gets a pass-only decision. Matches of 0.2.0 replay with 0.2.0's windows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from services.platform.draws import SeededRandomness, state_key
from services.rules.bots import RandomBot
from services.rules.export import parse_export
from services.rules.games.barbaric import chain, damage
from services.rules.games.barbaric.bots import RuleBot
from services.rules.games.barbaric.content import GEARS, RIDERS, card_ids, skill_of
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.play import Play
from services.rules.games.barbaric.rulesets import CURRENT, RULESETS
from services.rules.games.barbaric.state import State
from services.rules.games.contract import MatchConfig
from services.rules.replay import ReplayError, replay

from .support import A, B, C, D, FixedDice, table, turn_of

V2 = BarbaricEngine(RULESETS["0.2.0"])
V3 = BarbaricEngine(RULESETS["0.3.0"])
AROUND_D = [(-2, 3), (-3, 2), (-4, 3), (-3, 3)]
COUNTERS = {A: "keltz-sidestep/1", B: "pia-return-fire/1", C: "theodore-riposte/1"}
EXPORT_0_2 = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
              / "barbaric-0.2.0-competitive.jsonl")


def _is_counter(card: str) -> bool:
    return skill_of(card).kind == "counter"


def _plain(rider: str) -> str:
    """A card of the Rider's board that is not a Counter Skill."""
    return next(c for c in card_ids(RIDERS[rider]) if not _is_counter(c))


def _storm(engine: BarbaricEngine, b_holds_counter: bool) -> State:
    """D uses SCRAP STORM on A, B and C (all with a Sub Stamina ready); A and C hold a Counter,
    B holds one or a plain card (one card either way: the public state is the same)."""
    t = table(4, positions=AROUND_D)
    t.minions = []
    for p in t.players:
        p.dial = {"rider": 6, "gear": 6}
        p.subs["rider"] = p.subs_ready["rider"] = 1
    for seat, card in COUNTERS.items():
        t.players[seat].hand = [card]
    if not b_holds_counter:
        t.players[B].hand = [_plain("pia")]
    t.players[D].hand = ["rook-scrap-storm/1"]
    state = turn_of(t, D).freeze()
    for seat, action in ((D, {"type": "pass"}),
                         (D, {"type": "ultimate", "card": "rook-scrap-storm/1"})):
        assert engine.validate(state, seat, action) is None
        state = engine.apply(state, seat, action, FixedDice()).state
    return state


def _windows(state: State) -> list[dict[str, Any]]:
    return [{k: s.get(k) for k in ("attacker", "seats", "window")}
            for s in state.data["agenda"] if chain.is_window(s)]


def _public_trace(engine: BarbaricEngine, state: State) -> list[Any]:
    """Everyone allocates on Shields and passes every window: what the table sees."""
    trace: list[Any] = []
    for _ in range(30):
        pending = engine.pending(state)
        trace.append(([(d.seat, d.kind, d.default, d.optional) for d in pending],
                      _windows(state), engine.view(state, None)))
        (d,) = pending
        if d.kind == "act":
            return trace
        if d.kind == "allocate":
            action = {"type": "allocate", "health": 0, "shields": 2}
        else:
            assert d.kind == "counter" and {"type": "pass"} in d.legal
            action = {"type": "pass"}
        state = engine.apply(state, d.seat, action, FixedDice()).state
    raise AssertionError("the turn never came back")


def test_engine_0_3_0_and_later_have_public_windows() -> None:
    assert RULESETS["0.3.0"].public_windows and RULESETS["0.3.0"].response_chain
    assert CURRENT.public_windows and CURRENT.response_chain  # 0.4.0 keeps them
    assert BarbaricEngine().for_version("0.3.0").rules is RULESETS["0.3.0"]
    old = BarbaricEngine().for_version("0.2.0")
    assert old.rules is RULESETS["0.2.0"] and not old.rules.public_windows


def test_twin_tables_differing_only_in_a_hidden_counter_ask_the_same_seats() -> None:
    holds, lacks = _storm(V3, True), _storm(V3, False)
    assert V3.view(holds, None) == V3.view(lacks, None)
    assert _public_trace(V3, holds) == _public_trace(V3, lacks)


def test_the_seat_without_a_counter_is_asked_with_a_pass_only_decision() -> None:
    state = _storm(V3, False)
    asked = []
    for _ in range(20):
        (d,) = V3.pending(state)
        if d.kind == "act":
            break
        if d.kind == "counter":
            asked.append(d.seat)
            if d.seat == B:
                assert list(d.legal) == [{"type": "pass"}] and d.default == {"type": "pass"}
                assert RandomBot(1).choose(d) == {"type": "pass"}
                assert RuleBot(1).choose(V3.view(state, B), d) == {"type": "pass"}
            action = {"type": "pass"}
        else:
            action = {"type": "allocate", "health": 0, "shields": 2}
        state = V3.apply(state, d.seat, action, FixedDice()).state
    assert asked == [A, B, C]  # turn order from the active player D


def test_engine_0_2_0_still_asks_only_the_holders() -> None:
    """The leak 0.3.0 closes, kept for 0.2.0 matches: B, with no Counter, is skipped."""
    assert _public_trace(V2, _storm(V2, True)) != _public_trace(V2, _storm(V2, False))
    state = _storm(V2, False)
    asked = []
    for _ in range(20):
        (d,) = V2.pending(state)
        if d.kind == "act":
            break
        action = {"type": "pass"} if d.kind == "counter" else \
            {"type": "allocate", "health": 0, "shields": 2}
        asked += [d.seat] if d.kind == "counter" else []
        state = V2.apply(state, d.seat, action, FixedDice()).state
    assert asked == [A, C]


# -- the audit's game: random bots, competitive, 3 seats, seed "pc:0:3" ----------------------
def _strip_counters(state: State) -> State:
    """The same table with every Counter Skill in a hand swapped for a plain card of the
    same deck: the public state (hand and deck sizes included) does not change."""
    t = state.table()
    for p in t.players:
        for i, card in enumerate(p.hand):
            if _is_counter(card):
                j = next((j for j, c in enumerate(p.deck) if not _is_counter(c)), None)
                if j is not None:
                    p.hand[i], p.deck[j] = p.deck[j], card
    return t.freeze()


def _seen(engine: BarbaricEngine, state: State) -> Any:
    return [(d.seat, d.kind) for d in engine.pending(state)], _windows(state)


def _twin_mismatches(engine: BarbaricEngine, seed: str, seats: int = 3,
                     limit: int = 3000) -> tuple[int, int]:
    """Play random bots; at every allocation, play the same allocation (and then passes)
    on a twin table whose hands hold no Counter. Returns (windows seen, times the twin's
    pending seats or windows differed)."""
    rng = SeededRandomness(seed)
    state = engine.setup(MatchConfig("competitive", seats), rng)
    bots = {s: RandomBot(s) for s in range(seats)}
    windows = mismatches = 0
    for _ in range(limit):
        pending = engine.pending(state)
        if not pending:
            break
        d = pending[0]
        action = bots[d.seat].choose(d)
        if d.kind == "allocate":
            real = engine.apply(state, d.seat, action, FixedDice()).state
            twin = engine.apply(_strip_counters(state), d.seat, action, FixedDice()).state
            for _ in range(10):
                if _seen(engine, real) != _seen(engine, twin):
                    mismatches += 1
                    break
                (r,) = engine.pending(real) or (None,)
                if r is None or r.kind != "counter":
                    break
                windows += 1
                real = engine.apply(real, r.seat, {"type": "pass"}, FixedDice()).state
                twin = engine.apply(twin, r.seat, {"type": "pass"}, FixedDice()).state
        state = engine.apply(state, d.seat, action, rng).state
    return windows, mismatches


def test_the_audit_seed_shows_the_leak_under_0_2_0() -> None:
    _windows_seen, mismatches = _twin_mismatches(V2, "pc:0:3")
    assert mismatches >= 1


@pytest.mark.parametrize("seed", ["pc:0:3", "pc:1:3", "pc:4:4", "pc:5:5"])
def test_no_twin_ever_differs_under_0_3_0(seed: str) -> None:
    seats = int(seed.rsplit(":", 1)[1])
    windows, mismatches = _twin_mismatches(V3, seed, seats)
    assert mismatches == 0
    assert windows >= 1  # the games did open windows


def test_a_public_window_includes_every_seat_that_holds_a_usable_counter() -> None:
    """The public criterion is wider than the hidden one: it never shuts a holder out."""
    t = table(4, positions=AROUND_D)
    t.players[A].hand = [COUNTERS[A]]
    t.players[A].subs_ready["rider"] = 1
    g = Play(t, FixedDice(), CURRENT)
    attacker = {"kind": "seat", "seat": D}
    assert damage.counters(g, t.players[A], attacker)
    assert damage.may_counter(g, t.players[A], attacker)
    t.players[A].hand = [_plain("keltz")]
    assert damage.may_counter(g, t.players[A], attacker)  # the hand plays no part
    t.players[A].subs_ready["rider"] = 0
    assert not damage.may_counter(g, t.players[A], attacker)  # no Sub Stamina: public
    t.players[A].subs_ready["gear"] = 1
    t.players[A].gear = "megalodon"  # a Gear board with no Counter Skill
    assert not damage.may_counter(g, t.players[A], attacker)
    t.players[A].gear = "genbu"
    assert damage.may_counter(g, t.players[A], attacker)
    t.players[A].hand = []
    assert not damage.may_counter(g, t.players[A], attacker)  # an empty hand: public
    assert "genbu-spiked-shell" in {skill_of(c).id for c in card_ids(GEARS["genbu"])}


# -- a 0.2.0 match replays with 0.2.0's windows -------------------------------------------
def _export_0_2() -> tuple[list[dict[str, Any]], bytes]:
    records, _checkpoint = parse_export(EXPORT_0_2.read_bytes())
    created = records[0]
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    return records, state_key(bytes.fromhex(sealed["seed"]), created["dice"]["stream_id"])


def test_a_0_2_0_export_replays_with_the_0_2_0_rulings() -> None:
    records, key = _export_0_2()
    assert records[0]["engine_version"] == "0.2.0"
    engine = BarbaricEngine().for_version("0.2.0")
    done = replay(engine, records, key)
    assert done.outcome is not None
    assert any(r.get("decision") == "counter" for r in records)


def test_the_0_2_0_export_would_not_replay_with_public_windows() -> None:
    """The fixture covers the changed ruling: under 0.3.0 its windows differ."""
    records, key = _export_0_2()
    with pytest.raises(ReplayError):
        replay(V3, [{**r, "engine_version": "0.3.0"} if r["type"] == "MatchCreated" else r
                    for r in records], key)

