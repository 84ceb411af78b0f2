"""The Resolution Chain (engine 0.2.0; RULES.md ruling 28).

"When any Skill is used, each player may use an appropriate Skill in response, starting
with the active player and continuing in turn order. Skills are resolved in the reverse
order that they were used ... If multiple Skills are used in response to the same instance,
the active player decides which order they are added to the Resolution Chain."

One damage instance (a skill, an attack, a Counterattack) that leaves Counter Skills playable
opens one response window (the agenda step ``counter`` with ``seats``) after its last
allocation. Each player who may respond, in turn order from the active player, plays a
Counter (its Sub token and card are spent at once) or passes. When the window closes, the
active player orders two or more responses (``chain_order``), and the chain resolves last
in, first out (``counter_resolve`` steps); damage a response deals opens its own window,
which is resolved before the rest of the chain.

From engine 0.3.0 (``Ruleset.public_windows``, ruling 32) who is asked depends on public
information only (``damage.may_counter``), so a seat with no usable Counter in hand is asked
too and may only pass; 0.2.0 asked only the seats holding one.
"""

from __future__ import annotations

from typing import Any

from services.rules.games.windows import ResponseWindow, Stack

from . import damage, skills, turns
from .content import skill_of
from .play import Play
from .state import Player


def is_window(step: dict[str, Any]) -> bool:
    return step["step"] == "counter" and "seats" in step


def active_player(g: Play) -> int | None:
    """The active player; in the Twilight Monster Phase (no active player) the first player
    of the turn order, who decides instead."""
    seat = g.t.turn.seat
    if g.t.time != "twilight" and seat is not None and g.t.player(seat).in_game:
        return seat
    order = turns.turn_order(g)
    return order[0] if order else None


def _window(g: Play, step: dict[str, Any]) -> ResponseWindow:
    w = step.get("window")
    if w is None:
        first = active_player(g)
        order = turns.turn_order(g)
        if first in order:
            i = order.index(first)
            order = order[i:] + order[:i]
        return ResponseWindow(tuple(s for s in order if s in step["seats"]))
    return ResponseWindow(tuple(w["order"]), w["position"], tuple(w["responses"]))


def owed(g: Play, step: dict[str, Any]) -> int | None:
    """The seat the window waits for, passing over seats that can no longer respond."""
    window = _window(g, step)
    while window.current is not None and not _may_respond(g, window.current, step["attacker"]):
        window = window.pass_(window.current)
    step["window"] = window.to_json()
    return window.current


def _may_respond(g: Play, seat: int, attacker: dict[str, Any]) -> bool:
    """Engine 0.3.0 asks by public information only (ruling 32); 0.2.0 by the hand."""
    p = g.t.player(seat)
    if g.rules.public_windows:
        return damage.may_counter(g, p, attacker)
    return bool(damage.counters(g, p, attacker))


def options(g: Play, step: dict[str, Any]) -> list[dict[str, Any]]:
    seat = owed(g, step)
    if seat is None:
        return []
    p = g.t.player(seat)
    cards = damage.counters(g, p, step["attacker"])
    # Under public windows a seat with no usable Counter in hand is asked all the same and
    # may only pass (its decision looks like any other to the rest of the table).
    return [{"type": "pass"}] + [{"type": "counter", "card": c, **b} for c in cards
                                 for b in _boosts(g, p, c)]


def _boosts(g: Play, p: Player, card: str) -> list[dict[str, int]]:
    """Engine 0.6.0 (ruling 50): Theodore in Offensive Stance may add Sub Stamina to a
    Counterattack's damage, beyond the Sub token the Counter itself spends."""
    if not g.rules.stance_boosts_counters:
        return [{}]
    s = skill_of(card)
    return skills.boosts(p, s, int(s.side == "rider"))


