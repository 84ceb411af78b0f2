"""Resigning (contract v2): a seat leaves the Tournament at any time.

The fighter is eliminated as if it had lost its last health token on side B, but nobody
takes a trophy: its equipment is discarded and its health tokens go back to the supply.
Every open decision it owed is closed the way a pass would close it, so the match goes on
for the others (in Coalition its team plays on) and stays finishable.
"""

from __future__ import annotations

from services.rules.games.frozen import replace
from services.rules.games.neon.attack import AlliesWindow, Attack
from services.rules.games.neon.combat import RESUME, defender_of
from services.rules.games.neon.loot import discard_loot, strip_equipment
from services.rules.games.neon.state import Draft, StackFrame
from services.rules.games.windows import ResponseWindow

LOOT_FRAMES = ("keep", "place")


def resign(w: Draft, seat: int) -> None:
    f = w.f(seat)
    supply = list(w.s.health_supply)
    for row in f.health:
        for value in row:
            supply[value - 1] += 1
    w.set(health_supply=tuple(supply))
    if w.s.rules.resign_keeps_cards_hidden:
        # engine 4: nothing of what the fighter held is shown (ruling in RULES.md)
        w.update(seat, resigned=True, eliminated=True, sector=None, shields=0,
                 health=tuple(() for _ in f.health), hand=f.hand + _chosen(w, seat))
    else:
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
    kept: list[StackFrame] = []
    for fr in w.s.stack:
        closed = _close(w, fr, seat)
        if closed is not None:
            kept.append(closed)
    w.set(stack=tuple(kept))


def _close(w: Draft, fr: StackFrame, seat: int) -> StackFrame | None:
    if fr.kind in LOOT_FRAMES and fr.owner == seat:
        discard_loot(w, tuple(fr.get("cards")))  # type: ignore[union-attr]
        return None
    if fr.kind == "upgrade" and fr.owner == seat:
        w.set(upgrade_deck=w.s.upgrade_deck + tuple(fr.get("cards")))  # type: ignore[union-attr]
        return None
    if fr.kind == "trophy" and fr.owner == seat:
        return None
    if fr.kind in ("maintain", "strip") and fr.owner == seat:
        return None
    if fr.kind == "evacuate":
        queue = tuple(i for i in fr.get("queue") if i != seat)  # type: ignore[union-attr]
        if not queue:
            return None
        return replace(fr.but(queue=queue), owner=queue[0])
    if isinstance(fr, Attack):
        return _close_attack(fr, seat)
    return fr


def _close_attack(fr: Attack, seat: int) -> Attack | None:
    if fr.attacker == seat:
        return None
    target = f"f:{seat}"
    fr = fr.but(targets=tuple(t for t in fr.targets if t != target),
                defenders_left=tuple(t for t in fr.defenders_left if t != target))
    if defender_of(fr) == seat:
        return fr.but(stage="next", defender="")
    allies = fr.allies
    if fr.stage == "help" and allies is not None and seat in allies.helpers_encoded():
        window = allies.window.skip_seats({seat})
        if not window.closed:
            return fr.but(allies=AlliesWindow(allies.moment, window))
        # Nobody left to ask: the window goes on by itself (encoded with no helpers).
        return fr.but(stage=RESUME + allies.moment,
                      allies=AlliesWindow(allies.moment, ResponseWindow(())))
    return fr
