"""Search, loot decks, equipment (one of each type) and supplies."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from services.rules.games.neon.content import LOOT, SECTORS, bot_type
from services.rules.games.neon.fighters import in_sector, spend_energy
from services.rules.games.neon.state import Draft, Equip, Fighter, State, frame

LOOK = {1: ((1, 3),), 2: ((2, 2),), 3: ((3, 1), (1, 1))}
"""Per sector class: the (loot class, count) looked at when searching."""
KEEP = 2


def search_tokens(s: State, sector: int) -> int:
    return dict(s.search).get(sector, 0)


def set_search_tokens(w: Draft, sector: int, count: int) -> None:
    counts = dict(w.s.search)
    old = counts.get(sector, 0)
    if count <= 0:
        counts.pop(sector, None)
        count = 0
    else:
        counts[sector] = count
    w.set(search=tuple(sorted(counts.items())), search_supply=w.s.search_supply + old - count)


def search_cost(s: State, idx: int) -> int:
    f = s.fighters[idx]
    cost = search_tokens(s, f.sector) if f.sector is not None else 0
    if "scavenger" in f.upgrades:
        cost = max(0, cost - 1)
    return cost


def draw_loot(w: Draft, cls: int, n: int) -> tuple[str, ...]:
    decks, discards = list(w.s.loot_decks), list(w.s.loot_discards)
    deck, discard = decks[cls - 1], discards[cls - 1]
    drawn: list[str] = []
    for _ in range(n):
        if not deck and discard:
            deck, discard = tuple(w.rng.shuffle(discard)), ()
            w.emit("loot_reshuffled", {"class": cls, "size": len(deck)})
        if not deck:
            break
        drawn.append(deck[0])
        deck = deck[1:]
    decks[cls - 1], discards[cls - 1] = deck, discard
    w.set(loot_decks=tuple(decks), loot_discards=tuple(discards))
    return tuple(drawn)


def discard_loot(w: Draft, cards: tuple[str, ...]) -> None:
    if not cards:
        return
    discards = list(w.s.loot_discards)
    for card in cards:
        cls = LOOT[card].cls
        discards[cls - 1] = discards[cls - 1] + (card,)
    w.set(loot_discards=tuple(discards))
    w.emit("loot_discarded", {"cards": list(cards)})


def search(w: Draft, idx: int) -> None:
    """Pay the search tokens, look at the cards of the sector class, then place a token."""
    cost = search_cost(w.s, idx)
    if cost:
        spend_energy(w, idx, cost)
    sector = w.f(idx).sector
    assert sector is not None
    looks = list(LOOK[SECTORS[sector].cls])
    if in_sector(w.s, idx, "mall"):
        looks.append((2, 1))
    looked: tuple[str, ...] = ()
    for cls, n in looks:
        looked += draw_loot(w, cls, n)
    if w.s.search_supply > 0:
        set_search_tokens(w, sector, search_tokens(w.s, sector) + 1)
    w.emit("searched", {"fighter": idx, "sector": sector, "paid": cost, "looked": len(looked)})
    w.emit("loot_seen", {"fighter": idx, "cards": list(looked)}, frozenset({idx}))
    if len(looked) > KEEP:
        w.push(frame("keep", idx, cards=looked, **keep_default(w, looked)))
    elif looked:
        w.push(frame("place", idx, cards=looked))


def keep_actions(cards: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    return tuple({"type": "keep", "cards": sorted(pair)} for pair in combinations(cards, KEEP))


def keep_default(w: Draft, looked: tuple[str, ...]) -> dict[str, Any]:
    """Engine 6: the default of the hidden keep (what a clock applies if the fighter's time
    runs out), drawn at random among the pairs it may keep when the keep is asked, as the
    frame's ``default`` (sorted). Engine 5's, the first two cards drawn, followed from the
    loot deck's order, which the table can partly tell (RULES.md, "Hidden information")."""
    if not w.s.rules.secret_defaults:
        return {}
    pairs = keep_actions(looked)
    return {"default": tuple(pairs[w.rng.randbelow(len(pairs))]["cards"])}


def shares_symbol(a: str, b: str) -> bool:
    return bool(set(LOOT[a].supplies) & set(LOOT[b].supplies))


def equipment_of_type(f: Fighter, kind: str) -> Equip | None:
    return next((e for e in f.equipment if LOOT[e.card].type == kind), None)


