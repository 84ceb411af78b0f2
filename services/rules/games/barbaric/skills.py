"""Skill cards: Levels, targeting (single, surrounding, linear, fan, empty space, boost),
effects, Special Status Tokens and Gadgets, and the experience they give."""

from __future__ import annotations

from typing import Any

from . import damage, hexes
from .content import EVENTS, MASTERY, NESTS, SKILLS, Hex, Skill
from .play import Play
from .state import Player

GADGET_LIMIT = {"tidal-trap": 5}
ALL_TARGETS = 6
"""``max_targets`` of the skills whose text says "all targets" or "everyone" (the reference
pack's convention): from engine 0.6.0 they have no limit ("All targets within Range: ... there
is no limit on the number of targets the Skill can affect within range"; ruling 47)."""
TARGET_KEYS = ("at", "dir", "to", "from")
"""The keys of a skill action that say what it targets."""


def level(p: Player, skill_id: str) -> int:
    return len(p.learned.get(skill_id, ()))


def effect_at(skill: Skill, lvl: int) -> dict[str, Any]:
    """The Level I effect, with the Level II bonuses added at Level II."""
    out = dict(skill.effect)
    if lvl >= 2:
        for key, value in skill.level2.items():
            out[key] = out.get(key, 0) + value if isinstance(value, int) else value
    return out


def reach(p: Player, skill: Skill, lvl: int, face_up: str | None = None) -> int:
    """The skill's Range: Level II bonus, Haze (at most 1), a face-up Event's limit."""
    rng = skill.range + (skill.level2.get("range", 0) if lvl >= 2 else 0)
    limit = EVENTS[face_up]["effect"].get("face_up", {}).get("max_range") if face_up else None
    if limit is not None:
        rng = min(rng, limit)
    return min(rng, 1) if "haze" in p.tokens else rng


def pieces(g: Play, exclude: int | None = None) -> dict[Hex, dict[str, Any]]:
    """Every targetable piece on the map by space: Characters, the Monster, Minions."""
    out: dict[Hex, dict[str, Any]] = {g.t.monster.pos: {"kind": "monster"}}
    for h in g.t.minions:
        out[h] = {"kind": "minion"}
    for p in g.t.players:
        if p.on_map and p.seat != exclude and p.pos is not None:
            out[p.pos] = {"kind": "seat", "seat": p.seat}
    return out


def targets(g: Play, p: Player, skill: Skill, lvl: int) -> list[dict[str, Any]]:
    """The target choices of a skill now (an empty list: it cannot be used)."""
    if p.pos is None:
        return []
    rng = reach(p, skill, lvl, g.t.event_face)
    shape = skill.shape
    if shape == "single":
        found = pieces(g, p.seat)
        aims = [h for h in sorted(found) if 0 < hexes.distance(p.pos, h) <= rng]
        if skill.condition == "target_half_shields":
            aims = [h for h in aims if found[h]["kind"] == "seat"
                    and half_shields(g, g.t.player(found[h]["seat"]))]
        if skill.effect.get("move_adjacent"):
            if g.broken(p):
                return []
            return [{"at": list(h), "to": list(n)} for h in aims
                    for n in hexes.neighbours(h) if g.can_enter(n)]
        return [{"at": list(h)} for h in aims]
    if shape in ("linear", "fan"):
        return [{"dir": d} for d in range(6) if _area(p.pos, shape, d, rng)]
    if shape == "empty":
        gadget = skill.effect.get("gadget")
        taken = {g_["hex"] for g_ in g.t.gadgets if g_["kind"] == gadget}
        spaces = [h for h in hexes.within(p.pos, rng)
                  if not g.occupied(h) and (g.rules.nest_targets or h not in NESTS)
                  and h not in taken]
        mine = own_gadgets(g, p, str(gadget))
        if g.rules.gadget_choice and len(mine) >= GADGET_LIMIT[str(gadget)]:
            return [{"at": list(h), "from": list(x["hex"])} for x in mine for h in spaces]
        return [{"at": list(h)} for h in spaces]
    return [{}]


def half_shields(g: Play, p: Player) -> bool:
    """OIL HUNT's usage condition: half or less of the target's total Shields remain."""
    total = g.max_of(p, "gear")
    return 2 * (total - p.shield_damage) <= total


