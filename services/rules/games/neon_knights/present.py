"""Neon Knights: 2086 for people and client authors: the contract's Presentation.

Works on served JSON (views, projected events, actions) and the public content pack only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .content import (
    CONTENT_VERSION,
    DIE_FACES,
    FAN_BETS,
    FINISH_TILE,
    IMPLANTS,
    PARTS,
    SHOP_PRICES,
    SPONSORS,
    STAGES,
    TILES,
    UPGRADES,
    speed_colour,
)

JSON = Any
ABILITY_WORDS = {"none": "", "repair": "wrench: repair for 5 chips per AP", "reroll": "hand: re-roll dice",
                 "remove_die": "crossed die: remove a die", "plus2": "+2: accelerate or slow down 2 more"}
GOAL_WORDS = {
    "finish_top": "finish in the top {n}", "finish_first": "finish first", "fans_at_least": "end with {n}+ fans",
    "final_speed_at_least": "end at speed {n}+", "final_speed_at_most": "finish at speed {n} or less",
    "no_crash": "do not crash", "stunts_at_least": "{n}+ stunt dice", "slams_at_least": "{n}+ slams",
    "weapon_used": "use a weapon", "reach_speed": "reach speed {n}", "armor_at_least": "end with {n}+ armour",
}
EFFECT_WORDS = {
    "finish_vp": "+{n} VP at each race's end", "max_ap": "+{n} Max AP", "accel": "+{n} acceleration",
    "decel": "+{n} deceleration", "stunt_fans": "+{n} fan on a stunt", "payday_chips": "+{n} chips on Pay Day",
    "slam_fans": "+{n} fan on a blank slam", "free_repair": "+{n} free repair at speed 2-3",
    "crash_armor": "armour returns to 1+{n} after a crash", "bet_chips": "+{n} chips per Fan Bet won",
}


def name_of(card: str | None) -> str:
    if card is None:
        return "-"
    for table in (PARTS, UPGRADES, SPONSORS, IMPLANTS, FAN_BETS, TILES, STAGES):
        if card in table:
            return str(table[card]["name"])
    return card


def part_text(part: str) -> str:
    p = PARTS[part]
    ability = ABILITY_WORDS[p["ability"]]
    return f"{p['name']} ({p['colour']}, Power {p['power']}, bonus {p['bonus']}{', ' + ability if ability else ''})"


def car_part_text(part: str | None) -> str:
    """A part in a car's slot, short: name, Power and bonus as printed."""
    if part is None or part not in PARTS:
        return name_of(part)
    p = PARTS[part]
    return f"{p['name']} P{p['power']}+{p['bonus']}"


def card_text(card: str) -> str:
    """Any card a row of the shop may hold, with its printed values."""
    if card in PARTS:
        return part_text(card)
    if card in UPGRADES:
        return upgrade_text(card)
    if card in IMPLANTS:
        return implant_text(card)
    return name_of(card)


def upgrade_text(uid: str) -> str:
    u = UPGRADES[uid]
    if u["kind"] == "weapon":
        return f"{u['name']} (weapon: {u['targets']} target(s), range {u['range']}, {u['damage']} damage, {u['price']} chips)"
    if u["kind"] == "shield":
        what = f"reduce damage by {u['amount']}" if u["effect"] == "reduce" else "remove a hack"
        return f"{u['name']} (shield: {what}, {u['price']} chips)"
    if u["effect"] == "emp":
        return (f"{u['name']} (special: raise or lower {u['targets']} target(s)' speed by {u['amount']}, "
                f"range {u['range']}, {u['price']} chips)")
    words = {"patch": "repair {n} AP", "boost": "+{n} speed", "hype": "+{n} fan"}[u["effect"]]
    return f"{u['name']} (special: {words.format(n=u['amount'])}, {u['price']} chips)"


def bet_text(bet: str) -> str:
    b = FAN_BETS[bet]
    reward = " and ".join(x for x in (f"{b['reward_chips']} chips" if b["reward_chips"] else "",
                                      f"{b['reward_vp']} VP" if b["reward_vp"] else "") if x)
    return f"{b['name']}: {GOAL_WORDS[b['goal']].format(n=b['amount'])} -> {reward}"


def implant_text(iid: str) -> str:
    i = IMPLANTS[iid]
    return f"{i['name']} L{i['level']} ({EFFECT_WORDS[i['effect']].format(n=i['amount'])})"


