"""Ordered response windows and stacks: the shared timing helper of the game engines.

Board games keep asking "who may answer now, and in what order does it resolve?":

* **Response window** -- "every other player, in turn order, may do the same"
  (Barbaric's Preparation), a NEON defender's window after an attack roll. A window
  offers the same chance to a fixed sequence of seats, one at a time; each either
  responds or passes, and the window closes after the last seat.
* **Stack** -- answers that resolve in an order of their own: counter chains resolve
  *last in, first out* (the newest counter first), Barbaric's Ultimates *first in,
  first out*.

Both are immutable values (tuples inside frozen dataclasses), so they live inside an
engine's state, encode to JSON canonically, and hash the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")


def turn_order_after(seat: int, seats: Sequence[int]) -> tuple[int, ...]:
    """The other seats of ``seats`` in turn order, starting after ``seat``.

    ``seats`` is the turn order (e.g. ``(2, 0, 1)``); ``seat`` need not be in it.
    """
    order = tuple(seats)
    if seat not in order:
        return order
    i = order.index(seat)
    return order[i + 1:] + order[:i]


@dataclass(frozen=True)
class ResponseWindow:
    """One chance for each seat of ``order`` in turn, the first one ``order[0]``.

    ``responses`` keeps, in order, the seats that responded (not those that passed).
    """

    order: tuple[int, ...]
    position: int = 0
    responses: tuple[int, ...] = ()

    @classmethod
    def after(cls, seat: int, seats: Sequence[int]) -> ResponseWindow:
        """The window that every other seat, in turn order after ``seat``, gets."""
        return cls(turn_order_after(seat, seats))

    @property
    def closed(self) -> bool:
        return self.position >= len(self.order)

    @property
    def current(self) -> int | None:
        """The seat whose answer the window waits for, or ``None`` once closed."""
        return None if self.closed else self.order[self.position]

    def _advance(self, seat: int, responded: bool) -> ResponseWindow:
        if self.closed:
            raise ValueError("the response window is closed")
        if seat != self.current:
            raise ValueError(f"seat {seat} may not answer now; waiting for seat {self.current}")
        return replace(self, position=self.position + 1,
                       responses=self.responses + ((seat,) if responded else ()))

    def respond(self, seat: int) -> ResponseWindow:
        return self._advance(seat, True)

    def pass_(self, seat: int) -> ResponseWindow:
        return self._advance(seat, False)

    def skip_seats(self, gone: Iterable[int]) -> ResponseWindow:
        """Drop seats no longer in the game (eliminated, resigned) from what is left."""
        gone = set(gone)
        rest = tuple(s for s in self.order[self.position:] if s not in gone)
        return replace(self, order=self.order[:self.position] + rest)

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order), "position": self.position,
                "responses": list(self.responses)}


@dataclass(frozen=True)
class Stack(Generic[T]):
    """Pending effects resolved last in, first out (``"lifo"``) or first in, first out.

    ``items`` is kept in the order pushed; :meth:`next` is the one that resolves next.
    """

    discipline: Literal["lifo", "fifo"] = "lifo"
    items: tuple[T, ...] = ()

    def push(self, item: T) -> Stack[T]:
        return replace(self, items=self.items + (item,))

    @property
    def empty(self) -> bool:
        return not self.items

    def next(self) -> T:
        if not self.items:
            raise IndexError("the stack is empty")
        return self.items[-1] if self.discipline == "lifo" else self.items[0]

    def pop(self) -> tuple[T, Stack[T]]:
        """The item that resolves next, and the stack without it."""
        item = self.next()
        rest = self.items[:-1] if self.discipline == "lifo" else self.items[1:]
        return item, replace(self, items=rest)

    def resolution_order(self) -> tuple[T, ...]:
        return tuple(reversed(self.items)) if self.discipline == "lifo" else self.items

    def to_json(self, item_json: Any = lambda x: x) -> dict[str, Any]:
        return {"discipline": self.discipline, "items": [item_json(i) for i in self.items]}