def _area(origin: Hex, shape: str, direction: int, rng: int) -> tuple[Hex, ...]:
    return (hexes.line(origin, direction, rng) if shape == "linear"
            else hexes.fan(origin, direction, rng))


def hit(g: Play, p: Player, skill: Skill, lvl: int, target: dict[str, Any]) -> list[Hex]:
    """The spaces whose pieces the skill affects."""
    assert p.pos is not None
    rng = reach(p, skill, lvl, g.t.event_face)
    found = pieces(g, p.seat)
    if skill.shape == "single":
        return [(target["at"][0], target["at"][1])]
    limit = None if g.rules.all_targets and skill.max_targets >= ALL_TARGETS else skill.max_targets
    if skill.shape == "surrounding":
        return [h for h in hexes.within(p.pos, rng) if h in found][:limit]
    if skill.shape in ("linear", "fan"):
        return [h for h in _area(p.pos, skill.shape, target["dir"], rng)
                if h in found][:limit]
    return []


def boosts(p: Player, skill: Skill, spent: int = 0) -> list[dict[str, int]]:
    """Theodore in Offensive Stance may spend any amount of Sub Stamina to increase the
    damage a skill deals by the same amount (``{}``: spend none)."""
    if p.rider != "theodore" or p.stance != "offensive" or not skill.effect.get("damage"):
        return [{}]
    return [{}] + [{"boost": k} for k in range(1, p.subs_ready["rider"] - spent + 1)]


def resolve(g: Play, p: Player, skill: Skill, lvl: int, target: dict[str, Any],
            boost: int = 0) -> None:
    """Resolve a skill's effect, then queue the damage it deals and any Monster Reaction."""
    eff = effect_at(skill, lvl)
    if boost:
        p.subs_ready["rider"] -= boost
        eff["damage"] = eff.get("damage", 0) + boost
        g.say("stance_spent", {"seat": p.seat, "stance": "offensive", "sub_stamina": boost})
    g.say("skill_used", {"seat": p.seat, "skill": skill.id, "level": lvl, "target": target})
    steps: list[dict[str, Any]] = []
    monster_hit = 0
    for h in hit(g, p, skill, lvl, target):
        piece = pieces(g, p.seat).get(h)
        if piece is None:
            continue
        if piece["kind"] == "seat":
            victim = g.t.player(piece["seat"])
            _on_character(g, p, victim, eff, steps)
        elif piece["kind"] == "monster":
            monster_hit += eff.get("damage", 0)
            if g.t.mode == "solo" and "token" in eff:
                g.t.monster.tokens.append(eff["token"])
        else:
            damage.to_minion(g, h, eff.get("damage", 0), p.seat)
    if skill.shape == "empty":
        moved = target.get("from")
        place_gadget(g, p, eff, (target["at"][0], target["at"][1]),
                     None if moved is None else (moved[0], moved[1]))
    if eff.get("move_adjacent") and "to" in target:
        p.pos = (target["to"][0], target["to"][1])
        g.say("moved", {"seat": p.seat, "to": list(p.pos)})
        entered(g, p)
    _on_self(g, p, skill, eff)
    steps += damage.to_monster(g, monster_hit, p.seat)
    g.now(*steps)


def _on_character(g: Play, user: Player, victim: Player, eff: dict[str, Any],
                  steps: list[dict[str, Any]]) -> None:
    dived = "dive" in victim.tokens
    amount = damage.shielded(g, victim, eff.get("damage", 0),
                             {"kind": "seat", "seat": user.seat})
    if amount:
        steps.append(damage.to_character(victim, amount, {"kind": "seat", "seat": user.seat},
                                         user.seat))
    avoided = g.rules.dive_avoids_debuff and dived and "dive" not in victim.tokens
    if "token" in eff and eff["token"] not in victim.tokens and not avoided:
        victim.tokens.append(eff["token"])
        g.say("token", {"seat": victim.seat, "token": eff["token"]})
    for _ in range(eff.get("discard_random", 0)):
        if victim.hand:
            card = victim.hand.pop(g.rng.randbelow(len(victim.hand)))
            victim.discard.append(card)
            g.say("discarded", {"seat": victim.seat, "card": card})


