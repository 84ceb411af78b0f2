"""The starting-hand choice stays hidden (engine 0.5.0; RULES.md rulings 44 and 45).

``choose_card`` is a hidden decision: the card chosen reaches no other seat. Two things still
told the table which card it was, up to 0.4.0:

- the default, what a clock applies when the seat runs out of time, was the first choosable
  card in the printed order of the seat's boards, which everyone knows; a timeout (public:
  the clock's timeouts, the deadline passing) so named the card;
- a choice always took the first copy of the skill (``<skill>/1``), so every card with a
  higher copy number that was later revealed (learned, discarded, played) was known to be a
  drawn card, never a chosen one.

From 0.5.0 the default is drawn at random when the choice is asked, and the copy that goes to
the hand is drawn at random among the skill's copies. Matches of 0.4.0 and before replay as
they were (their defaults and copies are unchanged).
"""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric.content import skill_of
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.rulesets import CURRENT, RULESETS
from services.rules.games.barbaric.state import State
from services.rules.games.contract import MatchConfig

ENGINE = BarbaricEngine()
V4 = BarbaricEngine(RULESETS["0.4.0"])
TRIES = 12


def _before_the_choices(engine: BarbaricEngine) -> tuple[State, Any]:
    """A 2-seat table whose last board pick (``pick_gear``) is owed: its answer starts the
    starting-hand choices."""
    state = engine.start(MatchConfig("competitive", 2), SeededRandomness("hidden-choices")).state
    for _ in range(10):
        (d,) = engine.pending(state)
        if d.kind == "pick_gear" and state.data["agenda"][1]["step"] == "choose_card":
            return state, d
        state = engine.apply(state, d.seat, d.default, SeededRandomness("picks")).state
    raise AssertionError("no board picks")


def _first_choice(engine: BarbaricEngine, dice: str) -> State:
    state, d = _before_the_choices(engine)
    return engine.apply(state, d.seat, d.default, SeededRandomness(dice)).state


def _public(engine: BarbaricEngine, state: State, chooser: int) -> Any:
    """Everything another seat and the public see of a state, and of the decision owed."""
    (d,) = engine.pending(state)
    return (engine.view(state, None), engine.view(state, 1 - chooser),
            (d.seat, d.kind, d.hidden, d.optional))


def test_the_timeout_default_of_a_starting_hand_choice_cannot_be_told_from_the_table() -> None:
    states = [_first_choice(ENGINE, f"dice-{i}") for i in range(TRIES)]
    (first,) = ENGINE.pending(states[0])
    assert first.kind == "choose_card" and first.hidden
    # The table sees the same in every one of these states ...
    assert len({repr(_public(ENGINE, s, first.seat)) for s in states}) == 1
    # ... and the same legal answers are owed, but the card a clock would choose differs.
    decisions = [ENGINE.pending(s)[0] for s in states]
    assert len({repr(d.legal) for d in decisions}) == 1
    defaults = {d.default["card"] for d in decisions}
    assert len(defaults) > 1, defaults
    assert all(d.default in d.legal for d in decisions)


def test_the_default_is_drawn_again_for_each_card_and_kept_until_answered() -> None:
    state = _first_choice(ENGINE, "dice-kept")
    (d,) = ENGINE.pending(state)
    # Asking again (a standing action of another seat between) keeps the same default.
    assert ENGINE.pending(state)[0].default == d.default
    seen = [d.default["card"]]
    for i in range(3):
        state = ENGINE.apply(state, d.seat, d.default, SeededRandomness(f"next-{i}")).state
        (d,) = ENGINE.pending(state)
        if d.kind != "choose_card":
            break
        assert d.default in d.legal
        seen.append(d.default["card"])
    assert len(seen) == 4 and len({skill_of(c).name for c in seen}) == 4


def test_engine_0_4_0_keeps_its_default_the_first_choosable_card() -> None:
    for i in range(3):
        (d,) = V4.pending(_first_choice(V4, f"dice-{i}"))
        assert d.kind == "choose_card" and d.default == d.legal[0]
    assert CURRENT.secret_defaults and not RULESETS["0.4.0"].secret_defaults


def _choose(engine: BarbaricEngine, dice: str) -> tuple[str, str, Any]:
    """The chooser names the first skill with two or more copies; the copy it got, the card
    it named, and the events the choice made."""
    state = _first_choice(engine, "dice-0")
    (d,) = engine.pending(state)
    named = next(a for a in d.legal if skill_of(a["card"]).copies > 1)
    t = engine.apply(state, d.seat, named, SeededRandomness(dice))
    hand = t.state.data["players"][d.seat]["hand"]
    assert len(hand) == 1 and skill_of(hand[0]) == skill_of(named["card"])
    return hand[0], named["card"], t.events


def test_the_copy_in_a_starting_hand_is_drawn_so_copy_numbers_tell_nothing() -> None:
    got = [_choose(ENGINE, f"copy-{i}") for i in range(TRIES)]
    copies = {card for card, _, _ in got}
    assert len(copies) > 1, copies  # not always "<skill>/1"
    for card, named, events in got:
        assert named.endswith("/1")
        private = [e for e in events if e.visible_to is not None]
        public = [(e.kind, dict(e.data)) for e in events if e.visible_to is None]
        # the seat is told the copy it holds; the public events are the same every time
        assert [(e.kind, e.data["card"]) for e in private] == [("card_chosen", card)]
        assert public == [(e.kind, dict(e.data)) for e in got[0][2] if e.visible_to is None]


def test_engine_0_4_0_takes_the_first_copy() -> None:
    assert {_choose(V4, f"copy-{i}")[0] for i in range(4)} == {_choose(V4, "copy-0")[1]}


def test_a_timeout_that_applied_the_drawn_default_verifies() -> None:
    """Verify checks that a timeout applied its decision's default: the drawn default is part
    of the state (the agenda step), so a replay finds the same one."""
    import pytest

    from services.rules.replay import ReplayError, _check_timeout

    state = _first_choice(ENGINE, "dice-3")
    (d,) = ENGINE.pending(state)
    record = {"n": 9, "timeout": True}
    _check_timeout(ENGINE, state, d.seat, d.default, record)
    other = next(a for a in d.legal if a != d.default)
    with pytest.raises(ReplayError):
        _check_timeout(ENGINE, state, d.seat, other, record)


def test_the_0_5_0_export_draws_its_starting_hands_and_replays_only_with_0_5_0() -> None:
    from pathlib import Path

    import pytest

    from services.platform.draws import state_key
    from services.rules.export import parse_export
    from services.rules.replay import ReplayError, replay

    path = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
            / "barbaric-0.5.0-competitive.jsonl")
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    key = state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])
    assert records[0]["engine_version"] == "0.5.0"
    choices = [r for r in records if r.get("decision") == "choose_card"]
    assert len(choices) == 16 and all(r["draws"] for r in choices)
    assert replay(ENGINE.for_version("0.5.0"), records, key).outcome is not None
    as_0_4 = [{**r, "engine_version": "0.4.0"} if r["type"] == "MatchCreated" else r
              for r in records]
    with pytest.raises(ReplayError):
        replay(V4, as_0_4, key)


def test_the_leak_checker_counts_the_drawn_default_as_the_choosing_seats() -> None:
    from tests.support.campaign.leaks import secrets

    state = _first_choice(ENGINE, "dice-5")
    (d,) = ENGINE.pending(state)
    card = d.default["card"]
    encoded = ENGINE.encode(state)
    assert card in secrets("barbaric", encoded, None)
    assert card in secrets("barbaric", encoded, 1 - d.seat)
    assert card not in secrets("barbaric", encoded, d.seat)
