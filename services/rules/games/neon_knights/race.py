"""Race Day: starting speeds, racing rounds, danger lines, crashes, weapons, slams."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness

from .content import DIE_FACES, PARTS, UPGRADES
from .state import (
    MAX_SPEED,
    MIN_SPEED,
    REPAIR_COST,
    Doc,
    accel_limit,
    audited,
    decel_limit,
    fresh_stats,
    gain_fans,
    implant_total,
    lose_fan,
    max_ap,
    raise_reputation,
    zone_power,
)
from .track import ACTIVATES, cell_at, finish_row, grid_spot, line_at, rows_of, step_legal

Action = dict[str, Any]
GO: Action = {"type": "go"}
ACCEPT: Action = {"type": "accept"}
SPEEDS = tuple(range(MIN_SPEED, MAX_SPEED + 1))


# -- starting speeds ---------------------------------------------------------------------------
def speed_seats(doc: Doc) -> list[int]:
    """Who chooses a starting speed now: in grid order, or everybody at once when hidden."""
    waiting = [s for s in doc["grid"] if doc["speeds"][s] is None and not doc["players"][s]["out"]]
    if doc["hidden_speeds"]:
        return waiting
    return waiting[:1]


def speed_legal() -> list[Action]:
    return [{"type": "start_speed", "speed": s} for s in SPEEDS]


def choose_speed(doc: Doc, seat: int, speed: int, events: list[EngineEvent]) -> None:
    doc["speeds"][seat] = speed
    if doc["hidden_speeds"]:
        events.append(EngineEvent("start_speed_chosen", {"seat": seat, "speed": speed}, frozenset({seat})))
        events.append(EngineEvent("start_speed_locked", {"seat": seat}))
    else:
        events.append(EngineEvent("start_speed", {"seat": seat, "speed": speed}))


def speeds_advance(doc: Doc, events: list[EngineEvent]) -> bool:
    if speed_seats(doc):
        return False
    if doc["hidden_speeds"]:
        events.append(EngineEvent("start_speeds_revealed", {"speeds": doc["speeds"]}))
    rows = rows_of(doc["track"])
    for spot, seat in enumerate(doc["grid"], start=1):
        p = doc["players"][seat]
        p["row"], p["lane"] = grid_spot(spot)
        p["speed"] = doc["speeds"][seat] if doc["speeds"][seat] is not None else MIN_SPEED
        p["stats"] = fresh_stats()
        p["stats"]["top_speed"] = p["speed"]
    doc["speeds"] = None
    doc["phase"] = "race"
    order = [s for s in doc["grid"] if not doc["players"][s]["out"]]
    doc["racing"] = {"round": 1, "order": order, "index": 0, "step": "start", "moves": 0,
                     "roll": None, "hits": [], "finished": [], "length": len(rows),
                     "slam_rolls": None}
    events.append(EngineEvent("race_started", {"race": doc["race"], "order": order}))
    return True


# -- racing rounds -----------------------------------------------------------------------------
def current(doc: Doc) -> int:
    r = doc["racing"]
    return int(r["order"][r["index"]])


def _rows(doc: Doc) -> list[dict[str, Any]]:
    return rows_of(doc["track"])


def _on_track(doc: Doc, seat: int) -> bool:
    p = doc["players"][seat]
    return not p["out"] and seat not in doc["racing"]["finished"]


def race_advance(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> bool:
    """Run everything automatic; False when a decision is owed."""
    r = doc["racing"]
    if r["hits"]:
        hit = r["hits"][0]
        if _shield_for(doc, hit) is None:
            resolve_hit(doc, False, events)
            return True
        return False
    if r["index"] >= len(r["order"]):
        if r["slam_rolls"] is None:
            roll_slams(doc, rng, events)
        elif r["slam_rolls"] and slam_ability_options(doc, r["slam_rolls"][0]):
            return False
        elif r["slam_rolls"]:
            apply_slam(doc, r["slam_rolls"].pop(0), events)
        else:
            end_round(doc, events)
        return True
    seat = current(doc)
    if not _on_track(doc, seat):
        _next_turn(doc)
        return True
    p = doc["players"][seat]
    step = r["step"]
    if step == "start":
        r["step"] = "adjust" if r["round"] > 1 else "move"
        r["moves"] = p["speed"] if r["round"] == 1 else 0
        return True
    if step == "repair" and not repair_options(doc, seat):
        r["step"] = "before"
        return True
    if step in ("before", "after") and not fire_options(doc, seat):
        if step == "before":
            r["step"], r["moves"] = "move", p["speed"]
        else:
            _next_turn(doc)
        return True
    if step == "move" and r["moves"] <= 0:
        r["step"] = "land"
        return True
    if step == "land":
        if not pit_options(doc, seat):
            land(doc, seat, events)
            r["step"] = "after" if r["round"] > 1 else "done"
            return True
        return False
    if step == "done":
        _next_turn(doc)
        return True
    return False


def _next_turn(doc: Doc) -> None:
    r = doc["racing"]
    r["index"] += 1
    r["step"], r["moves"], r["roll"] = "start", 0, None
    r.pop("fresh", None)


RACE_STEP_KINDS = {"adjust": "adjust_speed", "repair": "free_repair", "before": "fire_before",
                   "after": "fire_after", "move": "move", "roll": "damage_roll"}
"""The decision kind of each step of a driver's turn (any other step: ``pit_repair``)."""


