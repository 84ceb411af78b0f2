"""Random legal games with invariant and leak checks after every action."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric.content import NESTS, SPACES
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.state import State
from services.rules.games.contract import MatchConfig, json_key

ENGINE = BarbaricEngine()
MAX_ACTIONS = 6000


def check_invariants(state: State) -> None:
    d = state.data
    places: list[tuple[int, int]] = [tuple(d["monster"]["pos"])]
    carriers = 0
    for p in d["players"]:
        assert 0 <= p["health_damage"] <= 6 and 0 <= p["shield_damage"] <= 6
        assert all(v >= 0 for v in p["resources"].values())
        assert 0 <= p["subs_ready"]["rider"] <= p["subs"]["rider"] <= 3
        assert 0 <= p["subs_ready"]["gear"] <= p["subs"]["gear"] <= 3
        carriers += p["core"]
        if p["pos"] is not None and not p["recovering"] and not p["eliminated"] \
                and not p["resigned"]:
            assert tuple(p["pos"]) not in NESTS, "a Character in a Minion Nest"
            places.append(tuple(p["pos"]))
    assert len(d["minions"]) <= 6
    places += [tuple(h) for h in d["minions"]]
    assert len(places) == len(set(places)), "two pieces share a space"
    assert all(h in SPACES for h in places)
    assert carriers + (d["core_at"] is not None) <= 1, "more than one Atomic Core"
    assert carriers + (d["core_at"] is not None) == 1 or d["over"]


ACTIONS = jsonschema.Draft202012Validator(ENGINE.action_schema())


def check_contract(state: State) -> None:
    pending = ENGINE.pending(state)
    assert bool(pending) == (ENGINE.outcome(state) is None)
    for d in pending:
        assert d.legal and d.default in d.legal
        assert d.hidden == (d.kind == "choose_card")
        for action in d.legal[:4]:
            ACTIONS.validate(action)
    standing = {d.seat for d in ENGINE.standing(state)}
    if ENGINE.outcome(state) is None:
        in_game = {p["seat"] for p in state.data["players"]
                   if not p["eliminated"] and not p["resigned"]}
        assert standing == in_game


def check_leaks(state: State, events: Any) -> None:
    seats = state.data["seats"]
    for viewer in [None, *range(seats)]:
        view = ENGINE.view(state, viewer)
        for p in view["players"]:
            assert "deck" not in p
            assert ("hand" in p) == (p["seat"] == viewer)
        for key in ("event_deck", "monster_deck", "survivor_deck"):
            assert isinstance(view[key], int)
        json.dumps(view)
    for e in events:
        if e.kind in ("card_drawn", "card_chosen"):
            assert e.visible_to == frozenset({e.data["seat"]})
        elif e.visible_to is None:
            assert "hand" not in e.data and "deck" not in e.data


def play(mode: str, seats: int, seed: int, resign_chance: float = 0.0005) -> State:
    rng = SeededRandomness(seed)
    pick = random.Random(seed)
    state = ENGINE.setup(MatchConfig(mode, seats), rng)
    for _ in range(MAX_ACTIONS):
        check_invariants(state)
        check_contract(state)
        if ENGINE.outcome(state) is not None:
            return state
        (owed,) = ENGINE.pending(state)
        seat, action = owed.seat, pick.choice(owed.legal)
        if pick.random() < 0.08:
            choice = pick.choice(ENGINE.standing(state))
            options = [a for a in choice.legal if a["type"] != "resign"]
            if options:
                seat, action = choice.seat, pick.choice(options)
        if pick.random() < resign_chance:
            seat, action = pick.choice(ENGINE.standing(state)).seat, {"type": "resign"}
        assert ENGINE.validate(state, seat, action) is None
        before = json_key(ENGINE.encode(state))
        transition = ENGINE.apply(state, seat, action, rng)
        assert json_key(ENGINE.encode(state)) == before  # states are immutable
        check_leaks(transition.state, transition.events)
        state = transition.state
    raise AssertionError(f"{mode} {seats} seed {seed}: no ending in {MAX_ACTIONS} actions")
