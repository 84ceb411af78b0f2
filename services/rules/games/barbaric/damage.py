"""Damage: allocation between Health and Shields, broken Gear, defeat and Recovery Status,
damaging the Monster (Reactions, or Armor and Disruptions in Solo) and Minions."""

from __future__ import annotations

from typing import Any

from .content import BOARDS, MONSTER_DIE, Hex, skill_of
from .play import BROKEN, Play
from .state import Player


def to_character(p: Player, amount: int, source: dict[str, Any], credit: int | None,
                 designated: str | None = None) -> dict[str, Any]:
    """The step that deals ``amount`` damage to ``p``: its player allocates it."""
    return {"step": "allocate", "seat": p.seat, "amount": amount, "source": source,
            "credit": credit, "designated": designated}


def stance_spends(g: Play, step: dict[str, Any]) -> range:
    """Theodore in Defensive Stance may spend any amount of Sub Stamina to reduce damage."""
    p = g.t.player(step["seat"])
    if p.rider == "theodore" and p.stance == "defensive":
        return range(min(p.subs_ready["rider"], step["amount"]) + 1)
    return range(1)


def allocation_actions(g: Play, step: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for spend in stance_spends(g, step):
        for h, s in allocations(g, {**step, "amount": step["amount"] - spend}):
            out.append({"type": "allocate", "health": h, "shields": s,
                        **({"spend": spend} if spend else {})})
    return out


def allocations(g: Play, step: dict[str, Any]) -> list[tuple[int, int]]:
    """Every legal ``(health, shields)`` split of the step's damage.

    The amount a track can take is what is left below its maximum; damage beyond both is
    lost (both trackers are then full: the Rider is defeated)."""
    p = g.t.player(step["seat"])
    room_h = max(0, g.max_of(p, "rider") - p.health_damage)
    room_s = max(0, g.max_of(p, "gear") - p.shield_damage)
    amount = step["amount"]
    if step.get("designated") == "health":
        return [(min(amount, room_h), 0)]
    if step.get("designated") == "shields":
        return [(0, min(amount, room_s))]
    if amount >= room_h + room_s:
        return [(room_h, room_s)]
    return [(h, amount - h) for h in range(max(0, amount - room_s), min(amount, room_h) + 1)]


def shielded(g: Play, p: Player, amount: int, source: dict[str, Any]) -> int:
    """Damage left after the target's Buffs (Dive avoids it completely)."""
    if "dive" in p.tokens and amount > 0:
        p.tokens.remove("dive")
        if g.t.mode == "solo" and source.get("kind") == "monster":
            g.say("dive", {"seat": p.seat, "halved": True})
            return amount // 2
        g.say("dive", {"seat": p.seat, "halved": False})
        return 0
    return amount


def allocate(g: Play, step: dict[str, Any], health: int, shields: int, spend: int = 0) -> None:
    p = g.t.player(step["seat"])
    if not p.on_map:
        return
    if spend:
        p.subs_ready["rider"] -= spend
        g.say("stance_spent", {"seat": p.seat, "stance": "defensive", "sub_stamina": spend})
    p.health_damage = min(6, p.health_damage + health)
    p.shield_damage = min(6, p.shield_damage + shields)
    g.say("damaged", {"seat": p.seat, "health": health, "shields": shields,
                      "source": step["source"]})
    if p.health_damage >= g.max_of(p, "rider"):
        defeat(g, p, step.get("credit"))
        return
    if shields and g.broken(p):
        g.say("gear_broken", {"seat": p.seat})
        if g.rules.broken_until_repaired and BROKEN not in p.tokens:
            p.tokens.append(BROKEN)
    if g.rules.no_damage_no_counter and health + shields == 0:
        return  # reduced to nothing: no damage was dealt, no "After you take damage" (ruling 49)
    attacker = step["source"]
    if attacker.get("kind") not in ("seat", "monster", "minion"):
        return
    if g.rules.public_windows:
        if may_counter(g, p, attacker):
            join_responses(g, p.seat, attacker)
    elif counters(g, p, attacker):
        if g.rules.response_chain:
            join_responses(g, p.seat, attacker)
        else:
            g.now({"step": "counter", "seat": p.seat, "attacker": attacker})


def join_responses(g: Play, seat: int, attacker: dict[str, Any]) -> None:
    """Offer ``seat`` a response to this damage instance: the one response window that
    follows the instance's last allocation (made here if the instance has none yet)."""
    agenda = g.t.agenda
    i = 0
    while i < len(agenda) and agenda[i]["step"] == "allocate" and agenda[i]["source"] == attacker:
        i += 1
    nxt = agenda[i] if i < len(agenda) else None
    if (nxt is not None and nxt["step"] == "counter" and nxt.get("attacker") == attacker
            and nxt.get("window") is None):
        nxt["seats"].append(seat)
        return
    agenda.insert(i, {"step": "counter", "attacker": attacker, "seats": [seat],
                      "window": None, "chain": []})


def attacker_hex(g: Play, attacker: dict[str, Any]) -> Hex | None:
    kind = attacker.get("kind")
    if kind == "monster":
        return g.t.monster.pos
    if kind == "minion":
        h = (attacker["hex"][0], attacker["hex"][1])
        return h if h in g.t.minions else None
    if kind == "seat":
        a = g.t.player(attacker["seat"])
        return a.pos if a.on_map else None
    return None


def counters(g: Play, p: Player, attacker: dict[str, Any]) -> list[str]:
    """Counter Skill cards ``p`` may play now against ``attacker`` ("After X takes damage")."""
    from . import hexes, skills

    at = attacker_hex(g, attacker)
    if at is None or p.pos is None:
        return []
    out = []
    for card in sorted(set(p.hand)):
        skill = skill_of(card)
        reach = skills.reach(p, skill, 1, g.t.event_face)
        if (skill.kind == "counter" and skill.condition == "after_you_take_damage"
                and p.subs_ready[skill.side] > 0 and hexes.distance(p.pos, at) <= reach):
            out.append(card)
    return out


def may_counter(g: Play, p: Player, attacker: dict[str, Any]) -> bool:
    """Whether ``p`` could play a Counter against ``attacker`` now, judging only by what every
    seat sees (engine 0.3.0, ruling 32): ``p`` and the Attacker are on the map, ``p`` holds a
    card, and a Counter Skill of ``p``'s own Rider or Gear board (the only cards a hand can
    hold) has a Sub token of its side ready and a Range reaching the Attacker. The hand's
    cards play no part; a seat that holds a usable Counter always passes this test."""
    from . import hexes, skills
    from .content import GEARS, RIDERS, card_ids

    at = attacker_hex(g, attacker)
    if at is None or not p.on_map or p.pos is None or not p.hand:
        return False
    boards = ([RIDERS[p.rider]] if p.rider else []) + ([GEARS[p.gear]] if p.gear else [])
    for board in boards:
        for card in sorted(set(card_ids(board))):
            skill = skill_of(card)
            if (skill.kind == "counter" and skill.condition == "after_you_take_damage"
                    and p.subs_ready[skill.side] > 0
                    and hexes.distance(p.pos, at) <= skills.reach(p, skill, 1, g.t.event_face)):
                return True
    return False


def defeat(g: Play, p: Player, credit: int | None) -> None:
    """Defeated: drop the Atomic Core, a Victory Token to the player credited, then Recovery
    Status in its steps (or elimination if the Character already has a Death Token)."""
    g.say("defeated", {"seat": p.seat, "credit": credit})
    if p.core:
        p.core = False
        g.t.core_at = p.pos
        g.say("core_dropped", {"seat": p.seat, "at": list(p.pos or ())})
    if credit is not None and credit != p.seat and g.t.player(credit).in_game:
        g.t.player(credit).victory += 1
        g.say("victory_token", {"seat": credit, "victory": g.t.player(credit).victory})
    if g.t.mode == "solo":
        g.t.over, g.t.winner, g.t.reason = True, None, "the Character was defeated"
        return
    p.pos = None
    if p.death >= 1:
        p.eliminated = True
        g.say("eliminated", {"seat": p.seat})
        _leave_tracks(g, p.seat)
        return
    p.health_damage = p.shield_damage = 0
    p.ready = {"rider": True, "gear": True}
    p.subs_ready = dict(p.subs)
    p.mastery_cooldown = []
    p.tokens = []
    p.stance = None
    p.deck = list(g.rng.shuffle(p.deck + p.discard))
    p.discard = []
    p.death += 1
    p.recovering = True
    g.say("recovery", {"seat": p.seat, "death": p.death})


def _leave_tracks(g: Play, seat: int) -> None:
    for track in g.t.tracks.values():
        if seat in track:
            track.remove(seat)


def to_monster(g: Play, amount: int, credit: int | None) -> list[dict[str, Any]]:
    """Damage to the Monster: the steps it causes after the effect (Reaction or Disruption)."""
    if amount <= 0:
        return []
    g.say("monster_damaged", {"amount": amount, "credit": credit})
    if credit is None:
        return []
    if g.t.board == "B":
        g.t.monster.armor_damage += amount
        armor = BOARDS["B"]["monster"]["armor_per_player"] * g.t.seats
        if g.t.monster.armor_damage >= armor:
            g.t.monster.armor_damage = 0
            return [{"step": "disruption", "seat": credit}]
        return []
    return [{"step": "reaction", "seat": credit}]


def to_minion(g: Play, h: Hex, amount: int, credit: int | None) -> None:
    if h not in g.t.minions or amount < g.stats("minion")["health"]:
        return
    g.t.minions.remove(h)
    g.t.tracker = min(BOARDS[g.t.board]["minion_tracker"], g.t.tracker + 1)
    g.say("minion_defeated", {"at": list(h), "credit": credit, "tracker": g.t.tracker})
    if credit is not None:
        g.t.last_slayer = credit
        g.roll_resource(g.t.player(credit))


def roll_monster_die(g: Play) -> int:
    return int(g.rng.roll(MONSTER_DIE)[0])
