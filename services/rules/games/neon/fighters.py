"""Fighter helpers: energy, allies, abilities (cost, Neko, TV Tower) and special tokens."""

from __future__ import annotations

from services.rules.games.neon.content import ENERGY_MAX, FIGHTERS, SECTOR_BY_EFFECT, SECTORS
from services.rules.games.neon.state import Draft, Fighter, State


def gain_energy(w: Draft, idx: int, amount: int) -> None:
    f = w.f(idx)
    if f.fighter == "automa" or amount <= 0:
        return
    new = min(ENERGY_MAX, f.energy + amount)
    if new != f.energy:
        w.update(idx, energy=new)
        w.emit("energy", {"fighter": idx, "energy": new})


def spend_energy(w: Draft, idx: int, amount: int) -> None:
    f = w.f(idx)
    w.update(idx, energy=f.energy - amount)
    w.emit("energy", {"fighter": idx, "energy": f.energy - amount})


def allies(s: State, a: int, b: int) -> bool:
    """Coalition partners (a fighter is not its own ally)."""
    if a == b or s.mode != "coalition":
        return False
    return s.fighters[a].team == s.fighters[b].team


def sector_effect(s: State, idx: int) -> str:
    sector = s.fighters[idx].sector
    return SECTORS[sector].effect if sector is not None else ""


def in_sector(s: State, idx: int, effect: str) -> bool:
    sector = s.fighters[idx].sector
    return sector is not None and sector == SECTOR_BY_EFFECT.get(effect)


def token_at(s: State, token: str) -> tuple[int, int] | None:
    """(owner, sector) of a special token on the arena."""
    for name, owner, sector in s.tokens:
        if name == token:
            return owner, sector
    return None


def can_use_abilities(s: State, idx: int) -> bool:
    """Not on the landing ship, not eliminated, and no other fighter's Neko in the sector."""
    f = s.fighters[idx]
    if f.sector is None or f.eliminated or f.fighter == "automa":  # not on the arena, or the Automa
        return False
    neko = token_at(s, "neko")
    return not (neko is not None and neko[1] == f.sector and neko[0] != idx)


def ability_cost(s: State, idx: int, base: int) -> int:
    """TV Tower: every ability (Manoeuvres included) costs 1 more energy."""
    return base + (1 if in_sector(s, idx, "tv_tower") else 0)


def manoeuvre_cost(s: State, idx: int, letter: str) -> int:
    for name, cost in FIGHTERS[s.fighters[idx].fighter].manoeuvres:
        if name == letter:
            return ability_cost(s, idx, cost)
    raise KeyError(letter)


def can_afford(s: State, idx: int, cost: int) -> bool:
    return can_use_abilities(s, idx) and s.fighters[idx].energy >= cost


def unique_cost(s: State, idx: int, ability_id: str) -> int | None:
    """The energy cost of one of the fighter's unique abilities now, or None if it has none."""
    f: Fighter = s.fighters[idx]
    if f.fighter == "automa":
        return None
    ability = FIGHTERS[f.fighter].ability(ability_id)
    return None if ability is None else ability_cost(s, idx, ability.cost)


def usable_unique(s: State, idx: int, ability_id: str) -> int | None:
    """The cost if the fighter may use this unique ability now (ignoring its moment).

    ``unique_cost``, then ``can_afford``, in one function (tests/unit/neon/test_hot_path.py
    checks it against them): the ability's printed cost looked up by (fighter, ability)
    (:data:`_UNIQUE_COST`; the Automa has none), the TV Tower's extra energy, then
    ``can_use_abilities`` and the energy. Asked for several abilities in nearly every attack window."""
    f = s.fighters[idx]
    base = _UNIQUE_COST.get((f.fighter, ability_id))
    if base is None:
        return None
    sector = f.sector
    if sector is None or f.eliminated:  # can_use_abilities: not on the arena
        return None
    cost = base + 1 if sector == _TV_TOWER else base  # ability_cost
    if f.energy < cost:
        return None
    for name, owner, at in s.tokens:  # token_at(s, "neko"): another's Neko here
        if name == "neko":
            if at == sector and owner != idx:
                return None
            break
    return cost


def _unique_costs() -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for fighter_id, fighter in FIGHTERS.items():
        if fighter_id == "automa":
            continue
        for ability in fighter.abilities:
            out.setdefault((fighter_id, ability.id), ability.cost)  # FighterDef.ability: the first
    return out


_UNIQUE_COST = _unique_costs()
"""The printed cost of each fighter's unique ability, by (fighter, ability id)."""
_TV_TOWER = SECTOR_BY_EFFECT.get("tv_tower")


def return_tokens_of(w: Draft, owner: int) -> None:
    kept = tuple(t for t in w.s.tokens if t[1] != owner)
    if kept != w.s.tokens:
        w.set(tokens=kept)
        w.emit("token_returned", {"fighter": owner})
