"""Neon Reign for people and client authors: the contract's Presentation, as functions.

Everything here works from served JSON (views, projected events, actions) and the public
content pack, never from engine state, so a client holding only what the API serves could
do the same. Card names are derived from the printed card (the rulebook names no cards).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .cards import BUTTON, JOYSTICK, Card, Hero
from .content import (
    ALL_HEROES,
    CARDS,
    COMBOS,
    COMPUTER_CARDS,
    COMPUTER_HEROES,
    CONTENT_VERSION,
    DECK_NAMES,
    DECKS_BY_PACK,
    HEROES,
)

JSON = Any
BUTTON_NAMES = {"red": "Neon Punch", "blue": "Chrome Kick", "green": "Circuit Jab",
                "yellow": "Volt Chop"}
STICK_NAMES = {"up": "Rising Star", "down": "Guard Stance", "right": "Dash Cancel",
               "left": "Sweep"}
COUNTER_NAMES = {"throw": "Throw", "block": "Block", "combo_breaker": "Combo Breaker"}
EFFECT_WORDS = {"stars": "gain {n} Star(s)", "shields": "gain {n} Shield(s)",
                "heal": "heal {n}", "strike": "Strike {n}", "draw": "draw {n} card(s)",
                "recycle_throw": "put a Throw from your discard pile into your hand",
                "damage": "{n} damage"}
COUNTER_TEXT = {
    "throw": "Removes one of the Attacker's played Joysticks.",
    "block": "Removes one of the Attacker's played Buttons.",
    "combo_breaker": "Stops all Universal Combos and lets you play a single Button when "
                     "Defending (outside the 2-card limit).",
}
ABILITY_TEXT = {
    "button_colour_bonus": "+{amount} damage for every {colour} Button this hero plays",
    "joystick_star_bonus": "+{amount} Star(s) for every {direction} Joystick this hero plays",
    "shield_on_block": "+{amount} Shield(s) for every Block this hero plays",
    "strike_on_throw": "Strike {amount} for every Throw this hero plays",
    "heal_on_recover": "heals {amount} on every Recover",
    "combo_damage_bonus": "+{amount} damage for every Universal Combo that fires",
    "star_on_damage_taken": "+{amount} Star(s) each time damage removes health",
    "defend_with_buttons": "may play Buttons when Defending",
    "none": "no Hero Ability",
}
PLAY_WORDS = {"attack": "Attack only", "defend": "Defend only", "either": "Attack or Defend"}


# -- content --------------------------------------------------------------------------------
def card_name(card_id: str) -> str:
    c = CARDS.get(card_id)
    if c is None:
        return card_id
    if c.kind == BUTTON:
        return BUTTON_NAMES.get(c.colour, "Button")
    if c.kind == JOYSTICK:
        return ("Recovery Stance" if c.play == "defend"
                else STICK_NAMES.get(c.direction, "Joystick"))
    return COUNTER_NAMES.get(c.kind, c.kind)


def effects_text(effects: Mapping[str, int] | Sequence[tuple[str, int]]) -> str:
    items = effects.items() if isinstance(effects, Mapping) else effects
    return ", ".join(EFFECT_WORDS.get(k, k + " {n}").format(n=n) for k, n in items)


def card_text(c: Card) -> str:
    if c.kind == BUTTON:
        return f"Deals {c.damage} damage."
    if c.kind == JOYSTICK:
        return effects_text(c.effects).capitalize() + "."
    return COUNTER_TEXT.get(c.kind, "")


def card_label(card_id: str) -> str:
    """A card as a menu shows it: "Neon Punch (red, 4 damage)"."""
    c = CARDS.get(card_id)
    if c is None:
        return card_id
    if c.kind == BUTTON:
        return f"{card_name(card_id)} ({c.colour}, {c.damage} damage)"
    if c.kind == JOYSTICK:
        return f"{card_name(card_id)} ({c.direction} Joystick: {effects_text(c.effects)})"
    return card_name(card_id)


def ability_text(h: Hero) -> str:
    a = h.ability
    return ABILITY_TEXT.get(a.type, a.type).format(amount=a.amount, colour=a.colour,
                                                   direction=a.direction)


def hero_json(h: Hero) -> dict[str, Any]:
    return {"id": h.id, "name": h.name, "star_limit": h.star_limit,
            "star_power": dict(h.star_power),
            "star_power_text": f"At {h.star_limit} Stars: {effects_text(h.star_power)} "
                               "(cannot be blocked, prevented or Shielded)",
            "ability": {"type": h.ability.type, "colour": h.ability.colour,
                        "direction": h.ability.direction, "amount": h.ability.amount},
            "ability_text": ability_text(h)}


def _card_json(c: Card) -> dict[str, Any]:
    return {"id": c.id, "name": card_name(c.id), "kind": c.kind, "play": c.play,
            "play_text": PLAY_WORDS.get(c.play, c.play), "colour": c.colour or None,
            "damage": c.damage if c.kind == BUTTON else None,
            "direction": c.direction or None, "effects": dict(c.effects),
            "text": card_text(c)}


def content() -> JSON:
    """The whole content pack as JSON: decks, every card, heroes, Computer deck, combos."""
    computer = {
        cpu_id: {"id": cpu_id,
                 "attack": [_card_json(v) for v in cpu.attack],
                 "defend": dict(cpu.defend),
                 "defend_text": effects_text({k: v for k, v in cpu.defend})}
        for cpu_id, cpu in sorted(COMPUTER_CARDS.items())}
    virtual = {v.id for cpu in COMPUTER_CARDS.values() for v in cpu.attack}
    return {
        "content_version": CONTENT_VERSION,
        "packs": {version: {deck: {"name": DECK_NAMES[deck], "cards": list(cards)}
                            for deck, cards in decks.items()}
                  for version, decks in DECKS_BY_PACK.items()},
        "cards": {cid: _card_json(c) for cid, c in sorted(CARDS.items()) if cid not in virtual},
        "heroes": {hid: hero_json(h) for hid, h in sorted(HEROES.items())},
        "computer_heroes": {hid: hero_json(h) for hid, h in sorted(COMPUTER_HEROES.items())},
        "computer_deck": computer,
        "universal_combos": [{"id": c["id"], "name": c["name"], "text": c.get("text", "")}
                             for c in COMBOS],
    }


# -- schemas --------------------------------------------------------------------------------
_INT = {"type": "integer"}
_IDS = {"type": "array", "items": {"type": "string"}}
_HERO = {"type": ["object", "null"], "required": ["id", "name", "star_limit", "star_power",
                                                  "ability"],
         "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                        "star_limit": _INT, "star_power": {"type": "object"},
                        "ability": {"type": "object"}}}
_SIDE = {
    "type": "object",
    "required": ["side", "computer", "hero", "health", "stars", "shields", "hand_count",
                 "deck_count", "discard", "bench", "fallen"],
    "properties": {
        "side": _INT, "computer": {"type": "boolean"}, "hero": _HERO,
        "health": {"type": "integer", "minimum": 0, "maximum": 25},
        "stars": {"type": "integer", "minimum": 0},
        "shields": {"type": "integer", "minimum": 0, "maximum": 4},
        "hand_count": _INT, "deck_count": _INT, "discard": _IDS, "bench": _IDS, "fallen": _IDS,
        "hand": {**_IDS, "description": "only in the view of this side's own seat"},
        "heroes": _IDS, "picked": {"type": "boolean"}, "my_pick": {"type": ["string", "null"]},
    },
    "additionalProperties": False,
}


def view_schema() -> JSON:
    """JSON Schema of a view (``ENGINE.view``) of any seat or of a spectator."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Neon Reign view",
        "type": "object",
        "required": ["mode", "you", "phase", "attacker", "turn", "game", "decks", "in_play",
                     "sides", "arcade_tokens", "results", "winner", "reason"],
        "properties": {
            "mode": {"enum": ["single", "best-of-three", "hero-match", "solo"]},
            "difficulty": {"enum": ["training", "normal", "hard", None]},
            "you": {"type": ["integer", "null"], "description": "the viewer's seat"},
            "phase": {"enum": ["pick", "turn", "defend", "shields", "over"]},
            "attacker": _INT, "turn": _INT, "game": _INT, "decks": _IDS,
            "in_play": {**_IDS, "description": "the Attacker's played cards (public)"},
            "sides": {"type": "array", "minItems": 2, "maxItems": 2, "items": _SIDE},
            "arcade_tokens": {"type": "array", "items": _INT},
            "results": {"type": "array", "items": {"type": "object"}},
            "winner": {"type": ["integer", "null"]}, "reason": {"type": "string"},
            "engine_version": {"type": "string"},
            "pending_damage": {"type": ["object", "null"],
                               "properties": {"side": _INT, "amount": _INT, "most": _INT,
                                              "source": {"type": "string"}}},
        },
        "additionalProperties": False,
    }


