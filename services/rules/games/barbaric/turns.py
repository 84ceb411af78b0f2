"""The Player Phase: Preparation (Learn a Skill, Consume a Resource, and the others'
chance to do the same), the Action Phase (Rider and Gear actions), Upkeep and the end of
a turn (Whirlpools, the Time Track, the Rising Threat)."""

from __future__ import annotations

from typing import Any

from services.rules.games.windows import ResponseWindow

from . import damage, hexes, skills
from .content import (
    EVENTS,
    EXITS,
    NESTS,
    SPACES,
    SPAWNS,
    SURVIVORS,
    TUNNELS,
    WHIRLPOOL_CYCLE,
    Hex,
    skill_of,
)
from .play import Play
from .state import RESOURCES, Player, Turn

PASS: dict[str, Any] = {"type": "pass"}
END: dict[str, Any] = {"type": "end_actions"}
CONSUME = {"fuel": ("move", "draw"), "food": ("heal", "draw"), "scrap": ("shields", "draw")}


def start_turn(g: Play, seat: int) -> None:
    p = g.t.player(seat)
    if not p.in_game:
        return
    g.t.turn = Turn(seat=seat, number=g.t.turn.number + 1)
    for q in g.t.players:
        q.survivors_used = []
    g.say("turn_started", {"seat": seat, "time": g.t.time, "turn": g.t.turn.number})
    if p.recovering:
        g.now({"step": "spawn", "seat": seat}, {"step": "end_turn", "seat": seat})
        return
    g.now({"step": "prep", "seat": seat}, {"step": "act", "seat": seat},
          {"step": "upkeep", "seat": seat}, {"step": "end_turn", "seat": seat})


# -- Preparation ------------------------------------------------------------------------------
def learn_cost(p: Player, card: str) -> tuple[str, int] | None:
    skill = skill_of(card)
    if skill.cost is None:
        return None
    n = skill.cost["level2"] if skills.level(p, skill.id) else skill.cost["level1"]
    return skill.cost["resource"], int(n)


def learn_options(p: Player) -> list[dict[str, Any]]:
    out = []
    for card in sorted(set(p.hand)):
        cost = learn_cost(p, card)
        if cost and p.resources[cost[0]] >= cost[1] and skills.level(p, skill_of(card).id) < 2:
            out.append({"type": "learn", "card": card})
    return out


def consume_options(g: Play, p: Player) -> list[dict[str, Any]]:
    out = []
    for res, benefits in CONSUME.items():
        if not p.resources[res]:
            continue
        for benefit in benefits:
            if benefit == "move":
                out += [{"type": "consume", "resource": res, "benefit": "move", "to": list(h)}
                        for h in step_moves(g, p)]
            else:
                out.append({"type": "consume", "resource": res, "benefit": benefit})
    return out


def prep_options(g: Play, seat: int, kind: str | None = None) -> list[dict[str, Any]]:
    p = g.t.player(seat)
    out: list[dict[str, Any]] = [PASS]
    if kind in (None, "learn"):
        out += learn_options(p)
    if kind in (None, "consume"):
        out += consume_options(g, p)
    return out


def prep(g: Play, step: dict[str, Any], action: dict[str, Any]) -> None:
    seat = step["seat"]
    if action["type"] == "pass":
        g.say("prep_passed", {"seat": seat})
        return
    window = ResponseWindow.after(seat, turn_order(g))
    g.now({"step": "prep_follow", "kind": action["type"], "window": window.to_json()})
    prep_action(g, g.t.player(seat), action)


def prep_follow(g: Play, step: dict[str, Any], seat: int, action: dict[str, Any]) -> None:
    w = step["window"]
    window = ResponseWindow(tuple(w["order"]), w["position"], tuple(w["responses"]))
    responded = action["type"] != "pass"
    window = window.respond(seat) if responded else window.pass_(seat)
    if not window.closed:
        g.now({**step, "window": window.to_json()})
    if responded:
        prep_action(g, g.t.player(seat), action)
    else:
        g.say("prep_passed", {"seat": seat})


def window_seat(g: Play, step: dict[str, Any]) -> int | None:
    """The seat a Preparation window waits for, skipping seats that left the game."""
    w = step["window"]
    window = ResponseWindow(tuple(w["order"]), w["position"], tuple(w["responses"]))
    window = window.skip_seats(s for s in range(g.t.seats) if not g.t.player(s).in_game)
    step["window"] = window.to_json()
    return window.current


