"""A timeout never names a hidden answer (engine 0.6.0; RULES.md, "Hidden information: what
each seat receives", the defaults of hidden decisions).

A turn clock answers a seat that runs out of time with its decision's default, and a timeout
is public: every viewer's clocks count each seat's ``timeouts`` and see the deadline pass. Up
to 0.5.0 the defaults of two hidden decisions followed from what others know:

- a hidden starting speed (option ``hidden_speeds``) defaulted to 4 (``speed_legal()[2]``), so
  a timeout told every seat and spectator the speed while the others were still choosing;
- a draft pick defaulted to the first implant of the packet in sorted order, and the seat on
  the right, which passed the packet on, knows every card in it.

From 0.6.0 both are drawn at random, with the engine's recorded randomness, when the decision
is asked, and kept in the state (``defaults``) where no view shows them. The third hidden
decision, the Fan Bet kept or discarded, defaults to keeping every bet: its answer shows
anyway (a discard is public as a discard, the card alone hidden), so a timeout tells nothing.
Matches of 0.5.0 and before replay with their old defaults.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights.race import SPEEDS
from services.rules.games.neon_knights.state import State
from services.rules.replay import ReplayError, _check_timeout, replay
from tests.support.timeouts import timed_out_log

from .support import ENGINE, edit

V0_5 = ENGINE.for_version("0.5.0")
V0_6 = ENGINE.for_version("0.6.0")
TRIES = 12
SEATS = 3


def _owed(engine: Any, state: State, seat: int) -> Any:
    (d,) = [d for d in engine.pending(state) if d.seat == seat]
    assert d.default in d.legal
    return d


def _public(engine: Any, state: State, seat: int) -> Any:
    """Everything the other seats and the public see of a state and of what is owed (the host
    shows each seat its own decisions whole, and everyone who owes what)."""
    others = [v for v in (None, *range(SEATS)) if v != seat]
    return (json.dumps([engine.view(state, v) for v in others], sort_keys=True),
            [(d.seat, d.kind, d.hidden, d.optional) for d in engine.pending(state)])


# -- the implant draft ----------------------------------------------------------------------------
def _draft_round_two(engine: Any, dice: str) -> tuple[State, list[str]]:
    """A 3-seat table in round two of the implant draft: every seat picked the first implant
    of its packet, seat 2 last with the randomness ``dice``; and the packet seat 0 passed on
    (which seat 1 holds now), as seat 0 knows it."""
    state = engine.setup(MatchConfig("normal", SEATS, {}), SeededRandomness("draft"))
    passed: list[str] = []
    for seat in range(SEATS):
        d = _owed(engine, state, seat)
        if seat == 0:
            passed = sorted(a["implant"] for a in d.legal if a != d.legal[0])
        rng = SeededRandomness(dice if seat == SEATS - 1 else f"pick-{seat}")
        state = engine.apply(state, seat, d.legal[0], rng).state
    assert state.doc["phase"] == "draft" and sorted(state.doc["draft"]["packets"][1]) == passed
    return state, passed


def test_a_timed_out_draft_pick_is_not_the_one_the_passing_seat_can_name() -> None:
    tables = [_draft_round_two(ENGINE, f"dice-{i}") for i in range(TRIES)]
    # seat 0 passed seat 1 its packet; the table looks the same to seat 0, seat 2 and the
    # public every time, and seat 1 owes the same choice ...
    assert len({repr(_public(ENGINE, t, 1)) for t, _ in tables}) == 1
    decisions = [_owed(ENGINE, t, 1) for t, _ in tables]
    assert len({repr(d.legal) for d in decisions}) == 1 and decisions[0].hidden
    # ... but what a clock would pick for it is drawn: not always the packet's first implant
    defaults = {d.default["implant"] for d in decisions}
    assert len(defaults) > 1, defaults
    assert defaults <= set(tables[0][1])


def test_engine_0_5_0_picks_the_first_implant_of_the_packet_which_the_passer_knows() -> None:
    for i in range(4):
        state, passed = _draft_round_two(V0_5, f"dice-{i}")
        assert _owed(V0_5, state, 1).default == {"type": "draft", "implant": min(passed)}
        assert "defaults" not in state.doc


def test_the_drawn_pick_stays_while_the_others_pick_and_each_round_draws_again() -> None:
    state, _ = _draft_round_two(ENGINE, "dice-kept")
    first = _owed(ENGINE, state, 1).default
    assert _owed(ENGINE, state, 1).default == first  # asked again: the same
    for seat in (0, 2):
        d = _owed(ENGINE, state, seat)
        state = ENGINE.apply(state, seat, d.legal[-1], SeededRandomness(f"other-{seat}")).state
    assert _owed(ENGINE, state, 1).default == first
    state = ENGINE.apply(state, 1, first, SeededRandomness("round-three")).state
    assert state.doc["draft"]["picks"] == [None] * SEATS  # round three, each default drawn anew
    assert all(isinstance(x, str) for x in state.doc["defaults"])
    for seat in range(SEATS):
        assert _owed(ENGINE, state, seat).default["implant"] == state.doc["defaults"][seat]


# -- hidden starting speeds -----------------------------------------------------------------------
def _before_the_speeds(engine: Any) -> tuple[State, Any]:
    """A 3-seat table with hidden speeds whose next answer (the last day's) starts race day."""
    rng = SeededRandomness("to-race-day")
    state = engine.setup(MatchConfig("normal", SEATS, {"hidden_speeds": True}), rng)
    for _ in range(500):
        d = engine.pending(state)[0]
        after = engine.apply(state, d.seat, d.default, SeededRandomness("probe")).state
        if after.doc["phase"] == "speeds":
            return state, d
        state = engine.apply(state, d.seat, d.default, rng).state
    raise AssertionError("no race day")


def _speeds(engine: Any, dice: str) -> State:
    state, d = _before_the_speeds(engine)
    return engine.apply(state, d.seat, d.default, SeededRandomness(dice)).state


def test_a_timed_out_hidden_speed_is_not_always_four() -> None:
    tables = [_speeds(ENGINE, f"dice-{i}") for i in range(TRIES)]
    assert {d.kind for d in ENGINE.pending(tables[0])} == {"start_speed"}
    for seat in range(SEATS):
        # the others and the public see the same table every time ...
        assert len({repr(_public(ENGINE, t, seat)) for t in tables}) == 1
        decisions = [_owed(ENGINE, t, seat) for t in tables]
        assert all(d.hidden for d in decisions)
        # ... and a timeout's speed is drawn from 2-10, not 4 whatever the table
        speeds = {d.default["speed"] for d in decisions}
        assert len(speeds) > 2 and speeds <= set(SPEEDS), speeds


def test_engine_0_5_0_starts_a_timed_out_hidden_speed_at_four() -> None:
    for i in range(4):
        state = _speeds(V0_5, f"dice-{i}")
        assert {d.default["speed"] for d in V0_5.pending(state)} == {4}


def test_speeds_chosen_in_the_open_keep_their_default_of_four() -> None:
    """Without ``hidden_speeds`` the speeds are chosen one by one in grid order and shown at
    once: nothing is drawn for them, the default stays 4."""
    rng = SeededRandomness("open-speeds")
    state = ENGINE.setup(MatchConfig("normal", SEATS, {}), rng)
    for _ in range(500):
        if state.doc["phase"] == "speeds":
            break
        d = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, d.seat, d.default, rng).state
    (d,) = ENGINE.pending(state)
    assert d.kind == "start_speed" and not d.hidden and d.default["speed"] == 4
    assert state.doc["defaults"] == [None] * SEATS


