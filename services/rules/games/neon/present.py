"""NEON for people and client authors: the content pack, schemas, words and a rich table.

Everything here reads served JSON (views, projected events, actions), never engine state, so a
client that only sees what the API serves could do the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from services.rules.games.neon.content import (
    ACTION_CARDS,
    BOT_TYPES,
    FIGHTERS,
    LOOT,
    SECTORS,
    UPGRADES,
    Effect,
)

WHEN = {"before_attack": "Before rolling the attack", "after_attack": "After the attack roll",
        "after_defense": "After the defense roll", "mandatory": "Mandatory",
        "optional_before_defense": "Optionally, before the defense roll",
        "ally_before_attack": "Team: before an ally's attack roll",
        "ally_before_defense": "Team: before an ally's defense roll"}
DOES = {"add_attack_die": "+1 attack die", "add_defense_die": "+1 defense die",
        "flip_maybe_to_hit": "flip 1 conditional miss (?) to a normal hit",
        "block_to_fail": "count 1 normal block of the defender as a fail",
        "cancel_hit": "cancel 1 uncancelled {hit}"}
HIT = {"crit": "critical hit", "hit": "normal hit"}
SECTOR_TEXT = {"park": "[When attacking] 1 energy: flip 1 conditional miss (?) to a normal hit",
               "factory": "[When attacking] 1 energy: +1 attack die",
               "charging": "[Upon entering the sector] gain 1 energy",
               "highway": "[When attacking] you may reroll 1 attack die for free",
               "underpass": "[When this sector closes] do not take damage",
               "mall": "[When searching] look at 1 more class II loot card",
               "railway": "[When moving] move to any sector",
               "police": "[When attacking or defending] you cannot reroll dice",
               "stadium": "[When defending] all normal blocks count as fails",
               "tv_tower": "Using abilities costs 1 more energy"}


ACTION_WORDS = {"move": "Move", "attack": "Attack", "search": "Search", "defense": "Defense",
                "leadership": "Leadership", "energy1": "1 Energy", "energy2": "2 Energy"}


def action_card_name(card_id: str) -> str:
    """An action card by its printed halves ("Move / Attack"); the Joker Card by its name.
    The rulebook names no action cards, so the name is what the card shows."""
    c = ACTION_CARDS.get(card_id)
    if c is None:
        return card_id
    if c.joker:
        return "Joker Card"
    return " / ".join(" + ".join(ACTION_WORDS.get(a, a) for a in half) for half in c.halves)


def fighter_name(fighter_id: Any) -> str:
    f = FIGHTERS.get(str(fighter_id))
    return f.name if f is not None else str(fighter_id)


def effect_text(effect: Effect) -> str:
    does = DOES.get(effect.kind, effect.kind).format(hit=HIT.get(effect.hit, "hit"))
    return f"{WHEN.get(effect.when, effect.when)}: discard 1 {effect.supply} supply: {does}"


def content() -> dict[str, Any]:
    return {
        "fighters": [{"id": f.id, "name": f.name, "base_armour": f.base_armour,
                      "base_weapon": f.base_weapon, "special_token": f.special_token,
                      "manoeuvres": dict(f.manoeuvres),
                      "abilities": [{"id": a.id, "name": a.name, "cost": a.cost,
                                     "moment": a.moment, "text": a.text} for a in f.abilities]}
                     for f in FIGHTERS.values()],
        "cards": [{"id": c.id, "name": action_card_name(c.id), "fighter": c.fighter,
                   "joker": c.joker,
                   "halves": [list(h) for h in c.halves], "initiative": list(c.initiative)}
                  for c in ACTION_CARDS.values()],
        "loot": [{"id": card.id, "name": card.name, "class": card.cls, "type": card.type,
                  "range": list(card.range), "area": card.area, "supplies": list(card.supplies),
                  "max_supplies": card.max_supplies,
                  "effects": [effect_text(e) for e in card.effects],
                  "team_effect": effect_text(card.team_effect) if card.team_effect else None}
                 for card in LOOT.values()],
        "equipment_types": sorted({card.type for card in LOOT.values()}),
        "sectors": [{"number": s.number, "name": s.name, "class": s.cls, "cost": s.cost,
                     "effect": s.effect, "text": SECTOR_TEXT.get(s.effect, "")}
                    for s in SECTORS.values()],
        "upgrades": [{"id": u.id, "name": u.name, "timing": u.timing, "text": u.text}
                     for u in UPGRADES.values()],
        "bots": [{"colour": b.colour, "picture": b.picture, "supplies": list(b.supplies)}
                 for b in BOT_TYPES],
    }


INT = {"type": "integer"}
NULLABLE_INT = {"type": ["integer", "null"]}
FIGHTER_VIEW = {
    "type": "object",
    "required": ["fighter", "name", "team", "side", "sector", "eliminated", "automa", "energy",
                 "health", "trophies", "bots", "equipment", "hand_size", "row", "shields"],
    "properties": {
        "fighter": INT, "name": {"type": "string"}, "team": INT, "side": {"enum": ["A", "B"]},
        "sector": NULLABLE_INT, "eliminated": {"type": "boolean"}, "automa": {"type": "boolean"},
        "energy": INT, "health": {"type": "array"}, "trophies": {"type": "array", "items": INT},
        "bots": {"type": "array"}, "shields": INT, "hand_size": INT,
        "equipment": {"type": "array", "items": {
            "type": "object", "required": ["card", "supply_symbols"],
            "properties": {
                "card": {"type": "string"},
                "supply_symbols": {
                    "type": "array",
                    "items": {"type": "array", "items": {"type": "string"}},
                    "description": "the supply symbols of each card tucked under it, in order "
                                   "(a supply shows only its symbol)"},
                "supplies": {"type": "array", "items": {"type": "string"},
                             "description": "the tucked cards; only in the seat's own view"}}}},
        "hand": {"type": "array", "items": {"type": "string"},
                 "description": "only in the seat's own view"},
        "row": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
    },
}


def view_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "NEON view",
        "type": "object",
        "required": ["mode", "round", "rounds", "phase", "seats", "ring", "fighters", "stack",
                     "pending", "leader", "current"],
        "properties": {
            "mode": {"enum": ["rebirth", "battle-royale", "coalition"]},
            "round": INT, "rounds": INT, "phase": {"type": "string"}, "seats": INT,
            "you": NULLABLE_INT, "leader": NULLABLE_INT, "current": NULLABLE_INT,
            "ring": {"type": "array", "items": {
                "type": "object", "required": ["sector", "name", "class", "bot", "search_tokens"],
                "properties": {"sector": INT, "name": {"type": "string"}, "class": INT,
                               "bot": {"type": ["string", "null"]}, "search_tokens": INT}}},
            "fighters": {"type": "array", "items": FIGHTER_VIEW},
            "stack": {"type": "array", "items": {"type": "object", "required": ["kind", "owner"]}},
            "pending": {"type": "array", "items": {"type": "object",
                                                   "required": ["seat", "kind"]}},
        },
    }


def event_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "NEON event",
        "type": "object",
        "required": ["kind", "data"],
        "properties": {"kind": {"type": "string"}, "data": {"type": "object"},
                       "visible_to": {"type": ["array", "null"], "items": INT}},
    }


def who(data: Mapping[str, Any], key: str = "fighter") -> str:
    value = data.get(key)
    return f"fighter {value}" if value is not None else "nobody"


def seq(d: Mapping[str, Any], key: str) -> list[Any]:
    value = d.get(key)
    return list(value) if isinstance(value, list | tuple) else []


def card_name(card: Any) -> str:
    card = str(card)
    if card in LOOT:
        return LOOT[card].name
    if card in UPGRADES:
        return UPGRADES[card].name
    return card


def target_text(target: Any) -> str:
    kind, _, ref = str(target).partition(":")
    return {"f": f"fighter {ref}", "bot": f"the bot in sector {ref}",
            "sector": f"sector {ref}"}.get(kind, str(target))


def describe_event(event: Mapping[str, Any], viewer: int | None) -> str:
    kind = str(event.get("kind", ""))
    d: Mapping[str, Any] = event.get("data") or {}
    f = who(d)
    texts = {
        "arena_built": "the arena: sectors " + ", ".join(map(str, seq(d, "ring")))
                       + f"; sector {d.get('next_to_close')} closes first",
        "decks_formed": "loot decks of " + ", ".join(map(str, seq(d, "loot_decks")))
                        + " cards" + (f", an upgrade deck of {d.get('upgrade_deck')}"
                                      if d.get("upgrade_deck") else ""),
        "fighter_taken": f"{f} is {fighter_name(d.get('name'))} (side {d.get('side')}, "
                         f"{d.get('energy')} energy)",
        "cards_drawn": f"{f} draws {d.get('count')} card(s)",
        "cards_drawn_private": ("you draw " if viewer is not None and viewer == d.get("fighter")
                                else f"{f} draws ")
                               + ", ".join(action_card_name(str(c)) for c in seq(d, "cards")),
        "automa_placed": f"the Automa ({f}) starts in sector {d.get('sector')}",
        "cards_chosen": f"{f} has chosen 2 cards",
        "cards_chosen_private": f"you chose {action_card_name(str(d.get('top')))} over "
                                f"{action_card_name(str(d.get('bottom')))}",
        "cards_revealed": "cards revealed: " + "; ".join(
            f"fighter {r.get('fighter')} initiative {r.get('initiative')}"
            for r in seq(d, "rows") if isinstance(r, Mapping)),
        "landed": f"{f} lands in sector {d.get('sector')}",
        "moved": f"{f} moves to sector {d.get('sector')}",
        "action": f"{f} performs {dict(d.get('action') or {}).get('type', 'an action')}",
        "attack_declared": f"{f} attacks {', '.join(target_text(t) for t in seq(d, 'targets'))}"
                           f" with {card_name(d.get('weapon'))} ({d.get('dice')} dice)",
        "attack_roll": f"{f} rolls {', '.join(map(str, seq(d, 'dice')))}",
        "defense_roll": f"{f} defends: {', '.join(map(str, seq(d, 'dice')))}",
        "reroll": f"{f} rerolls ({d.get('by')}): {', '.join(map(str, seq(d, 'dice')))}",
        "dice_changed": f"{f}'s dice are now {', '.join(map(str, seq(d, 'dice')))}",
        "effect_used": f"{f} uses {d.get('effect')}",
        "attack_result": f"{f} deals {d.get('damage')} damage to {target_text(d.get('target'))}",
        "damage": f"{f} loses a {d.get('token')} health token"
                  + (f" to fighter {d.get('by')}" if d.get("by") is not None else ""),
        "bot_destroyed": f"{f} destroys the bot in sector {d.get('sector')}",
        "energy": f"{f} now has {d.get('energy')} energy",
        "leader": f"{f} takes the leader token",
        "turn": f"{f}'s turn",
        "round": f"round {d.get('round')} begins",
        "game_over": f"the game is over: {d.get('reason')}",
        "eliminated": f"{f} is eliminated",
        "resigned": f"{f} resigns",
        "maintenance": f"{f} goes for maintenance",
        "sector_closing": "the last two sectors shake" if d.get("final")
        else f"sector {d.get('sector')} closes",
        "searched": f"{f} searches sector {d.get('sector')} ({d.get('looked')} cards)",
        "loot_seen": f"{f} looks at {', '.join(card_name(c) for c in seq(d, 'cards'))}",
        "equipment_laid": f"{f} lays out {card_name(d.get('card'))}",
        "supply_tucked": f"{f} tucks "
                         + (card_name(d.get("card")) if "card" in d else  # events before
                            "a supply (" + "/".join(map(str, seq(d, "symbols"))) + ")")
                         + f" under {card_name(d.get('under'))}",
        "supply_tucked_private": f"you tuck {card_name(d.get('card'))} under "
                                 f"{card_name(d.get('under'))}",
        "upgrade_taken": f"{f} takes the upgrade {card_name(d.get('card'))}",
        "trophy_equipment": f"{f} takes {len(seq(d, 'cards'))} equipment card(s) from "
                            f"fighter {d.get('from')}",
        "ability": f"{f} uses {d.get('ability')}",
    }
    if kind in texts:
        return texts[kind]
    details = ", ".join(f"{k} {v}" for k, v in sorted(d.items()))
    return f"{kind.replace('_', ' ')}" + (f": {details}" if details else "")


def describe_action(action: Mapping[str, Any], view: Any) -> str:
    t = str(action.get("type"))
    pay = f" (pay with {action['pay'].replace(':', ' ')})" if action.get("pay") else ""
    if t == "choose_cards":
        top, bottom = action["top"], action["bottom"]
        return (f"play {action_card_name(top)} ({top}) over {action_card_name(bottom)} "
                f"({bottom}) covering its {action['cover']}"
                f" half" + (" (top turned)" if action.get("top_rotated") else "")
                + (" (bottom turned)" if action.get("bottom_rotated") else ""))
    if t == "attack":
        return (f"attack {target_text(action['target'])} with {card_name(action['weapon'])}"
                + (" after hooking it in" if action.get("pull") else ""))
    if t in ("move", "land", "dash", "dodge"):
        return f"{t} to sector {action.get('sector')}"
    if t in ("boost", "effect"):
        return f"use {action.get('effect')}{pay}"
    if t == "reroll":
        return f"reroll dice {action.get('dice')} ({action.get('by')})"
    if t == "place":
        where = {"equipment": "as equipment", "supply": f"under {card_name(action.get('under'))}",
                 "discard": "in the discard pile"}[str(action.get("as"))]
        on = f" on top of {card_name(action['on'])}" if action.get("on") else ""
        return f"lay {card_name(action.get('card'))} {where}{on}"
    if t == "keep":
        return "keep " + " and ".join(card_name(c) for c in action.get("cards", []))
    if t == "take_equipment":
        return "take " + (", ".join(card_name(c) for c in action.get("cards", [])) or "nothing")
    if t == "evacuate":
        return f"evacuate to sector {action.get('sector')}" + \
            (" with Manoeuvre C" if action.get("manoeuvre_c") else "")
    if t == "assign_blocks":
        return f"full blocks: {action.get('on_crits')} on critical hits, the rest on normal hits"
    if t == "gain_energy":
        return f"gain {action.get('amount')} energy"
    if t == "choose_upgrade":
        return f"keep the upgrade {card_name(action.get('card'))}"
    if t == "ability":
        return f"use {action.get('ability')}" + \
            (f" to sector {action['sector']}" if "sector" in action else "")
    return t.replace("_", " ")


def render(view: Mapping[str, Any], viewer: int | None) -> Any:
    fighters = view.get("fighters", [])
    ring = Table(title=f"NEON {view.get('mode')}: round {view.get('round')}/{view.get('rounds')}"
                       f", {view.get('phase')}")
    for col in ("sector", "name", "bot", "search", "fighters"):
        ring.add_column(col)
    for s in view.get("ring", []):
        here = [f"{fighter_name(f['name'])} ({f['fighter']})" for f in fighters
                if f.get("sector") == s["sector"] and not f.get("eliminated")]
        ring.add_row(str(s["sector"]), s["name"], s.get("bot") or "-",
                     str(s.get("search_tokens", 0)), ", ".join(here))
    people = Table(title="Fighters")
    for col in ("#", "fighter", "side", "sector", "energy", "health", "shields", "equipment",
                "trophies"):
        people.add_column(col)
    for f in fighters:
        status = "eliminated" if f.get("eliminated") else \
            ("ship" if f.get("sector") is None else str(f.get("sector")))
        people.add_row(str(f["fighter"]) + (" *" if view.get("leader") == f["fighter"] else ""),
                       fighter_name(f["name"]), f.get("side", ""), status, str(f.get("energy")),
                       str(f.get("health")), str(f.get("shields", 0)),
                       ", ".join(card_name(e["card"]) for e in f.get("equipment", [])),
                       str(sum(f.get("trophies", []))))
    parts: list[Any] = [ring, people]
    if viewer is not None and viewer < len(fighters):
        me = fighters[viewer]
        hand = ", ".join(card_text(c) for c in me.get("hand", []))
        row = " | ".join("/".join(h) for h in me.get("row", []))
        parts.append(Text(f"Your hand: {hand or '-'}   Your row: {row or '-'}"))
    return Group(*parts)


def card_text(card: str) -> str:
    if card not in ACTION_CARDS:
        return card
    c = ACTION_CARDS[card]
    return f"{action_card_name(card)} ({card}, initiative {c.initiative[0]}/{c.initiative[1]})"


def engine_places(outcome: Mapping[str, Any]) -> list[tuple[int, str, Any]]:
    """The Automa's place and score (``breakdown.automa``), when it played."""
    automa = (outcome.get("breakdown") or {}).get("automa")
    if isinstance(automa, Mapping) and isinstance(automa.get("rank"), int):
        return [(automa["rank"], "the Automa", automa.get("score"))]
    return []