def prep_action(g: Play, p: Player, action: dict[str, Any]) -> None:
    if action["type"] == "learn":
        card = action["card"]
        res, n = learn_cost(p, card) or ("fuel", 0)
        p.resources[res] -= n
        p.hand.remove(card)
        p.learned.setdefault(skill_of(card).id, []).append(card)
        g.say("skill_learned", {"seat": p.seat, "card": card, "skill": skill_of(card).id,
                                "level": skills.level(p, skill_of(card).id), "paid": n,
                                "resource": res})
        return
    res, benefit = action["resource"], action["benefit"]
    p.resources[res] -= 1
    g.say("resource_consumed", {"seat": p.seat, "resource": res, "benefit": benefit})
    if benefit == "move":
        move_to(g, p, (action["to"][0], action["to"][1]))
    elif benefit == "draw":
        g.draw(p, 2)
    elif benefit == "heal":
        g.heal(p, 2)
    else:
        g.repair(p, 2)


def turn_order(g: Play) -> list[int]:
    """The current turn order: the current Time Track, then the markers already moved."""
    if g.t.mode == "solo":
        return [0]
    other = "night" if g.t.time == "day" else "day"
    order = g.t.tracks.get(g.t.time, []) + g.t.tracks.get(other, [])
    seen: list[int] = []
    for s in order + list(range(g.t.seats)):
        if s not in seen and g.t.player(s).in_game:
            seen.append(s)
    return seen


# -- Exchange (any time) ----------------------------------------------------------------------
def exchange_options(g: Play, p: Player) -> list[dict[str, Any]]:
    if g.t.event_face and EVENTS[g.t.event_face]["effect"].get("face_up", {}).get("no_exchange"):
        return []
    return [{"type": "exchange", "give": give, "get": get}
            for give in RESOURCES if p.resources[give] >= 2 for get in RESOURCES if get != give]


def exchange(g: Play, p: Player, action: dict[str, Any]) -> None:
    p.resources[action["give"]] -= 2
    p.resources[action["get"]] += 1
    g.say("exchanged", {"seat": p.seat, "give": action["give"], "get": action["get"]})


# -- Movement ---------------------------------------------------------------------------------
def can_be_moved(g: Play, p: Player) -> bool:
    return p.on_map and not g.broken(p)


def step_moves(g: Play, p: Player) -> list[Hex]:
    """Spaces ``p`` may move 1 space into (adjacent, unoccupied, not a nest)."""
    if not can_be_moved(g, p) or p.pos is None:
        return []
    return [h for h in hexes.neighbours(p.pos) if g.can_enter(h)]


def move_to(g: Play, p: Player, h: Hex) -> None:
    p.pos = h
    g.say("moved", {"seat": p.seat, "to": list(h)})
    skills.entered(g, p)


def move_options(g: Play, p: Player) -> list[dict[str, Any]]:
    if "vortex" in p.tokens:
        return []
    out = [{"type": "move", "to": list(h)} for h in step_moves(g, p)]
    if p.pos in TUNNELS and can_be_moved(g, p):
        out += [{"type": "move", "to": list(h)} for h in TUNNELS
                if h != p.pos and g.can_enter(h)]
    if p.core and p.pos in EXITS and can_be_moved(g, p):
        out.append({"type": "move", "exit": True})
    return out


def move_problem(g: Play, p: Player, action: dict[str, Any]) -> str:
    """Why a Move is refused, in the rulebook's words."""
    if action.get("exit"):
        return ("only a Character with the Atomic Core Token may Exit the Map" if not p.core
                else "you can only Exit from a space with an Exit icon")
    if g.broken(p):
        return "a Broken Gear cannot use the Move action"
    to = action.get("to")
    h = (to[0], to[1]) if isinstance(to, list) and len(to) == 2 else None
    if h is None or h not in SPACES:
        return "that space is not on the map"
    if g.occupied(h):
        return "that space is occupied"
    if h in NESTS:
        return "Characters cannot move into a Minion Nest Space"
    return "you can only move 1 space into an adjacent hex (or Tunnel to Tunnel)"


