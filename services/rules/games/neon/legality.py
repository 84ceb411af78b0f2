"""Reasons in words for refused actions; never revealing hidden information."""

from __future__ import annotations

from typing import Any

from services.rules.games.neon.combat import (
    attack_options,
    dice_at,
    opponents,
    target_sector,
    weapon_range,
)
from services.rules.games.neon.content import FIGHTERS, LOOT
from services.rules.games.neon.fighters import allies, can_use_abilities, token_at
from services.rules.games.neon.loot import search_cost
from services.rules.games.neon.ring import distance
from services.rules.games.neon.state import State
from services.rules.games.neon.turns import current_half

ROW_TYPES = {"move": "move", "attack": "attack", "search": "search", "defense": "defense",
             "gain_energy": "energy", "leadership": "leadership"}


def explain(s: State, seat: int, kind: str, action: dict[str, Any]) -> str:
    t = action.get("type")
    if kind == "turn":
        return explain_turn(s, seat, action)
    if kind == "land":
        return "you must first land from the landing ship in an open sector"
    if kind == "choose_cards":
        return "choose 2 different cards of your hand, a cover of left or right, two rotations"
    if kind.startswith("attack_") and action.get("pay") == "card" and \
            s.rules.card_pays_only_without_supply:
        return ("not a legal answer now: the card itself pays only when no supply of the "
                "needed type is left under it (and each equipment effect once per attack)")
    return f"{t!r} is not a legal answer to {kind.replace('_', ' ')} now"


def explain_turn(s: State, seat: int, action: dict[str, Any]) -> str:
    t = str(action.get("type"))
    half = current_half(s, seat)
    if t in ROW_TYPES and not any(o.startswith(ROW_TYPES[t]) for o in half):
        return f"actions go left to right: your next action is {' or '.join(half) or 'none'}"
    f = s.fighters[seat]
    if t == "search":
        return f"searching here costs {search_cost(s, seat)} energy and you have {f.energy}"
    if t == "attack":
        return explain_attack(s, seat, action)
    if t == "ability":
        if not can_use_abilities(s, seat):
            neko = token_at(s, "neko")
            if neko is not None and f.sector == neko[1]:
                return "the Neko token blocks other fighters' abilities in this sector"
            return "abilities cannot be used from the landing ship"
        return "you cannot use that ability now (energy, token already placed, or moment)"
    if t == "move":
        return "you can only move to an adjacent open sector"
    return "not a legal action now"


def explain_attack(s: State, seat: int, action: dict[str, Any]) -> str:
    target = str(action.get("target", ""))
    weapon = str(action.get("weapon", ""))
    if target.startswith("f:") and target[2:].isdigit() and int(target[2:]) < len(s.fighters):
        other = int(target[2:])
        if allies(s, seat, other):
            return "allies cannot attack each other in Coalition"
        if not s.fighters[other].on_arena:
            return "that fighter is not on the arena"
    if action.get("pull") or weapon == "howitzer":
        ability = "pull" if action.get("pull") else "howitzer"
        if FIGHTERS[s.fighters[seat].fighter].ability(ability) is None:
            return "your fighter has no such ability"
        if not can_use_abilities(s, seat):
            return "the Neko token blocks other fighters' abilities in this sector"
    if weapon != "base" and weapon != "howitzer" and \
            not any(e.card == weapon for e in s.fighters[seat].equipment):
        return "you have no such weapon laid out"
    known = dict(opponents(s, seat))
    if target in known and (weapon == "base" or weapon in LOOT):
        here = s.fighters[seat].sector
        sector = target_sector(s, target)
        if here is not None and sector is not None and \
                not dice_at(weapon_range(s, seat, weapon), distance(s.ring, here, sector)):
            return "the target is out of range of that weapon"
    if not attack_options(s, seat):
        return "there is nothing you can attack from here"
    return "not a legal attack: choose one of the listed weapon and target pairs"
