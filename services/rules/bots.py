"""Bots that play any game through the engine contract alone."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from services.platform.draws import SeededRandomness
from services.rules.games.contract import Action, Decision


class Bot(Protocol):
    """Chooses an answer to ``decision`` from what a client sees: the decision and, for
    bots that need it, the seat's view."""

    name: str

    def choose(self, decision: Decision, view: Any = None) -> Action: ...


class RandomBot:
    """Picks uniformly among a decision's legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self._rng = SeededRandomness(f"random-bot:{seed}")

    def choose(self, decision: Decision, view: Any = None) -> Action:
        return self.pick(decision.legal)

    def pick(self, legal: Sequence[Any]) -> Any:
        if not legal:
            raise ValueError("a pending decision must list at least one legal action")
        return legal[self._rng.randbelow(len(legal))]


BOTS = {"random": RandomBot}


class _GameBot:
    """A game's own bot (``BOTS`` of its package: ``choose(view, decision)``) as a Bot."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", type(bot).__name__)

    def choose(self, decision: Decision, view: Any = None) -> Action:
        return self.bot.choose(view, decision)  # type: ignore[no-any-return]


def bot_kinds(game: str = "") -> list[str]:
    """The bots that can play ``game``: the random bot and the game's own."""
    return [*BOTS, *game_bots(game)]


def game_bots(game: str) -> dict[str, Any]:
    if not game:
        return {}
    from services.rules.games import ENGINE_MODULES, available

    module = ENGINE_MODULES.get(game)
    if module is None or game not in available():
        return {}
    return dict(getattr(importlib.import_module(module), "BOTS", {}))


def make_bot(kind: str, seed: int | str, game: str = "") -> Bot:
    return bot_maker(kind, game)(seed)


def bot_maker(kind: str, game: str = "") -> Callable[[int | str], Bot]:
    """What makes a ``kind`` bot of ``game`` from a seed. Found once, it makes many bots
    (self-play makes one per seat per game; finding the game's bots imports every game's
    package to list those available)."""
    if kind in BOTS:
        return BOTS[kind]
    own = game_bots(game)
    if kind in own:
        made = own[kind]
        return lambda seed: _GameBot(made(seed))
    raise ValueError(f"unknown bot {kind!r}; bots: {', '.join(bot_kinds(game))}")


def weighted(rng: Any, options: Sequence[Any], weights: Sequence[int]) -> Any:
    """One of ``options``, each as likely as its weight (whole numbers, at least 1), drawn
    with ``rng.randbelow`` (a bot's seeded randomness): how the rule bots answer hidden
    decisions, so an answer does not follow from the seat's hidden cards by a fixed rule."""
    if len(options) == 1:
        return options[0]
    roll = rng.randbelow(sum(weights))
    for option, weight in zip(options, weights, strict=True):
        if roll < weight:
            return option
        roll -= weight
    raise AssertionError("unreachable: the roll is below the weights' sum")
