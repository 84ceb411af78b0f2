"""Seats that never made a move of their own: the no-show rule, shared by host, self-play and
verify.

A seat *made a move* when the match log holds an ActionAccepted of that seat that the seat
itself sent (any action: an owed decision, a standing option, a resignation of its own, even
as its only action: the ruling is in services/scoring/__init__.py).
The rules service also acts for seats (``records.SERVICE_COMMANDS``): a clock's timeout
(``"timeout": true``), the forfeit after repeated timeouts (``"timeout": "forfeit"``) and a
bot's move for a seat the clock gave to a bot (``"by": "bot"``). Those are not the seat's
moves. A **no-move seat** is one the service acted for and that never moved itself:
a tournament no-show whose clock forfeited it (or whose seat a bot played), a ladder
player who never touched the match and lost on time. A seat the service never acted for
is not one, even if it never moved: it never owed a decision (the opponent resigned at
once), so nothing says it was absent.

The rules host keeps a :class:`MoveTally` per live match, noted record by record (O(1) per
action, rebuilt from the records when a match is loaded), and writes its seats into every
played MatchEnded as ``no_move_seats`` (a sorted list, ``[]`` when every seat that was
acted for also moved; see :data:`FIELD`). Self-play exports (``selfplay.export_game``)
write it the same way, from their records (:func:`no_move_seats`: none, their bots make
every move themselves). An abandoned match's MatchEnded has none: it is no result, and
nothing rates it. ``neon verify`` recomputes the field from the chain where a
MatchEnded holds it (:func:`check`); a MatchEnded written before the field holds none and
is taken as it is.

Pure code: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.rules.records import SERVICE_COMMANDS

FIELD = "no_move_seats"
"""MatchEnded's field: the seats that never made a move of their own, ascending."""

_MARKS = tuple(SERVICE_COMMANDS.values())


def by_service(record: Mapping[str, Any]) -> bool:
    """Whether an ActionAccepted is the service's own action for its seat (a timeout, a
    forfeit, a bot's move), by its marker, compared as the host writes it (``true`` is not
    ``1``, as verify's command-id check compares it)."""
    for mark, marker in _MARKS:
        value = record.get(mark)
        if type(value) is type(marker) and value == marker:
            return True
    return False


@dataclass
class MoveTally:
    """Which seats moved themselves and which the service acted for, so far."""

    moved: set[int] = field(default_factory=set)
    served: set[int] = field(default_factory=set)

    def note(self, record: Mapping[str, Any]) -> None:
        """Count one record (only ActionAccepted with an integer seat counts; replay and
        verify refuse any other seat)."""
        if record.get("type") != "ActionAccepted":
            return
        seat = record.get("seat")
        if type(seat) is not int:
            return
        (self.served if by_service(record) else self.moved).add(seat)

    def seats(self) -> list[int]:
        """The no-move seats, ascending."""
        return sorted(self.served - self.moved)

    def seats_after(self, record: Mapping[str, Any]) -> list[int]:
        """The no-move seats once ``record`` is counted too, leaving the tally as it is (the
        host writes MatchEnded with the last action, before either is stored)."""
        after = MoveTally(set(self.moved), set(self.served))
        after.note(record)
        return after.seats()


def no_move_seats(records: Iterable[Mapping[str, Any]]) -> list[int]:
    """The no-move seats of ``records`` (a match's log, or the part of it before its end)."""
    tally = MoveTally()
    for record in records:
        tally.note(record)
    return tally.seats()


def check(records: list[dict[str, Any]]) -> str | None:
    """Why a MatchEnded's ``no_move_seats`` is not what the records before it say, in words
    naming the event; None when it is, or when it holds none (written before the field)."""
    tally = MoveTally()
    for record in records:
        if record.get("type") != "MatchEnded":
            tally.note(record)
            continue
        if FIELD not in record:
            return None
        stored, found = record[FIELD], tally.seats()
        if type(stored) is not list or not all(type(s) is int for s in stored) \
                or stored != found:
            return (f"event {record.get('n')}: MatchEnded says the seats that made no move "
                    f"were {_words(stored)}, the records before it say {_words(found)} "
                    f"({FIELD})")
        return None
    return None


def _words(seats: Any) -> str:
    if isinstance(seats, list) and not seats:
        return "none"
    try:
        return json.dumps(seats)[:60]
    except (TypeError, ValueError, RecursionError):
        return type(seats).__name__
