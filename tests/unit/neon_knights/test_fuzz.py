"""Random-bot games in every mode and seat count: invariants after every action, contract v2
(defaults among the legal answers, resign always possible) and no hidden information leaks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot
from services.rules.games.contract import MatchConfig, json_key
from services.rules.games.neon_knights.state import MAX_CHIPS, MAX_FANS, MAX_REPUTATION, max_ap

from .support import ENGINE, doubled

MODES = ("normal", "campaign", "epic-campaign")
OPEN_MOVES = {"part_bought", "rerolled", "die_removed", "repaired", "fan_bet_won", "upgrade_bought",
              "part_sold", "paid"}
"""Events about cards everybody saw move: a part bought from the face-up shop or taken back
from the car into the hand for its ability, a Fan Bet won (placed face up), a card discarded
face up (a replaced upgrade, a sold part, paid sponsors) that a refill may shuffle straight
back into its deck. They may name a card now in a hand or a deck."""


def hidden_zones(encoded: dict[str, Any], viewer: int | None) -> list[Any]:
    zones: list[Any] = [*encoded["decks"].values(), encoded["discards"]["bets"], encoded["stage_deck"]]
    for p in encoded["players"]:
        if p["seat"] != viewer:
            zones += [p["hand"], p["bets"], p["implant_hand"]]
    if encoded["draft"]:
        for seat, packet in enumerate(encoded["draft"]["packets"]):
            if seat != viewer:
                zones += [packet, [encoded["draft"]["picks"][seat]]]
    return zones


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(set(), *(strings(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(strings(v) for v in value))
    return set()


def secrets(encoded: dict[str, Any], viewer: int | None) -> set[str]:
    hidden = hidden_zones(encoded, viewer)
    hidden_ids = {id(z) for z in hidden}

    def without(value: Any) -> Any:
        if id(value) in hidden_ids:
            return None
        if isinstance(value, dict):
            return {k: without(v) for k, v in value.items()}
        if isinstance(value, list):
            return [without(v) for v in value]
        return value

    return strings(hidden) - strings(without(encoded))


def check_invariants(state: Any) -> None:
    doc = state.doc
    for p in doc["players"]:
        assert 1 <= p["ap"] <= max_ap(p), p
        assert 2 <= p["speed"] <= 10, p
        assert 0 <= p["chips"] <= MAX_CHIPS, p
        assert 0 <= p["fans"] <= MAX_FANS, p
        assert all(0 <= v <= MAX_REPUTATION for v in p["reputation"].values()), p
        assert len(p["sponsors"]) <= 2 and len(p["specials"]) <= 2 and len(p["implants"]) <= 3
        families = [i.rsplit("-", 1)[0] for i in p["implants"]]
        assert len(families) == len(set(families)), "the same implant equipped twice"
    assert doubled(doc) == {}, "one card in two places"


def play(mode: str, seats: int, seed: int, leaks: bool = True, resign_at: int | None = None,
         hidden_speeds: bool = False, house: bool = False, carried: Any = None) -> tuple[int, Any]:
    """One random-bot game; ``carried`` (an earlier match's ``Outcome.carry``) continues a
    campaign."""
    rng = SeededRandomness(f"fuzz:{mode}:{seats}:{seed}" + (":next" if carried else ""))
    options = {"hidden_speeds": True} if hidden_speeds else {}
    if house:
        options["weapons_during_movement"] = True
    state = ENGINE.setup(MatchConfig(mode, seats, options, carried=carried), rng)
    check_invariants(state)
    bot = RandomBot(f"{mode}:{seats}:{seed}")
    viewers: list[int | None] = [None, *range(seats)]
    revealed: dict[int | None, set[str]] = {v: set() for v in viewers}
    """What events showed a viewer stays known (a part bought from the face-up shop)."""
    for step in range(20000):
        outcome = ENGINE.outcome(state)
        pending = ENGINE.pending(state)
        if outcome is not None:
            assert pending == () and ENGINE.standing(state) == ()
            return step, outcome
        assert pending, state.doc["phase"]
        before = state.text
        for d in pending:
            assert d.legal and d.default is not None
            assert json_key(d.default) in {json_key(a) for a in d.legal}, d
        standing = ENGINE.standing(state)
        assert sorted(d.seat for d in standing) == [p["seat"] for p in state.doc["players"] if not p["out"]]
        for d in standing:
            assert d.standing and {"type": "resign"} in [dict(a) for a in d.legal]
        if resign_at is not None and step == resign_at:
            seat, action = pending[0].seat, {"type": "resign"}
        else:
            d = pending[bot.pick(list(range(len(pending))))]
            seat, action = d.seat, dict(bot.choose(d))
        assert ENGINE.validate(state, seat, action) is None, (action, ENGINE.validate(state, seat, action))
        if leaks and step == 0:
            encoded = ENGINE.encode(state)
            for viewer in viewers:
                assert not strings(ENGINE.view(state, viewer)) & secrets(encoded, viewer)
        ENGINE.view(state, seat)
        assert state.text == before, "pending/standing/view changed the state"
        transition = ENGINE.apply(state, seat, action, rng)
        state = transition.state
        check_invariants(state)
        if leaks:
            encoded = ENGINE.encode(state)
            for viewer in viewers:
                shown = [e.data for e in transition.events if e.visible_to is None
                         or (viewer is not None and viewer in e.visible_to)]
                revealed[viewer] |= strings([e.data for e in transition.events if e.kind in OPEN_MOVES])
                secret = secrets(encoded, viewer) - revealed[viewer]
                leaked = strings([ENGINE.view(state, viewer), shown]) & secret
                assert not leaked, (viewer, leaked, action)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seats", [2, 4, 6])
def test_random_games_end_with_invariants_and_no_leaks(mode: str, seats: int) -> None:
    steps, outcome = play(mode, seats, 1, leaks=seats == 2 or (seats == 4 and mode == "normal"))
    assert outcome.reason.startswith("the last race")
    assert len(outcome.placements) == seats and min(outcome.placements) == 1
    if mode != "normal":
        assert outcome.carry is not None and len(outcome.carry["players"]) == seats


@pytest.mark.parametrize("mode", ["campaign", "epic-campaign"])
@pytest.mark.parametrize("seats", [2, 4])
def test_a_continuing_campaign_match_with_invariants_and_no_leaks(mode: str, seats: int) -> None:
    """A second match from the first's carry (the Epic Campaign's stage cards shuffled again,
    engine 0.5.0): the same checks, the leaks included, and it carries on in its turn."""
    _, first = play(mode, seats, 5, leaks=False)
    _, second = play(mode, seats, 5, leaks=seats == 2, carried=first.carry)
    assert second.carry["match"] == 2 and len(second.placements) == seats
    if mode == "epic-campaign":
        assert len(second.carry["stage_deck"]) == 8


@pytest.mark.parametrize("seats", [3, 5])
def test_hidden_starting_speeds(seats: int) -> None:
    play("normal", seats, 2, leaks=seats == 3, hidden_speeds=True)


@pytest.mark.parametrize("seats", [2, 4])
def test_the_house_rule_during_movement(seats: int) -> None:
    play("campaign", seats, 4, leaks=seats == 2, house=True)


@pytest.mark.parametrize("moment", [0, 40, 300])
def test_resign_at_any_moment_still_ends_the_game(moment: int) -> None:
    _, outcome = play("normal", 2, 3, leaks=False, resign_at=moment)
    assert sorted(outcome.placements) == [1, 2]


def test_same_actions_and_draws_give_the_same_states() -> None:
    a = play("normal", 3, 7, leaks=False)
    b = play("normal", 3, 7, leaks=False)
    assert a[0] == b[0] and a[1] == b[1]
    assert json.dumps(a[1].breakdown) == json.dumps(b[1].breakdown)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_fifteen_random_games_at_every_player_count(seats: int) -> None:
    """The short run of bench/fuzz_neon_knights.py (thousands of games): a game per mode and
    player count, invariants after every action (leaks are checked in the tests above), with
    hidden starting speeds and the house rule in turn (seeds 201 and 200); ``-m slow`` (or
    NEON_SLOW=1) plays both seeds of each, and test_many_random_games."""
    for n, mode in enumerate(MODES):
        seed = 200 + (seats + n) % 2
        _play_checked(mode, seats, seed)


def _play_checked(mode: str, seats: int, seed: int) -> None:
    steps, outcome = play(mode, seats, seed, leaks=False, hidden_speeds=seed % 2 == 1,
                          house=seed % 2 == 0)
    assert steps > 0 and len(outcome.placements) == seats


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_thirty_random_games_at_every_player_count(seats: int) -> None:
    """The long run's share of seeds 200 and 201: both of each mode and player count."""
    for mode in MODES:
        for seed in (200, 201):
            _play_checked(mode, seats, seed)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_many_random_games(mode: str, seats: int) -> None:
    for seed in range(20):
        play(mode, seats, 100 + seed, leaks=seed % 5 == 0, hidden_speeds=seed % 2 == 1,
             house=seed % 3 == 0)
