"""The defaults of hidden decisions, drawn when they are asked (engine 0.6.0; RULES.md,
"Hidden information: what each seat receives").

A turn clock answers a seat that runs out of time with its decision's default, and a timeout
is public (every viewer's clocks count each seat's ``timeouts``; the deadline visibly passes).
So the default of a hidden decision must not follow from anything another seat or a spectator
knows, or a timeout names the hidden answer. Up to 0.5.0 a hidden starting speed defaulted to
4 for everyone, and a draft pick to the first implant of the packet in sorted order, which the
seat that passed the packet on knows card for card.

From 0.6.0 a game carries ``defaults``: for each seat, the answer drawn at random (one draw of
the engine's recorded randomness, among the decision's legal answers) when its hidden draft
pick or hidden starting speed is asked, kept until the seat answers or the round of picks (the
speeds) is over. No view shows it (``views.view_of``); the seat sees it only as its own
decision's default. A game of 0.5.0 or before has no ``defaults`` and keeps its old defaults.
"""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import Randomness

from .state import Doc

Action = dict[str, Any]


def drawn(doc: Doc) -> bool:
    """True in games of engine 0.6.0 on: hidden decisions' defaults are drawn."""
    return "defaults" in doc


def draw(doc: Doc, owed: list[tuple[int, list[Action]]], key: str, rng: Randomness) -> None:
    """Each seat of ``owed`` (seat, legal answers) that has no default yet gets one: the
    ``key`` of an answer drawn at random among its legal answers (no draw when there is one).
    Seats are drawn for in the order given, which the rules make the same on every replay."""
    if not drawn(doc):
        return
    for seat, legal in owed:
        if doc["defaults"][seat] is None:
            pick = legal[rng.randbelow(len(legal))] if len(legal) > 1 else legal[0]
            doc["defaults"][seat] = pick[key]


def forget(doc: Doc, seat: int | None = None) -> None:
    """The seat has answered (or left), or every seat's decision is over (``seat`` None)."""
    if not drawn(doc):
        return
    if seat is None:
        doc["defaults"] = [None] * doc["seats"]
    else:
        doc["defaults"][seat] = None


def default_of(doc: Doc, seat: int, legal: list[Action], key: str, before: Action) -> Action:
    """The answer a clock applies: the drawn one, else ``before`` (the default of 0.5.0 and
    earlier games, which draw none)."""
    value = doc["defaults"][seat] if drawn(doc) else None
    if value is not None:
        for action in legal:
            if action[key] == value:
                return action
    return before
