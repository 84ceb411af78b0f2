"""Positions and a fake Randomness for Neon Reign tests (tests may use ``random``; engines not)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from services.rules.games.contract import MatchConfig, Transition
from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.content import DECKS
from services.rules.games.neon_reign.state import SHIELDS, TURN, Side, State

T = TypeVar("T")


class FakeRandomness:
    """A deterministic stand-in for the dice service."""

    def __init__(self, seed: int | str = 0) -> None:
        self.random = random.Random(str(seed))
        self.calls = 0

    def randbelow(self, n: int) -> int:
        self.calls += 1
        return self.random.randrange(n)

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        self.calls += 1
        out = list(items)
        self.random.shuffle(out)
        return tuple(out)

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        self.calls += 1
        return tuple(self.random.choice(list(faces)) for _ in range(count))


class NoRandomness(FakeRandomness):
    """Fails the test if the engine asks for chance where the rules need none."""

    def randbelow(self, n: int) -> int:
        raise AssertionError("no chance expected here")

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        raise AssertionError("no chance expected here")


def side(hero: str, deck: str, hand: Sequence[str] = (), *, top: Sequence[str] = (),
         **tokens: Any) -> Side:
    """A side holding ``hand``, with ``top`` on top of its deck and the rest of the deck below."""
    rest = tuple(c for c in DECKS[deck] if c not in hand and c not in top)
    return Side(hero, deck=tuple(top) + rest, hand=tuple(hand), **tokens)


def position(attacker: Side, defender: Side, *, mode: str = "single", **changes: Any) -> State:
    """Seat 0 is about to take its turn against seat 1."""
    state = State(mode=mode, difficulty="", decks=("neon-pulse", "chrome-fury"),
                  sides=(attacker, defender), phase=TURN, active=0)
    return replace(state, **changes)


def new_match(mode: str = "single", seats: int = 2, seed: int | str = 0, **options: Any) -> State:
    return ENGINE.setup(MatchConfig(mode, seats, options), FakeRandomness(seed))


def act(state: State, seat: int, action: dict[str, Any], seed: int | str = 0) -> Transition:
    """Validate, then apply, as the rules host does."""
    reason = ENGINE.validate(state, seat, action)
    assert reason is None, reason
    return ENGINE.apply(state, seat, action, FakeRandomness(seed))


def spend_shields_as_needed(state: State) -> State:
    """Answer every Shield decision with its default: spend as many as the damage needs."""
    while state.phase == SHIELDS:
        (decision,) = ENGINE.pending(state)
        assert decision.default is not None
        state = act(state, decision.seat, dict(decision.default)).state
    return state


def attack(state: State, *cards: str) -> State:
    return spend_shields_as_needed(
        act(state, state.active, {"type": "attack", "cards": list(cards)}).state)


def defend(state: State, *cards: str, targets: Sequence[str] = ()) -> State:
    action: dict[str, Any] = {"type": "defend", "cards": list(cards)}
    if targets:
        action["targets"] = list(targets)
    return spend_shields_as_needed(act(state, 1 - state.active, action).state)


def pass_(state: State) -> State:
    return spend_shields_as_needed(act(state, 1 - state.active, {"type": "pass"}).state)


def exchange(state: State, attack_cards: Sequence[str], defend_cards: Sequence[str] = (),
             targets: Sequence[str] = ()) -> State:
    """One full Attack and Defend."""
    state = attack(state, *attack_cards)
    return defend(state, *defend_cards, targets=targets) if defend_cards else pass_(state)