def _on_self(g: Play, p: Player, skill: Skill, eff: dict[str, Any]) -> None:
    g.heal(p, eff.get("heal", 0))
    g.repair(p, eff.get("shields", 0))
    g.draw(p, eff.get("draw", 0))
    if "gain" in eff:
        g.gain(p, eff["gain"])
    if "stance" in eff:
        p.stance = eff["stance"]
        g.say("stance", {"seat": p.seat, "stance": p.stance})
    if skill.shape in ("self", "boost") and "token" in eff and eff["token"] not in p.tokens:
        p.tokens.append(eff["token"])
        g.say("token", {"seat": p.seat, "token": eff["token"]})


def own_gadgets(g: Play, p: Player, kind: str) -> list[dict[str, Any]]:
    """``p``'s Gadget tokens of that name on the map, in map order."""
    return sorted((x for x in g.t.gadgets if x["kind"] == kind and x["owner"] == p.seat),
                  key=lambda x: x["hex"])


def place_gadget(g: Play, p: Player, eff: dict[str, Any], at: Hex,
                 moved: Hex | None = None) -> None:
    """Place a Gadget token; with none left (the limit), move one of the player's own of
    that name to the space instead (engine 0.1.0: the oldest of that name moves)."""
    kind = eff["gadget"]
    if g.rules.gadget_choice:
        if moved is not None:
            gadget = next(x for x in own_gadgets(g, p, kind) if x["hex"] == moved)
            gadget["hex"] = at
            g.say("gadget_moved", {"seat": p.seat, "gadget": kind, "from": list(moved),
                                   "to": list(at)})
            return
    else:
        mine = [x for x in g.t.gadgets if x["kind"] == kind]
        if len(mine) >= GADGET_LIMIT[kind]:
            g.t.gadgets.remove(mine[0])
    g.t.gadgets.append({"kind": kind, "hex": at, "owner": p.seat,
                        "damage": eff.get("trap_damage", 0)})
    g.say("gadget_placed", {"seat": p.seat, "gadget": kind, "at": list(at)})


def entered(g: Play, p: Player) -> None:
    """A Character moved into a space: Gadgets there trigger, the Atomic Core is taken."""
    if p.pos is None:
        return
    for gadget in [x for x in g.t.gadgets if x["hex"] == p.pos]:
        if gadget["owner"] == p.seat:
            continue
        g.t.gadgets.remove(gadget)
        g.say("gadget_triggered", {"seat": p.seat, "gadget": gadget["kind"]})
        dived = "dive" in p.tokens
        if "vortex" not in p.tokens and not g.rules.dive_avoids_debuff:
            p.tokens.append("vortex")
        amount = damage.shielded(g, p, gadget["damage"], {"kind": "trap"})
        avoided = dived and "dive" not in p.tokens  # Dive: no damage, no Debuff (ruling 33)
        if "vortex" not in p.tokens and g.rules.dive_avoids_debuff and not avoided:
            p.tokens.append("vortex")
        if amount:
            g.now(damage.to_character(p, amount, {"kind": "trap", "seat": gadget["owner"]},
                                      gadget["owner"]))
    if g.t.core_at == p.pos:
        g.t.core_at = None
        p.core = True
        g.say("core_taken", {"seat": p.seat})


def mastery_usable(g: Play, p: Player) -> list[str]:
    """Mastery Skills ``p`` may use now: unlocked before this turn, off cooldown, a Sub ready."""
    return [m for m, gained in sorted(p.mastery.items())
            if gained < g.t.turn.number and m not in p.mastery_cooldown
            and p.subs_ready[MASTERY[m]["side"]] > 0 and p.on_map]


def use_mastery(g: Play, p: Player, mastery: str) -> None:
    side = MASTERY[mastery]["side"]
    p.subs_ready[side] -= 1
    p.mastery_cooldown.append(mastery)
    g.say("mastery_used", {"seat": p.seat, "mastery": mastery})
    eff = MASTERY[mastery]["effect"]
    g.heal(p, eff.get("heal", 0))
    g.repair(p, eff.get("shields", 0))
    g.draw(p, eff.get("draw", 0))
    if "gain" in eff:
        g.gain(p, eff["gain"])


def skill(skill_id: str) -> Skill:
    return SKILLS[skill_id]