EVENT_KINDS = ("attacked", "defended", "passed", "countered", "combos", "shields", "healed",
               "struck", "strike_missed", "drew", "drew_count", "recycled", "recycled_throw",
               "stars", "star_power", "damage", "shield_decision", "recovered", "ko",
               "arcade_tokens", "game_started", "hero_enters", "hero_picked",
               "hero_pick_made", "heroes_revealed", "computer_attacks", "computer_defends",
               "computer_passes", "resigned", "heroes_dealt")


def event_schema() -> JSON:
    """JSON Schema of an engine event as served: ``{"kind", "data"}``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Neon Reign event",
        "type": "object",
        "required": ["kind", "data"],
        "properties": {
            "kind": {"enum": list(EVENT_KINDS)},
            "data": {"type": "object", "properties": {
                "side": _INT, "cards": _IDS, "targets": _IDS, "removed": _IDS,
                "amount": _INT, "prevented": _INT, "lost": _INT, "health": _INT,
                "gained": _INT, "shields": _INT, "healed": _INT, "count": _INT,
                "card": {"type": "string"}, "source": {"type": "string"},
                "hero": {"type": "string"}, "effects": {"type": "object"},
                "combos": _IDS, "knocked_out": {"type": "array", "items": _INT},
                "reason": {"type": "string"}, "game": _INT, "first_player": _INT,
                "heroes": _IDS, "computer": {"type": "boolean"}}},
            "visible_to": {"type": ["array", "null"], "items": _INT},
        },
    }


# -- words ----------------------------------------------------------------------------------
def _who(side: Any, viewer: int | None) -> str:
    if side is None:
        return "someone"
    return "you" if side == viewer else f"seat {side}"


def _does(who: str, verb: str, third: str = "") -> str:
    """"You attack", "Seat 1 attacks": the subject and its verb, agreeing."""
    return f"{who.capitalize()} {verb if who == 'you' else third or verb + 's'}"


def _whose(who: str) -> str:
    return "your" if who == "you" else f"{who}'s"


def _cards(ids: Sequence[str]) -> str:
    return " + ".join(card_label(i) for i in ids) or "nothing"


def _hero_name(hero_id: Any) -> str:
    h = ALL_HEROES.get(str(hero_id))
    return h.name if h else str(hero_id)


def describe_event(event: Mapping[str, JSON], viewer: int | None) -> str:
    """One short line for a served event; it says nothing the event does not hold."""
    kind = str(event.get("kind", ""))
    d: Mapping[str, Any] = event.get("data") or {}
    who = _who(d.get("side"), viewer)
    source = f" ({d['source']})" if d.get("source") else ""
    lines = {
        "attacked": lambda: f"{_does(who, 'attack')} with {_cards(d.get('cards', []))}",
        "defended": lambda: f"{_does(who, 'defend')} with {_cards(d.get('cards', []))}",
        "passed": lambda: f"{_does(who, 'do', 'does')} not defend",
        "countered": lambda: (f"Counters remove {_cards(d.get('removed', []))}"
                              + (" and stop every Universal Combo"
                                 if d.get("combo_breakers") else "")),
        "combos": lambda: f"Universal Combos for {who}: {', '.join(d.get('combos', []))}",
        "shields": lambda: f"{_does(who, 'gain')} {d.get('gained', 0)} Shield(s){source}",
        "healed": lambda: f"{_does(who, 'heal')} {d.get('healed', 0)}{source}, "
                          f"health {d.get('health')}",
        "struck": lambda: (f"Strike{source}: {_whose(who)} top card "
                           f"{card_label(str(d.get('card')))} is discarded"),
        "strike_missed": lambda: (f"Strike{source}: {_does(who, 'have', 'has').lower()} no card "
                                  "left to discard"),
        "drew": lambda: f"{_does(who, 'draw')} {_cards(d.get('cards', []))}{source}",
        "drew_count": lambda: f"{_does(who, 'draw')} {d.get('count', 0)} card(s){source}",
        "recycled": lambda: f"{_does(who, 'take')} {card_label(str(d.get('card')))} back",
        "recycled_throw": lambda: f"{_does(who, 'take')} a Throw back into hand",
        "stars": lambda: f"{_does(who, 'gain')} {d.get('gained', 0)} Star(s){source}",
        "star_power": lambda: f"{_hero_name(d.get('hero'))}'s Star Power fires for {who}: "
                              f"{effects_text(d.get('effects') or {})}",
        "damage": lambda: (f"{_does(who, 'take')} {d.get('lost', 0)} damage{source}"
                           + (f", {d['prevented']} prevented by Shields"
                              if d.get("prevented") else "")
                           + f", health {d.get('health')}"),
        "shield_decision": lambda: f"{d.get('amount')} damage{source} is about to hit {who}: "
                                   "Shields may prevent it",
        "recovered": lambda: (f"{_does(who, 'Recover')} and {'draw' if who == 'you' else 'draws'}"
                              f" {d.get('drew', 0)} card(s)"),
        "ko": lambda: (f"KO of {' and '.join(_who(s, viewer) for s in d.get('knocked_out', []))}"
                       f": {d.get('reason', '')}"),
        "arcade_tokens": lambda: f"Arcade tokens now {d.get('tokens')}",
        "game_started": lambda: f"Game {d.get('game')} starts; seat {d.get('first_player')} "
                                "attacks first",
        "hero_enters": lambda: f"{_hero_name(d.get('hero'))} enters the fight for {who}",
        "hero_picked": lambda: f"{_does(who, 'pick')} {_hero_name(d.get('hero'))}",
        "hero_pick_made": lambda: f"{who.capitalize()} picked a starting hero",
        "heroes_revealed": lambda: "Starting heroes: " + " vs ".join(
            _hero_name(h) for h in d.get("heroes", [])),
        "computer_attacks": lambda: f"The Computer flips {d.get('flipped')} and attacks with "
                                    f"{_cards(d.get('cards', []))}",
        "computer_defends": lambda: f"The Computer defends with {', '.join(d.get('flipped', []))}",
        "computer_passes": lambda: f"The Computer passes: {d.get('reason', '')}",
        "resigned": lambda: f"{_does(who, 'resign')}",
        "heroes_dealt": lambda: _heroes_dealt(d, who),
    }
    line = lines.get(kind)
    return line() if line else f"{kind.replace('_', ' ')}"


def _heroes_dealt(d: Mapping[str, Any], who: str) -> str:
    """"Seat 1 takes Ruin (dealt at random)", "The Computer takes ...", "You take Volt and
    Kira (chosen)" (a Hero Match's two, one of which each seat then picks in secret)."""
    names = " and ".join(_hero_name(h) for h in d.get("heroes", []))
    source = f" ({d['source']})" if d.get("source") else ""
    subject = "The Computer takes" if d.get("computer") else _does(who, "take")
    return f"{subject} {names}{source}"


