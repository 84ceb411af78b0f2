"""Helpers for Neon Knights tests: positions built from real set-ups, scripted dice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights.content import DIE_FACES
from services.rules.games.neon_knights.engine import NeonKnightsEngine
from services.rules.games.neon_knights.state import State, freeze, thaw

T = TypeVar("T")
ENGINE = NeonKnightsEngine()
FACE = {f["face"]: f for f in DIE_FACES}


class ScriptedRandomness(SeededRandomness):
    """Seeded randomness whose die rolls come from a script of face names first."""

    def __init__(self, faces: Sequence[str] = (), seed: str = "scripted") -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        if self.faces and faces == DIE_FACES:
            return tuple(FACE[self.faces.pop(0)] for _ in range(count))  # type: ignore[misc]
        return super().roll(faces, count)


def new_game(seats: int, mode: str = "normal", seed: str = "t", **options: Any) -> State:
    return ENGINE.setup(MatchConfig(mode, seats, options), SeededRandomness(seed))


def play_defaults(state: State, until: Callable[[dict[str, Any]], bool], rng: Any = None,
                  limit: int = 5000) -> State:
    """Answer every owed decision with its default until ``until(doc)`` holds."""
    rng = rng or SeededRandomness("defaults")
    for _ in range(limit):
        if until(state.doc):
            return state
        decision = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, decision.seat, decision.default, rng).state
    raise AssertionError("position not reached")


def edit(state: State, change: Callable[[dict[str, Any]], None]) -> State:
    doc = thaw(state)
    change(doc)
    return freeze(doc)


def racing(seats: int = 4, seed: str = "t", round_: int = 2) -> State:
    """A race in progress at the first turn of round ``round_`` (default: the second)."""
    state = play_defaults(new_game(seats, seed=seed), lambda d: d["phase"] == "race")
    if round_ > 1:
        state = play_defaults(state, lambda d: d["phase"] == "race" and d["racing"]["round"] == round_
                              and d["racing"]["index"] == 0 and d["racing"]["step"] in ("adjust", "start"))
    return state


def decision_of(state: State, seat: int | None = None) -> Any:
    owed = [d for d in ENGINE.pending(state) if seat is None or d.seat == seat]
    assert owed, "no decision owed"
    return owed[0]