def answer(g: Play, step: dict[str, Any], seat: int, action: dict[str, Any]) -> None:
    window = _window(g, step)
    chain = list(step["chain"])
    if action["type"] == "counter":
        window = window.respond(seat)
        p = g.t.player(seat)
        use_counter(g, p, action["card"])
        boost = int(action.get("boost", 0))
        if boost:  # Offensive Stance: spent with the card, added when it resolves
            p.subs_ready["rider"] -= boost
            g.say("stance_spent", {"seat": seat, "stance": "offensive", "sub_stamina": boost})
        chain.append({"seat": seat, "card": action["card"], **({"boost": boost} if boost else {})})
    else:
        window = window.pass_(seat)
        g.say("counter_passed", {"seat": seat})
    g.now({**step, "window": window.to_json(), "chain": chain})


def close(g: Play, step: dict[str, Any]) -> None:
    """The window is closed: order the responses (two or more), then resolve them."""
    chain = step["chain"]
    if len(chain) >= 2:
        g.now(
            {
                "step": "chain_order",
                "seat": active_player(g),
                "attacker": step["attacker"],
                "left": chain,
                "added": [],
            }
        )
    elif chain:
        _resolve_all(g, chain, step["attacker"])


def order_options(step: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "chain", "seat": r["seat"], "card": r["card"]} for r in step["left"]]


def order(g: Play, step: dict[str, Any], action: dict[str, Any]) -> None:
    """The active player adds the chosen response to the chain (the last added resolves
    first)."""
    pick = next(r for r in step["left"]
                if r["seat"] == action["seat"] and r["card"] == action["card"])
    left = [r for r in step["left"] if r != pick]
    added = [*step["added"], pick]
    g.say("chain_added", {"seat": pick["seat"], "card": pick["card"], "position": len(added)})
    if len(left) == 1:
        _resolve_all(g, [*added, left[0]], step["attacker"])
    else:
        g.now({**step, "left": left, "added": added})


def _resolve_all(g: Play, added: list[dict[str, Any]], attacker: dict[str, Any]) -> None:
    stack: Stack[dict[str, Any]] = Stack("lifo", tuple(added))
    g.now(
        *(
            {"step": "counter_resolve", "seat": r["seat"], "card": r["card"], "attacker": attacker,
             **({"boost": r["boost"]} if r.get("boost") else {})}
            for r in stack.resolution_order()
        )
    )


def use_counter(g: Play, p: Player, card: str) -> None:
    """Play a Counter Skill: spend its Sub token, put the card in the discard pile."""
    s = skill_of(card)
    p.subs_ready[s.side] -= 1
    p.hand.remove(card)
    p.discard.append(card)
    g.say("counter_used", {"seat": p.seat, "card": card, "skill": s.id})


def resolve_counter(g: Play, p: Player, card: str, attacker: dict[str, Any],
                    boost: int = 0) -> None:
    """Counterattack the Attacker, then 1 experience. A response whose user has left the map,
    or whose Attacker has, resolves with no effect."""
    s = skill_of(card)
    at = damage.attacker_hex(g, attacker)
    if not p.on_map or at is None:
        g.say("counter_fizzled", {"seat": p.seat, "card": card})
        return
    g.say("counter_resolved", {"seat": p.seat, "card": card, "skill": s.id, "at": list(at)})
    counterattack(g, p, s, attacker, at, boost)


def counterattack(g: Play, p: Player, s: Any, attacker: dict[str, Any], at: Any,
                  boost: int = 0) -> None:
    amount = skills.effect_at(s, 1).get("damage", 0) + boost
    steps: list[dict[str, Any]] = []
    if attacker["kind"] == "seat":
        victim = g.t.player(attacker["seat"])
        amount = damage.shielded(g, victim, amount, {"kind": "seat", "seat": p.seat})
        if amount:
            steps.append(
                damage.to_character(victim, amount, {"kind": "seat", "seat": p.seat}, p.seat)
            )
    elif attacker["kind"] == "monster":
        steps += damage.to_monster(g, amount, p.seat)
    else:
        damage.to_minion(g, at, amount, p.seat)
    g.experience(p, s.side)
    g.now(*steps)