def describe_action(action: Mapping[str, JSON], view: JSON) -> str:
    """A legal action as a menu entry."""
    kind = action.get("type")
    if kind == "attack":
        return f"Attack with {_cards(action.get('cards', []))}"
    if kind == "defend":
        text = f"Defend with {_cards(action.get('cards', []))}"
        if action.get("targets"):
            text += f", removing {_cards(action['targets'])}"
        return text
    if kind == "pass":
        return "Do not defend"
    if kind == "recover":
        return "Recover: draw up to 7 cards, end your turn"
    if kind == "shields":
        n = int(action.get("spend", 0))
        return f"Spend {n} Shield(s) (prevent {n} damage)" if n else "Keep your Shields"
    if kind == "pick_hero":
        return f"Start with {_hero_name(action.get('hero'))}"
    if kind == "resign":
        return "Resign the match"
    return str(kind)


# -- the table ------------------------------------------------------------------------------
def _side_panel(side: Mapping[str, Any], view: Mapping[str, Any], viewer: int | None) -> Panel:
    hero = side.get("hero") or {}
    index = side.get("side")
    title = ("the Computer" if side.get("computer") else _who(index, viewer)).capitalize()
    lines = Text()
    lines.append(f"{hero.get('name', '(hero not picked yet)')}\n", style="bold")
    lines.append(f"Health {side.get('health')}/25   Stars {side.get('stars')}/"
                 f"{hero.get('star_limit', '?')}   Shields {side.get('shields')}/4\n")
    lines.append(f"Hand {side.get('hand_count')}   Deck {side.get('deck_count')}   "
                 f"Discard {len(side.get('discard', []))}")
    if side.get("bench") or side.get("heroes"):
        lines.append("\nHeroes: " + ", ".join(_hero_name(h) for h in
                                              side.get("bench") or side.get("heroes")))  # type: ignore[union-attr]
    turn = " (attacking)" if view.get("attacker") == index and view.get("phase") != "over" else ""
    return Panel(lines, title=title + turn)