# -- the Fan Bet kept or discarded ---------------------------------------------------------------
def test_a_timed_out_fan_bet_keeps_every_bet_which_tells_nothing_hidden() -> None:
    """Keeping is what every seat sees anyway (no bet in the discard pile), whichever bets the
    seat holds: the default depends on nothing hidden and names no card."""
    rng = SeededRandomness("fan-bet")
    state = ENGINE.setup(MatchConfig("normal", SEATS, {}), rng)
    for _ in range(500):
        d = ENGINE.pending(state)[0]
        if d.kind == "fan_bet":
            break
        drawing = [a for a in d.legal if a["type"] == "draw_bet"]
        state = ENGINE.apply(state, d.seat, drawing[0] if drawing else d.default, rng).state
    assert d.kind == "fan_bet" and d.hidden and d.default == {"type": "keep_bets"}

    def other_bets(doc: dict[str, Any]) -> None:  # the seat's bets swapped with the deck's
        mine, deck = doc["players"][d.seat]["bets"], doc["decks"]["bets"]
        player = doc["players"][d.seat]
        player["bets"], doc["decks"]["bets"] = deck[:len(mine)], deck[len(mine):] + mine

    twin = edit(state, other_bets)
    assert _owed(ENGINE, twin, d.seat).default == d.default
    before = state.doc["discards"]["bets"]
    t = ENGINE.apply(state, d.seat, d.default, SeededRandomness("late"))
    assert t.state.doc["discards"]["bets"] == before
    assert not [e for e in t.events if e.visible_to is None and "bet" in json.dumps(dict(e.data))]


# -- what is shown, and what verify checks ------------------------------------------------------
def test_no_view_shows_a_drawn_default_not_even_its_seats() -> None:
    state, _ = _draft_round_two(ENGINE, "dice-views")
    assert [x is not None for x in state.doc["defaults"]] == [True] * SEATS
    for viewer in (None, *range(SEATS)):
        view = ENGINE.view(state, viewer)
        assert "defaults" not in view
        cleared = edit(state, lambda doc: doc.update(defaults=[None] * SEATS))
        assert ENGINE.view(cleared, viewer) == view
    speeds = _speeds(ENGINE, "dice-views")
    for viewer in (None, *range(SEATS)):
        assert ENGINE.view(speeds, viewer) == ENGINE.view(
            edit(speeds, lambda doc: doc.update(defaults=[None] * SEATS)), viewer)


