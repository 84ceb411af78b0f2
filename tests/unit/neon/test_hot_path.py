"""The hot path's shortcuts (``pending``, ``validate`` and ``apply`` of every action) give
what the rules as written give, on every state of seeded games of every mode (rule and
random bots): each shortcut against the reference it replaces."""

from __future__ import annotations

import functools

from services.rules.games.neon.cards import choice_actions
from services.rules.games.neon.combat import opponents, opponents_by_filter
from services.rules.games.neon.content import FIGHTERS
from services.rules.games.neon.engine import ENGINE, cheapest, default_of
from services.rules.games.neon.fighters import usable_unique, usable_unique_by_parts

from .helpers import every_mode


@functools.cache
def _states():
    return tuple(every_mode("hot-path", 4))


_ABILITY_IDS = sorted({a.id for f in FIGHTERS.values() for a in f.abilities} | {"nothing"})


def _default_by_rank(legal):
    """``default_of``'s answer for a list without a pass, as it was written: the first
    answer of the lowest rank among the free ones, else among all."""
    from services.rules.games.neon.engine import TURN_RANK, UNRANKED

    free = [a for a in legal if not a.get("manoeuvre_c") and a.get("as") in (None, "discard")
            and a["type"] != "ability"]
    return min(free or legal, key=lambda a: TURN_RANK.get(str(a["type"]), UNRANKED))


def test_opponents_in_one_pass_are_the_filtered_opponents():
    checked = 0
    for s in _states():
        for idx in (*range(len(s.fighters)), -1):
            assert opponents(s, idx) == opponents_by_filter(s, idx)
            checked += 1
    assert checked > 10_000


def test_usable_unique_in_one_function_is_its_cost_when_affordable():
    checked = 0
    for n, s in enumerate(_states()):
        if n % 2:
            continue
        for f in s.fighters:
            for ability in _ABILITY_IDS:
                assert usable_unique(s, f.idx, ability) == usable_unique_by_parts(s, f.idx, ability)
                checked += 1
    assert checked > 50_000


def test_every_decision_default_is_default_of_its_answers():
    """A turn's default (its pass, else the cheapest answer, found without looking for a
    pass it cannot list) is ``default_of`` of its answers; the cheapest is the first of
    the lowest rank."""
    turns = 0
    for s in _states():
        for d in ENGINE.pending(s):
            if d.kind in ("turn", "land"):
                assert d.default is default_of(d.legal)
                turns += 1
            if not any(a["type"] in ("roll", "done", "pass") for a in d.legal):
                assert cheapest(d.legal) is _default_by_rank(d.legal)
    assert turns > 1000


def test_a_hands_card_choices_are_listed_once_and_stay_the_same():
    seen = 0
    for s in _states():
        for f in s.fighters:
            if len(f.hand) >= 2:
                listed = choice_actions(f.hand)
                assert listed == choice_actions.__wrapped__(f.hand)
                assert choice_actions(tuple(f.hand)) is listed
                seen += 1
    assert seen > 1000
