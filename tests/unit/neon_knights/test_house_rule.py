"""The rulebook's optional variant, and the engine versions that keep old exports replaying.

"Weapons and Upgrades can only be used before and/or after your movement. Not during. (You
may try "During" as a house rule, but it might be a lot to keep track of and make the game
more chaotic.)" Option ``weapons_during_movement`` (engine 0.2.0).
"""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import ConfigError, MatchConfig

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults

HOUSE = {"weapons_during_movement": True}


def _current(state: Any) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


def _moving(house: bool, round_: int = 2) -> tuple[Any, int, int]:
    """The current car in the middle of its movement (2 of 5 points left), armed, another car
    one row ahead."""
    state = new_game(2, **(HOUSE if house else {}))
    state = play_defaults(state, lambda d: d["phase"] == "race")
    if round_ > 1:
        state = play_defaults(
            state,
            lambda d: (
                d["phase"] == "race"
                and d["racing"]["round"] == round_
                and d["racing"]["index"] == 0
            ),
        )
    seat = _current(state)
    other = 1 - seat

    def arm(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(row=4, lane=1, speed=5, weapon={"id": "u-w01", "up": True})
        doc["players"][other].update(row=5, lane=1, ap=6, shield=None)
        doc["racing"].update(step="move", moves=2)

    return edit(state, arm), seat, other


def test_with_the_house_rule_a_weapon_fires_during_the_movement() -> None:
    state, seat, other = _moving(house=True)
    fire = {"type": "fire", "upgrade": "u-w01", "targets": [other]}
    decision = decision_of(state)
    assert decision.kind == "move" and fire in [dict(a) for a in decision.legal]
    assert dict(decision.default)["type"] == "step"  # a clock keeps the car moving
    gun = state.doc["players"][seat]["reputation"]["gun"]
    state = ENGINE.apply(state, seat, fire, ScriptedRandomness()).state
    me, them = state.doc["players"][seat], state.doc["players"][other]
    assert (me["row"], state.doc["racing"]["step"], state.doc["racing"]["moves"]) == (4, "move", 2)
    assert me["weapon"]["up"] is False and me["reputation"]["gun"] == gun + 1
    assert them["ap"] == 5
    assert [a["type"] for a in decision_of(state).legal] == ["step"] * 3  # face down: once
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, ScriptedRandomness()).state
    assert state.doc["players"][seat]["row"] == 5


def test_without_the_house_rule_not_during_and_never_in_the_first_round() -> None:
    state, seat, other = _moving(house=False)
    fire = {"type": "fire", "upgrade": "u-w01", "targets": [other]}
    assert ENGINE.validate(state, seat, fire) is not None
    first, seat, other = _moving(house=True, round_=1)
    assert ENGINE.validate(first, seat, {"type": "fire", "upgrade": "u-w01", "targets": [other]})


def test_engine_versions() -> None:
    """0.2.0 adds the option; 0.1.0 (exports made before) refuses it and replays as before;
    0.3.0 (the rulebook audit), 0.4.0 (Fan Bets face up mid-race), 0.5.0 (carried stage
    cards reshuffled), 0.6.0 (hidden decisions' defaults drawn) and 0.7.0 (Wealthy before
    spending) keep the option."""
    assert ENGINE.engine_version == "0.7.0" and ENGINE.for_version("0.7.0") is ENGINE
    assert ENGINE.for_version("0.6.0").engine_version == "0.6.0"
    assert ENGINE.for_version("0.5.0").engine_version == "0.5.0"
    assert ENGINE.for_version("0.4.0").engine_version == "0.4.0"
    assert ENGINE.for_version("0.3.0").engine_version == "0.3.0"
    old = ENGINE.for_version("0.1.0")
    assert old.engine_version == "0.1.0" and ENGINE.for_version("0.2.0").engine_version == "0.2.0"
    with pytest.raises(KeyError):
        ENGINE.for_version("0.0.9")
    with pytest.raises(ConfigError):
        old.setup(MatchConfig("normal", 2, HOUSE), SeededRandomness("x"))
    assert "weapons_during_movement" in ENGINE.config_schema()["properties"]
    assert "weapons_during_movement" in ENGINE.for_version("0.3.0").config_schema()["properties"]
    assert "weapons_during_movement" in ENGINE.for_version("0.4.0").config_schema()["properties"]


def test_without_the_option_both_versions_play_the_same_game() -> None:
    """0.1.0 and 0.2.0 without the option: the same game, state for state."""
    states = []
    for engine in (ENGINE.for_version("0.1.0"), ENGINE.for_version("0.2.0")):
        rng = SeededRandomness("same")
        state = engine.setup(MatchConfig("normal", 3), rng)
        for _ in range(400):
            pending = engine.pending(state)
            if not pending:
                break
            state = engine.apply(state, pending[0].seat, pending[0].default, rng).state
        states.append(state.text)
    assert states[0] == states[1]


def test_a_whole_game_with_the_house_rule_ends() -> None:
    from services.rules.bots import make_bot

    rng = SeededRandomness("house")
    state = ENGINE.setup(MatchConfig("normal", 3, HOUSE), rng)
    bots = [make_bot("random", f"h{s}") for s in range(3)]
    fired_moving = 0
    for _ in range(20_000):
        pending = ENGINE.pending(state)
        if not pending:
            break
        d = pending[0]
        action = dict(bots[d.seat].choose(d))
        fired_moving += d.kind == "move" and action["type"] == "fire"
        state = ENGINE.apply(state, d.seat, action, rng).state
    assert ENGINE.outcome(state) is not None
    assert fired_moving > 0


@pytest.mark.parametrize("mode", ["normal", "campaign", "epic-campaign"])
@pytest.mark.parametrize("seats", [2, 4, 6])
def test_start_gives_setups_state_from_the_same_draws_with_the_first_races_events(
        mode: str, seats: int) -> None:
    """``start`` (the host records its events in MatchStarted) and ``setup`` (replays) give
    the same state from the same draws; outside the normal mode's draft, the first race is
    dealt at set-up: a Fan Bet to each seat, visible to that seat only."""
    from services.platform.canonical import canonical_json

    config = MatchConfig(mode, seats, {})
    a, b = SeededRandomness(9), SeededRandomness(9)
    started = ENGINE.start(config, a)
    assert canonical_json(ENGINE.encode(started.state)) == \
        canonical_json(ENGINE.encode(ENGINE.setup(config, b)))
    assert a.records == b.records
    bets = [e for e in started.events if e.kind == "fan_bet_dealt"]
    if mode == "normal":
        assert started.events == ()  # the implant draft comes first; the race after it
    else:
        assert sorted((e.data["seat"], e.visible_to) for e in bets) == \
            [(s, frozenset({s})) for s in range(seats)]