def race_owner(doc: Doc) -> tuple[int, str]:
    """``race_legal``'s seat and kind, without the legal answers."""
    r = doc["racing"]
    if r["hits"]:
        return r["hits"][0]["target"], "shield"
    if r["index"] >= len(r["order"]):
        return r["slam_rolls"][0]["seat"], "slam_roll"
    return current(doc), RACE_STEP_KINDS.get(r["step"], "pit_repair")


def race_legal(doc: Doc) -> tuple[int, str, list[Action], Action]:
    """The owed decision: (seat, kind, legal, default)."""
    r = doc["racing"]
    if r["hits"]:
        hit = r["hits"][0]
        return hit["target"], "shield", [{"type": "shield", "use": False}, {"type": "shield", "use": True}], \
            {"type": "shield", "use": False}
    if r["index"] >= len(r["order"]):
        entry = r["slam_rolls"][0]
        return entry["seat"], "slam_roll", [ACCEPT, *slam_ability_options(doc, entry)], ACCEPT
    seat = current(doc)
    step = r["step"]
    if step == "adjust":
        legal = adjust_options(doc, seat)
        return seat, "adjust_speed", legal, {"type": "speed", "to": doc["players"][seat]["speed"]}
    if step == "repair":
        legal = [{"type": "free_repair", "points": n} for n in range(repair_options(doc, seat) + 1)]
        return seat, "free_repair", legal, legal[0]
    if step in ("before", "after"):
        return seat, f"fire_{step}", [GO, *fire_options(doc, seat)], GO
    if step == "move":
        p = doc["players"][seat]
        rows = _rows(doc)
        legal = [{"type": "step", "dir": d} for d in (0, -1, 1) if step_legal(rows, p["row"], p["lane"], d) is None]
        if fire_during_movement(doc):
            legal += fire_options(doc, seat)
        return seat, "move", legal, legal[0]
    if step == "roll":
        return seat, "damage_roll", roll_options(doc, seat), ACCEPT
    legal = [{"type": "pit_repair", "points": n} for n in range(pit_options(doc, seat) + 1)]
    return seat, "pit_repair", legal, legal[0]


# -- speed -------------------------------------------------------------------------------------
def _ability_parts(p: Doc, ability: str) -> list[str]:
    return sorted({v for v in p["car"].values() if v and PARTS[v]["ability"] == ability})


def adjust_options(doc: Doc, seat: int) -> list[Action]:
    """Accelerate up to 1 + yellow and green bonuses, decelerate up to 1 + red and orange,
    or cruise; a +2 part (discarded or returned to hand) stretches either by 2."""
    p = doc["players"][seat]
    speed = p["speed"]
    low, high = max(MIN_SPEED, speed - decel_limit(p)), min(MAX_SPEED, speed + accel_limit(p))
    legal: list[Action] = [{"type": "speed", "to": s} for s in range(low, high + 1)]
    for part in _ability_parts(p, "plus2"):
        extra = [s for s in range(max(MIN_SPEED, low - 2), min(MAX_SPEED, high + 2) + 1) if not low <= s <= high]
        for to in ("discard", "hand"):
            legal += [{"type": "speed", "to": s, "part": part, "part_to": to} for s in extra]
    return legal


