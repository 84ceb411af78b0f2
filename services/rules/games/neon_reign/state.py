"""The immutable match state: two sides (the second is the Computer in Solo mode) and the match."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from .cards import STARTING_HEALTH

PICK, TURN, DEFEND, OVER = "pick", "turn", "defend", "over"


@dataclass(frozen=True)
class Side:
    """One player's Hero card, tokens and cards. ``deck[0]`` is the top of the deck."""

    hero: str
    health: int = STARTING_HEALTH
    stars: int = 0
    shields: int = 0
    deck: tuple[str, ...] = ()
    hand: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    bench: tuple[str, ...] = ()
    """2v2 Hero Match: the seat's heroes still waiting to come in."""
    fallen: tuple[str, ...] = ()
    """2v2 Hero Match: the seat's heroes already KO'd."""
    computer: bool = False


@dataclass(frozen=True)
class GameResult:
    """One KO (a game of Best of Three, a hero falling in a Hero Match, or the single game)."""

    game: int
    knocked_out: tuple[int, ...]
    reason: str
    health: tuple[int, int]
    heroes: tuple[str, str]


@dataclass(frozen=True)
class State:
    mode: str
    difficulty: str
    decks: tuple[str, str]
    sides: tuple[Side, Side]
    phase: str
    active: int
    """The Attacker: whose turn it is."""
    in_play: tuple[str, ...] = ()
    """The Attacker's played cards while the defender answers (public)."""
    turn: int = 1
    game: int = 1
    starter: int = 0
    mirror: bool = False
    """Solo Training: the human just recovered, so the Computer recovers (passes) too."""
    picks: tuple[str, str] = ("", "")
    """2v2 Hero Match: the hidden starting-hero picks, until both are in."""
    tokens: tuple[int, int] = (0, 0)
    results: tuple[GameResult, ...] = ()
    winner: int | None = None
    reason: str = ""

    @property
    def solo(self) -> bool:
        return self.sides[1].computer


def encode_side(side: Side) -> dict[str, Any]:
    return {"hero": side.hero, "health": side.health, "stars": side.stars, "shields": side.shields,
            "deck": list(side.deck), "hand": list(side.hand), "discard": list(side.discard),
            "bench": list(side.bench), "fallen": list(side.fallen), "computer": side.computer}


def encode_state(state: State) -> dict[str, Any]:
    """The whole state as canonical JSON (field order fixed, tuples as lists)."""
    return {
        "mode": state.mode, "difficulty": state.difficulty, "decks": list(state.decks),
        "sides": [encode_side(side) for side in state.sides], "phase": state.phase,
        "active": state.active, "in_play": list(state.in_play), "turn": state.turn,
        "game": state.game, "starter": state.starter,
        "mirror": state.mirror, "picks": list(state.picks), "tokens": list(state.tokens),
        "results": to_json(state.results), "winner": state.winner, "reason": state.reason,
    }


def to_json(value: Any) -> Any:
    """Canonical JSON for frozen dataclasses and tuples (no floats, no sets)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in sorted(value.items())}
    if isinstance(value, float):
        raise TypeError("floats are not allowed in Neon Reign states")
    return value