# -- Action Phase ----------------------------------------------------------------------------
def act_options(g: Play, seat: int) -> list[dict[str, Any]]:
    p = g.t.player(seat)
    tt = g.t.turn
    out: list[dict[str, Any]] = [END]
    timed = "time-dimension" in p.tokens and (tt.rider_used or tt.gear_used)
    if not tt.rider_used and p.ready["rider"] and not timed:
        out += [{"type": "search"}, {"type": "first_aid"}]
        out += _skill_actions(g, p, "rider")
    if not tt.gear_used and p.ready["gear"] and not timed:
        out += move_options(g, p) + [{"type": "repair"}]
        out += _skill_actions(g, p, "gear")
    return out


def _skill_actions(g: Play, p: Player, side: str) -> list[dict[str, Any]]:
    out = []
    for skill_id in sorted(p.learned):
        skill = skills.skill(skill_id)
        if skill.side != side:
            continue
        lvl = skills.level(p, skill_id)
        out += [{"type": "skill", "skill": skill_id, **t, **b}
                for t in skills.targets(g, p, skill, lvl) for b in skills.boosts(p, skill)]
    return out


def act(g: Play, step: dict[str, Any], action: dict[str, Any]) -> None:
    p = g.t.player(step["seat"])
    kind = action["type"]
    if kind == "end_actions":
        return
    g.now(step)
    side = "rider" if kind in ("search", "first_aid") else "gear"
    if kind == "skill":
        side = skills.skill(action["skill"]).side
    p.ready[side] = False
    if side == "rider":
        g.t.turn.rider_used = True
    else:
        g.t.turn.gear_used = True
    if kind == "search":
        search(g, p)
    elif kind in ("first_aid", "repair"):
        aid(g, p, "health" if kind == "first_aid" else "shields")
    elif kind == "move":
        if action.get("exit"):
            g.say("exited", {"seat": p.seat})
            g.t.over, g.t.winner = True, p.seat
            g.t.reason = "left the map with the Atomic Core"
            return
        move_to(g, p, (action["to"][0], action["to"][1]))
    else:
        skill = skills.skill(action["skill"])
        target = {k: v for k, v in action.items() if k in skills.TARGET_KEYS}
        skills.resolve(g, p, skill, skills.level(p, skill.id), target, action.get("boost", 0))
        g.experience(p, side)


def aid(g: Play, p: Player, what: str) -> None:
    """First Aid / Repair: discard cards to heal, and to the front of the other Time Track."""
    g.t.turn.aided = True
    g.say("first_aid" if what == "health" else "repair", {"seat": p.seat})
    if g.t.mode != "solo":
        other = "night" if g.t.time == "day" else "day"
        for track in g.t.tracks.values():
            if p.seat in track:
                track.remove(p.seat)
        g.t.tracks[other].insert(0, p.seat)
    g.now({"step": "aid_discard", "seat": p.seat, "what": what})


def aid_options(p: Player) -> list[dict[str, Any]]:
    return [{"type": "done"}] + [{"type": "discard", "card": c} for c in sorted(set(p.hand))]


def aid_discard(g: Play, step: dict[str, Any], action: dict[str, Any]) -> None:
    if action["type"] == "done":
        return
    p = g.t.player(step["seat"])
    p.hand.remove(action["card"])
    p.discard.append(action["card"])
    g.say("discarded", {"seat": p.seat, "card": action["card"]})
    (g.heal if step["what"] == "health" else g.repair)(p, 1)
    if p.hand:
        g.now(step)


def search(g: Play, p: Player) -> None:
    assert p.pos is not None
    g.say("searched", {"seat": p.seat, "at": list(p.pos)})
    icon = SPACES[p.pos].resource
    if icon in RESOURCES:
        g.gain(p, icon)
    elif icon in ("?", "??"):
        for _ in range(len(icon)):
            g.roll_resource(p)
    if p.pos in g.t.survivor_tokens and g.t.survivor_deck:
        g.t.agenda.insert(_after(g, ("choose_resource",)), {"step": "discover", "seat": p.seat})


def _after(g: Play, kinds: tuple[str, ...]) -> int:
    """Where a step goes so that it comes after the steps of ``kinds`` just queued."""
    i = 0
    while i < len(g.t.agenda) and g.t.agenda[i]["step"] in kinds:
        i += 1
    return i


def discover_options(p: Player, card: str | None) -> list[dict[str, Any]]:
    out = [{"type": "ignore"}, {"type": "plunder"}, {"type": "discover"}]
    if card is None:
        return [{"type": "decline"}, {"type": "discover"}]
    cost = SURVIVORS[card]["rescue"]
    if (p.subs_ready["rider"] >= cost["sub_stamina"]
            and p.subs_ready["gear"] >= cost["sub_energy"]):
        out.append({"type": "rescue"})
    return [o for o in out if o["type"] != "discover"]


