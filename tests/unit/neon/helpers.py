"""Test helpers for NEON: seeded and scripted randomness, and positions set up by hand."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.state import Equip, Fighter, State


class Rng:
    """Deterministic hash-based randomness (tests only)."""

    def __init__(self, seed: object) -> None:
        self.seed, self.n = str(seed), 0

    def randbelow(self, n: int) -> int:
        self.n += 1
        digest = hashlib.blake2b(f"{self.seed}:{self.n}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") % n

    def shuffle(self, items: Sequence[Any]) -> tuple[Any, ...]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def roll(self, faces: Sequence[Any], count: int = 1) -> tuple[Any, ...]:
        return tuple(faces[self.randbelow(len(faces))] for _ in range(count))


class Dice(Rng):
    """Rolls the scripted faces in order (then falls back to seeded chance)."""

    def __init__(self, *faces: str) -> None:
        super().__init__("dice")
        self.faces = list(faces)
        self.rolled: list[tuple[str, ...]] = []

    def roll(self, faces: Sequence[Any], count: int = 1) -> tuple[Any, ...]:
        out = []
        for _ in range(count):
            out.append(self.faces.pop(0) if self.faces else faces[self.randbelow(len(faces))])
        self.rolled.append(tuple(out))
        return tuple(out)


def new_game(mode: str = "rebirth", seats: int = 3, fighters: Sequence[str] | None = None,
             seed: object = 1, **options: Any) -> State:
    opts: dict[str, Any] = dict(options)
    if fighters is not None:
        opts["fighters"] = list(fighters)
    return ENGINE.setup(MatchConfig(mode, seats, opts), Rng(seed))


def set_fighter(state: State, idx: int, **changes: Any) -> State:
    fighters = list(state.fighters)
    fighters[idx] = fighters[idx].but(**changes)
    return replace(state, fighters=tuple(fighters))


def fighter(state: State, idx: int) -> Fighter:
    return state.fighters[idx]


def arena(state: State, ring: Sequence[int] = tuple(range(1, 11)), **sectors: int) -> State:
    """Fix the ring (default 1..10 clockwise), clear bots, and place fighters: f0=3, f1=4..."""
    state = replace(state, ring=tuple(ring), bots=())
    for key, sector in sectors.items():
        state = set_fighter(state, int(key[1:]), sector=sector)
    return state


def on_turn(state: State, idx: int, *row: Sequence[str]) -> State:
    """Make ``idx`` the fighter acting now, with the given action row."""
    state = replace(state, phase="act", current=idx, stack=())
    return set_fighter(state, idx, row=tuple(tuple(h) for h in row), step=0, initiative=1)


def equip(*cards: str | tuple[str, Sequence[str]]) -> tuple[Equip, ...]:
    out = []
    for c in cards:
        if isinstance(c, tuple):
            out.append(Equip(c[0], tuple(c[1])))
        else:
            out.append(Equip(c))
    return tuple(out)


def act(state: State, seat: int, action: dict[str, Any], rng: Any = None) -> State:
    reason = ENGINE.validate(state, seat, action)
    assert reason is None, reason
    return ENGINE.apply(state, seat, action, rng or Rng("act")).state


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    return [dict(a) for d in ENGINE.pending(state) if d.seat == seat for a in d.legal]


def decision_kinds(state: State) -> list[tuple[int, str]]:
    return [(d.seat, d.kind) for d in ENGINE.pending(state)]


def go_on(state: State, seat: int, kind: str, rng: Any = None) -> State:
    """Answer "roll" or "done" if that window is open for ``seat`` (windows with nothing else
    to do pass by themselves)."""
    if {"type": kind} in legal(state, seat):
        return act(state, seat, {"type": kind}, rng)
    return state


def played(mode: str, setup: Any, bots: Sequence[Any], key: str) -> Iterator[State]:
    """Every state of one game of ``setup`` (a ``selfplay.setups`` plan), from the set-up to
    the end: each decision answered by its seat's bot, draws seeded by ``key``."""
    rng = SeededRandomness(key)
    state = ENGINE.setup(MatchConfig(mode, setup.seats, dict(setup.options)), rng)
    yield state
    while pending := ENGINE.pending(state):
        decision = pending[0]
        action = bots[decision.seat].choose(decision, ENGINE.view(state, decision.seat))
        state = ENGINE.apply(state, decision.seat, action, rng).state
        yield state


MODES = ("rebirth", "battle-royale", "coalition")


def every_mode(tag: str, games: int) -> Iterator[State]:
    """Every state of ``games`` seeded games of each mode (``selfplay.setups`` plans in
    turn), rule bots in the odd games and random bots in the even ones; draws seeded by
    ``tag``, the mode and the game's number."""
    from services.rules.bots import RandomBot, make_bot
    from services.rules.selfplay import setups

    for mode in MODES:
        plans = setups(ENGINE, mode)
        for n in range(games):
            setup = plans[n % len(plans)]
            bots = [make_bot("rule", f"{n}-{s}", "neon") if n % 2 else RandomBot(n * 10 + s)
                    for s in range(setup.seats)]
            yield from played(mode, setup, bots, f"{tag}:{mode}:{n}")
