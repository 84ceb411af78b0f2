"""The Automa: a fighter driven by the engine, acting after every other fighter."""

from __future__ import annotations

from services.rules.games.neon.attack import new_attack
from services.rules.games.neon.content import AUTOMA
from services.rules.games.neon.ring import distance, neighbours, step_toward
from services.rules.games.neon.sectors import enter
from services.rules.games.neon.state import Draft, State


def choose_target(s: State, idx: int) -> int | None:
    """The fighter with the most health tokens at range 0-3; ties to the one who acted last."""
    me = s.fighters[idx]
    assert me.sector is not None
    late = {f: n for n, f in enumerate(s.acted_order)}
    candidates = [f for f in s.fighters
                  if f.idx != idx and f.on_arena and f.sector is not None
                  and distance(s.ring, me.sector, f.sector) <= AUTOMA["target_range"]]
    if not candidates:
        return None
    best = max(candidates, key=lambda f: (f.tokens, late.get(f.idx, -1), -f.idx))
    return best.idx


def automa_turn(w: Draft, idx: int) -> None:
    """Choose a target, move 1 sector toward it (or to the lower-numbered neighbour), attack."""
    w.set(current=idx, acted_order=w.s.acted_order + (idx,))
    w.update(idx, acted=True)
    me = w.f(idx)
    if not me.on_arena or me.sector is None:
        return
    target = choose_target(w.s, idx)
    w.emit("automa_target", {"fighter": idx, "target": target})
    here = me.sector
    if target is None or w.f(target).sector != here:
        nxt = step_toward(w.s.ring, here, w.f(target).sector) if target is not None else None  # type: ignore[arg-type]
        if nxt is None and neighbours(w.s.ring, here):
            nxt = min(neighbours(w.s.ring, here))
        if nxt is not None:
            enter(w, idx, nxt)
    if target is not None and w.f(idx).on_arena and w.f(target).on_arena:
        w.emit("attack_declared", {"fighter": idx, "weapon": "automa",
                                   "targets": [f"f:{target}"], "dice": AUTOMA["attack_dice"]})
        w.push(new_attack(idx, "automa", (f"f:{target}",), AUTOMA["attack_dice"]))