def discover(g: Play, step: dict[str, Any], action: dict[str, Any]) -> None:
    p = g.t.player(step["seat"])
    kind = action["type"]
    if kind == "decline":
        return
    if kind == "discover":
        card = g.t.survivor_deck.pop(0)
        g.say("survivors_discovered", {"seat": p.seat, "card": card})
        g.now({**step, "card": card})
        return
    card = step["card"]
    g.say("survivors_" + kind, {"seat": p.seat, "card": card})
    if kind == "ignore":
        return
    if p.pos in g.t.survivor_tokens:
        g.t.survivor_tokens.remove(p.pos)
    data = SURVIVORS[card]
    if kind == "rescue":
        p.subs_ready["rider"] -= data["rescue"]["sub_stamina"]
        p.subs_ready["gear"] -= data["rescue"]["sub_energy"]
        p.survivors.append(card)
        return
    for res in data["plunder"]["resources"]:
        g.gain(p, res)
    amount = damage.shielded(g, p, data["plunder"]["damage"], {"kind": "survivors"})
    if amount:
        g.now(damage.to_character(p, amount, {"kind": "survivors"}, None))


def survivor_options(g: Play, p: Player) -> list[dict[str, Any]]:
    if not p.on_map:
        return []
    return [{"type": "survivor", "card": c} for c in p.survivors if c not in p.survivors_used]


def use_survivor(g: Play, p: Player, card: str) -> None:
    p.survivors_used.append(card)
    eff = SURVIVORS[card]["effect"]
    g.say("survivor_used", {"seat": p.seat, "card": card})
    g.heal(p, eff.get("heal", 0))
    g.repair(p, eff.get("shields", 0))
    g.draw(p, eff.get("draw", 0))
    if "gain" in eff:
        g.gain(p, eff["gain"])


# -- Upkeep and the end of the turn ------------------------------------------------------------
def upkeep(g: Play, seat: int) -> None:
    p = g.t.player(seat)
    if not p.on_map:
        return
    p.ready = {"rider": True, "gear": True}
    p.subs_ready = dict(p.subs)
    p.mastery_cooldown = []
    p.tokens = [t for t in p.tokens if t not in ("time-dimension", "haze", "vortex")]
    g.say("upkeep", {"seat": seat})
    g.draw(p, 1)


def end_turn(g: Play, seat: int) -> None:
    p = g.t.player(seat)
    if p.on_map and p.pos in WHIRLPOOL_CYCLE and not g.t.turn.whirled:
        whirl(g, p)
    if g.t.mode != "solo" and p.in_game and not g.t.turn.aided:
        other = "night" if g.t.time == "day" else "day"
        for track in g.t.tracks.values():
            if seat in track:
                track.remove(seat)
        g.t.tracks[other].append(seat)
    g.say("turn_ended", {"seat": seat})
    if g.t.tracker >= 5:
        g.t.agenda.insert(_after(g, ("allocate", "counter", "choose_resource", "chain_order",
                                     "counter_resolve")),
                          {"step": "rising_threat"})


def whirl(g: Play, p: Player) -> None:
    """Move 1 space clockwise into an unoccupied Whirlpool, else take 1 damage."""
    assert p.pos is not None
    g.t.turn.whirled = True
    i = WHIRLPOOL_CYCLE.index(p.pos)
    ring = WHIRLPOOL_CYCLE[i + 1:] + WHIRLPOOL_CYCLE[:i]
    free = [h for h in ring if g.can_enter(h)]
    if free and can_be_moved(g, p):
        g.say("whirlpool", {"seat": p.seat})
        move_to(g, p, free[0])
        return
    amount = damage.shielded(g, p, 1, {"kind": "whirlpool"})
    if amount:
        g.now(damage.to_character(p, amount, {"kind": "whirlpool"}, None))


def spawn_options(g: Play) -> list[Hex]:
    free = [h for h in SPAWNS if g.can_enter(h)]
    return free or [h for h in SPACES if g.can_enter(h)]


def spawn(g: Play, p: Player, h: Hex) -> None:
    p.pos = h
    p.recovering = False
    g.say("spawned", {"seat": p.seat, "at": list(h)})
    skills.entered(g, p)
