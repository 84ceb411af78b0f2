"""Random legal play in every mode and player count: games end, invariants hold, nothing leaks."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import jsonschema
import pytest

from services.rules.games.contract import MatchConfig
from services.rules.games.neon.content import (
    ENERGY_MAX,
    HEALTH_TOKENS,
    LOOT,
    MAX_ATTACK_DICE,
    MAX_DEFENSE_DICE,
)
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.state import State
from tests.unit.neon.helpers import Rng

ACTIONS = jsonschema.Draft202012Validator(ENGINE.action_schema())
GAMES = int(os.environ.get("NEON_FUZZ_GAMES", "5"))  # 85 games over 17 set-ups in CI
LONG_GAMES = 200  # the slow run: 3,400 games
SETUPS = [("rebirth", n, {}) for n in range(2, 7)] + \
    [("battle-royale", n, {}) for n in range(2, 7)] + \
    [("coalition", 4, {}), ("coalition", 6, {"teams": 3}), ("coalition", 6, {"teams": 2}),
     ("rebirth", 4, {"automa": True}), ("battle-royale", 3, {"automa": True}),
     ("coalition", 4, {"automa": True}), ("battle-royale", 6, {"automa": True})]


def pick(rng: Rng, state: State) -> tuple[int, dict[str, Any]]:
    standing = ENGINE.standing(state)
    if standing and not rng.randbelow(400):
        resign = standing[rng.randbelow(len(standing))]
        return resign.seat, dict(resign.legal[0])
    decisions = ENGINE.pending(state)
    decision = decisions[rng.randbelow(len(decisions))]
    options = list(decision.legal)
    active = [a for a in options if a["type"] not in ("pass", "done")]
    if active and rng.randbelow(5):
        options = active
    return decision.seat, dict(options[rng.randbelow(len(options))])


def check_invariants(state: State) -> None:
    tokens = Counter()
    for f in state.fighters:
        if not f.automa:
            assert 0 <= f.energy <= ENERGY_MAX
            cards = f.hand + f.deck + f.discard
            if f.choice is not None:
                cards += (f.choice.top, f.choice.bottom)
            assert len(cards) == 7 and len(set(cards)) == 7
        for row in f.health:
            tokens.update(row)
        tokens.update(f.trophies)
        types = [LOOT[e.card].type for e in f.equipment]
        assert len(types) == len(set(types)), "one equipment card of each type"
        for e in f.equipment:
            assert len(e.supplies) <= LOOT[e.card].max_supplies
    for value in (1, 2, 3):
        tokens[value] += state.health_supply[value - 1]
    assert dict(tokens) == HEALTH_TOKENS, "health tokens are conserved"
    loot = [c for d in state.loot_decks + state.loot_discards for c in d]
    loot += [c for f in state.fighters for e in f.equipment for c in (e.card, *e.supplies)]
    loot += [c for fr in state.stack if fr.kind in ("keep", "place") for c in fr.get("cards")]
    assert sorted(loot) == sorted(LOOT), "loot cards are conserved"


def check_events(events: Any) -> None:
    for e in events:
        if e.kind == "attack_roll":
            assert len(e.data["dice"]) <= MAX_ATTACK_DICE
            assert all(len(d) <= MAX_DEFENSE_DICE for _, d in e.data["defense"])
        if e.kind == "defense_roll":
            assert len(e.data["dice"]) <= MAX_DEFENSE_DICE


def secrets(state: State) -> dict[int | None, set[str]]:
    """For each viewer, the ids it must never see."""
    hidden_all = {c for d in state.loot_decks for c in d} | set(state.upgrade_deck)
    own: dict[int, set[str]] = {}
    for f in state.fighters:
        mine = set(f.hand) | set(f.deck)
        if f.choice is not None and not f.row:
            mine |= {f.choice.top, f.choice.bottom}
        own[f.idx] = mine
    for fr in state.stack:
        if fr.kind in ("keep", "upgrade"):
            own[fr.owner] = own[fr.owner] | set(fr.get("cards"))
    out: dict[int | None, set[str]] = {None: hidden_all | set().union(*own.values())}
    for seat in range(state.seats):
        out[seat] = hidden_all | set().union(*(v for k, v in own.items() if k != seat))
    return out


def check_no_leak(state: State, events: Any) -> None:
    forbidden = secrets(state)
    for viewer, ids in forbidden.items():
        text = json.dumps(ENGINE.view(state, viewer))
        seen = [e.data for e in events if e.visible_to is None
                or (viewer is not None and viewer in e.visible_to)]
        text += json.dumps(seen)
        leaked = [c for c in ids if f'"{c}"' in text]
        assert not leaked, f"viewer {viewer} sees {leaked}"
    for decision in ENGINE.pending(state):
        assert decision.legal
        assert decision.default is not None and decision.default in decision.legal
        if decision.kind == "choose_cards":
            assert decision.hidden


def play(mode: str, seats: int, options: dict[str, Any], seed: int, leaks: bool) -> State:
    rng = Rng(f"{mode}-{seats}-{sorted(options.items())}-{seed}")
    state = ENGINE.setup(MatchConfig(mode, seats, options), rng)
    for _ in range(20_000):
        if ENGINE.outcome(state) is not None:
            break
        seat, action = pick(rng, state)
        assert ENGINE.validate(state, seat, action) is None
        if leaks:
            ACTIONS.validate(action)
        transition = ENGINE.apply(state, seat, action, rng)
        state = transition.state
        check_invariants(state)
        check_events(transition.events)
        if leaks:
            check_no_leak(state, transition.events)
    else:
        pytest.fail("the game did not end")
    assert ENGINE.pending(state) == ()
    outcome = ENGINE.outcome(state)
    assert outcome is not None and len(outcome.placements) == seats
    json.dumps(ENGINE.encode(state))
    return state


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_random_games_end_with_invariants(mode: str, seats: int, options: dict) -> None:
    for seed in range(GAMES):
        play(mode, seats, options, seed, leaks=seed % 5 == 0)


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_many_random_games_end_with_invariants(mode: str, seats: int, options: dict) -> None:
    for seed in range(GAMES, GAMES + LONG_GAMES):
        play(mode, seats, options, seed, leaks=seed % 10 == 0)


def test_replay_is_deterministic() -> None:
    a = play("rebirth", 3, {}, 99, leaks=False)
    b = play("rebirth", 3, {}, 99, leaks=False)
    assert json.dumps(ENGINE.encode(a), sort_keys=True) == \
        json.dumps(ENGINE.encode(b), sort_keys=True)


def test_a_game_replays_from_its_recorded_draws() -> None:
    """The host's recording and replay randomness give back the same states, hash for hash."""
    from services.platform.canonical import state_hash
    from services.platform.draws import ReplayRandomness, SeededRandomness

    live = SeededRandomness("neon-replay")
    state = ENGINE.setup(MatchConfig("coalition", 4, {}), live)
    log = [(None, None, list(live.records), state_hash(ENGINE.encode(state)))]
    chooser = Rng("chooser")
    while ENGINE.outcome(state) is None and len(log) < 400:
        seat, action = pick(chooser, state)
        rng = SeededRandomness(f"neon-replay-{len(log)}")
        state = ENGINE.apply(state, seat, action, rng).state
        log.append((seat, action, list(rng.records), state_hash(ENGINE.encode(state))))
    replayed = None
    for seat, action, draws, digest in log:
        rng = ReplayRandomness(draws)
        if action is None:
            replayed = ENGINE.setup(MatchConfig("coalition", 4, {}), rng)
        else:
            replayed = ENGINE.apply(replayed, seat, action, rng).state
        assert state_hash(ENGINE.encode(replayed)) == digest
