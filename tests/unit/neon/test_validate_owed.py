"""``validate`` on a state whose decisions are not made yet (a replay) skips building them:
``_owed`` gives the seat's decision kind and only the answers the action can equal (of a
card choice, the 8 of its two cards; of a loot, trophy, upgrade or evacuation frame, the
frame's answers with no decision around them). Its verdicts are those of the path through
``pending`` (the decisions built), on every seat, for legal and illegal actions of games of
every mode.

The default run checks the verdicts on every third state owing a decision, and on each state
owing a kind of decision not met before; ``-m slow`` (or NEON_SLOW=1) on every state."""

from __future__ import annotations

import random

import pytest

from services.rules.games.neon.engine import ENGINE, NOT_OWED, NeonEngine

from .helpers import every_mode


def _games():
    """Every state that owes a decision, with its decisions."""
    for state in every_mode("validate-owed", 3):
        if pending := ENGINE.pending(state):
            yield state, pending


def _variants(action: dict, pick: random.Random, others: list[dict]) -> list[dict]:
    """The action and illegal (or differently written) neighbours of it."""
    out = [action, {**action, "pull": False}, {**action, "pull": True}, {**action, "x": 1}]
    for key, value in action.items():
        if key == "type":
            continue
        out.append({k: v for k, v in action.items() if k != key})
        if isinstance(value, bool):
            out += [{**action, key: int(value)}, {**action, key: not value},
                    {**action, key: float(value)}]
        elif isinstance(value, str):
            out += [{**action, key: value + "x"}, {**action, key: [value]}]
        elif isinstance(value, list):
            out += [{**action, key: list(reversed(value))}, {**action, key: value[:1]},
                    {**action, key: value + value}]
    if "top" in action:
        out.append({**action, "top": action["bottom"], "bottom": action["top"]})
        out.append({**action, "bottom": action["top"]})
    out += pick.sample(others, min(3, len(others)))
    return out


def _old_verdict(engine: NeonEngine, state, seat: int, action) -> str | None:
    """``validate`` with the state's decisions built first (the path through ``pending``)."""
    engine._pending_memo = (state, engine._pending(state))
    try:
        return engine.validate(state, seat, action)
    finally:
        engine._pending_memo = (None, ())


def _check(every: int) -> tuple[int, int, int, set[str]]:
    """The verdicts of every ``every``-th state owing a decision (and of each state owing a
    kind not met before) checked on every seat: (checked, legal, refused, kinds met)."""
    engine = NeonEngine()
    pick = random.Random(18)
    others: list[dict] = []
    checked = 0
    seen_kinds: set[str] = set()
    legal_ok = refused = 0
    for n, (state, pending) in enumerate(_games()):
        new_kind = not {d.kind for d in pending} <= seen_kinds
        if n % every and not new_kind:
            others = (others + [a for d in pending for a in list(d.legal)[:2]])[-200:]
            continue
        actions: list[dict] = []
        for decision in pending:
            seen_kinds.add(decision.kind)
            listed = list(decision.legal)
            for action in pick.sample(listed, min(4, len(listed))):
                actions += _variants(dict(action), pick, others)
            others += listed[:2]
        others = others[-200:]
        for action in actions:
            for seat in range(len(state.fighters) + 1):
                engine._pending_memo = (None, ())
                new = engine.validate(state, seat, action)
                assert new == _old_verdict(engine, state, seat, action), (
                    state.phase, [d.kind for d in pending], seat, action)
                checked += 1
                legal_ok += new is None
                refused += new is not None
    return checked, legal_ok, refused, seen_kinds


def test_verdicts_match_the_path_through_pending_on_legal_and_illegal_actions():
    checked, legal_ok, refused, seen_kinds = _check(3)
    assert {"choose_cards", "turn", "keep_loot", "place_loot"} <= seen_kinds, seen_kinds
    assert len(seen_kinds) >= 6 and checked > 20000 and legal_ok > 1000 and refused > 10000, (
        checked, legal_ok, refused)


@pytest.mark.slow
def test_verdicts_match_on_every_state_owing_a_decision():
    """The long run (-m slow): every state of the games."""
    checked, legal_ok, refused, seen_kinds = _check(1)
    assert {"choose_cards", "turn", "keep_loot", "place_loot"} <= seen_kinds, seen_kinds
    assert len(seen_kinds) >= 6 and checked > 20000 and legal_ok > 1000 and refused > 10000


def test_a_seat_owing_nothing_is_told_so_without_the_decisions():
    for state, pending in _games():
        owing = {d.seat for d in pending}
        for seat in range(len(state.fighters)):
            if seat not in owing:
                assert ENGINE._owed(state, seat, {"type": "pass"}) in (NOT_OWED, None)
        if state.serial > 200:
            break