def content() -> JSON:
    return {
        "content_version": CONTENT_VERSION,
        "parts": [{**p, "text": part_text(p["id"])} for p in PARTS.values()],
        "shop_prices": list(SHOP_PRICES),
        "sponsors": list(SPONSORS.values()),
        "upgrades": [{**u, "text": upgrade_text(u["id"])} for u in UPGRADES.values()],
        "implants": [{**i, "text": implant_text(i["id"])} for i in IMPLANTS.values()],
        "fan_bets": [{**b, "text": bet_text(b["id"])} for b in FAN_BETS.values()],
        "stages": list(STAGES.values()),
        "tiles": [*TILES.values(), FINISH_TILE],
        "damage_die": list(DIE_FACES),
    }


def view_schema() -> JSON:
    player = {"type": "object", "required": ["seat", "chips", "vp", "fans", "ap", "max_ap", "speed", "car",
                                             "hand", "bets", "implant_hand", "reputation"],
              "properties": {"hand": {"type": ["array", "integer"]}, "bets": {"type": ["array", "integer"]},
                             "implant_hand": {"type": ["array", "integer"]},
                             "bets_up": {"type": "array", "items": {"type": "string"},
                                         "description": "Fan Bets completed during this race, face up "
                                         "and public; rewarded after the race (engine 0.4.0 on)"},
                             "chips": {"type": "integer", "minimum": 0, "maximum": 60}}}
    return {"type": "object", "required": ["mode", "phase", "race", "players", "order", "grid", "rows", "decks"],
            "properties": {"players": {"type": "array", "items": player},
                           "decks": {"type": "object", "additionalProperties": {"type": "integer"}},
                           "house": {"type": "object", "description": "house rules in play, e.g. "
                                     "weapons_during_movement (absent: none)"},
                           "phase": {"enum": ["draft", "prep", "track", "actions", "speeds", "race",
                                              "race_over", "after_race", "over"]}}}


def event_schema() -> JSON:
    return {"type": "object", "required": ["kind", "data"],
            "properties": {"kind": {"type": "string"}, "data": {"type": "object"}}}


def _who(seat: Any) -> str:
    return f"seat {seat}"


