"""The hot path's shortcuts (``pending``, ``validate`` and ``apply`` of every action) give
what the rules as written give, on every state of seeded games of every mode (rule and
random bots): each shortcut against the reference it replaces."""

from __future__ import annotations

import functools

from services.rules.games.neon.cards import choice_actions
from services.rules.games.neon.combat import allies_in_sector, opponents, opponents_by_filter
from services.rules.games.neon.content import FIGHTERS
from services.rules.games.neon.engine import ENGINE, cheapest, default_of
from services.rules.games.neon.fighters import allies, can_afford, unique_cost, usable_unique

from .helpers import every_mode


def usable_unique_by_parts(s, idx: int, ability_id: str) -> int | None:
    """``usable_unique`` as the rules read: its cost if it has it, when it can afford it."""
    cost = unique_cost(s, idx, ability_id)
    if cost is None or not can_afford(s, idx, cost):
        return None
    return cost


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


def test_allies_in_sector_are_those_the_rules_name():
    """``allies_in_sector`` with its tests reordered is, for every fighter of every state
    (Coalition's allies, and none in the other modes), the filter as written."""
    checked = allied = 0
    for s in _states():
        for idx in range(len(s.fighters)):
            me = s.fighters[idx]
            want = tuple(f.idx for f in s.fighters
                         if f.on_arena and f.sector == me.sector and allies(s, idx, f.idx))
            assert allies_in_sector(s, idx) == want
            checked += 1
            allied += bool(want)
    assert checked > 10_000 and allied > 100


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


def test_a_fighters_public_part_from_its_last_is_the_one_made_afresh_key_for_key():
    """``_public_view`` from the fighter's last version and part remakes the keys of the
    fields that changed: equal to the part made afresh, in the same key order, for every
    fighter between every two states of a game; every field but ``resigned`` shows."""
    from dataclasses import fields

    from services.rules.games.neon import views
    from services.rules.games.neon.state import Fighter

    assert set(views._PUBLIC_KEYS) == {f.name for f in fields(Fighter)} - {"resigned"}
    assert {k for keys in views._PUBLIC_KEYS.values() for k in keys} == set(views._PUBLIC_VALUE)
    checked = 0
    states = _states()
    for s, t in zip(states, states[1:], strict=False):
        if len(s.fighters) != len(t.fighters):
            continue
        for f, g in zip(t.fighters, s.fighters, strict=True):
            fresh = views._public_view(t.mode, f)
            since = views._public_view(t.mode, f, g, views._public_view(t.mode, g))
            assert since == fresh and list(since) == list(fresh)
            checked += 1
    assert checked > 10_000
    # each field changed alone, and every field at once, to another fighter's value
    names = sorted(views._PUBLIC_KEYS)
    for n, s in enumerate(states[::50]):
        other = states[(n * 37 + 11) % len(states)]
        for f, h in zip(s.fighters, other.fighters, strict=False):
            before = views._public_view(s.mode, f)
            for changes in ({name: getattr(h, name)} for name in (*names, "resigned")):
                g = f.but(**changes)
                since = views._public_view(s.mode, g, f, before)
                fresh = views._public_view(s.mode, g)
                assert since == fresh and list(since) == list(fresh), changes
            g = f.but(**{name: getattr(h, name) for name in names})
            assert views._public_view(s.mode, g, f, before) == views._public_view(s.mode, g)


def test_an_answer_with_nothing_to_normalise_is_its_own_normal_form():
    from services.rules.games.neon.engine import normalize

    plain = {"type": "attack", "weapon": "base", "target": "f:1"}
    assert normalize(plain) is plain
    assert normalize({"type": "keep", "cards": ["b", "a"]}) == {"type": "keep", "cards": ["a", "b"]}
    assert normalize({"type": "attack", "pull": False}) == {"type": "attack"}
    for s in _states()[::7]:
        for d in ENGINE.pending(s):
            for a in d.legal:
                assert normalize(a) == normalize(dict(a)) == _normal_by_copy(a)


def _normal_by_copy(action):
    out = dict(action)
    for key in ("cards", "dice"):
        if isinstance(out.get(key), list | tuple):
            out[key] = sorted(out[key])
    if out.get("pull") is False:
        del out["pull"]
    return out
