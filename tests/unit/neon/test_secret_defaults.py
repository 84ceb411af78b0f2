"""A timeout never names a hidden answer (engine 6; RULES.md, "Hidden information", the
defaults of hidden decisions).

A turn clock answers a seat that runs out of time with its decision's default, and a timeout
is public: every viewer's clocks count each seat's ``timeouts`` and see the deadline pass. Up
to engine 5 the default of the hidden card choice (``choose_cards``) was its first legal
answer: the first two cards in hand order, the first over the second, its left half covered,
neither turned. So a timeout told the table how the row was laid (always the same way) while
the others were still choosing, and that its cards were the first two of a hand the table can
often narrow down (a fighter has 7 cards and its discard pile is public: once its deck has
run out, the hand is the cards on no pile). The default of the
hidden keep (``keep_loot``) was the first two cards in the order drawn, which follows from the
loot deck's order, partly known to the table (the last card of a deck before it is
reshuffled, by elimination).

From engine 6 both are drawn at random, with the engine's recorded randomness, when the
decision is asked, and kept in the state (``State.defaults``, a keep frame's ``default``)
where no view shows them. The hidden laying out of loot (``place_loot``) keeps its default,
discarding the card: a discard is face up in the discard pile for everyone, so a timeout
tells nothing the discard itself does not. Matches of engine 5 and before replay with their
old defaults.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.engine import ENGINE, ENGINES
from services.rules.games.neon.state import State
from services.rules.replay import ReplayError, _check_timeout, replay
from tests.support.timeouts import timed_out_log
from tests.unit.neon.helpers import Rng, arena, equip, new_game, on_turn, set_fighter

V5 = ENGINES["5"]
TRIES = 12
SEATS = 3
GEOMETRY = ("cover", "top_rotated", "bottom_rotated")


class Then:
    """The draws of ``first`` for its first ``n`` calls, then those of ``then``: the same
    set-up, different draws after it."""

    def __init__(self, first: Any, n: int, then: Any) -> None:
        self.first, self.n, self.then = first, n, then

    def _next(self) -> Any:
        self.n -= 1
        return self.first if self.n >= 0 else self.then

    def randbelow(self, n: int) -> int:
        return int(self._next().randbelow(n))

    def shuffle(self, items: Any) -> Any:
        return self._next().shuffle(items)

    def roll(self, faces: Any, count: int = 1) -> Any:
        return self._next().roll(faces, count)


def _set_up(engine: Any, dice: str) -> State:
    """A 3-seat Rebirth table at its first card choice: the set-up's draws the same every time
    (those engine 5 makes), the draws after them (engine 6: the choices' defaults) ``dice``."""
    config = MatchConfig("rebirth", SEATS, {})
    table = SeededRandomness("table")
    V5.setup(config, table)
    n = len(table.records)
    return engine.setup(config, Then(SeededRandomness("table"), n, SeededRandomness(dice)))


def _owed(engine: Any, state: State, seat: int) -> Any:
    (d,) = [d for d in engine.pending(state) if d.seat == seat]
    assert d.default in d.legal
    return d


def _views(engine: Any, state: State) -> str:
    """Every view (each seat's own too) and who owes what: what anyone is shown of a table
    besides its own decisions."""
    return json.dumps([[engine.view(state, v) for v in (None, *range(SEATS))],
                       [(d.seat, d.kind, d.hidden, d.optional) for d in engine.pending(state)]],
                      sort_keys=True)


# -- the card choice --------------------------------------------------------------------------
def test_a_timed_out_card_choice_is_drawn_not_laid_the_same_way_every_time() -> None:
    tables = [_set_up(ENGINE, f"dice-{i}") for i in range(TRIES)]
    assert len({_views(ENGINE, t) for t in tables}) == 1  # everyone sees the same tables
    layouts = set()
    for seat in range(SEATS):
        decisions = [_owed(ENGINE, t, seat) for t in tables]
        assert decisions[0].kind == "choose_cards" and decisions[0].hidden
        assert len({repr(d.legal) for d in decisions}) == 1  # the same hand, the same choices
        defaults = {json.dumps(d.default, sort_keys=True) for d in decisions}
        assert len(defaults) > 3, defaults
        layouts |= {tuple(d.default[k] for k in GEOMETRY) for d in decisions}
    # not always the first over the second, left half covered, neither turned
    assert {cover for cover, _, _ in layouts} == {"left", "right"} and len(layouts) > 4


def test_engine_5_lays_the_first_two_cards_of_the_hand_left_covered_and_unturned() -> None:
    for i in range(3):
        state = _set_up(V5, f"dice-{i}")
        for seat in range(SEATS):
            hand = state.fighters[seat].hand
            assert _owed(V5, state, seat).default == {
                "type": "choose_cards", "top": hand[0], "bottom": hand[1], "cover": "left",
                "top_rotated": False, "bottom_rotated": False}


def test_the_drawn_choice_stays_while_the_others_choose_and_each_round_draws_again() -> None:
    state = _set_up(ENGINE, "dice-kept")
    first = _owed(ENGINE, state, 2).default
    assert _owed(ENGINE, state, 2).default == first  # asked again: the same
    for seat in (0, 1):
        d = _owed(ENGINE, state, seat)
        state = ENGINE.apply(state, seat, d.legal[-1], Rng(f"choose-{seat}")).state
    assert _owed(ENGINE, state, 2).default == first
    assert [i for i, _ in state.defaults] == [2]  # the answered seats' defaults are gone
    state = ENGINE.apply(state, 2, first, Rng("choose-2")).state
    assert state.phase == "act" and state.defaults == ()
    rng = Rng("round-two")
    while state.round == 1:
        d = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, d.seat, d.default, rng).state
    assert state.phase == "choose" and [i for i, _ in state.defaults] == \
        [f.idx for f in state.fighters[:SEATS] if f.hand and not f.eliminated]
    for i, choice in state.defaults:
        d = _owed(ENGINE, state, i)
        assert (d.default["top"], d.default["bottom"], d.default["cover"]) == \
            (choice.top, choice.bottom, choice.cover)


