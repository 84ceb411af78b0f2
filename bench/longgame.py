"""A long-running pure engine for the benchmark: "Counter Race".

Two seats take turns adding one to a shared counter; every fifth step also rolls a d6 (so
the match keeps drawing dice). The match ends after ``actions`` steps (2,000 unless the
``actions`` option says otherwise). The ``pad`` option (0 unless given, at most 8,192) adds
that many characters to each step's event: a big export in few steps (the export chunk
tests). It exists to measure whether an action late in a
long match costs more than an early one. Load it as a plug-in:
``NEON_ENGINES=longgame=bench.longgame``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from services.rules.games.contract import (
    ConfigError,
    Decision,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
)

D6 = ("1", "2", "3", "4", "5", "6")
ACTIONS = 2_000
STEP = {"type": "step"}


@dataclass(frozen=True)
class State:
    goal: int
    count: int = 0
    pips: tuple[int, int] = (0, 0)
    pad: int = 0


class CounterRace:
    game_id = "longgame"
    title = "Counter Race"
    engine_version = "1"
    content_version = "1"

    def modes(self) -> dict[str, ModeInfo]:
        return {"race": ModeInfo("race", 2, 2, f"{ACTIONS} alternating steps")}

    def config_schema(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "properties": {"actions": {"type": "integer", "minimum": 2, "maximum": 100_000},
                               "pad": {"type": "integer", "minimum": 0, "maximum": 8_192}}}

    def action_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["type"], "additionalProperties": False,
                "properties": {"type": {"const": "step"}}}

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        goal = config.options.get("actions", ACTIONS)
        if not isinstance(goal, int) or not 2 <= goal <= 100_000:
            raise ConfigError("actions must be an integer in 2..100000")
        pad = config.options.get("pad", 0)
        if not isinstance(pad, int) or not 0 <= pad <= 8_192:
            raise ConfigError("pad must be an integer in 0..8192")
        return State(goal, pad=pad)

    def pending(self, state: State) -> tuple[Decision, ...]:
        if state.count >= state.goal:
            return ()
        return (Decision(state.count % 2, "step", (dict(STEP),)),)

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if state.count >= state.goal:
            return "the race is over"
        if seat != state.count % 2:
            return "not your turn"
        if action != STEP:
            return "the only action is {'type': 'step'}"
        return None

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        pips = list(state.pips)
        stepped: dict[str, Any] = {"seat": seat, "count": state.count + 1}
        if state.pad:
            stepped["pad"] = "x" * state.pad
        events = [EngineEvent("stepped", stepped)]
        if state.count % 5 == 4:
            pips[seat] += int(rng.roll(D6)[0])
            events.append(EngineEvent("rolled", {"seat": seat, "pips": pips[seat]}))
        new = replace(state, count=state.count + 1, pips=(pips[0], pips[1]))
        return Transition(new, tuple(events))

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return {"count": state.count, "goal": state.goal, "pips": list(state.pips)}

    def outcome(self, state: State) -> Outcome | None:
        if state.count < state.goal:
            return None
        a, b = state.pips
        if a == b:
            return Outcome((1, 1), (a, b), "equal pips", draw=True)
        return Outcome((1, 2) if a > b else (2, 1), (a, b), "more pips wins")

    def encode(self, state: State) -> dict[str, Any]:
        encoded = {"goal": state.goal, "count": state.count, "pips": list(state.pips)}
        if state.pad:
            encoded["pad"] = state.pad
        return encoded


ENGINE = CounterRace()