def describe_event(event: Mapping[str, JSON], viewer: int | None) -> str:
    kind, d = event.get("kind", ""), event.get("data", {})
    who = _who(d.get("seat"))
    words = {
        "implant_drafted": lambda: f"you drafted {name_of(d.get('implant'))}",
        "draft_pick_made": lambda: f"{who} picked an implant",
        "draft_passed": lambda: f"implants passed left ({d.get('left')} each remain)",
        "fan_bet_dealt": lambda: f"you got the Fan Bet {bet_text(d['bet'])}" if d.get("bet") else "a Fan Bet dealt",
        "fan_bet_drawn": lambda: f"{who} drew a Fan Bet",
        "fan_bet_discarded": lambda: f"{who} discarded a Fan Bet",
        "fan_bet_won": lambda: f"{who} won the Fan Bet {name_of(d.get('bet'))}",
        "fan_bet_face_up": lambda: f"{who} completed the Fan Bet {bet_text(d['bet'])} and turns it face up "
                                   "(the reward comes after the race)" if d.get("bet") in FAN_BETS
                                   else f"{who} turns a Fan Bet face up",
        "track_builder": lambda: f"{who} builds the track for race {d.get('race')}",
        "tile_placed": lambda: f"{who} laid the tile {name_of(d.get('tile'))}",
        "stage_drawn": lambda: f"stage card {name_of(d.get('stage'))} sets the track",
        "day_began": lambda: f"day {d.get('day')} begins" + (" (Pay Day)" if d.get("day") == 6 else ""),
        "passed": lambda: f"{who} passed the day",
        "sponsored": lambda: f"{who} signed with {name_of(d.get('sponsor'))}",
        "upgrade_bought": lambda: f"{who} bought {name_of(d.get('upgrade'))}",
        "repaired": lambda: f"{who} repaired {d.get('points')} AP" + (" for free" if d.get("free") else ""),
        "action_chosen": lambda: f"{who} chose {d.get('action')}",
        "part_sold": lambda: f"{who} sold {name_of(d.get('part'))}",
        "part_bought": lambda: f"{who} bought {name_of(d.get('part'))} for {d.get('price')} chips",
        "part_installed": lambda: f"{who} installed {name_of(d.get('part'))}",
        "implant_installed": lambda: f"{who} installed the implant {name_of(d.get('implant'))}",
        "paid": lambda: f"Pay Day: {who} earned {d.get('chips')} chips",
        "wealthy": lambda: f"{who} is Wealthy: " + ("stays at 60 chips" if d.get("choice") == "stay"
                                                    else f"trades 60 chips for reputation ({', '.join(d.get('companies', []))})"),
        "race_day": lambda: f"Race Day: race {d.get('race')}",
        "start_speed": lambda: f"{who} starts at speed {d.get('speed')}",
        "start_speed_chosen": lambda: f"you start at speed {d.get('speed')}",
        "start_speed_locked": lambda: f"{who} chose a starting speed",
        "start_speeds_revealed": lambda: f"starting speeds: {d.get('speeds')}",
        "race_started": lambda: "the race starts",
        "round_began": lambda: f"round {d.get('round')}: order {d.get('order')}",
        "speed_changed": lambda: f"{who} goes from speed {d.get('from')} to {d.get('to')}",
        "moved": lambda: f"{who} moves to row {d.get('row')}, lane {d.get('lane')}",
        "danger_check": lambda: f"{who} touches a {d.get('colour')} line and rolls {d.get('dice')}",
        "rerolled": lambda: f"{who} re-rolls with {name_of(d.get('part'))}: {d.get('dice')}",
        "die_removed": lambda: f"{who} removes a die with {name_of(d.get('part'))}: {d.get('dice')}",
        "stunt": lambda: f"{who} pulls a stunt: +{d.get('fans')} fan(s)",
        "damaged": lambda: f"{who} takes {d.get('damage')} damage, now speed {d.get('speed')}",
        "crashed": lambda: f"{who} crashes!",
        "finished": lambda: f"{who} crosses the finish line in place {d.get('place')}",
        "fired": lambda: f"{who} uses {name_of(d.get('upgrade'))} on {d.get('targets')}",
        "shielded": lambda: f"{who} raises {name_of(d.get('shield'))}",
        "hacked": lambda: f"{who} is hacked to speed {d.get('speed')}",
        "hit": lambda: f"{who} is hit for {d.get('damage')}",
        "no_armour": lambda: f"{who} runs out of armour: speed 2, armour back",
        "slam": lambda: f"slam! {d.get('seats')} on row {d.get('row')}",
        "slam_roll": lambda: f"{who} " + ("gains a fan from the slam" if d.get("damage") == 0
                                          else f"takes {d.get('damage')} from the slam"),
        "reactivated": lambda: f"{who} re-activates {', '.join(name_of(u) for u in d.get('upgrades', []))}",
        "race_result": lambda: "race over: " + ", ".join(f"{_who(r['seat'])} {r['place']}. +{r['vp']} VP"
                                                         for r in d.get("results", [])),
        "player_order": lambda: f"player order: {d.get('order')}",
        "implant_acquired": lambda: f"{who} takes a level {d.get('level')} implant",
        "implant_taken": lambda: f"you take {name_of(d.get('implant'))}",
        "cleaned_up": lambda: "clean up",
        "game_over": lambda: f"game over: VP {d.get('vp')}",
        "resigned": lambda: f"{who} resigned",
    }
    make = words.get(str(kind))
    return make() if make else str(kind)