# -- the keep and the laying out of loot ------------------------------------------------------
SUPPLY, OTHER, THIRD = "scrap-rifle-1", "stinger-2", "knuckles-1"


def _searching(engine: Any) -> State:
    """Fighter 0 in the Park (class I), about to search a class I deck whose top cards are
    SUPPLY, OTHER, THIRD (tests/unit/neon/test_supplies_hidden.py's table)."""
    state = arena(new_game("rebirth", 3, ["ronin", "glyba", "snake"]), f0=1, f1=6, f2=6)
    state = on_turn(state, 0, ["attack"], ["attack"], ["search"])
    state = set_fighter(state, 0, step=2, equipment=equip("stinger-1"))
    first = (SUPPLY, OTHER, THIRD)
    rest = tuple(c for c in state.loot_decks[0] if c not in first and c != "stinger-1")
    state = replace(state, loot_decks=(first + rest, *state.loot_decks[1:]), defaults=())
    return state if engine is ENGINE else replace(state, ruleset="5")


def _kept(engine: Any, dice: str) -> State:
    return engine.apply(_searching(engine), 0, {"type": "search"}, Rng(dice)).state


def test_a_timed_out_keep_is_drawn_not_the_first_two_cards_drawn() -> None:
    tables = [_kept(ENGINE, f"dice-{i}") for i in range(TRIES)]
    assert len({_views(ENGINE, t) for t in tables}) == 1  # the owner's view too
    decisions = [_owed(ENGINE, t, 0) for t in tables]
    assert decisions[0].kind == "keep_loot" and decisions[0].hidden
    assert len({repr(d.legal) for d in decisions}) == 1
    kept = {tuple(d.default["cards"]) for d in decisions}
    assert len(kept) > 1, kept


def test_engine_5_keeps_the_first_two_cards_drawn() -> None:
    for i in range(3):
        assert _owed(V5, _kept(V5, f"dice-{i}"), 0).default == \
            {"type": "keep", "cards": sorted([SUPPLY, OTHER])}


def test_a_timed_out_laying_out_discards_the_card_face_up_as_it_always_did() -> None:
    """The default of ``place_loot`` is to discard the card, in every version: a discard is
    public (``loot_discarded`` names the card), so a timeout shows what a chosen discard
    shows, and no tucked supply (the hidden part of the decision) is ever a default."""
    for engine in (ENGINE, V5):
        state = _kept(engine, "dice-place")
        state = engine.apply(state, 0, {"type": "keep", "cards": sorted([SUPPLY, OTHER])},
                             Rng("keep")).state
        d = _owed(engine, state, 0)
        assert d.kind == "place_loot" and d.hidden
        assert d.default == {"type": "place", "card": SUPPLY, "as": "discard"}
        t = engine.apply(state, 0, d.default, Rng("late"))
        public = [(e.kind, dict(e.data)) for e in t.events if e.visible_to is None]
        assert public == [("loot_discarded", {"cards": [SUPPLY]})]


# -- what is shown, and what verify checks -------------------------------------------------------
def test_no_view_shows_a_drawn_default_not_even_its_seats() -> None:
    state = _set_up(ENGINE, "dice-views")
    assert len(state.defaults) == SEATS
    cleared = replace(state, defaults=())
    for viewer in (None, *range(SEATS)):
        assert ENGINE.view(state, viewer) == ENGINE.view(cleared, viewer)
        assert "defaults" not in json.dumps(ENGINE.view(state, viewer))
    kept = _kept(ENGINE, "dice-views")
    (frame,) = kept.stack
    assert frame.get("default") is not None
    own = ENGINE.view(kept, 0)["stack"][-1]
    assert "default" not in own and sorted(own["cards"]) == sorted([SUPPLY, OTHER, THIRD])


