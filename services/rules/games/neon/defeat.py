"""Damage, trophies, fighter defeat: maintenance on side A, elimination on side B."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from services.rules.games.neon.content import ENERGY_START, FIGHTER_HEALTH_ROWS, UPGRADES
from services.rules.games.neon.fighters import gain_energy
from services.rules.games.neon.loot import discard_loot, draw_loot, place, strip_equipment
from services.rules.games.neon.state import Draft, frame


def take_damage(w: Draft, victim: int, amount: int, by: int | None) -> None:
    """Each damage discards the first token of the top non-empty row.

    In Rebirth and Coalition the token goes to the fighter who dealt the damage as a trophy
    (also when dealt by an ability); otherwise (sector closing, Battle Royale) to the supply.
    """
    for _ in range(amount):
        f = w.f(victim)
        if f.tokens == 0 or f.eliminated:
            return
        rows = list(f.health)
        r = next(i for i, row in enumerate(rows) if row)
        value, rows[r] = rows[r][0], rows[r][1:]
        w.update(victim, health=tuple(rows))
        if w.s.mode != "battle-royale" and by is not None and by != victim:
            w.update(by, trophies=w.f(by).trophies + (value,))
        else:
            supply = list(w.s.health_supply)
            supply[value - 1] += 1
            w.set(health_supply=tuple(supply))
        w.emit("damage", {"fighter": victim, "token": value, "by": by})
        if w.f(victim).tokens == 0:
            defeat(w, victim, by)
            return


def defeat(w: Draft, victim: int, by: int | None) -> None:
    f = w.f(victim)
    w.update(victim, shields=0, sector=None)
    if w.s.current == victim:
        w.update(victim, step=3)
    trophy = (by is not None and by != victim and not w.f(by).automa
              and not w.f(by).eliminated and bool(f.equipment))
    if f.automa or f.side == "B" or w.s.mode == "battle-royale":
        w.update(victim, eliminated=True)
        w.set(eliminations=w.s.eliminations + ((victim, w.s.serial),))
        w.emit("eliminated", {"fighter": victim, "by": by})
        w.push(frame("strip", victim))
    else:
        w.emit("maintenance", {"fighter": victim, "by": by})
        w.push(frame("maintain", victim))
    if trophy:
        assert by is not None
        w.push(frame("trophy", by, victim=victim))


def trophy_actions(w_equipment: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = [{"type": "take_equipment", "cards": []}]
    for n in (1, 2):
        out.extend({"type": "take_equipment", "cards": sorted(c)}
                   for c in combinations(w_equipment, n))
    return tuple(out)


def take_trophy_equipment(w: Draft, taker: int, victim: int, cards: tuple[str, ...]) -> None:
    f = w.f(victim)
    taken = tuple(e for e in f.equipment if e.card in cards)
    w.update(victim, equipment=tuple(e for e in f.equipment if e.card not in cards))
    discard_loot(w, tuple(s for e in taken for s in e.supplies))
    w.emit("trophy_equipment", {"fighter": taker, "from": victim, "cards": list(cards)})
    if cards:
        w.push(frame("place", taker, cards=tuple(cards)))


def new_health(w: Draft, layout: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """Take tokens from the supply; a value that has run out is replaced by the nearest
    other value, lower first."""
    supply = list(w.s.health_supply)
    rows = []
    for row in layout:
        got = []
        for value in row:
            for v in sorted((1, 2, 3), key=lambda x: (abs(x - value), x)):
                if supply[v - 1] > 0:
                    supply[v - 1] -= 1
                    got.append(v)
                    break
        rows.append(tuple(got))
    w.set(health_supply=tuple(supply))
    return tuple(rows)


def maintain(w: Draft, idx: int) -> None:
    """Discard the rest, flip to side B with new tokens and 3 energy, take loot and upgrade."""
    strip_equipment(w, idx)
    w.update(idx, side="B", health=new_health(w, FIGHTER_HEALTH_ROWS), energy=ENERGY_START)
    w.emit("board_flipped", {"fighter": idx, "side": "B"})
    deck = w.s.upgrade_deck
    if deck:
        w.set(upgrade_deck=deck[2:])
        w.push(frame("upgrade", idx, cards=deck[:2]))
        w.emit("upgrades_seen", {"fighter": idx, "cards": list(deck[:2])}, frozenset({idx}))
    looked = draw_loot(w, 1, 2) + draw_loot(w, 2, 1)
    if looked:
        w.emit("loot_taken", {"fighter": idx, "count": len(looked)})
        w.emit("loot_seen", {"fighter": idx, "cards": list(looked)}, frozenset({idx}))
        w.push(frame("place", idx, cards=looked))


def choose_upgrade(w: Draft, idx: int, cards: tuple[str, ...], chosen: str) -> None:
    rest = tuple(c for c in cards if c != chosen)
    w.set(upgrade_deck=w.s.upgrade_deck + rest)
    w.update(idx, upgrades=w.f(idx).upgrades + (chosen,))
    w.emit("upgrade_taken", {"fighter": idx, "card": chosen})
    upgrade = UPGRADES[chosen]
    if upgrade.timing == "immediate" and upgrade.kind == "gain_energy":
        gain_energy(w, idx, upgrade.amount)


def place_first(w: Draft, idx: int, action: Any) -> None:
    fr = w.pop()
    cards = fr.get("cards")  # type: ignore[union-attr]
    place(w, idx, action["card"], action["as"], action.get("under", ""), action.get("on", ""))
    rest = tuple(c for c in cards if c != action["card"])
    if rest:
        w.push(fr.but(cards=rest))
