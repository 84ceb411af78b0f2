"""Sector effects on entering, and closing sectors at the end of a round."""

from __future__ import annotations

from typing import Any

from services.rules.games.frozen import replace
from services.rules.games.neon.cards import clockwise_from_leader
from services.rules.games.neon.content import ENERGY_MAX, FIGHTERS, SECTORS
from services.rules.games.neon.defeat import take_damage
from services.rules.games.neon.fighters import (
    allies,
    can_afford,
    gain_energy,
    manoeuvre_cost,
    spend_energy,
    token_at,
)
from services.rules.games.neon.loot import search_tokens, set_search_tokens
from services.rules.games.neon.ring import neighbours
from services.rules.games.neon.state import Draft, State, frame


def enter(w: Draft, idx: int, sector: int) -> None:
    """Move a fighter into a sector and apply what happens on entering it.

    The Electric Charging Station gives 1 energy however the fighter arrived; an enemy Trap
    deals 1 damage (a trophy for Illusion) and returns to its owner.
    """
    w.update(idx, sector=sector)
    w.emit("moved", {"fighter": idx, "sector": sector})
    if SECTORS[sector].effect == "charging":
        gain_energy(w, idx, 1)
    for name, owner, where in w.s.tokens:
        if name == "trap" and where == sector and owner != idx and not allies(w.s, owner, idx):
            w.set(tokens=tuple(t for t in w.s.tokens if t[0] != "trap"))
            w.emit("trap_sprung", {"fighter": idx, "owner": owner, "sector": sector})
            take_damage(w, idx, 1, owner)
            break


def start_close(w: Draft) -> None:
    """Steps 1-3 of closing the sector on the top scoreboard token."""
    sector = w.s.scoreboard[0]
    w.set(closing_sector=sector)
    w.emit("sector_closing", {"sector": sector, "round": w.s.round})
    w.set(bots=tuple(b for b in w.s.bots if b[0] != sector))
    set_search_tokens(w, sector, 0)
    w.set(tokens=tuple(t for t in w.s.tokens if t[2] != sector))
    for n in neighbours(w.s.ring, sector):
        if search_tokens(w.s, n):
            set_search_tokens(w, n, search_tokens(w.s, n) - 1)
    queue = evacuees(w.s, (sector,))
    if queue:
        w.push(frame("evacuate", queue[0], queue=queue, sector=sector, final=False))


def final_close(w: Draft) -> None:
    """Battle Royale with two sectors left: both stay, everyone in them takes 1 damage."""
    w.emit("sector_closing", {"sector": None, "round": w.s.round, "final": True})
    for n in w.s.ring:
        if search_tokens(w.s, n):
            set_search_tokens(w, n, search_tokens(w.s, n) - 1)
    queue = evacuees(w.s, w.s.ring)
    if queue:
        w.push(frame("evacuate", queue[0], queue=queue, sector=0, final=True))


def evacuees(s: State, sectors: tuple[int, ...]) -> tuple[int, ...]:
    """Fighters in the sectors, from the leader clockwise; the Automa last."""
    inside = [f.idx for f in s.fighters if f.on_arena and f.sector in sectors]
    return tuple(sorted(inside, key=lambda i: (s.fighters[i].automa,
                                               clockwise_from_leader(s, i) if i < s.seats else 0)))


def evacuate_options(s: State, idx: int, fr: Any) -> list[dict[str, Any]]:
    f = s.fighters[idx]
    assert f.sector is not None
    if fr.get("final"):
        places: tuple[int, ...] = tuple(s.ring)
    else:
        places = neighbours(s.ring, f.sector)
    harmless = not fr.get("final") and SECTORS[f.sector].effect == "underpass"
    before = not harmless and not s.rules.manoeuvre_c_after_the_move and \
        can_afford(s, idx, manoeuvre_cost(s, idx, "C"))
    out = []
    for n in places:
        out.append({"type": "evacuate", "sector": n, "manoeuvre_c": False})
        if before or (not harmless and s.rules.manoeuvre_c_after_the_move
                      and can_cancel_in(s, idx, n)):
            out.append({"type": "evacuate", "sector": n, "manoeuvre_c": True})
    return out