def test_the_state_encodes_its_defaults_and_an_engine_5_state_as_it_did() -> None:
    state = _set_up(ENGINE, "dice-encode")
    encoded = ENGINE.encode(state)
    assert [i for i, _ in encoded["defaults"]] == list(range(SEATS))
    old = _set_up(V5, "dice-encode")
    assert old.defaults == () and "defaults" not in V5.encode(old)
    assert "defaults" not in ENGINE.encode(replace(state, defaults=()))


def test_the_leak_checker_counts_the_drawn_defaults_as_their_seats() -> None:
    """A default names cards of its seat's hand: were it not the seat's zone, the checker
    would count those cards as seen by everyone (it reads the state less its hidden zones)."""
    from tests.support.campaign.leaks import secrets

    state = _set_up(ENGINE, "dice-leaks")
    encoded = ENGINE.encode(state)
    for i, choice in state.defaults:
        for viewer in (None, *(v for v in range(SEATS) if v != i)):
            assert {choice.top, choice.bottom} <= secrets("neon", encoded, viewer)
        assert not {choice.top, choice.bottom} & secrets("neon", encoded, i)


def test_a_timeout_is_checked_against_the_drawn_default() -> None:
    state = _set_up(ENGINE, "dice-check")
    d = _owed(ENGINE, state, 1)
    record = {"n": 5, "timeout": True}
    _check_timeout(ENGINE, state, 1, d.default, record)
    with pytest.raises(ReplayError):
        _check_timeout(ENGINE, state, 1, next(a for a in d.legal if a != d.default), record)


HIDDEN = ("choose_cards", "keep_loot", "place_loot")


def _searcher(state: State, d: Any) -> Any:
    """Search whenever a turn can (so that loot is kept and laid out), else the first answer."""
    return next((a for a in d.legal if a["type"] == "search"), d.legal[0])


@pytest.mark.parametrize("engine", [ENGINE, V5], ids=["6", "5"])
def test_a_game_whose_hidden_decisions_all_time_out_replays(engine: Any) -> None:
    """Every card choice, keep and laying out answered by a clock: the replay finds each
    default again (a drawn one in the replayed state, from the recorded draws)."""
    config = MatchConfig("rebirth", SEATS, {})
    records, timeouts = timed_out_log(engine, "neon", config, "all-late",
                                      lambda d: d.kind in HIDDEN, choose=_searcher)
    assert timeouts > 20
    assert {r["decision"] for r in records if r.get("timeout")} == set(HIDDEN)
    assert replay(engine, records).state is not None


def test_a_timeout_that_applied_the_old_default_does_not_verify_on_engine_6() -> None:
    """An engine-6 log whose timed-out card choices took the first legal answer (engine 5's
    default) is refused: verify checks each against the drawn one."""
    config = MatchConfig("rebirth", SEATS, {})
    records, _ = timed_out_log(ENGINE, "neon", config, "old-default",
                               lambda d: d.kind == "choose_cards", late=lambda s, d: d.legal[0])
    with pytest.raises(ReplayError, match="not its decision's default"):
        replay(ENGINE, records)


# -- the published engine-6 export --------------------------------------------------------------
def test_the_engine_6_export_draws_its_defaults_and_replays_only_with_engine_6() -> None:
    """tests/fixtures/exports/neon-6-rebirth.jsonl (Rebirth, 3 seats, random bots, ``neon
    play --embedded``, dev seed 63, recorded on the engine-6 code): every search that opens
    a keep draws the keep's default, and engine 5, which draws none, refuses the records."""
    from pathlib import Path

    from services.platform.draws import state_key
    from services.rules.export import parse_export

    path = Path(__file__).resolve().parents[2] / "fixtures" / "exports" / "neon-6-rebirth.jsonl"
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    key = state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])
    assert records[0]["engine_version"] == "6" and records[0]["seats"] == SEATS
    actions = [r for r in records if r["type"] == "ActionAccepted"]
    keeps = [i for i, r in enumerate(actions) if r["decision"] == "keep_loot"]
    assert len(keeps) >= 3 and all(actions[i]["hidden"] for i in keeps)
    assert all(actions[i - 1]["action"]["type"] == "search" and actions[i - 1]["draws"]
               for i in keeps)
    assert len([r for r in actions if r["decision"] == "choose_cards"]) >= 20
    assert replay(ENGINES["6"], records, key).outcome is not None
    as_5 = [{**r, "engine_version": "5"} if r["type"] == "MatchCreated" else r for r in records]
    with pytest.raises(ReplayError):
        replay(V5, as_5, key)
