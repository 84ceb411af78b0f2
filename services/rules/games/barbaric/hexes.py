"""Hex geometry of the map: axial coordinates ``(q, r)``, distances, lines and fans."""

from __future__ import annotations

from collections.abc import Iterable

from .content import SPACES, Hex

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six directions, counter-clockwise from "east"; a direction is an index 0-5."""


def add(a: Hex, b: Hex, times: int = 1) -> Hex:
    return (a[0] + b[0] * times, a[1] + b[1] * times)


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def on_map(h: Hex) -> bool:
    return h in SPACES


def neighbours(h: Hex) -> tuple[Hex, ...]:
    return tuple(n for n in (add(h, d) for d in DIRECTIONS) if on_map(n))


def within(h: Hex, rng: int) -> tuple[Hex, ...]:
    """Every space within ``rng`` of ``h`` (``h`` itself excluded), in map order."""
    return tuple(sorted(x for x in SPACES if 0 < distance(h, x) <= rng))


def line(h: Hex, direction: int, rng: int) -> tuple[Hex, ...]:
    """The straight line from ``h`` (excluded) in ``direction``, nearest first."""
    out = []
    for k in range(1, rng + 1):
        x = add(h, DIRECTIONS[direction], k)
        if not on_map(x):
            break
        out.append(x)
    return tuple(out)


def fan(h: Hex, direction: int, rng: int) -> tuple[Hex, ...]:
    """Three adjacent spaces around ``direction``, each extended directly away for every
    point of Range past the first (as three Linear lines)."""
    out: list[Hex] = []
    for d in ((direction - 1) % 6, direction, (direction + 1) % 6):
        first = add(h, DIRECTIONS[d])
        if not on_map(first):
            continue
        out.append(first)
        for k in range(1, rng):
            x = add(first, DIRECTIONS[direction], k)
            if not on_map(x):
                break
            out.append(x)
    return tuple(dict.fromkeys(out))


def reachable(start: Hex, steps: int, passable: Iterable[Hex]) -> dict[Hex, int]:
    """Spaces reachable from ``start`` in at most ``steps`` moves through ``passable``
    spaces, with the fewest moves each needs (``start`` at 0)."""
    open_ = set(passable)
    seen = {start: 0}
    frontier = [start]
    for n in range(1, steps + 1):
        nxt = []
        for h in frontier:
            for x in neighbours(h):
                if x in open_ and x not in seen:
                    seen[x] = n
                    nxt.append(x)
        frontier = sorted(nxt)
    return seen
