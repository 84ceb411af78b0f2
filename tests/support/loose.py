"""A plug-in engine with loose schemas, for the store-keys tests: "Loose Talk".

Its config and action schemas take any object (as an engine served with NEON_ENGINES may),
and on request it returns what the match store cannot keep as an object: an event whose
data holds an object of exactly the keys ``_type_`` and ``_data_`` (visible to the other
seat only), or an outcome whose breakdown or carry holds one; a ``crash`` (offered in mode
``buggy`` alone) fails as a buggy engine does, quoting hidden state in its exception. Two seats take turns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from services.rules.games.contract import (
    Decision,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
)

TYPED = {"_type_": "uuid_hex", "_data_": "00" * 16}
KINDS = ("pass", "say", "emit", "end", "end-bad", "end-carry", "crash")
HAND = "ronin-7 of the other seat's hand"
"""What a ``crash`` (an engine bug) quotes in its exception's words: state no log may hold."""


@dataclass(frozen=True)
class State:
    turn: int = 0
    said: tuple[str, ...] = ()
    ended: str = ""
    buggy: bool = False


class LooseEngine:
    game_id = "loose"
    title = "Loose Talk"
    engine_version = "1"
    content_version = "1"

    def modes(self) -> dict[str, ModeInfo]:
        return {"talk": ModeInfo("talk", 2, 2, "take turns"),
                "buggy": ModeInfo("buggy", 2, 2, "take turns, or crash the engine")}

    def config_schema(self) -> dict[str, Any]:
        return {"type": "object"}

    def action_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["type"]}

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return State(buggy=config.mode == "buggy")

    def pending(self, state: State) -> tuple[Decision, ...]:
        if state.ended:
            return ()
        offered = [k for k in KINDS if k != "say" and (state.buggy or k != "crash")]
        legal = tuple({"type": k} for k in offered) + ({"type": "say", "note": "hi"},)
        return (Decision(state.turn % 2, "turn", legal),)

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if state.ended:
            return "the talk is over"
        if seat != state.turn % 2:
            return "not your turn"
        if action.get("type") not in KINDS:
            return f"type must be one of {', '.join(KINDS)}"
        return None

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        kind = action["type"]
        after = replace(state, turn=state.turn + 1)
        if kind == "say":
            return Transition(replace(after, said=(*state.said, repr(action.get("note")))),
                              (EngineEvent("said", {"seat": seat, "note": action.get("note")}),))
        if kind == "emit":  # the other seat's secret: the refusal must not name it
            return Transition(after, (EngineEvent("whispered", {"secret_plan": dict(TYPED)},
                                                  frozenset({1 - seat})),))
        if kind == "crash":  # a bug, quoting the state it was working on
            raise KeyError(f"no card after {HAND}")
        if kind.startswith("end"):
            return Transition(replace(after, ended=kind), (EngineEvent("ended", {"seat": seat}),))
        return Transition(after, (EngineEvent("passed", {"seat": seat}),))

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return {"turn": state.turn, "said": list(state.said), "ended": state.ended}

    def outcome(self, state: State) -> Outcome | None:
        if not state.ended:
            return None
        breakdown: dict[str, Any] = {"turns": state.turn}
        if state.ended == "end-bad":
            breakdown["per_seat"] = dict(TYPED)
        carry = {"table": dict(TYPED)} if state.ended == "end-carry" else None
        return Outcome((1, 2), (1, 0), "talked out", breakdown=breakdown, carry=carry)

    def encode(self, state: State) -> dict[str, Any]:
        buggy = {"buggy": True} if state.buggy else {}
        return {"turn": state.turn, "said": list(state.said), "ended": state.ended, **buggy}


ENGINE = LooseEngine()
