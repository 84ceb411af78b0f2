"""The Monster Phase: the Monster card (targets, roll-offs, the route the target chooses,
attacks), Minion actions, Respawning and the Frenzy Level; the Rising Threat; Monster
Reactions (side A) and Disruptions (side B, Solo)."""

from __future__ import annotations

from typing import Any

from . import damage, hexes
from .content import BOARDS, MAX_MINIONS, MONSTER_CARDS, NESTS, SPACES, Hex
from .play import Play
from .state import Player


def characters(g: Play) -> list[Player]:
    return [p for p in g.t.players if p.on_map]


def roll_off(g: Play, seats: list[int]) -> int:
    """Each tied player rolls the Monster Die; the lowest is the target (reroll ties)."""
    while len(seats) > 1:
        rolls = {s: damage.roll_monster_die(g) for s in seats}
        g.say("roll_off", {"rolls": {str(s): r for s, r in rolls.items()}})
        low = min(rolls.values())
        seats = [s for s in seats if rolls[s] == low]
    return seats[0]


def candidates(g: Play, rule: str) -> list[int]:
    chars = characters(g)
    if not chars:
        return []
    pos = g.t.monster.pos

    def pick(key: Any, best: Any) -> list[int]:
        values = {p.seat: key(p) for p in chars}
        top = best(values.values())
        return [s for s, v in values.items() if v == top]

    if rule == "core" and any(p.core for p in chars):
        return [p.seat for p in chars if p.core]
    rules = {
        "least_damage": (lambda p: p.damage, min),
        "most_damage": (lambda p: p.damage, max),
        "nearest": (lambda p: hexes.distance(pos, p.pos), min),
        "core": (lambda p: hexes.distance(pos, p.pos), min),
        "farthest": (lambda p: hexes.distance(pos, p.pos), max),
        "most_resources": (lambda p: sum(p.resources.values()), max),
        "most_cards": (lambda p: 0 if g.t.mode == "solo" else len(p.hand), max),
    }
    key, best = rules[rule]
    return pick(key, best)


def monster_passable(g: Play) -> list[Hex]:
    """The Monster moves through any space but Characters' and Minions'."""
    taken = {p.pos for p in characters(g)} | set(g.t.minions)
    return [h for h in SPACES if h not in taken]


def minion_passable(g: Play, moving: Hex) -> list[Hex]:
    taken = {p.pos for p in characters(g)} | set(g.t.minions) | {g.t.monster.pos}
    return [h for h in SPACES if h not in taken or h == moving]


def routes(start: Hex, steps: int, passable: list[Hex], goal: Hex, rng: int) -> list[Hex]:
    """Where the piece may end: any reachable space within range of its goal if there is
    one, else the reachable spaces as close to it as possible. Already within range, it
    stays put."""
    reach = hexes.reachable(start, steps, passable)
    if hexes.distance(start, goal) <= rng:
        return [start]
    in_range = [h for h in reach if hexes.distance(h, goal) <= rng]
    if in_range:
        return sorted(in_range)
    closest = min(hexes.distance(h, goal) for h in reach)
    return sorted(h for h in reach if hexes.distance(h, goal) == closest)


# -- 4.1 Monster Actions ----------------------------------------------------------------------
def monster_card(g: Play) -> None:
    m = g.t.monster
    if m.skip_actions:
        m.skip_actions = False
        g.say("monster_skips", {})
        return
    if g.t.mode == "solo" and m.tokens.count("time-dimension") >= 2:
        m.tokens = [t for t in m.tokens if t != "time-dimension"]
        p = g.t.player(0)
        if p.on_map and p.pos is not None:
            options = routes(m.pos, 1, monster_passable(g), p.pos, 0)
            moved = options[0] != m.pos
            m.pos = options[0]
            g.say("monster_moved", {"to": list(m.pos)})
            if moved:
                monster_entered(g)
        return
    if not g.t.monster_deck:
        g.t.monster_deck = list(g.rng.shuffle(g.t.monster_discard))
        g.t.monster_discard = []
    card = g.t.monster_deck.pop(0)
    g.t.monster_discard.append(card)
    g.t.monster_face = card
    data = MONSTER_CARDS[card]
    g.say("monster_card", {"card": card})
    tied = candidates(g, data["target"])
    if not tied:
        g.t.monster_target = None
        return
    target = roll_off(g, tied)
    g.t.monster_target = target
    g.say("monster_targets", {"seat": target})
    g.now({"step": "route", "seat": target, "piece": "monster", "goal": target},
          {"step": "monster_attack", "target": target, "attack": data["attack"]})