def _hand_table(hand: Sequence[str]) -> Table:
    table = Table(title="Your hand", expand=False)
    for column in ("card", "name", "play", "printed"):
        table.add_column(column)
    for card_id in hand:
        c = CARDS.get(card_id)
        printed = card_text(c) if c else ""
        table.add_row(card_id, card_name(card_id), PLAY_WORDS.get(c.play, "") if c else "",
                      printed)
    return table


def render(view: JSON, viewer: int | None) -> Any:
    """A ``rich`` renderable of the table as ``viewer`` sees it."""
    parts: list[Any] = []
    status = f"{view.get('mode')} - game {view.get('game')}, turn {view.get('turn')}"
    if view.get("phase") == "over":
        status += f" - over: {view.get('reason')}"
    else:
        status += f" - seat {view.get('attacker')} attacks ({view.get('phase')})"
    if any(view.get("arcade_tokens", [])):
        status += f" - Arcade tokens {view.get('arcade_tokens')}"
    parts.append(Text(status, style="bold"))
    grid = Table.grid(expand=True)
    grid.add_column()
    grid.add_column()
    grid.add_row(*[_side_panel(s, view, viewer) for s in view.get("sides", [])])
    parts.append(grid)
    if view.get("in_play"):
        parts.append(Text("In play: " + _cards(view["in_play"])))
    pending = view.get("pending_damage")
    if pending:
        parts.append(Text(f"{pending['amount']} damage ({pending['source']}) is about to hit "
                          f"{_who(pending['side'], viewer)}"))
    for side in view.get("sides", []):
        if "hand" in side and side.get("side") == viewer:
            parts.append(_hand_table(side["hand"]))
    return Group(*parts)


def engine_places(outcome: Mapping[str, JSON]) -> list[tuple[int, str, JSON]]:
    """The Computer's place in Solo (``breakdown.computer``): 1st when it won or both
    fell (a double KO), else 2nd; its score is its health, as the seat's is."""
    breakdown = outcome.get("breakdown") or {}
    if not isinstance(breakdown, Mapping) or breakdown.get("computer") is not True:
        return []
    health = breakdown.get("health") or []
    place = 1 if breakdown.get("winner") in ("computer", "double KO") else 2
    return [(place, "the Computer", health[1] if len(health) > 1 else None)]
