"""NEON views are JSON values as a client reads them back, so self-play skips the round trip.

``NeonEngine.json_views`` promises that a view (of a seat or a spectator) holds dicts with
string keys, lists (never tuples), strings, integers, booleans and ``None`` only: equal,
type for type, to ``json.loads(json.dumps(view))``. ``selfplay.client_view`` then hands
the view to the bots as it is; the bots read it and never change it (views share parts
with the views before them).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import ENGINE
from services.rules.selfplay import as_client_json, client_view, setups


def same_json(value: Any, back: Any, path: str = "view") -> None:
    """``value`` equals ``back`` with the same type at every level (``==`` alone takes a
    tuple for a list's equal only when both are lists, and True for 1)."""
    assert type(value) is type(back), f"{path}: {type(value).__name__} != {type(back).__name__}"
    if type(value) is dict:
        assert list(value) == list(back), f"{path}: keys"
        for key in value:
            same_json(value[key], back[key], f"{path}.{key}")
    elif type(value) is list:
        assert len(value) == len(back), f"{path}: length"
        for n, (a, b) in enumerate(zip(value, back, strict=True)):
            same_json(a, b, f"{path}[{n}]")
    else:
        assert value == back, path


def _views_of_games(rounds: int) -> None:
    """``rounds`` rule-bot games of each seat count of each mode, every view checked."""
    engine = ENGINE
    assert engine.json_views
    kinds: set[str] = set()
    for mode in ("rebirth", "battle-royale", "coalition"):
        plans = setups(engine, mode)
        for n, setup in enumerate(plans * rounds):
            rng = SeededRandomness(f"views-json:{mode}:{n}")
            state = engine.setup(MatchConfig(mode, setup.seats, setup.options), rng)
            bots = [make_bot("rule", f"{n}-{seat}", "neon") for seat in range(setup.seats)]
            while pending := engine.pending(state):
                decision = pending[0]
                kinds.add(decision.kind)
                spectator = engine.view(state, None)
                same_json(spectator, json.loads(json.dumps(spectator)))
                view = engine.view(state, decision.seat)
                before = json.dumps(view)
                same_json(view, json.loads(before))
                action = bots[decision.seat].choose(decision, client_view(engine)(view))
                assert json.dumps(view) == before, "a bot changed the view it read"
                state = engine.apply(state, decision.seat, action, rng).state
    # attack windows hold the frame's nested tuples (bots' and the Automa's defense rolls)
    assert {"turn", "choose_cards", "attack_prep", "attack_dprep"} <= kinds


def test_views_are_what_a_client_reads_and_bots_leave_them_as_they_are():
    """A game of each seat count of each mode; ``-m slow`` (or NEON_SLOW=1) two."""
    _views_of_games(1)


@pytest.mark.slow
def test_views_of_two_games_of_each_seat_count_are_what_a_client_reads():
    _views_of_games(2)


def test_self_play_hands_json_views_as_they_are_and_round_trips_the_others():
    view = {"a": [1, 2]}
    assert client_view(ENGINE)(view) is view
    other = load_engine("barbaric")  # its views are not flagged JSON-only
    assert not getattr(other, "json_views", False)
    assert client_view(other) is as_client_json


def test_a_fighter_view_made_from_the_last_one_is_the_one_made_afresh():
    """Views keep the lists of a fighter's unchanged fields (``_public_view`` with the last
    version) and the parts of unchanged fighters (``fighters_view``): the view is the same
    as one built with no cache."""
    from services.rules.games.neon import views

    engine = ENGINE
    for mode, seats in (("rebirth", 3), ("battle-royale", 4)):
        rng = SeededRandomness(f"views-reuse:{mode}")
        state = engine.setup(MatchConfig(mode, seats, engine.match_options(mode, seats)), rng)
        bots = [make_bot("rule", f"reuse-{seat}", "neon") for seat in range(seats)]
        last = state
        while pending := engine.pending(state):
            for f, g in zip(state.fighters, last.fighters, strict=True):
                fresh = views._public_view(mode, f)
                assert views._public_view(mode, f, g, views._public_view(mode, g)) == fresh
            decision = pending[0]
            view = engine.view(state, decision.seat)
            for cache in (views._FIGHTERS, views._PUBLIC, views._LISTS, views._FRAMES):
                cache.clear()
            assert engine.view(state, decision.seat) == view
            last = state
            state = engine.apply(state, decision.seat, bots[decision.seat].choose(decision, view),
                                 rng).state


def test_an_attack_view_made_from_the_last_one_is_the_one_made_afresh():
    """``attack_view_since`` makes again only the keys of the fields an answer replaced,
    taking the others from the last attack's view: it equals the view built afresh, type
    for type and key order included, in every mode (Coalition: allies' windows), whatever
    attack was shown before (the same attack one answer earlier, or another one)."""
    from services.rules.games.neon import views
    from services.rules.games.neon.attack import Attack

    engine = ENGINE
    seen = 0
    for mode, seats in (("rebirth", 3), ("coalition", 4), ("battle-royale", 4),
                        ("rebirth", 6), ("coalition", 6)):
        rng = SeededRandomness(f"attack-view-reuse:{mode}:{seats}")
        state = engine.setup(MatchConfig(mode, seats, engine.match_options(mode, seats)), rng)
        bots = [make_bot("rule", f"attack-reuse-{seat}", "neon") for seat in range(seats)]
        shown: list[tuple[Attack, dict]] = []
        while pending := engine.pending(state):
            for fr in state.stack:
                if isinstance(fr, Attack):
                    fresh = views._frame_view(fr, None)
                    for last, before in shown[-3:]:
                        made = views.attack_view_since(fr, last, before)
                        assert made == fresh
                        assert json.dumps(made) == json.dumps(fresh)
                    shown.append((fr, fresh))
                    seen += 1
            decision = pending[0]
            view = engine.view(state, decision.seat)
            state = engine.apply(state, decision.seat, bots[decision.seat].choose(decision, view),
                                 rng).state
    assert seen > 100


def test_every_attack_field_has_its_view_key_or_decides_the_keys():
    """A field added to ``Attack`` must be shown by ``attack.VIEW_KEYS`` (or handled with
    the fields that decide which keys a view has), else views made from the last one would
    keep its old value."""
    from dataclasses import fields

    from services.rules.games.neon.attack import VIEW_KEYS, Attack

    names = {f.name for f in fields(Attack)}
    assert names == set(VIEW_KEYS) | {"full_blocks_on_crits", "blocks_assigned", "allies"}
    blank = Attack(0, "base", ("f:1",))
    for name, key in VIEW_KEYS.items():
        assert key == "owner" or key in blank.encoded(), name
