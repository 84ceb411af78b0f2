"""A fighter's turn: landing from the ship, the three actions of the row, on-turn abilities."""

from __future__ import annotations

from typing import Any

from services.rules.games.neon.combat import attack_options, declare
from services.rules.games.neon.content import FIGHTERS, UPGRADES
from services.rules.games.neon.fighters import (
    gain_energy,
    in_sector,
    spend_energy,
    token_at,
    usable_unique,
)
from services.rules.games.neon.loot import search, search_cost
from services.rules.games.neon.ring import neighbours
from services.rules.games.neon.sectors import enter
from services.rules.games.neon.state import Draft, State

Action = dict[str, Any]
PLACE_TOKEN = ("neko", "smoke", "trap")


def current_half(s: State, idx: int) -> tuple[str, ...]:
    f = s.fighters[idx]
    return f.row[f.step] if f.step < len(f.row) else ()


def move_targets(s: State, idx: int) -> tuple[int, ...]:
    here = s.fighters[idx].sector
    if here is None:
        return ()
    if in_sector(s, idx, "railway"):
        return tuple(n for n in s.ring if n != here)
    return neighbours(s.ring, here)


def half_actions(s: State, idx: int, option: str, weapon: Any = None,
                 target: Any = None) -> list[Action]:
    """The answers of a row option (``weapon``, ``target``: see ``attack_options``)."""
    f = s.fighters[idx]
    if option == "move":
        return [{"type": "move", "sector": n} for n in move_targets(s, idx)]
    if option == "attack":
        return attack_options(s, idx, weapon, target)
    if option == "search":
        return [{"type": "search"}] if f.energy >= search_cost(s, idx) else []
    if option == "defense":
        return [{"type": "defense"}]
    if option.startswith("energy"):
        return [{"type": "gain_energy", "amount": int(option[6:])}]
    if option == "leadership":
        return [{"type": "leadership"}]
    return []


def turn_abilities(s: State, idx: int) -> list[Action]:
    """Abilities used [on your turn], between actions; they do not use up an action."""
    f = s.fighters[idx]
    out: list[Action] = []
    for ability in FIGHTERS[f.fighter].abilities:
        if ability.moment != "your_turn" or usable_unique(s, idx, ability.id) is None:
            continue
        if ability.token:
            if token_at(s, ability.token) is None:
                out.append({"type": "ability", "ability": ability.id})
        elif ability.id == "dash":
            out += [{"type": "ability", "ability": "dash", "sector": n}
                    for n in neighbours(s.ring, f.sector)]  # type: ignore[arg-type]
    for card in f.upgrades:
        if UPGRADES[card].kind == "turn_energy" and card not in f.used_upgrades:
            out.append({"type": "ability", "ability": card})
    return out


OPTION_TYPES = {"move": "move", "attack": "attack", "search": "search", "defense": "defense",
                "leadership": "leadership"}
"""The type of the answers ``half_actions`` gives for a row option (``energy<n>``:
``gain_energy``; any other option gives none)."""


def option_type(option: str) -> str | None:
    return "gain_energy" if option.startswith("energy") else OPTION_TYPES.get(option)


def turn_actions(s: State, idx: int, only: str | None = None,
                 weapon: Any = None, target: Any = None) -> list[Action]:
    """Landing, or the row's next action, the abilities, then ``pass`` (last and only once:
    ``engine.pass_last`` relies on it) when skipping is allowed.

    ``only``: the answers of that type alone, in the same order (``validate`` checks an
    answer against those instead of listing every move, target and ability); with
    ``only="attack"``, ``weapon`` and ``target`` (when not ``None``) keep the attacks with
    that weapon and that target alone."""
    f = s.fighters[idx]
    if f.sector is None:
        return [{"type": "land", "sector": n} for n in s.ring] if only in (None, "land") else []
    if only == "ability":
        return turn_abilities(s, idx)
    out: list[Action] = []
    for option in current_half(s, idx):
        if only is None or only == "pass" or option_type(option) == only:
            if only == "attack":
                out += half_actions(s, idx, option, weapon, target)
            else:
                out += half_actions(s, idx, option)
    if only not in (None, "pass"):
        return out
    skip: list[Action] = [{"type": "pass"}]
    if out and s.rules.row_skip_only_if_impossible:
        skip = []  # "these are the 3 actions your fighter will perform": skipped only if impossible
    if only == "pass":
        return skip
    return out + turn_abilities(s, idx) + skip


def apply_turn(w: Draft, idx: int, action: Action) -> None:
    kind = action["type"]
    if kind == "land":
        w.emit("landed", {"fighter": idx, "sector": action["sector"]})
        enter(w, idx, action["sector"])
        return
    if kind == "ability":
        use_turn_ability(w, idx, action)
        return
    w.update(idx, step=w.f(idx).step + 1)
    w.emit("action", {"fighter": idx, "action": dict(action)})
    if kind == "move":
        enter(w, idx, action["sector"])
    elif kind == "search":
        search(w, idx)
    elif kind == "defense":
        gain_energy(w, idx, 2)
    elif kind == "gain_energy":
        gain_energy(w, idx, int(action["amount"]))
    elif kind == "leadership":
        if w.s.leader != idx:
            w.set(leader=idx)
            w.emit("leader", {"fighter": idx})
        gain_energy(w, idx, 1)
    elif kind == "attack":
        declare(w, idx, action)


def use_turn_ability(w: Draft, idx: int, action: Action) -> None:
    ability = action["ability"]
    if ability in UPGRADES:
        w.update(idx, used_upgrades=w.f(idx).used_upgrades + (ability,))
        w.emit("upgrade_used", {"fighter": idx, "card": ability})
        gain_energy(w, idx, UPGRADES[ability].amount)
        return
    spend_energy(w, idx, usable_unique(w.s, idx, ability) or 0)
    w.emit("ability", {"fighter": idx, "ability": ability})
    if ability in PLACE_TOKEN:
        sector = w.f(idx).sector
        assert sector is not None
        w.set(tokens=w.s.tokens + ((ability, idx, sector),))
    elif ability == "dash":
        enter(w, idx, action["sector"])