def describe_action(action: Mapping[str, JSON], view: JSON) -> str:
    t = action.get("type")
    rows = (view or {}).get("rows", {})
    if t == "sponsor":
        slot = action.get("slot")
        return "Get sponsored from the deck" if slot == "deck" else \
            f"Get sponsored by {name_of(rows['sponsors'][slot])}" if rows else "Get sponsored"
    if t == "upgrade" and rows:
        text = f"Buy {upgrade_text(rows['upgrades'][action['slot']])}"
        return text + (f", replacing {name_of(action['replace'])}" if action.get("replace") else "")
    if t == "buy_part" and rows:
        return f"Buy {part_text(rows['parts'][action['slot']])} for {SHOP_PRICES[action['slot']]} chips"
    fixed = {"pass": "Pass the day", "shop": "Visit the shop / install parts", "draw_bet": "Draw a Fan Bet",
             "implants": "Install implants", "done": "Done", "keep_bets": "Keep your Fan Bets",
             "go": "Carry on", "accept": "Accept the dice", "acquire_pass": "Take no implant", "resign": "Resign"}
    if t in fixed:
        return fixed[str(t)]
    if t in ("sell", "install"):
        return f"{str(t).capitalize()} {part_text(action['part'])}"
    if t == "repair":
        return f"Repair {action['points']} AP for {5 * action['points']} chips"
    if t in ("free_repair", "pit_repair"):
        return f"Repair {action['points']} AP" + (" (free)" if t == "free_repair" else "")
    if t == "ability_repair":
        return f"Use {name_of(action['part'])} to repair {action['points']} AP ({action['part_to']})"
    if t in ("draft", "install_implant", "acquire"):
        return f"{'Draft' if t == 'draft' else 'Install' if t == 'install_implant' else 'Take'} {implant_text(action['implant'])}"
    if t == "discard_bet":
        return f"Discard {bet_text(action['bet'])}"
    if t == "tile":
        return f"Lay {name_of(action['tile'])}"
    if t == "start_speed":
        return f"Start at speed {action['speed']} ({speed_colour(action['speed'])})"
    if t == "speed":
        extra = f" using {name_of(action['part'])}" if action.get("part") else ""
        return f"Speed {action['to']} ({speed_colour(action['to'])}){extra}"
    if t == "fire":
        shift = f" ({action['shift']:+d} speed)" if action.get("shift") else ""
        return f"Use {name_of(action['upgrade'])} on {action['targets'] or 'yourself'}{shift}"
    if t == "step":
        return {0: "Move forward", -1: "Move diagonally left", 1: "Move diagonally right"}.get(action["dir"], "Move")
    if t == "reroll":
        return f"Re-roll dice {action['dice']} with {name_of(action['part'])} ({action['part_to']})"
    if t == "remove_die":
        return f"Remove die {action['die']} with {name_of(action['part'])} ({action['part_to']})"
    if t == "shield":
        return "Raise your shield" if action.get("use") else "Take it"
    if t == "wealthy":
        return "Stay at 60 chips" if action.get("choice") == "stay" else \
            f"Drop 60 chips for reputation: {', '.join(action.get('companies', []))}"
    return str(t)


def render(view: JSON, viewer: int | None) -> Any:
    head = Text(f"Neon Knights: 2086 - race {view['race']} of {view['races']} - {view['phase']} - day {view['day']}")
    table = Table(title="Drivers")
    for col in ("seat", "VP", "chips", "fans", "AP", "speed", "position", "car", "upgrades", "implants"):
        table.add_column(col)
    for p in view["players"]:
        car = ", ".join(f"{c[0].upper()}:{car_part_text(v)}" for c, v in p["car"].items())
        ups = ", ".join(f"{name_of(u['id'])}{'' if u['up'] else ' (down)'}"
                        for u in [p["weapon"], p["shield"], *p["specials"]] if u)
        table.add_row(f"{p['seat']}{' (you)' if p['seat'] == viewer else ''}{' (out)' if p['out'] else ''}",
                      str(p["vp"]), str(p["chips"]), str(p["fans"]), f"{p['ap']}/{p['max_ap']}", str(p["speed"]),
                      f"row {p['row']} lane {p['lane']}", car, ups, ", ".join(name_of(i) for i in p["implants"]))
    shop = Table(title="Rows")
    shop.add_column("row")
    shop.add_column("cards")
    for row, cards in view["rows"].items():
        shop.add_row(row, "; ".join(card_text(c) for c in cards))
    parts: list[Any] = [head, table, shop]
    face_up = [f"{_who(p['seat'])}: {bet_text(b)}" for p in view["players"] for b in p.get("bets_up", [])]
    if face_up:  # engine 0.4.0 on: Fan Bets completed during this race, public
        parts.append(Text("Face-up Fan Bets: " + "; ".join(face_up)))
    if viewer is not None and viewer < len(view["players"]):
        me = view["players"][viewer]
        if isinstance(me["hand"], list):
            parts.append(Text("Your hand: " + (", ".join(part_text(x) for x in me["hand"]) or "-")))
        if isinstance(me["bets"], list):
            parts.append(Text("Your Fan Bets: " + ("; ".join(bet_text(b) for b in me["bets"]) or "-")))
    return Group(*parts)
