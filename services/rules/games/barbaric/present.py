"""Barbaric for people and client authors: the contract's Presentation, as functions over
served JSON (views, projected events, actions) and the public content pack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .content import (
    BOARDS,
    CONTENT_VERSION,
    EVENTS,
    GEARS,
    MASTERY,
    MONSTER_CARDS,
    RAW,
    RIDERS,
    SKILLS,
    SURVIVORS,
)

JSON = Any


def content() -> JSON:
    """The whole content pack, by file, with names and printed values."""
    return {"content_version": CONTENT_VERSION, **{k: v for k, v in RAW.items()}}


def view_schema() -> JSON:
    hexes = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
    player = {"type": "object", "required": [
        "seat", "rider", "gear", "pos", "health_damage", "shield_damage", "hand_size",
        "deck_size", "resources", "victory", "death", "learned"],
        "not": {"required": ["deck"]}}
    return {"type": "object", "required": [
        "mode", "seats", "round", "time", "tracks", "monster", "minions", "rage",
        "players", "over"], "properties": {
        "time": {"enum": ["day", "night", "twilight"]},
        "minions": {"type": "array", "items": hexes, "maxItems": 6},
        "players": {"type": "array", "items": player},
        "event_deck": {"type": "integer"}, "monster_deck": {"type": "integer"},
        "survivor_deck": {"type": "integer"}}}


def event_schema() -> JSON:
    return {"type": "object", "required": ["kind", "data"],
            "properties": {"kind": {"type": "string"}, "data": {"type": "object"}}}


def _name(thing: str | None) -> str:
    if thing is None:
        return "?"
    base = thing.split("/")[0]
    for table in (SKILLS, ):
        if base in table:
            return table[base].name
    for pack in (EVENTS, MONSTER_CARDS, SURVIVORS, MASTERY):
        if base in pack:
            return str(pack[base]["name"])
    return base


def _seat(n: Any) -> str:
    return f"seat {n}"


def _board(board_id: Any) -> str:
    board = RIDERS.get(str(board_id)) or GEARS.get(str(board_id))
    return board.name if board else str(board_id)


def _at(h: Any) -> str:
    return f"({h[0]}, {h[1]})" if isinstance(h, list | tuple) and len(h) == 2 else "?"


def _token(token: Any) -> str:
    return str(token).replace("-", " ").title()


def _side(side: Any) -> str:
    return "Rider" if side == "rider" else "Gear"


def _sub(side: Any) -> str:
    return "Sub Stamina" if side == "rider" else "Sub Energy"


WORDS = {
    "rider_picked": lambda d: f"{_seat(d['seat'])} picks the Rider {_board(d['rider'])}",
    "gear_picked": lambda d: f"{_seat(d['seat'])} picks the Gear {_board(d['gear'])}",
    "card_chosen": lambda d: f"you chose {_name(d['card'])} for your hand",
    "card_drawn": lambda d: f"you drew {_name(d['card'])}",
    "cards_drawn": lambda d: f"{_seat(d['seat'])} draws a card",
    "event": lambda d: (f"Event ({d['time']}): {_name(d['card'])}: "
                        f"{EVENTS[d['card']]['text']}"),
    "monster_card": lambda d: (f"the Monster reveals {_name(d['card'])}: "
                               f"{MONSTER_CARDS[d['card']]['text']}"),
    "monster_targets": lambda d: f"the Monster targets {_seat(d['seat'])}",
    "monster_moved": lambda d: f"the Monster moves to {_at(d['to'])}",
    "monster_attacks": lambda d: (f"the Monster attacks {', '.join(map(_seat, d['seats']))}"
                                  f" for {d['damage']}" if d["seats"] else
                                  "the Monster finds no one to attack"),
    "damaged": lambda d: (f"{_seat(d['seat'])} takes {d['health']} to Health and "
                          f"{d['shields']} to Shields"),
    "defeated": lambda d: f"{_seat(d['seat'])} is defeated",
    "eliminated": lambda d: f"{_seat(d['seat'])} is eliminated",
    "skill_learned": lambda d: (f"{_seat(d['seat'])} learns {_name(d['card'])} (Level "
                                f"{d['level']}) for {d['paid']} {d['resource']}"),
    "skill_used": lambda d: f"{_seat(d['seat'])} uses {_name(d['skill'])}",
    "resource_gained": lambda d: f"{_seat(d['seat'])} gains 1 {d['resource']}",
    "resource_consumed": lambda d: (f"{_seat(d['seat'])} consumes 1 {d['resource']} to "
                                    f"{d['benefit']}"),
    "exchanged": lambda d: f"{_seat(d['seat'])} exchanges 2 {d['give']} for 1 {d['get']}",
    "moved": lambda d: f"{_seat(d['seat'])} moves to {_at(d['to'])}",
    "core_taken": lambda d: f"{_seat(d['seat'])} takes the Atomic Core",
    "exited": lambda d: f"{_seat(d['seat'])} leaves the map with the Atomic Core",
    "victory_token": lambda d: f"{_seat(d['seat'])} gains a Victory Token ({d['victory']})",
    "minion_defeated": lambda d: f"a Minion is defeated (tracker {d['tracker']})",
    "minion_placed": lambda d: f"a Minion is placed at {_at(d['at'])}",
    "frenzy": lambda d: f"a Rage Token is removed ({d['rage']} left)",
    "turn_started": lambda d: f"{_seat(d['seat'])}'s turn ({d['time']})",
    "resigned": lambda d: f"{_seat(d['seat'])} resigns",
    "hand_chosen": lambda d: f"{_seat(d['seat'])} has chosen {d['cards']} cards for their hand",
    "spawned": lambda d: f"{_seat(d['seat'])} is placed in the Spawning Space {_at(d['at'])}",
    "round_started": lambda d: f"round {d['round']} begins",
    "initiative": lambda d: (f"Initiative ({d['time']}): " + ", ".join(map(_seat, d["order"]))
                             + " take their turns in that order"),
    "monster_phase": lambda d: ("Monster Phase (Twilight)" if d["time"] == "twilight"
                                else "Monster Actions after the Day turn"),
    "events_reshuffled": lambda d: "the Event discard pile is shuffled into a new Event deck",
    "round_cap": lambda d: (f"the round cap ({d['rounds']} rounds) is reached; leading: "
                            + (", ".join(map(_seat, d["leaders"])) or "nobody")),
    "turn_ended": lambda d: f"{_seat(d['seat'])} ends their turn",
    "upkeep": lambda d: f"{_seat(d['seat'])} readies Stamina and Energy (Upkeep)",
    "prep_passed": lambda d: f"{_seat(d['seat'])} passes in the Preparation Phase",
    "searched": lambda d: f"{_seat(d['seat'])} searches {_at(d['at'])}",
    "resource_die": lambda d: f"{_seat(d['seat'])} rolls the Resource Die: {d['face']}",
    "first_aid": lambda d: (f"{_seat(d['seat'])} uses First Aid and moves to the front of the "
                            "other Time Track"),
    "repair": lambda d: (f"{_seat(d['seat'])} uses Repair and moves to the front of the other "
                         "Time Track"),
    "discarded": lambda d: f"{_seat(d['seat'])} discards {_name(d['card'])}",
    "healed": lambda d: f"{_seat(d['seat'])} heals {d['health']} Health",
    "shields_regained": lambda d: f"{_seat(d['seat'])} regains {d['shields']} Shields",
    "deck_reshuffled": lambda d: (f"{_seat(d['seat'])}'s deck is empty: the discard pile is "
                                  f"shuffled into it and they gain a Death Token ({d['death']})"),
    "experience": lambda d: (f"{_seat(d['seat'])} gains 1 {_side(d['side'])} experience "
                             f"(maximum {'Health' if d['side'] == 'rider' else 'Shields'} "
                             f"{d['max']})"),
    "paragon": lambda d: (f"{_seat(d['seat'])} reaches Paragon on the {_side(d['side'])} dial "
                          f"and {'heals 1 Health' if d['side'] == 'rider' else 'regains 1 Shield'}"),
    "sub_gained": lambda d: f"{_seat(d['seat'])} gains a {_sub(d['side'])}",
    "mastery_unlocked": lambda d: (f"{_seat(d['seat'])} places a Mastery Marker on "
                                   f"{_name(d['mastery'])}"),
    "mastery_used": lambda d: f"{_seat(d['seat'])} uses the Mastery Skill {_name(d['mastery'])}",
    "stance": lambda d: f"{_seat(d['seat'])} takes the {d['stance'].title()} Stance",
    "stance_spent": lambda d: (f"{_seat(d['seat'])} spends {d['sub_stamina']} Sub Stamina in "
                               f"the {d['stance'].title()} Stance"),
    "token": lambda d: f"{_seat(d['seat'])} gets a {_token(d['token'])} token",
    "dive": lambda d: (f"{_seat(d['seat'])}'s Dive token "
                       + ("halves the Monster's damage" if d["halved"]
                          else "avoids the damage completely")),
    "gadget_placed": lambda d: (f"{_seat(d['seat'])} places a {_token(d['gadget'])} at "
                                f"{_at(d['at'])}"),
    "gadget_moved": lambda d: (f"{_seat(d['seat'])} moves a {_token(d['gadget'])} from "
                               f"{_at(d['from'])} to {_at(d['to'])}"),
    "gadget_triggered": lambda d: f"{_seat(d['seat'])} springs a {_token(d['gadget'])}",
    "gear_broken": lambda d: f"{_seat(d['seat'])}'s Gear is Broken: it cannot Move",
    "core_dropped": lambda d: f"{_seat(d['seat'])} drops the Atomic Core at {_at(d['at'])}",
    "recovery": lambda d: (f"{_seat(d['seat'])} enters Recovery Status "
                           f"(Death Tokens: {d['death']})"),
    "counter_used": lambda d: f"{_seat(d['seat'])} plays the Counter Skill {_name(d['card'])}",
    "counter_passed": lambda d: f"{_seat(d['seat'])} does not respond",
    "chain_added": lambda d: (f"{_name(d['card'])} ({_seat(d['seat'])}) is added to the "
                              f"Resolution Chain at position {d['position']}"),
    "counter_resolved": lambda d: (f"{_name(d['card'])} ({_seat(d['seat'])}) resolves: a "
                                   f"Counterattack at {_at(d['at'])}"),
    "counter_fizzled": lambda d: (f"{_name(d['card'])} ({_seat(d['seat'])}) resolves with no "
                                  "effect"),
    "roll_off": lambda d: "Monster Die roll-off: " + ", ".join(
        f"{_seat(s)} rolls {r}" for s, r in d["rolls"].items()),
    "monster_skips": lambda d: "the Monster skips its Monster Actions",
    "monster_trapped": lambda d: (f"the Monster springs {_seat(d['owner'])}'s "
                                  f"{_token(d['gadget'])} at {_at(d['at'])}"),
    "monster_damaged": lambda d: f"the Monster takes {d['amount']} damage",
    "monster_reaction": lambda d: (f"{_seat(d['seat'])} rolls the Monster Die for a Monster "
                                   f"Reaction: {d['face']}, {d['name']}"),
    "monster_disruption": lambda d: (f"{_seat(d['seat'])} rolls the Monster Die for a Monster "
                                     f"Disruption: {d['face']}, {d['name']}"),
    "minion_moved": lambda d: f"a Minion moves from {_at(d['from'])} to {_at(d['to'])}",
    "minion_attacks": lambda d: (f"the Minion at {_at(d['at'])} attacks {_seat(d['seat'])} "
                                 f"for {d['damage']}"),
    "rising_threat": lambda d: "Rising Threat: the Minion Tracker reached 5",
    "whirlpool": lambda d: f"a Whirlpool moves {_seat(d['seat'])} 1 space clockwise",
    "survivors_discovered": lambda d: (f"{_seat(d['seat'])} discovers Survivors: "
                                       f"{_name(d['card'])}"),
    "survivors_rescue": lambda d: f"{_seat(d['seat'])} rescues {_name(d['card'])}",
    "survivors_plunder": lambda d: f"{_seat(d['seat'])} plunders {_name(d['card'])}",
    "survivors_ignore": lambda d: f"{_seat(d['seat'])} ignores {_name(d['card'])}",
    "survivor_used": lambda d: f"{_seat(d['seat'])} uses the Survivors {_name(d['card'])}",
    "first_player_rolls": lambda d: "for first player: " + ", ".join(
        f"{_seat(r['seat'])} rolls {r['roll']}" for r in d["rolls"]),
    "first_player": lambda d: f"{_seat(d['seat'])} goes first",
}


def describe_event(event: Mapping[str, JSON], viewer: int | None) -> str:
    kind, data = event.get("kind", ""), event.get("data", {})
    words = WORDS.get(str(kind))
    if words is not None:
        try:
            return str(words(data))
        except (KeyError, TypeError):
            pass
    return str(kind).replace("_", " ")


def describe_action(action: Mapping[str, JSON], view: JSON) -> str:
    t = action.get("type")
    if t in ("learn", "choose_card", "counter", "ultimate", "discard", "survivor"):
        return f"{t.replace('_', ' ')} {_name(action.get('card'))}"
    if t == "skill":
        where = (f"at {_at(action['at'])}" if "at" in action
                 else f"direction {action['dir']}" if "dir" in action else "")
        if "from" in action:
            where += f", moving the one at {_at(action['from'])}"
        return f"use {_name(action.get('skill'))} {where}".strip()
    if t in ("pick_rider", "pick_gear"):  # "pick the Rider Keltz", not "pick rider rider keltz"
        side = "rider" if t == "pick_rider" else "gear"
        return f"pick the {side.title()} {_board(action.get(side))}"
    if t == "move":
        return "exit the map" if action.get("exit") else f"move to {action.get('to')}"
    if t == "consume":
        extra = f" to {action['to']}" if "to" in action else ""
        return f"consume 1 {action['resource']}: {action['benefit']}{extra}"
    if t == "exchange":
        return f"exchange 2 {action['give']} for 1 {action['get']}"
    if t == "allocate":
        return f"{action['health']} to Health, {action['shields']} to Shields"
    if t == "mastery":
        return f"use the Mastery {_name(action.get('mastery'))}"
    if t == "mastery_marker":
        return f"place the Mastery Marker on {_name(action.get('mastery'))}"
    rest = ", ".join(f"{k} {v}" for k, v in action.items() if k != "type")
    return f"{str(t).replace('_', ' ')} {rest}".strip()


def stats(view: JSON, who: str) -> dict[str, int]:
    """The Monster's or Minions' stats as printed on the board plus revealed Frenzy bonuses."""
    out = dict(BOARDS[view["board"]][who])
    for level in view["frenzy_revealed"]:
        kind, stat = level["stat"].split("_")
        if kind == who:
            out[stat] += level["bonus"]
    return out


def _maximum(p: JSON, side: str) -> Any:
    board = (RIDERS if side == "rider" else GEARS).get(p[side] or "")
    return board.dial[p["dial"][side]].get("max", "?") if board else "?"


def _where(p: JSON) -> str:
    if p["eliminated"] or p["resigned"]:
        return "out"
    return "recovering" if p["recovering"] else _at(p["pos"])


def render(view: JSON, viewer: int | None) -> Any:
    m, n = stats(view, "monster"), stats(view, "minion")
    event = view.get("event")
    lines = [
        f"Round {view['round']} - {view['time']} - Monster Board {view['board']} - "
        f"Rage Tokens left {view['rage']} - Minion Tracker {view['minion_tracker']}",
        f"Monster at {_at(view['monster']['pos'])}: Move {m['move']}, Attack {m['attack']}, "
        f"Range {m['range']}; Minions ({len(view['minions'])}): Move {n['move']}, "
        f"Attack {n['attack']}, Range {n['range']}, Health {n['health']}",
        f"Event: {_name(event)}" + (f" - {EVENTS[event]['text']}" if event in EVENTS else ""),
        "Atomic Core: " + (_at(view["core_at"]) if view["core_at"] else "carried"),
    ]
    table = Table(title="Barbaric: After the Apocalypse")
    for col in ("seat", "Rider / Gear", "at", "Health", "Shields", "Sub St/En", "learned",
                "hand", "resources", "Victory", "Death"):
        table.add_column(col)
    for p in view["players"]:
        learned = ", ".join(f"{_name(k)} {'I' * len(v)}" for k, v in sorted(p["learned"].items()))
        table.add_row(
            str(p["seat"]) + (" (core)" if p["core"] else ""),
            f"{_board(p['rider'])} / {_board(p['gear'])}", _where(p),
            f"{_maximum(p, 'rider') if p['rider'] else '?'} max, {p['health_damage']} dmg",
            f"{_maximum(p, 'gear') if p['gear'] else '?'} max, {p['shield_damage']} dmg",
            f"{p['subs_ready']['rider']}/{p['subs_ready']['gear']}", learned,
            ", ".join(_name(c) for c in p["hand"]) if "hand" in p else str(p["hand_size"]),
            " ".join(f"{k} {v}" for k, v in p["resources"].items()),
            str(p["victory"]), str(p["death"]))
    return Group(*(Text(line) for line in lines), table)
