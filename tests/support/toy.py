"""A tiny pure engine for testing the rules host: "Hidden Race".

Each round both seats secretly pick a step of 1-3 (a hidden simultaneous choice); then
each rolls a d6 and moves pick + roll. First past 20 wins; both past 20 at once is a
draw. Each seat also holds a private hand: a shuffled deck of 5 cards, drawing one a
round, which only its seat may see.
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
GOAL = 20


@dataclass(frozen=True)
class State:
    positions: tuple[int, int]
    picks: tuple[int | None, int | None]
    decks: tuple[tuple[str, ...], tuple[str, ...]]
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    round: int = 1


class ToyEngine:
    game_id = "toy"
    title = "Hidden Race"
    engine_version = "1"
    content_version = "1"

    def modes(self) -> dict[str, ModeInfo]:
        return {"race": ModeInfo("race", 2, 2, "race to 20")}

    def config_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"goal": {"type": "integer"}},
                "additionalProperties": False}

    def action_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["type", "step"],
                "properties": {"type": {"const": "pick"}, "step": {"type": "integer"}},
                "additionalProperties": False}

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        if config.options.get("goal", GOAL) != GOAL:
            raise ConfigError("goal must be 20")
        decks = tuple(rng.shuffle([f"s{s}c{i}" for i in range(5)]) for s in range(2))
        return State((0, 0), (None, None), (decks[0][1:], decks[1][1:]),
                     ((decks[0][0],), (decks[1][0],)))

    def pending(self, state: State) -> tuple[Decision, ...]:
        if self.outcome(state) is not None:
            return ()
        legal = tuple({"type": "pick", "step": n} for n in (1, 2, 3))
        return tuple(Decision(seat, "pick", legal, hidden=True)
                     for seat in (0, 1) if state.picks[seat] is None)

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if self.outcome(state) is not None:
            return "the race is over"
        if seat not in (0, 1):
            return "no such seat"
        if state.picks[seat] is not None:
            return "you already picked this round"
        if action.get("step") not in (1, 2, 3):
            return "step must be 1, 2 or 3"
        return None

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        picks = list(state.picks)
        picks[seat] = int(action["step"])
        events = [EngineEvent("picked", {"seat": seat, "step": picks[seat]}, frozenset({seat}))]
        if None in picks:
            return Transition(replace(state, picks=tuple(picks)), tuple(events))  # type: ignore[arg-type]
        rolls = [int(r) for r in rng.roll(D6, 2)]
        positions = tuple(p + pick + roll for p, pick, roll in zip(state.positions, picks, rolls))  # type: ignore[operator]
        decks, hands = list(state.decks), list(state.hands)
        for s in (0, 1):
            if decks[s]:
                hands[s] = hands[s] + (decks[s][0],)
                events.append(EngineEvent("drew", {"seat": s, "card": decks[s][0]}, frozenset({s})))
                decks[s] = decks[s][1:]
        events.append(EngineEvent("revealed", {"picks": picks, "rolls": rolls}))
        new = State(positions, (None, None), tuple(decks), tuple(hands), state.round + 1)  # type: ignore[arg-type]
        return Transition(new, tuple(events))

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return {
            "round": state.round, "positions": list(state.positions),
            "picked": [p is not None for p in state.picks],
            "my_pick": state.picks[viewer] if viewer is not None else None,
            "hand": list(state.hands[viewer]) if viewer is not None else None,
            "hand_sizes": [len(h) for h in state.hands],
        }

    def outcome(self, state: State) -> Outcome | None:
        done = [p >= GOAL for p in state.positions]
        if not any(done):
            return None
        if all(done):
            return Outcome((1, 1), tuple(state.positions), "both finished", draw=True)
        winner = done.index(True)
        return Outcome(tuple(1 if s == winner else 2 for s in (0, 1)), tuple(state.positions),
                       f"seat {winner} finished first")

    def encode(self, state: State) -> dict[str, Any]:
        return {"positions": list(state.positions), "picks": list(state.picks),
                "decks": [list(d) for d in state.decks], "hands": [list(h) for h in state.hands],
                "round": state.round}


ENGINE = ToyEngine()