def route_options(g: Play, step: dict[str, Any]) -> list[Hex]:
    goal_p = g.t.player(step["goal"])
    if not goal_p.on_map or goal_p.pos is None:
        return []
    if step["piece"] == "monster":
        s = g.stats("monster")
        if g.t.mode == "solo" and g.t.monster.tokens.count("vortex") >= 2:
            return []
        rng = min(s["range"], 1) if g.t.mode == "solo" and "haze" in g.t.monster.tokens else s["range"]
        if g.rules.adjacent_attacks_close_in and _attacks_adjacent(g):
            rng = 1  # where it "can carry out its attack": next to its target (ruling 48)
        return routes(g.t.monster.pos, s["move"], monster_passable(g), goal_p.pos, rng)
    at = (step["piece"][0], step["piece"][1])
    if at not in g.t.minions:
        return []
    s = g.stats("minion")
    return routes(at, s["move"], minion_passable(g, at), goal_p.pos, s["range"])


def _attacks_adjacent(g: Play) -> bool:
    """Whether the face-up Monster card (the one whose route is chosen) attacks "all adjacent
    targets" (RUTHLESS TAIL, TAIL WHIP), whatever the Monster's Range."""
    face = g.t.monster_face
    return face is not None and MONSTER_CARDS[face]["attack"] == "all_adjacent"


def route(g: Play, step: dict[str, Any], to: Hex) -> None:
    if step["piece"] == "monster":
        if to != g.t.monster.pos:
            g.t.monster.pos = to
            g.say("monster_moved", {"to": list(to)})
            monster_entered(g)
        return
    at = (step["piece"][0], step["piece"][1])
    if to != at:
        g.t.minions[g.t.minions.index(at)] = to
        g.t.minions.sort()
        g.say("minion_moved", {"from": list(at), "to": list(to)})
    if g.t.agenda and g.t.agenda[0]["step"] == "minion_attack":
        g.t.agenda[0]["at"] = list(to)


def monster_attack(g: Play, step: dict[str, Any]) -> None:
    s = g.stats("monster")
    m = g.t.monster
    hazed = g.t.mode == "solo" and "haze" in m.tokens
    if g.rules.solo_monster_tokens:  # "During the Monster Phase, ... a maximum range of 1"
        hazed = hazed and in_monster_phase(g)
    rng = min(s["range"], 1) if hazed else s["range"]
    chars = characters(g)
    if step["attack"] == "all_adjacent":
        hit = [p for p in chars if hexes.distance(m.pos, p.pos) == 1]
    elif step["attack"] == "all_in_range":
        hit = [p for p in chars if hexes.distance(m.pos, p.pos) <= rng]
    else:
        hit = [p for p in chars if p.seat == step["target"]
               and hexes.distance(m.pos, p.pos) <= rng]
    credit = step.get("credit")
    g.say("monster_attacks", {"seats": [p.seat for p in hit], "damage": s["attack"]})
    steps = []
    for p in hit:
        amount = damage.shielded(g, p, s["attack"], {"kind": "monster"})
        if amount:
            steps.append(damage.to_character(p, amount, {"kind": "monster"}, credit))
    g.now(*steps)


def in_monster_phase(g: Play) -> bool:
    from .flow import SEQUENCE

    return SEQUENCE[g.t.mode][g.t.stage] in ("monster_actions", "monster")


def monster_entered(g: Play) -> None:
    """Solo (engine 0.4.0, ruling 35): the Monster, treated as a Character, springs the Tidal
    Traps on the space it moved into: their damage (on its Armor, the owner's Disruption)
    and a Vortex token; the trap is discarded."""
    m = g.t.monster
    if not (g.rules.solo_monster_tokens and g.t.mode == "solo"):
        return
    for gadget in [x for x in g.t.gadgets if x["hex"] == m.pos]:
        g.t.gadgets.remove(gadget)
        g.say("monster_trapped", {"gadget": gadget["kind"], "at": list(m.pos),
                                  "owner": gadget["owner"]})
        m.tokens.append("vortex")
        g.now(*damage.to_monster(g, gadget["damage"], gadget["owner"]))


def monster_phase_end(g: Play) -> None:
    m = g.t.monster
    if g.t.mode == "solo":
        m.tokens = [t for t in m.tokens if t not in ("vortex", "haze")]


# -- 4.2 Minion Actions -----------------------------------------------------------------------
def minion_actions(g: Play) -> None:
    g.now(*({"step": "minion", "at": list(h)} for h in sorted(g.t.minions)))


def minion_act(g: Play, at: Hex) -> None:
    if at not in g.t.minions:
        return
    chars = characters(g)
    if not chars:
        return
    near = min(hexes.distance(at, p.pos) for p in chars)
    tied = [p.seat for p in chars if hexes.distance(at, p.pos) == near]
    chooser = g.t.monster_target if g.t.monster_target is not None else tied[0]
    g.now({"step": "minion_target", "seat": chooser, "at": list(at), "options": tied})


