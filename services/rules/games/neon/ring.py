"""The ring of sectors: adjacency, distance and range."""

from __future__ import annotations


def neighbours(ring: tuple[int, ...], sector: int) -> tuple[int, ...]:
    """The adjacent sectors, clockwise one first; closed sectors are simply gone from the ring."""
    if len(ring) < 2 or sector not in ring:
        return ()
    i = ring.index(sector)
    cw, ccw = ring[(i + 1) % len(ring)], ring[(i - 1) % len(ring)]
    return (cw,) if cw == ccw else (cw, ccw)


def steps(ring: tuple[int, ...], a: int, b: int) -> tuple[int, int]:
    """Steps from ``a`` to ``b`` clockwise and counter-clockwise."""
    i, j = ring.index(a), ring.index(b)
    cw = (j - i) % len(ring)
    return cw, (len(ring) - cw) % len(ring)


def distance(ring: tuple[int, ...], a: int, b: int) -> int:
    """``min(steps(ring, a, b))``."""
    n = len(ring)
    cw = (ring.index(b) - ring.index(a)) % n
    ccw = (n - cw) % n
    return cw if cw < ccw else ccw


def step_toward(ring: tuple[int, ...], a: int, b: int) -> int | None:
    """The next sector from ``a`` on the shorter way to ``b``; ``None`` when both ways tie."""
    cw, ccw = steps(ring, a, b)
    if cw == ccw:
        return None
    i = ring.index(a)
    return ring[(i + 1) % len(ring)] if cw < ccw else ring[(i - 1) % len(ring)]
