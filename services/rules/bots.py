"""Bots that play any game through the engine contract alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.platform.draws import SeededRandomness
from services.rules.games.contract import Action, Decision


class Bot(Protocol):
    name: str

    def choose(self, decision: Decision) -> Action: ...


class RandomBot:
    """Picks uniformly among a decision's legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self._rng = SeededRandomness(f"random-bot:{seed}")

    def choose(self, decision: Decision) -> Action:
        return self.pick(decision.legal)

    def pick(self, legal: Sequence[Any]) -> Any:
        if not legal:
            raise ValueError("a pending decision must list at least one legal action")
        return legal[self._rng.randbelow(len(legal))]


BOTS = {"random": RandomBot}


def make_bot(kind: str, seed: int | str) -> RandomBot:
    try:
        return BOTS[kind](seed)
    except KeyError:
        raise ValueError(f"unknown bot {kind!r}; bots: {', '.join(BOTS)}") from None