def _use_part(doc: Doc, p: Doc, part: str, to: str) -> None:
    p["car"][PARTS[part]["colour"]] = None
    if to == "hand":
        p["hand"].append(part)
    elif not part.startswith("starter-"):
        doc["discards"]["parts"].append(part)


def set_speed(p: Doc, speed: int) -> None:
    p["speed"] = max(MIN_SPEED, min(MAX_SPEED, speed))
    p["stats"]["top_speed"] = max(p["stats"]["top_speed"], p["speed"])


def repair_options(doc: Doc, seat: int) -> int:
    """Free repair at speed 2 or 3 before moving: up to 2 AP (plus Mechanic implants)."""
    p = doc["players"][seat]
    if p["speed"] > 3:
        return 0
    return max(0, min(2 + implant_total(p, "free_repair"), max_ap(p) - p["ap"]))


def pit_options(doc: Doc, seat: int) -> int:
    p = doc["players"][seat]
    if cell_at(_rows(doc), p["row"], p["lane"]) != "R" or _space_blocked(doc, seat):
        return 0
    return max(0, min(max_ap(p) - p["ap"], p["chips"] // REPAIR_COST))


def _space_blocked(doc: Doc, seat: int) -> bool:
    """A car already stopped on an activation space makes it inactive for the others."""
    p = doc["players"][seat]
    return any(q["seat"] != seat and _on_track(doc, q["seat"]) and (q["row"], q["lane"]) == (p["row"], p["lane"])
               for q in doc["players"])


def land(doc: Doc, seat: int, events: list[EngineEvent]) -> None:
    p = doc["players"][seat]
    item = ACTIVATES.get(cell_at(_rows(doc), p["row"], p["lane"]))
    if item is None or _space_blocked(doc, seat):
        return
    cards = p["specials"] if item == "special" else [p[item]] if p[item] else []
    flipped = [c["id"] for c in cards if not c["up"]]
    for c in cards:
        c["up"] = True
    if flipped:
        events.append(EngineEvent("reactivated", {"seat": seat, "upgrades": flipped}))
        if audited(doc):  # "ready to be used again at the next turn": not in this one's end
            doc["racing"]["fresh"] = sorted({*doc["racing"].get("fresh", []), *flipped})


# -- weapons, shields, specials ----------------------------------------------------------------
def fire_during_movement(doc: Doc) -> bool:
    """The rulebook's house rule "During" (option ``weapons_during_movement``): weapons and
    specials may also be used between two movement points."""
    return bool(doc.get("house", {}).get("weapons_during_movement"))


def _face_up(doc: Doc, p: Doc) -> list[str]:
    """The weapon and specials face up and ready (not those re-activated this turn)."""
    cards = [p["weapon"], *p["specials"]]
    fresh = doc["racing"].get("fresh", [])
    return sorted({c["id"] for c in cards if c and c["up"] and c["id"] not in fresh})


def _in_range(doc: Doc, seat: int, reach: int) -> list[int]:
    p = doc["players"][seat]
    return [q["seat"] for q in doc["players"]
            if q["seat"] != seat and _on_track(doc, q["seat"]) and abs(q["row"] - p["row"]) <= reach]


def fire_options(doc: Doc, seat: int) -> list[Action]:
    """Weapons and specials, before or after moving, never in the first round."""
    r = doc["racing"]
    if r["round"] == 1:
        return []
    p = doc["players"][seat]
    legal: list[Action] = []
    for uid in _face_up(doc, p):
        u = UPGRADES[uid]
        effect = u.get("effect", "weapon") if u["kind"] == "special" else "weapon"
        if effect in ("weapon", "emp"):
            near = _in_range(doc, seat, u["range"])
            for n in range(1, min(u["targets"], len(near)) + 1):
                for group in combinations(near, n):
                    if effect == "weapon":
                        legal.append({"type": "fire", "upgrade": uid, "targets": list(group)})
                    else:
                        legal += [{"type": "fire", "upgrade": uid, "targets": list(group), "shift": s}
                                  for s in (-u["amount"], u["amount"])]
        elif effect == "patch" and p["ap"] < max_ap(p) or effect == "boost" and p["speed"] < MAX_SPEED or effect == "hype":
            legal.append({"type": "fire", "upgrade": uid, "targets": []})
    return legal


def fire(doc: Doc, seat: int, action: Action, events: list[EngineEvent]) -> None:
    p = doc["players"][seat]
    uid = action["upgrade"]
    u = UPGRADES[uid]
    card = p["weapon"] if u["kind"] == "weapon" else next(c for c in p["specials"] if c["id"] == uid and c["up"])
    card["up"] = False
    raise_reputation(p, u["company"], 1)
    events.append(EngineEvent("fired", {"seat": seat, "upgrade": uid, "targets": action["targets"],
                                        "shift": action.get("shift")}))
    effect = u.get("effect", "weapon") if u["kind"] == "special" else "weapon"
    if effect == "weapon":
        p["stats"]["weapons"] += 1
        doc["racing"]["hits"] += [{"target": t, "from": seat, "damage": u["damage"]} for t in action["targets"]]
    elif effect == "emp":
        doc["racing"]["hits"] += [{"target": t, "from": seat, "shift": action["shift"]} for t in action["targets"]]
    elif effect == "patch":
        p["ap"] = min(max_ap(p), p["ap"] + u["amount"])
    elif effect == "boost":
        set_speed(p, p["speed"] + u["amount"])
    elif effect == "hype":
        gain_fans(doc, seat, u["amount"])


def _shield_for(doc: Doc, hit: Doc) -> str | None:
    shield = doc["players"][hit["target"]]["shield"]
    if not shield or not shield["up"]:
        return None
    effect = UPGRADES[shield["id"]]["effect"]
    return shield["id"] if (effect == "remove_hack") == ("shift" in hit) else None


def resolve_hit(doc: Doc, use_shield: bool, events: list[EngineEvent]) -> None:
    hit = doc["racing"]["hits"].pop(0)
    target = doc["players"][hit["target"]]
    reduced = 0
    if use_shield:
        shield = UPGRADES[target["shield"]["id"]]
        target["shield"]["up"] = False
        raise_reputation(target, "shield", 1)
        reduced = shield["amount"] if shield["effect"] == "reduce" else 0
        events.append(EngineEvent("shielded", {"seat": hit["target"], "shield": shield["id"]}))
        if "shift" in hit:
            return
    if "shift" in hit:
        set_speed(target, target["speed"] + hit["shift"])
        events.append(EngineEvent("hacked", {"seat": hit["target"], "shift": hit["shift"],
                                             "speed": target["speed"]}))
        return
    damage = max(0, hit["damage"] - reduced)
    events.append(EngineEvent("hit", {"seat": hit["target"], "from": hit["from"], "damage": damage}))
    _damage_no_armour(target, damage, events)


def _damage_no_armour(p: Doc, damage: int, events: list[EngineEvent]) -> None:
    """Weapons and slams: below 1 armour the speed drops to 2 and the armour returns to 1."""
    p["ap"] -= damage
    if p["ap"] < 1:
        p["ap"] = 1 + implant_total(p, "crash_armor")
        p["speed"] = MIN_SPEED
        events.append(EngineEvent("no_armour", {"seat": p["seat"]}))


# -- moving and danger lines -------------------------------------------------------------------
def step(doc: Doc, seat: int, direction: int, rng: Randomness, events: list[EngineEvent]) -> None:
    r = doc["racing"]
    p = doc["players"][seat]
    p["row"] += 1
    p["lane"] += direction
    r["moves"] -= 1
    if p["row"] >= finish_row(_rows(doc)):
        p["row"] = finish_row(_rows(doc))
        r["finished"].append(seat)
        r["moves"] = 0
        r["step"] = "done"
        events.append(EngineEvent("finished", {"seat": seat, "place": len(r["finished"])}))
        return
    colour = line_at(_rows(doc), p["row"], p["lane"])
    from .content import danger_dice
    dice = danger_dice(p["speed"], colour) if colour else 0
    events.append(EngineEvent("moved", {"seat": seat, "row": p["row"], "lane": p["lane"]}))
    if dice:
        faces = rng.roll(DIE_FACES, dice)
        r["roll"] = {"colour": colour, "dice": [f["damage"] for f in faces]}
        r["step"] = "roll"
        events.append(EngineEvent("danger_check", {"seat": seat, "colour": colour, "dice": r["roll"]["dice"]}))


def roll_options(doc: Doc, seat: int) -> list[Action]:
    """Accept the dice, or discard (or return to hand) a part to re-roll some or remove one."""
    p = doc["players"][seat]
    dice = doc["racing"]["roll"]["dice"]
    legal: list[Action] = [ACCEPT]
    for part in _ability_parts(p, "reroll"):
        for n in range(1, len(dice) + 1):
            for group in combinations(range(len(dice)), n):
                legal += [{"type": "reroll", "part": part, "part_to": to, "dice": list(group)}
                          for to in ("discard", "hand")]
    for part in _ability_parts(p, "remove_die"):
        for i in range(len(dice)):
            legal += [{"type": "remove_die", "part": part, "part_to": to, "die": i} for to in ("discard", "hand")]
    return legal


def roll_act(doc: Doc, seat: int, action: Action, rng: Randomness, events: list[EngineEvent]) -> None:
    r = doc["racing"]
    p = doc["players"][seat]
    if action["type"] == "reroll":
        _use_part(doc, p, action["part"], action["part_to"])
        faces = rng.roll(DIE_FACES, len(action["dice"]))
        for i, face in zip(action["dice"], faces, strict=True):
            r["roll"]["dice"][i] = face["damage"]
        events.append(EngineEvent("rerolled", {"seat": seat, "part": action["part"], "dice": r["roll"]["dice"]}))
        return
    if action["type"] == "remove_die":
        _use_part(doc, p, action["part"], action["part_to"])
        r["roll"]["dice"].pop(action["die"])
        events.append(EngineEvent("die_removed", {"seat": seat, "part": action["part"], "dice": r["roll"]["dice"]}))
        if r["roll"]["dice"]:
            return
    check_damage(doc, seat, r["roll"]["dice"], events)
    r["roll"] = None
    if r["step"] == "roll":
        r["step"] = "move"


def check_damage(doc: Doc, seat: int, dice: list[int], events: list[EngineEvent]) -> None:
    """No damage icon: 1 fan per die. Otherwise lose that much armour, movement and speed,
    and 1 fan; below 1 armour the car crashes (turn over, speed 2, armour 1)."""
    r = doc["racing"]
    p = doc["players"][seat]
    damage = sum(dice)
    if damage == 0:
        fans = len(dice) + (implant_total(p, "stunt_fans") if dice else 0)
        p["stats"]["stunts"] += len(dice)
        gain_fans(doc, seat, fans)
        events.append(EngineEvent("stunt", {"seat": seat, "fans": fans}))
        return
    p["ap"] -= damage
    r["moves"] = max(0, r["moves"] - damage)
    p["speed"] = max(MIN_SPEED, p["speed"] - damage)
    lose_fan(doc, seat)
    events.append(EngineEvent("damaged", {"seat": seat, "damage": damage, "speed": p["speed"]}))
    if p["ap"] < 1:
        p["ap"] = 1 + implant_total(p, "crash_armor")
        p["speed"] = MIN_SPEED
        p["stats"]["crashes"] += 1
        r["moves"] = 0
        r["step"] = "done"
        events.append(EngineEvent("crashed", {"seat": seat}))


# -- the end of a round ------------------------------------------------------------------------
def roll_slams(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> None:
    """When all have moved, cars on the same space slam: each involved rolls one die."""
    r = doc["racing"]
    spots: dict[tuple[int, int], list[int]] = {}
    for seat in r["order"]:
        if _on_track(doc, seat):
            p = doc["players"][seat]
            spots.setdefault((p["row"], p["lane"]), []).append(seat)
    rolls = []
    for spot in sorted(spots):
        cars = spots[spot]
        if len(cars) < 2:
            continue
        events.append(EngineEvent("slam", {"seats": cars, "row": spot[0], "lane": spot[1]}))
        for seat in cars:
            doc["players"][seat]["stats"]["slams"] += 1
            damage = rng.roll(DIE_FACES, 1)[0]["damage"]
            events.append(EngineEvent("slam_roll", {"seat": seat, "damage": damage}))
            rolls.append({"seat": seat, "dice": [damage]})
    r["slam_rolls"] = rolls


def slam_ability_options(doc: Doc, entry: Doc) -> list[Action]:
    """A damaging slam die may be re-rolled or removed with a part ability ("at ANY time")."""
    if sum(entry["dice"]) == 0:
        return []
    p = doc["players"][entry["seat"]]
    legal: list[Action] = []
    for part in _ability_parts(p, "reroll"):
        legal += [{"type": "reroll", "part": part, "part_to": to, "dice": [0]} for to in ("discard", "hand")]
    for part in _ability_parts(p, "remove_die"):
        legal += [{"type": "remove_die", "part": part, "part_to": to, "die": 0} for to in ("discard", "hand")]
    return legal


def apply_slam(doc: Doc, entry: Doc, events: list[EngineEvent]) -> None:
    """A blank gains a fan (a VP at the maximum); damage may leave the car without armour. A
    removed die does neither."""
    seat = entry["seat"]
    p = doc["players"][seat]
    if not entry["dice"]:
        return
    damage = entry["dice"][0]
    if damage == 0:
        gain_fans(doc, seat, 1 + implant_total(p, "slam_fans"))
    else:
        _damage_no_armour(p, damage, events)


def slams(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> None:
    """Roll and resolve every slam with no abilities used (tests and automatic play)."""
    roll_slams(doc, rng, events)
    for entry in doc["racing"]["slam_rolls"]:
        apply_slam(doc, entry, events)
    doc["racing"]["slam_rolls"] = []


def slam_act(doc: Doc, seat: int, action: Action, rng: Randomness, events: list[EngineEvent]) -> None:
    r = doc["racing"]
    entry = r["slam_rolls"][0]
    p = doc["players"][seat]
    if action["type"] == "accept":
        apply_slam(doc, r["slam_rolls"].pop(0), events)
        return
    _use_part(doc, p, action["part"], action["part_to"])
    if action["type"] == "reroll":
        entry["dice"] = [rng.roll(DIE_FACES, 1)[0]["damage"]]
        events.append(EngineEvent("rerolled", {"seat": seat, "part": action["part"], "dice": entry["dice"]}))
    else:
        entry["dice"] = []
        events.append(EngineEvent("die_removed", {"seat": seat, "part": action["part"], "dice": []}))


def end_round(doc: Doc, events: list[EngineEvent]) -> None:
    """After the slams: the race ends with the round in which the first car finished; else
    the next round, fastest first."""
    r = doc["racing"]
    if r["finished"]:
        doc["phase"] = "race_over"
        return
    previous = [s for s in r["order"] if _on_track(doc, s)]
    previous.sort(key=lambda s: (-doc["players"][s]["speed"], -zone_power(doc["players"][s])))
    r["round"] += 1
    r["order"], r["index"], r["step"], r["moves"], r["slam_rolls"] = previous, 0, "start", 0, None
    events.append(EngineEvent("round_began", {"round": r["round"], "order": previous}))
    if not previous:
        doc["phase"] = "race_over"


def race_act(doc: Doc, seat: int, action: Action, rng: Randomness, events: list[EngineEvent]) -> None:
    r = doc["racing"]
    p = doc["players"][seat]
    kind = action["type"]
    if kind == "shield":
        resolve_hit(doc, bool(action["use"]), events)
    elif kind == "speed":
        if "part" in action:
            _use_part(doc, p, action["part"], action["part_to"])
        before = p["speed"]
        set_speed(p, action["to"])
        events.append(EngineEvent("speed_changed", {"seat": seat, "from": before, "to": p["speed"]}))
        r["step"] = "repair"
    elif kind == "free_repair":
        p["ap"] += action["points"]
        if action["points"]:
            events.append(EngineEvent("repaired", {"seat": seat, "points": action["points"], "free": True}))
        r["step"] = "before"
    elif kind == "go":
        if r["step"] == "before":
            r["step"], r["moves"] = "move", p["speed"]
        else:
            _next_turn(doc)
    elif kind == "fire":
        fire(doc, seat, action, events)
    elif kind == "step":
        step(doc, seat, action["dir"], rng, events)
    elif kind in ("accept", "reroll", "remove_die") and r["index"] >= len(r["order"]):
        slam_act(doc, seat, action, rng, events)
    elif kind in ("accept", "reroll", "remove_die"):
        roll_act(doc, seat, action, rng, events)
    elif kind == "pit_repair":
        p["chips"] -= REPAIR_COST * action["points"]
        p["ap"] += action["points"]
        if action["points"]:
            events.append(EngineEvent("repaired", {"seat": seat, "points": action["points"]}))
        land(doc, seat, events)
        r["step"] = "after" if r["round"] > 1 else "done"
