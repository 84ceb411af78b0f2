"""Contract v2: modes, config errors, versions, defaults, resign, replay."""

from __future__ import annotations

import random

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric import BOTS, ENGINE
from services.rules.games.contract import ConfigError, MatchConfig, answering


def test_modes_declare_seats_and_the_monster_side() -> None:
    modes = ENGINE.modes()
    assert (modes["competitive"].min_seats, modes["competitive"].max_seats) == (2, 6)
    assert (modes["solo"].min_seats, modes["solo"].max_seats) == (1, 1)
    assert all(m.ai_participants == ("monster",) for m in modes.values())
    assert ENGINE.match_options("competitive", 4) == {}
    assert ENGINE.contract_version == 2 and "rule" in BOTS


@pytest.mark.parametrize(("config", "words"), [
    (MatchConfig("duel", 2), "unknown mode"),
    (MatchConfig("competitive", 7), "not 7"),
    (MatchConfig("solo", 2), "not 2"),
    (MatchConfig("competitive", 3, {"x": 1}), "no options"),
    (MatchConfig("competitive", 3, carried={"won": 1}), "no campaign"),
])
def test_bad_configs_are_refused_with_a_reason(config: MatchConfig, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        ENGINE.setup(config, SeededRandomness(1))


def test_versions() -> None:
    assert ENGINE.for_version(ENGINE.engine_version) is ENGINE
    with pytest.raises(KeyError):
        ENGINE.for_version("0.0.0")


def test_setup_deals_picks_and_the_day_track() -> None:
    state = ENGINE.setup(MatchConfig("competitive", 4), SeededRandomness(5))
    (d,) = ENGINE.pending(state)
    first = state.data["first_player"]
    assert (d.seat, d.kind) == (first, "pick_rider")
    assert state.data["tracks"]["day"] == [(first + i) % 4 for i in range(4)]
    assert state.data["monster"]["pos"] == [0, 0] == state.data["core_at"]
    assert len(state.data["minions"]) == 6 and state.data["rage"] == 8
    assert len(state.data["survivor_tokens"]) == 6


def _play(seed: int, seats: int) -> list[str]:
    rng, pick = SeededRandomness(seed), random.Random(seed)
    state = ENGINE.setup(MatchConfig("competitive", seats), rng)
    hashes = []
    for _ in range(400):
        if ENGINE.outcome(state) is not None:
            break
        (d,) = ENGINE.pending(state)
        state = ENGINE.apply(state, d.seat, pick.choice(d.legal), rng).state
        hashes.append(state.doc)
    return hashes


def test_the_same_actions_and_draws_give_the_same_states() -> None:
    assert _play(11, 3) == _play(11, 3)


def test_pick_order_riders_clockwise_then_gears_in_reverse() -> None:
    rng = SeededRandomness(2)
    state = ENGINE.setup(MatchConfig("competitive", 3), rng)
    seen = []
    while True:
        (d,) = ENGINE.pending(state)
        if d.kind not in ("pick_rider", "pick_gear"):
            break
        seen.append((d.kind, d.seat))
        state = ENGINE.apply(state, d.seat, d.default, rng).state
    f = state.data["first_player"]
    order = [f, (f + 1) % 3, (f + 2) % 3]
    assert seen == [("pick_rider", s) for s in order] + [("pick_gear", s) for s in order[::-1]]
    (d,) = ENGINE.pending(state)
    assert d.kind == "choose_card" and d.hidden


def test_resign_is_standing_and_ends_a_two_player_game() -> None:
    rng = SeededRandomness(4)
    state = ENGINE.setup(MatchConfig("competitive", 2), rng)
    standing = [d for d in ENGINE.standing(state) if d.seat == 1]
    assert answering(standing, {"type": "resign"}) is not None
    state = ENGINE.apply(state, 1, {"type": "resign"}, rng).state
    out = ENGINE.outcome(state)
    assert out and out.placements == (1, 2) and ENGINE.pending(state) == ()
    assert ENGINE.validate(state, 0, {"type": "pass"}) == "the game is over"


def test_freezing_a_table_gives_the_canonical_text_of_its_fields() -> None:
    """The fast freeze writes exactly what ``asdict`` + sorted compact JSON writes (state
    hashes of exports depend on it)."""
    import json

    rng, pick = SeededRandomness(11), random.Random(11)
    state = ENGINE.setup(MatchConfig("competitive", 3), rng)
    for _ in range(150):
        t = state.table()
        assert t.freeze().doc == state.doc == json.dumps(
            t.to_json(), sort_keys=True, separators=(",", ":"))
        if ENGINE.outcome(state) is not None:
            break
        (d,) = ENGINE.pending(state)
        state = ENGINE.apply(state, d.seat, pick.choice(d.legal), rng).state