def minion_target(g: Play, step: dict[str, Any], target: int) -> None:
    g.now({"step": "route", "seat": step["seat"], "piece": step["at"], "goal": target},
          {"step": "minion_attack", "target": target, "at": step["at"]})


def minion_attack(g: Play, step: dict[str, Any]) -> None:
    p = g.t.player(step["target"])
    s = g.stats("minion")
    at = (step["at"][0], step["at"][1])
    if not p.on_map or p.pos is None or at not in g.t.minions:
        return
    if hexes.distance(at, p.pos) > s["range"]:
        return
    g.say("minion_attacks", {"at": list(at), "seat": p.seat, "damage": s["attack"]})
    amount = damage.shielded(g, p, s["attack"], {"kind": "minion"})
    if amount:
        g.now(damage.to_character(p, amount, {"kind": "minion", "hex": list(at)}, None))


# -- 4.3 Respawning Minions & Frenzy Level; Rising Threat --------------------------------------
def nest_options(g: Play) -> list[Hex]:
    if len(g.t.minions) >= MAX_MINIONS:
        return []
    return [h for h in NESTS if not g.occupied(h)]


def place_minion(g: Play, h: Hex) -> None:
    g.t.minions.append(h)
    g.t.minions.sort()
    g.say("minion_placed", {"at": list(h)})


def respawn(g: Play, chooser: int | None) -> None:
    seat = chooser if chooser is not None else _first_in_game(g)
    if seat is not None:
        g.now({"step": "nest", "seat": seat, "left": g.t.seats})


def _first_in_game(g: Play) -> int | None:
    seats = g.t.in_game()
    return seats[0] if seats else None


def remove_rage(g: Play) -> None:
    if g.t.rage > 0:
        g.t.rage -= 1
        g.say("frenzy", {"rage": g.t.rage, "revealed": BOARDS[g.t.board]["frenzy_levels"][
            len(BOARDS[g.t.board]["frenzy_levels"]) - g.t.rage - 1]})


def rising_threat(g: Play) -> None:
    g.say("rising_threat", {"seat": g.t.last_slayer})
    g.t.tracker = 0
    respawn(g, g.t.last_slayer if g.t.last_slayer is not None
            and g.t.player(g.t.last_slayer).in_game else None)
    g.t.agenda.insert(1 if g.t.agenda and g.t.agenda[0]["step"] == "nest" else 0,
                      {"step": "frenzy"})


# -- Reactions (side A) and Disruptions (side B) ----------------------------------------------
def reaction(g: Play, roller: int) -> None:
    face = damage.roll_monster_die(g)
    effect = BOARDS["A"]["reactions"][face - 1]
    g.say("monster_reaction", {"seat": roller, "face": face, "name": effect["name"]})
    _die_effect(g, roller, effect)


def disruption(g: Play, roller: int) -> None:
    face = damage.roll_monster_die(g)
    effect = BOARDS["B"]["disruptions"][face - 1]
    g.say("monster_disruption", {"seat": roller, "face": face, "name": effect["name"]})
    _die_effect(g, roller, effect)


def _die_effect(g: Play, roller: int, effect: dict[str, Any]) -> None:
    kind = effect["effect"]
    p = g.t.player(roller)
    if kind in ("skip", "skip_remove_rage"):
        g.t.monster.skip_actions = True
    if kind in ("skip_remove_rage", "control_move_remove_rage", "remove_rage"):
        remove_rage(g)
    if kind.startswith("control_move") and p.in_game:
        g.now({"step": "control_move", "seat": roller, "attack": kind == "control_move_attack"})
    elif kind == "damage_roller" and p.on_map:
        amount = damage.shielded(g, p, effect.get("amount", 1), {"kind": "monster"})
        if amount:
            g.now(damage.to_character(p, amount, {"kind": "monster"}, None))
    elif kind == "spawn" and p.in_game:
        g.now({"step": "nest", "seat": roller, "left": 1})
    elif kind == "counter" and p.on_map and p.pos is not None:
        s = g.stats("monster")
        before = g.t.monster.pos
        g.t.monster.pos = routes(g.t.monster.pos, s["move"], monster_passable(g), p.pos,
                                 s["range"])[0]
        g.say("monster_moved", {"to": list(g.t.monster.pos)})
        g.now({"step": "monster_attack", "target": roller, "attack": "target"})
        if g.t.monster.pos != before:
            monster_entered(g)


def control_move_options(g: Play) -> list[Hex]:
    s = g.stats("monster")
    return sorted(hexes.reachable(g.t.monster.pos, s["move"], monster_passable(g)))


def control_attack_options(g: Play, roller: int) -> list[int]:
    s = g.stats("monster")
    return [p.seat for p in characters(g) if p.seat != roller
            and hexes.distance(g.t.monster.pos, p.pos) <= s["range"]]