def test_the_leak_checker_counts_a_drawn_pick_as_the_seats_own() -> None:
    from tests.support.campaign.leaks import secrets

    state, _ = _draft_round_two(ENGINE, "dice-leaks")
    implant = _owed(ENGINE, state, 1).default["implant"]
    encoded = ENGINE.encode(state)
    # (it is in seat 1's packet too; the packet is seat 1's as well)
    assert implant in secrets("neon-knights-2086", encoded, None)
    assert implant in secrets("neon-knights-2086", encoded, 2)
    assert implant not in secrets("neon-knights-2086", encoded, 1)


def test_a_timeout_is_checked_against_the_drawn_default() -> None:
    state, _ = _draft_round_two(ENGINE, "dice-check")
    d = _owed(ENGINE, state, 1)
    record = {"n": 7, "timeout": True}
    _check_timeout(ENGINE, state, 1, d.default, record)
    with pytest.raises(ReplayError):
        _check_timeout(ENGINE, state, 1, next(a for a in d.legal if a != d.default), record)


HIDDEN = ("draft", "start_speed", "fan_bet")


@pytest.mark.parametrize("engine", [ENGINE, V0_6, V0_5], ids=["0.7.0", "0.6.0", "0.5.0"])
def test_a_game_whose_hidden_decisions_all_time_out_replays(engine: Any) -> None:
    """Every draft pick, hidden speed and Fan Bet answered by a clock: the replay finds each
    default again (a drawn one in the replayed state, from the recorded draws)."""
    def choose(state: State, d: Any) -> Any:
        return next((a for a in d.legal if a["type"] == "draw_bet"), d.default)

    config = MatchConfig("normal", SEATS, {"hidden_speeds": True, "races": 1})
    records, timeouts = timed_out_log(engine, "neon-knights-2086", config, "all-late",
                                      lambda d: d.kind in HIDDEN, choose=choose)
    assert timeouts > 15
    assert {r["decision"] for r in records if r.get("timeout")} == set(HIDDEN)
    assert replay(engine, records).state is not None


def test_a_timeout_that_applied_the_old_default_does_not_verify_on_0_6_0() -> None:
    """A 0.6.0 log whose timed-out draft picks took the packet's first implant (0.5.0's
    default) is refused: verify checks each against the drawn one."""
    config = MatchConfig("normal", SEATS, {})
    records, _ = timed_out_log(ENGINE, "neon-knights-2086", config, "old-default",
                               lambda d: d.kind == "draft", late=lambda s, d: d.legal[0])
    with pytest.raises(ReplayError, match="not its decision's default"):
        replay(ENGINE, records)


# -- the published 0.6.0 exports ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["normal", "hidden-speeds"])
def test_the_0_6_0_exports_draw_their_defaults_and_replay_only_with_0_6_0(name: str) -> None:
    """tests/fixtures/exports/neon-knights-2086-0.6.0-{normal,hidden-speeds}.jsonl (3 seats,
    random bots, ``neon play --embedded``, dev seeds 61 and 62, the second with
    ``hidden_speeds``): the draft's rounds draw their picks' defaults (the last pick of a
    round holds the next round's three draws), the hidden speeds theirs (the day action
    that starts race day), and 0.5.0, which draws none, refuses each record chain."""
    from pathlib import Path

    from services.platform.draws import state_key
    from services.rules.export import parse_export

    path = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
            / f"neon-knights-2086-0.6.0-{name}.jsonl")
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    key = state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])
    assert records[0]["engine_version"] == "0.6.0"
    assert records[0]["options"] == ({"hidden_speeds": True} if name == "hidden-speeds" else {})
    picks = [r for r in records if r.get("decision") == "draft"]
    # the last pick of rounds 1-8 draws the three defaults of rounds 2-9; round 10 holds one
    # card a packet (nothing to draw), and no other pick draws
    assert len(picks) == 30 and [len(r["draws"]) for r in picks[2:30:3]] == [3] * 8 + [0, 0]
    assert not [r for i, r in enumerate(picks) if i % 3 != 2 and r["draws"]]
    speeds = [r for r in records if r.get("decision") == "start_speed"]
    assert len(speeds) == 9 and all(r["hidden"] == (name == "hidden-speeds") for r in speeds)
    assert replay(V0_6, records, key).outcome is not None
    as_0_5 = [{**r, "engine_version": "0.5.0"} if r["type"] == "MatchCreated" else r
              for r in records]
    with pytest.raises(ReplayError):
        replay(V0_5, as_0_5, key)
    as_0_7 = [{**r, "engine_version": "0.7.0"} if r["type"] == "MatchCreated" else r
              for r in records]
    with pytest.raises(ReplayError):  # 0.7.0 names its own ruleset in the state
        replay(ENGINE, as_0_7, key)