def can_cancel_in(s: State, idx: int, sector: int) -> bool:
    """Engine 7: whether the fighter can use Manoeuvre C once it is in ``sector``, where the
    closing damage comes ("it moves to an adjacent sector ... and takes 1 damage"): with the
    energy the Charging Station gives on entering, at the TV Tower's price there, unless
    another fighter's Neko lies there."""
    f = s.fighters[idx]
    if f.sector is None or f.eliminated or f.fighter == "automa":
        return False
    neko = token_at(s, "neko")
    if neko is not None and neko[1] == sector and neko[0] != idx:
        return False
    energy = f.energy
    if sector != f.sector and SECTORS[sector].effect == "charging":
        energy = min(ENERGY_MAX, energy + 1)
    base = dict(FIGHTERS[f.fighter].manoeuvres)["C"]
    return energy >= base + (1 if SECTORS[sector].effect == "tv_tower" else 0)


def evacuate(w: Draft, idx: int, sector: int | None, manoeuvre_c: bool) -> None:
    """Move out (or stay, in the final two sectors) and take 1 damage unless cancelled."""
    fr = w.pop()
    queue = fr.get("queue")[1:]  # type: ignore[union-attr]
    if queue:
        w.push(replace(fr.but(queue=queue), owner=queue[0]))
    f = w.f(idx)
    here = f.sector
    assert here is not None
    harmless = not fr.get("final") and SECTORS[here].effect == "underpass"  # type: ignore[union-attr]
    if w.s.rules.manoeuvre_c_after_the_move:
        # Engine 7: move (entering effects apply), then the damage, which Manoeuvre C,
        # paid where the fighter now is, cancels; none if a Trap took its last token.
        if sector is not None and sector != here:
            enter(w, idx, sector)
        if harmless or not w.f(idx).on_arena:
            return
        if manoeuvre_c and can_afford(w.s, idx, manoeuvre_cost(w.s, idx, "C")):
            spend_energy(w, idx, manoeuvre_cost(w.s, idx, "C"))
            w.emit("ability", {"fighter": idx, "ability": "manoeuvre_c"})
            return
        take_damage(w, idx, 1, None)
        return
    if manoeuvre_c:
        spend_energy(w, idx, manoeuvre_cost(w.s, idx, "C"))
        w.emit("ability", {"fighter": idx, "ability": "manoeuvre_c"})
    if sector is not None and sector != here:
        enter(w, idx, sector)
    if not manoeuvre_c and not harmless:
        take_damage(w, idx, 1, None)


def automa_evacuate(w: Draft, idx: int) -> None:
    """The Automa "takes 1 damage and moves to the adjacent sector with the lower number"
    (ruleset 5 in that order: defeated by the damage, it does not move)."""
    fr = w.s.stack[-1]
    here = w.f(idx).sector
    assert here is not None
    if fr.get("final"):  # type: ignore[union-attr]
        evacuate(w, idx, None, False)
        return
    lower = min(neighbours(w.s.ring, here))
    if not w.s.rules.automa_damage_before_move:
        evacuate(w, idx, lower, False)  # versions 2-4: moved first
        return
    evacuate(w, idx, None, False)  # the damage first (none in the Underpass) ...
    if w.f(idx).on_arena:
        enter(w, idx, lower)  # ... then the move, if it is still in the Tournament


def finish_close(w: Draft) -> None:
    """Steps 4-5: remove the sector (unless only two remain) and place the scoreboard token."""
    sector = w.s.closing_sector
    assert sector is not None
    if len(w.s.ring) > 2:
        w.set(ring=tuple(n for n in w.s.ring if n != sector))
    board = list(w.s.round_board)
    cell = w.s.round - 1
    while len(board) <= cell:
        board.append(())
    board[cell] = board[cell] + (w.s.scoreboard[0],)
    w.set(round_board=tuple(board), scoreboard=w.s.scoreboard[1:], closing_sector=None,
          closes_left=w.s.closes_left - 1)
    w.emit("sector_closed", {"sector": sector, "ring": list(w.s.ring),
                             "next": w.s.scoreboard[0] if w.s.scoreboard else None})
