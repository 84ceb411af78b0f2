"""Helpers to set up a Barbaric table in a given position and play decisions on it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.rules.games.barbaric.content import GEARS, RIDERS, card_ids
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.barbaric.modes import setup
from services.rules.games.barbaric.state import State, Table
from services.rules.games.contract import MatchConfig

ENGINE = BarbaricEngine()
A, B, C, D = 0, 1, 2, 3


class FixedDice:
    """Dice that roll the faces given, in order (then each face in turn); shuffles keep order."""

    def __init__(self, rolls: Sequence[Any] = ()) -> None:
        self.rolls = list(rolls)
        self.spins = 0

    def randbelow(self, n: int) -> int:
        return 0

    def shuffle(self, items: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(items)

    def roll(self, faces: Sequence[Any], count: int = 1) -> tuple[Any, ...]:
        out = []
        for _ in range(count):
            if self.rolls:
                out.append(self.rolls.pop(0))
            else:
                self.spins += 1
                out.append(faces[self.spins % len(faces)])
        return tuple(out)


RIDER_ORDER = ("keltz", "pia", "theodore", "rook")
GEAR_ORDER = ("jackrabbit", "megalodon", "genbu", "mobydick")


def table(seats: int = 4, mode: str = "competitive",
          positions: Sequence[tuple[int, int]] | None = None) -> Table:
    """A table after set-up: Riders and Gears dealt in order, empty hands, full decks,
    Characters on the given spaces, the Day track in seat order, nothing on the agenda."""
    t = setup(MatchConfig(mode, seats), FixedDice([6] + [1] * 12))
    t.first_player = 0
    t.tracks = {"day": list(range(seats)), "night": []}
    for p in t.players:
        p.rider = RIDER_ORDER[p.seat % 4]
        p.gear = GEAR_ORDER[p.seat % 4]
        p.deck = list(card_ids(RIDERS[p.rider]) + card_ids(GEARS[p.gear]))
        if positions:
            p.pos = positions[p.seat]
    t.agenda = []
    t.round, t.stage = 1, 1
    t.event_deck = ["calm"] * 4
    return t


def turn_of(t: Table, seat: int) -> Table:
    """The table at the start of ``seat``'s Preparation Phase; the players after it on the
    current Time Track take their turns next."""
    t.turn.seat = seat
    t.turn.number += 1
    t.turn.rider_used = t.turn.gear_used = t.turn.aided = t.turn.whirled = False
    track = t.tracks[t.time]
    later = track[track.index(seat) + 1:] if seat in track else []
    t.agenda = [{"step": "prep", "seat": seat}, {"step": "act", "seat": seat},
                {"step": "upkeep", "seat": seat}, {"step": "end_turn", "seat": seat}]
    t.agenda += [{"step": "start_turn", "seat": s} for s in later]
    return t


def act(state: State, seat: int, action: dict[str, Any], dice: Any = None) -> State:
    problem = ENGINE.validate(state, seat, action)
    assert problem is None, problem
    return ENGINE.apply(state, seat, action, dice or FixedDice()).state


def owed(state: State) -> tuple[int, str, tuple[Any, ...]]:
    (d,) = ENGINE.pending(state)
    return d.seat, d.kind, d.legal


def answer_until(state: State, stop: Callable[[int, str], bool],
                 choose: Callable[[int, str, tuple[Any, ...]], Any] | None = None,
                 dice: Any = None, limit: int = 200) -> State:
    """Answer owed decisions (with ``choose``, else the default) until ``stop`` holds."""
    for _ in range(limit):
        (d,) = ENGINE.pending(state)
        if stop(d.seat, d.kind):
            return state
        action = choose(d.seat, d.kind, d.legal) if choose else None
        state = act(state, d.seat, action or d.default, dice)
    raise AssertionError("the decision never came")