def place_actions(s: State, f: Fighter, card: str) -> tuple[dict[str, Any], ...]:
    """Lay a loot card out as equipment (in a free place or on top of one of your equipment
    cards), tuck it as a supply, or discard it."""
    out: list[dict[str, Any]] = []
    same = equipment_of_type(f, LOOT[card].type)
    if not s.rules.cover_any_equipment:
        if same is None or shares_symbol(card, same.card):
            out.append({"type": "place", "card": card, "as": "equipment"})
    elif same is not None:
        if shares_symbol(card, same.card):
            out.append({"type": "place", "card": card, "as": "equipment", "on": same.card})
    else:
        out.append({"type": "place", "card": card, "as": "equipment"})
        out += [{"type": "place", "card": card, "as": "equipment", "on": e.card}
                for e in f.equipment if shares_symbol(card, e.card)]
    for e in f.equipment:
        if len(e.supplies) < LOOT[e.card].max_supplies and shares_symbol(card, e.card):
            out.append({"type": "place", "card": card, "as": "supply", "under": e.card})
    out.append({"type": "place", "card": card, "as": "discard"})
    return tuple(out)


def place(w: Draft, idx: int, card: str, how: str, under: str = "", on: str = "") -> None:
    f = w.f(idx)
    if how == "discard":
        discard_loot(w, (card,))
        return
    if how == "supply":
        equipment = tuple(Equip(e.card, e.supplies + (card,)) if e.card == under else e
                          for e in f.equipment)
        w.update(idx, equipment=equipment)
        # "only the supply symbol at the bottom of the card is visible": the card to its owner
        w.emit("supply_tucked", {"fighter": idx, "under": under,
                                 "symbols": list(LOOT[card].supplies)})
        w.emit("supply_tucked_private", {"fighter": idx, "card": card, "under": under},
               frozenset({idx}))
        return
    same = equipment_of_type(f, LOOT[card].type)
    if on:
        same = next(e for e in f.equipment if e.card == on)
    if same is None:
        w.update(idx, equipment=f.equipment + (Equip(card),))
    else:
        passed = (same.card,) + same.supplies
        room = LOOT[card].max_supplies
        equipment = tuple(Equip(card, passed[:room]) if e.card == same.card else e
                          for e in f.equipment)
        w.update(idx, equipment=equipment)
        discard_loot(w, passed[room:])
    w.emit("equipment_laid", {"fighter": idx, "card": card,
                              "covers": same.card if same else None})


def strip_equipment(w: Draft, idx: int) -> None:
    """Discard every equipment card and the supplies under it."""
    f = w.f(idx)
    cards: tuple[str, ...] = ()
    for e in f.equipment:
        cards += (e.card,) + e.supplies
    w.update(idx, equipment=())
    discard_loot(w, cards)


def payments(f: Fighter, card: str, supply: str, fresh: tuple[str, ...] = (),
             card_last: bool = True) -> list[str]:
    """Every way to pay one effect of ``card`` needing ``supply``: ``supply:<card>`` (a tucked
    supply of the type), ``bot:<token>`` (an unflipped bot token of the type, not one won in
    this attack) or ``card`` (the card itself, which discards its supplies with it).
    ``card_last`` (ruleset 5): the card only when "the equipment card has no additional
    supplies of the needed type left" (a bot token is not under the card: it does not count)."""
    equip = next(e for e in f.equipment if e.card == card)
    out = [f"supply:{s}" for s in equip.supplies if supply in LOOT[s].supplies]
    tucked = bool(out)
    out += [f"bot:{token}" for token, flipped in f.bots
            if not flipped and token not in fresh and supply in bot_type(token).supplies]
    if card_last and tucked:
        return out
    return out + ["card"]


def spend_supply(w: Draft, idx: int, card: str, supply: str,
                 fresh: tuple[str, ...] = (), pay: str | None = None) -> str:
    """Pay for one equipment effect with ``pay`` (one of :func:`payments`); without it, a
    tucked supply of the type, else an unflipped bot token of the type (not one won in this
    attack), else the card itself (with everything under it)."""
    f = w.f(idx)
    equip = next(e for e in f.equipment if e.card == card)
    if pay is not None and pay.startswith("supply:"):
        chosen: tuple[str, ...] = (pay[7:],)
    elif pay is not None:
        chosen = ()
    else:
        chosen = equip.supplies
    for s in chosen:
        if supply in LOOT[s].supplies:
            rest = list(equip.supplies)
            rest.remove(s)
            w.update(idx, equipment=tuple(Equip(card, tuple(rest)) if e.card == card else e
                                          for e in f.equipment))
            discard_loot(w, (s,))
            return s
    for i, (token, flipped) in enumerate(f.bots):
        if pay is not None and pay != f"bot:{token}":
            continue
        if not flipped and token not in fresh and supply in bot_type(token).supplies:
            bots = list(f.bots)
            bots[i] = (token, True)
            w.update(idx, bots=tuple(bots))
            w.emit("bot_token_flipped", {"fighter": idx, "token": token, "as": supply})
            return token
    w.update(idx, equipment=tuple(e for e in f.equipment if e.card != card))
    discard_loot(w, (card,) + equip.supplies)
    return card
