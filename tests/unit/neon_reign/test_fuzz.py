"""Random legal play in every mode: invariants that must hold at every step."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from services.rules.games.contract import EngineEvent, MatchConfig
from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.content import COMPUTER_DECK, DECKS
from services.rules.games.neon_reign.state import State, to_json

from .support import FakeRandomness

MAX_STEPS = 1500
THROWS = {"33", "34", "35", "36"}
RUNS = [
    ("single", 2, {}, 150),
    ("best-of-three", 2, {"first_player": "random"}, 60),
    ("hero-match", 2, {}, 100),
    ("solo", 1, {"difficulty": "training"}, 100),
    ("solo", 1, {"difficulty": "normal"}, 100),
    ("solo", 1, {"difficulty": "hard"}, 100),
]
RESIGN_EVERY = 400
"""About one random game in a few resigns midway (contract v2: resign at any time)."""


CARD_ID = re.compile(r"[A-Z]+-[0-9]{2}")


def _strings(value: Any) -> set[str]:
    """Every card id mentioned anywhere in a JSON value."""
    return set(CARD_ID.findall(json.dumps(value)))


def _no_floats(value: Any) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _no_floats(item)
    elif isinstance(value, list):
        for item in value:
            _no_floats(item)
    else:
        assert not isinstance(value, float)


def _secret(state: State, viewer: int | None) -> set[str]:
    """Card ids this viewer must not see: every deck, and the other hands."""
    out: set[str] = set()
    for index, side in enumerate(state.sides):
        out |= set(side.deck)
        if index != viewer:
            out |= set(side.hand)
    return out


def _check_state(state: State) -> None:
    for index, side in enumerate(state.sides):
        assert 0 <= side.health <= 25
        assert 0 <= side.shields <= 4
        assert side.stars >= 0
        if side.computer:
            assert sorted(side.deck + side.discard) == sorted(COMPUTER_DECK)
        else:
            in_play = state.in_play if state.active == index else ()
            if state.resolving is not None and state.active != index:
                in_play = state.resolving.defense.cards  # played, awaiting a Shield decision
            held = side.deck + side.hand + side.discard + in_play
            assert sorted(held) == sorted(DECKS[state.decks[index]])


def _check_secrets(state: State, events: tuple[EngineEvent, ...], seats: int,
                   views: bool) -> None:
    # A Throw struck face up and recycled in the same turn was public when it was struck.
    starts = [i for i, e in enumerate(events) if e.kind == "game_started"]
    if starts:  # a new game of a Best of Three was dealt: earlier events are about the last one
        events = events[starts[-1]:]
    recycled = {e.data["side"] for e in events if e.kind == "recycled_throw"}
    public_throws = {c for s in recycled for c in state.sides[s].hand if c[-2:] in THROWS}
    mentioned = [(e, _strings(dict(e.data))) for e in events]
    for viewer in [*range(seats), None]:
        secret = _secret(state, viewer)
        if views:
            assert not _strings(ENGINE.view(state, viewer)) & secret
        for event, ids in mentioned:
            if event.visible_to is None or (viewer is not None and viewer in event.visible_to):
                leaked = ids & secret
                assert not leaked - (public_throws if event.kind == "struck" else set()), event


def _illegal(state: State, seat: int, rnd: random.Random) -> list[tuple[int, dict[str, Any]]]:
    foreign = [c for side in state.sides for c in side.deck][:1] or ["NP-99"]
    return [
        (seat, {"type": "attack", "cards": foreign}),
        (seat, {"type": "attack", "cards": ["x", "y", "z", "w"]}),
        (seat, {"type": "defend", "cards": foreign}),
        (seat, {"type": "pick_hero", "hero": "nobody"}),
        (seat, {"type": rnd.choice(["jump", "recover", "pass"]), "extra": 1}),
        (1 - seat, {"type": "recover"}) if state.phase == "turn" else (seat, {"type": "dance"}),
    ]


def play_one(mode: str, seats: int, options: dict[str, Any], seed: int) -> int:
    rnd = random.Random(f"{mode}-{seed}")
    rng = FakeRandomness(f"engine-{mode}-{seed}")
    started = ENGINE.start(MatchConfig(mode, seats, options), rng)  # setup's state, and events
    state = started.state
    _check_secrets(state, started.events, seats, views=True)
    first = json.dumps(ENGINE.encode(state), sort_keys=True)
    assert first == json.dumps(ENGINE.encode(state), sort_keys=True)
    for step in range(MAX_STEPS):
        pending = ENGINE.pending(state)
        assert (pending == ()) == (ENGINE.outcome(state) is not None)
        if not pending:
            return step
        decision = rnd.choice(pending)
        assert decision.legal and decision.default in decision.legal
        standing = ENGINE.standing(state)
        assert sorted(d.seat for d in standing) == list(range(seats))
        checked = decision.legal if step % 8 == 0 else rnd.sample(
            decision.legal, min(3, len(decision.legal)))
        for action in checked:
            assert ENGINE.validate(state, decision.seat, action) is None, action
        for seat, bad in _illegal(state, decision.seat, rnd):
            reason = ENGINE.validate(state, seat, bad)
            assert isinstance(reason, str) and reason, (state.phase, seat, bad)
            # a reason may echo the ids the caller sent, never another one it may not see
            assert not _strings(reason) & (_secret(state, seat) - _strings(bad))
        if rnd.randrange(RESIGN_EVERY) == 0:
            decision = rnd.choice(standing)
        action = rnd.choice(decision.legal)
        transition = ENGINE.apply(state, decision.seat, action, rng)
        state = transition.state
        _check_state(state)
        over = ENGINE.outcome(state) is not None
        _check_secrets(state, transition.events, seats, views=step % 2 == 0 or over)
        encoded = ENGINE.encode(state)
        if step % 10 == 0:
            _no_floats(encoded)
            assert json.dumps(encoded) == json.dumps(to_json(state))  # canonical, complete
            assert json.loads(json.dumps(encoded)) == encoded
    raise AssertionError(f"{mode} seed {seed} did not end within {MAX_STEPS} steps")


@pytest.mark.parametrize(("mode", "seats", "options", "games"), RUNS,
                         ids=[f"{r[0]}-{r[2].get('difficulty', '')}" for r in RUNS])
def test_random_legal_games_keep_every_rule(mode: str, seats: int, options: dict[str, Any],
                                           games: int) -> None:
    lengths = [play_one(mode, seats, options, seed) for seed in range(games)]
    assert max(lengths) < MAX_STEPS
    outcomes = set()
    for seed in range(0, games, 25):
        state = _replay_to_end(mode, seats, options, seed)
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        outcomes.add(outcome.placements)
        assert len(outcome.placements) == len(outcome.scores) == seats
    assert outcomes


def _replay_to_end(mode: str, seats: int, options: dict[str, Any], seed: int) -> State:
    rnd = random.Random(f"{mode}-{seed}")
    rng = FakeRandomness(f"engine-{mode}-{seed}")
    state = ENGINE.setup(MatchConfig(mode, seats, options), rng)
    while pending := ENGINE.pending(state):
        decision = rnd.choice(pending)
        state = ENGINE.apply(state, decision.seat, rnd.choice(decision.legal), rng).state
    return state
