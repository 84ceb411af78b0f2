"""A tiny contract-v2 engine for testing the rules host: "Counter Duel".

Two seats, 10 health and 2 sparks each. On its turn the active seat must *strike* (a
2-damage attack) or *rest* (+1 spark, at most 5). A strike opens a counter chain: the
other seat may *counter* (1 spark) or pass; a counter may itself be countered by the
first seat, and so on, each answer owed by the seat that did not add the top of the
chain. When a seat passes, the chain resolves last in, first out: each counter cancels
the item just below it. At any time, even on the other seat's turn or inside a chain,
a seat may *exchange* 2 health for 1 spark (a standing option) or resign. The first
seat at 0 health loses.

Mode "series" is a campaign: each duel carries on the seats' won duels so far
(``Outcome.carry``), and a seat starts each later duel with 1 health fewer per duel it
has won (a handicap), so the carried state visibly shapes the next match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from services.rules.games.contract import (
    RESIGN,
    ConfigError,
    Decision,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
)
from services.rules.games.windows import Stack

HEALTH, SPARKS, MAX_SPARKS, DAMAGE = 10, 2, 5, 2
STRIKE, REST, COUNTER, PASS, EXCHANGE = (
    {"type": "strike"}, {"type": "rest"}, {"type": "counter"}, {"type": "pass"}, {"type": "exchange"})


@dataclass(frozen=True)
class State:
    health: tuple[int, int] = (HEALTH, HEALTH)
    sparks: tuple[int, int] = (SPARKS, SPARKS)
    active: int = 0
    chain: Stack[tuple[str, int]] = Stack("lifo")
    resigned: int | None = None
    turn: int = 1
    won: tuple[int, int] = (0, 0)
    """Series: duels each seat won before this one (carried from the previous match)."""


def _set(pair: tuple[int, int], seat: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


class DuelEngine:
    game_id = "duel"
    title = "Counter Duel"
    engine_version = "2"
    content_version = "1"
    contract_version = 2

    def modes(self) -> dict[str, ModeInfo]:
        return {"duel": ModeInfo("duel", 2, 2, "first to 0 health loses"),
                "series": ModeInfo("series", 2, 2, "duels in a row, winners handicapped",
                                   campaign=True)}

    def config_schema(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False}

    def action_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["type"], "additionalProperties": False,
                "properties": {"type": {"enum": ["strike", "rest", "counter", "pass",
                                                 "exchange", "resign"]}}}

    def match_options(self, mode: str, seats: int, teams: Any = None) -> dict[str, Any]:
        return {}

    def for_version(self, engine_version: str) -> DuelEngine:
        if engine_version != self.engine_version:
            raise KeyError(engine_version)
        return self

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        if config.options:
            raise ConfigError("Counter Duel takes no options")
        won = (0, 0)
        if config.carried is not None:
            if config.mode != "series" or not isinstance(config.carried, dict):
                raise ConfigError("only a series duel continues an earlier one")
            won = (int(config.carried["won"][0]), int(config.carried["won"][1]))
        health = (HEALTH - won[0], HEALTH - won[1])
        return State(health=health, active=rng.randbelow(2), won=won)

    def _owed(self, state: State) -> int:
        """The seat whose answer the match waits for."""
        if state.chain.empty:
            return state.active
        return 1 - state.chain.next()[1]

    def pending(self, state: State) -> tuple[Decision, ...]:
        if self.outcome(state) is not None:
            return ()
        seat = self._owed(state)
        if state.chain.empty:
            legal = (STRIKE, REST) if state.sparks[seat] < MAX_SPARKS else (STRIKE,)
            return (Decision(seat, "turn", legal, "strike or rest", default=legal[-1]),)
        legal = (PASS, COUNTER) if state.sparks[seat] >= 1 else (PASS,)
        return (Decision(seat, "respond", legal, "counter the top of the chain, or pass",
                         optional=True, default=PASS),)

    def standing(self, state: State) -> tuple[Decision, ...]:
        if self.outcome(state) is not None:
            return ()
        out = []
        for seat in (0, 1):
            legal = ((EXCHANGE,) if state.health[seat] > 2 else ()) + (RESIGN,)
            out.append(Decision(seat, "any_time", legal, "exchange 2 health for 1 spark",
                                standing=True, priority=1))
        return tuple(out)

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if self.outcome(state) is not None:
            return "the duel is over"
        kind = action.get("type")
        if kind == "resign":
            return None
        if kind == "exchange":
            return None if state.health[seat] > 2 else "you need more than 2 health to exchange"
        if seat != self._owed(state):
            return "it is not your answer to give"
        legal = next(d.legal for d in self.pending(state) if d.seat == seat)
        return None if dict(action) in [dict(a) for a in legal] else f"{kind} is not possible now"

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        kind = action["type"]
        if kind == "resign":
            return Transition(replace(state, resigned=seat), (EngineEvent("resigned", {"seat": seat}),))
        if kind == "exchange":
            return Transition(replace(state, health=_set(state.health, seat, state.health[seat] - 2),
                                      sparks=_set(state.sparks, seat, state.sparks[seat] + 1)),
                              (EngineEvent("exchanged", {"seat": seat}),))
        if kind == "rest":
            return self._next_turn(replace(state, sparks=_set(state.sparks, seat, state.sparks[seat] + 1)),
                                   (EngineEvent("rested", {"seat": seat}),))
        if kind in ("strike", "counter"):
            sparks = state.sparks if kind == "strike" else _set(state.sparks, seat, state.sparks[seat] - 1)
            return Transition(replace(state, sparks=sparks, chain=state.chain.push((kind, seat))),
                              (EngineEvent(kind, {"seat": seat}),))
        return self._resolve(state)

    def _resolve(self, state: State) -> Transition:
        """Resolve the chain last in, first out: a live counter cancels what lies below it."""
        chain, events, cancel_next = state.chain, [], False
        health = state.health
        while not chain.empty:
            (kind, seat), chain = chain.pop()
            if cancel_next:
                events.append(EngineEvent("cancelled", {"what": kind, "seat": seat}))
                cancel_next = False
                continue
            if kind == "counter":
                cancel_next = True
            else:
                target = 1 - seat
                health = _set(health, target, max(0, health[target] - DAMAGE))
                events.append(EngineEvent("hit", {"seat": target, "damage": DAMAGE}))
        return self._next_turn(replace(state, chain=chain, health=health), tuple(events))

    def _next_turn(self, state: State, events: tuple[EngineEvent, ...]) -> Transition:
        return Transition(replace(state, active=1 - state.active, turn=state.turn + 1), events)

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return {"health": list(state.health), "sparks": list(state.sparks), "active": state.active,
                "chain": [list(i) for i in state.chain.items], "turn": state.turn,
                "won": list(state.won)}

    def outcome(self, state: State) -> Outcome | None:
        if state.resigned is not None:
            loser = state.resigned
        elif 0 in state.health:
            loser = state.health.index(0)
        else:
            return None
        won = tuple(w + (1 if s != loser else 0) for s, w in enumerate(state.won))
        return Outcome(tuple(2 if s == loser else 1 for s in (0, 1)), state.health,
                       f"seat {loser} {'resigned' if state.resigned is not None else 'fell'}",
                       carry={"won": list(won)})

    def encode(self, state: State) -> dict[str, Any]:
        return {**self.view(state, None), "resigned": state.resigned}


ENGINE = DuelEngine()
