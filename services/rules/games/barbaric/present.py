"""Barbaric for people and client authors: the contract's Presentation, as functions over
served JSON (views, projected events, actions) and the public content pack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .content import CONTENT_VERSION, EVENTS, MASTERY, MONSTER_CARDS, RAW, SKILLS, SURVIVORS

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


WORDS = {
    "rider_picked": lambda d: f"{_seat(d['seat'])} picks the Rider {d['rider']}",
    "gear_picked": lambda d: f"{_seat(d['seat'])} picks the Gear {d['gear']}",
    "card_chosen": lambda d: f"you chose {_name(d['card'])} for your hand",
    "card_drawn": lambda d: f"you drew {_name(d['card'])}",
    "cards_drawn": lambda d: f"{_seat(d['seat'])} draws a card",
    "event": lambda d: f"Event ({d['time']}): {_name(d['card'])}",
    "monster_card": lambda d: f"the Monster reveals {_name(d['card'])}",
    "monster_targets": lambda d: f"the Monster targets {_seat(d['seat'])}",
    "monster_moved": lambda d: f"the Monster moves to {d['to']}",
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
    "counter_used": lambda d: f"{_seat(d['seat'])} counters with {_name(d['card'])}",
    "resource_gained": lambda d: f"{_seat(d['seat'])} gains 1 {d['resource']}",
    "resource_consumed": lambda d: (f"{_seat(d['seat'])} consumes 1 {d['resource']} to "
                                    f"{d['benefit']}"),
    "exchanged": lambda d: f"{_seat(d['seat'])} exchanges 2 {d['give']} for 1 {d['get']}",
    "moved": lambda d: f"{_seat(d['seat'])} moves to {d['to']}",
    "core_taken": lambda d: f"{_seat(d['seat'])} takes the Atomic Core",
    "exited": lambda d: f"{_seat(d['seat'])} leaves the map with the Atomic Core",
    "victory_token": lambda d: f"{_seat(d['seat'])} gains a Victory Token ({d['victory']})",
    "minion_defeated": lambda d: f"a Minion is defeated (tracker {d['tracker']})",
    "minion_placed": lambda d: f"a Minion is placed at {d['at']}",
    "frenzy": lambda d: f"a Rage Token is removed ({d['rage']} left)",
    "turn_started": lambda d: f"{_seat(d['seat'])}'s turn ({d['time']})",
    "resigned": lambda d: f"{_seat(d['seat'])} resigns",
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
        where = action.get("at") or (f"direction {action['dir']}" if "dir" in action else "")
        return f"use {_name(action.get('skill'))} {where}".strip()
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
    rest = ", ".join(f"{k} {v}" for k, v in action.items() if k != "type")
    return f"{str(t).replace('_', ' ')} {rest}".strip()


def render(view: JSON, viewer: int | None) -> Any:
    head = Text(f"Round {view['round']} - {view['time']} - Rage {view['rage']} - "
                f"Minions {len(view['minions'])} - Event {_name(view.get('event'))}")
    table = Table(title="Barbaric: After the Apocalypse")
    for col in ("seat", "Rider / Gear", "at", "Health dmg", "Shield dmg", "hand",
                "resources", "VP", "Death"):
        table.add_column(col)
    for p in view["players"]:
        state = "out" if p["eliminated"] or p["resigned"] else (
            "recovering" if p["recovering"] else str(p["pos"]))
        table.add_row(str(p["seat"]), f"{p['rider']} / {p['gear']}", state,
                      str(p["health_damage"]), str(p["shield_damage"]),
                      ", ".join(_name(c) for c in p["hand"]) if "hand" in p
                      else str(p["hand_size"]),
                      " ".join(f"{k} {v}" for k, v in p["resources"].items()),
                      str(p["victory"]), str(p["death"]))
    return Group(head, table)
