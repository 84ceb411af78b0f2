"""Resigning (contract v2): a seat leaves the Tournament at any time.

The fighter is eliminated as if it had lost its last health token on side B, but nobody
takes a trophy: its equipment is discarded and its health tokens go back to the supply.
Every open decision it owed is closed the way a pass would close it, so the match goes on
for the others (in Coalition its team plays on) and stays finishable.
"""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon.combat import defender_of
from services.rules.games.neon.loot import discard_loot, strip_equipment
from services.rules.games.neon.state import Draft, Frame

LOOT_FRAMES = ("keep", "place")


def resign(w: Draft, seat: int) -> None:
    f = w.f(seat)
    supply = list(w.s.health_supply)
    for row in f.health:
        for value in row:
            supply[value - 1] += 1
    w.set(health_supply=tuple(supply))
    w.update(seat, resigned=True, eliminated=True, sector=None, shields=0,
             health=tuple(() for _ in f.health), hand=(), deck=(),
             discard=f.discard + f.hand + f.deck + _chosen(w, seat))
    w.set(eliminations=w.s.eliminations + ((seat, w.s.serial),))
    w.emit("resigned", {"fighter": seat})
    w.emit("eliminated", {"fighter": seat, "by": None})
    _close_frames(w, seat)
    strip_equipment(w, seat)
    if w.s.current == seat:
        w.update(seat, step=len(w.f(seat).row))


def _chosen(w: Draft, seat: int) -> tuple[str, ...]:
    f = w.f(seat)
    if f.choice is None or f.row:
        return ()
    w.update(seat, choice=None)
    return (f.choice.top, f.choice.bottom)


def _close_frames(w: Draft, seat: int) -> None:
    kept: list[Frame] = []
    for fr in w.s.stack:
        closed = _close(w, fr, seat)
        if closed is not None:
            kept.append(closed)
    w.set(stack=tuple(kept))


def _close(w: Draft, fr: Frame, seat: int) -> Frame | None:
    if fr.kind in LOOT_FRAMES and fr.owner == seat:
        discard_loot(w, tuple(fr.get("cards")))
        return None
    if fr.kind == "upgrade" and fr.owner == seat:
        w.set(upgrade_deck=w.s.upgrade_deck + tuple(fr.get("cards")))
        return None
    if fr.kind == "trophy" and fr.owner == seat:
        return None
    if fr.kind in ("maintain", "strip") and fr.owner == seat:
        return None
    if fr.kind == "evacuate":
        queue = tuple(i for i in fr.get("queue") if i != seat)
        if not queue:
            return None
        return replace(fr.but(queue=queue), owner=queue[0])
    if fr.kind == "attack":
        return _close_attack(fr, seat)
    return fr


def _close_attack(fr: Frame, seat: int) -> Frame | None:
    if fr.owner == seat:
        return None
    target = f"f:{seat}"
    fr = fr.but(targets=tuple(t for t in fr.get("targets") if t != target),
                queue=tuple(t for t in fr.get("queue") if t != target))
    if defender_of(fr) == seat:
        return fr.but(stage="next", defender="")
    helpers = fr.get("helpers")
    if fr.get("stage") == "help" and helpers and seat in helpers:
        rest = tuple(h for h in helpers if h != seat)
        if rest:
            return fr.but(helpers=rest)
        return fr.but(stage="resume_" + str(fr.get("help")), helpers=())
    return fr
