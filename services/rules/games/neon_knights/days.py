"""Preparation (Fan Bets, the track), the Action phase over six days, Pay Day and Wealthy."""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness

from .content import (
    COMPANIES,
    IMPLANT_SLOTS,
    IMPLANTS,
    PARTS,
    SELL_PRICE,
    SHOP_PRICES,
    SPONSOR_SLOTS,
    SPONSORS,
    STAGES,
    TILES,
    TILES_PER_TRACK,
    UPGRADE_SLOTS,
    UPGRADES,
)
from .state import (
    DAYS,
    MAX_CHIPS,
    MAX_REPUTATION,
    PAY_DAY,
    REPAIR_COST,
    Doc,
    active_seats,
    draw,
    gain_chips,
    implant_total,
    max_ap,
    raise_reputation,
)

Action = dict[str, Any]
PASS: Action = {"type": "pass"}
DONE: Action = {"type": "done"}


# -- Preparation -------------------------------------------------------------------------------
def start_race(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> None:
    """Deal each player a hidden Fan Bet, then the track: the fewest VP builds it (ties to
    the last in player order); in Epic Campaign the top stage card fixes its tiles."""
    for seat in doc["order"]:
        if doc["players"][seat]["out"]:
            continue
        bet = draw(doc, "bets", rng)
        if bet is not None:
            doc["players"][seat]["bets"].append(bet)
            events.append(EngineEvent("fan_bet_dealt", {"seat": seat, "bet": bet}, frozenset({seat})))
    doc["track"] = []
    if doc["mode"] == "epic-campaign" and doc["stage_deck"]:
        stage = doc["stage_deck"].pop(0)
        doc["stage"] = stage
        doc["track"] = list(STAGES[stage]["tiles"])
        events.append(EngineEvent("stage_drawn", {"stage": stage, "tiles": doc["track"]}))
        _begin_days(doc, events)
        return
    doc["builder"] = track_builder(doc)
    doc["phase"] = "track"
    events.append(EngineEvent("track_builder", {"seat": doc["builder"], "race": doc["race"]}))


def track_builder(doc: Doc) -> int:
    seats = [s for s in doc["order"] if not doc["players"][s]["out"]]
    fewest = min(doc["players"][s]["vp"] for s in seats)
    return [s for s in seats if doc["players"][s]["vp"] == fewest][-1]


def track_legal(doc: Doc) -> list[Action]:
    return [{"type": "tile", "tile": t} for t in sorted(TILES) if t not in doc["track"]]


def place_tile(doc: Doc, tile: str, events: list[EngineEvent]) -> None:
    doc["track"].append(tile)
    events.append(EngineEvent("tile_placed", {"seat": doc["builder"], "tile": tile}))
    if len(doc["track"]) == TILES_PER_TRACK:
        _begin_days(doc, events)


def _begin_days(doc: Doc, events: list[EngineEvent]) -> None:
    doc["phase"], doc["day"], doc["turn"], doc["paid"], doc["sub"] = "actions", 1, 0, False, None
    events.append(EngineEvent("day_began", {"day": 1}))


# -- the Action phase ------------------------------------------------------------------------
def acting_seat(doc: Doc) -> int:
    return int(doc["order"][doc["turn"]])


def days_advance(doc: Doc, events: list[EngineEvent]) -> bool:
    """Skip resigned players, run Pay Day, move the calendar; True when something moved."""
    if doc["day"] == PAY_DAY and not doc["paid"]:
        pay_day(doc, events)
        return True
    if doc["turn"] >= len(doc["order"]):
        if doc["day"] >= DAYS:
            doc["phase"] = "speeds"
            doc["speeds"] = [None] * doc["seats"]
            events.append(EngineEvent("race_day", {"race": doc["race"]}))
            return True
        doc["day"] += 1
        doc["turn"] = 0
        events.append(EngineEvent("day_began", {"day": doc["day"]}))
        return True
    if doc["players"][acting_seat(doc)]["out"]:
        doc["turn"] += 1
        doc["sub"] = None
        return True
    return False


def pay_day(doc: Doc, events: list[EngineEvent]) -> None:
    """Every player discards their sponsors and gains their rewards at once."""
    doc["paid"] = True
    for p in doc["players"]:
        if p["out"]:
            continue
        chips = implant_total(p, "payday_chips")
        for sid in p["sponsors"]:
            sponsor = SPONSORS[sid]
            chips += sponsor["chips"]
            raise_reputation(p, sponsor["company"], sponsor["reputation"])
            doc["discards"]["sponsors"].append(sid)
        events.append(EngineEvent("paid", {"seat": p["seat"], "sponsors": p["sponsors"], "chips": chips}))
        p["sponsors"] = []
        if chips:
            gain_chips(doc, p["seat"], chips)


def day_legal(doc: Doc) -> list[Action]:
    seat = acting_seat(doc)
    sub = doc["sub"]
    if sub is not None:
        return _sub_legal(doc, seat, sub)
    p = doc["players"][seat]
    legal: list[Action] = [PASS]
    if len(p["sponsors"]) < SPONSOR_SLOTS:
        for i, sid in enumerate(doc["rows"]["sponsors"]):
            if sid is not None and p["reputation"][SPONSORS[sid]["company"]] >= SPONSORS[sid]["requires"]:
                legal.append({"type": "sponsor", "slot": i})
        if doc["decks"]["sponsors"] or doc["discards"]["sponsors"]:
            legal.append({"type": "sponsor", "slot": "deck"})
    legal.append({"type": "shop"})
    for i, uid in enumerate(doc["rows"]["upgrades"]):
        if uid is None or UPGRADES[uid]["price"] > p["chips"]:
            continue
        kind = UPGRADES[uid]["kind"]
        held = _upgrades_of(p, kind)
        if len(held) < UPGRADE_SLOTS[kind]:
            legal.append({"type": "upgrade", "slot": i})
        else:
            legal += [{"type": "upgrade", "slot": i, "replace": h} for h in sorted({h["id"] for h in held})]
    if doc["decks"]["bets"] or doc["discards"]["bets"]:
        legal.append({"type": "draw_bet"})
    room = min(max_ap(p) - p["ap"], p["chips"] // REPAIR_COST)
    legal += [{"type": "repair", "points": n} for n in range(1, room + 1)]
    if p["implant_hand"]:
        legal.append({"type": "implants"})
    return legal


def _upgrades_of(p: Doc, kind: str) -> list[Doc]:
    if kind == "special":
        return list(p["specials"])
    return [p[kind]] if p[kind] else []


def _installable_implants(p: Doc) -> list[str]:
    out = []
    for iid in sorted(set(p["implant_hand"])):
        imp = IMPLANTS[iid]
        same = [i for i in p["implants"] if IMPLANTS[i]["family"] == imp["family"]]
        if any(IMPLANTS[i]["level"] >= imp["level"] for i in same):
            continue  # never two of the same implant; a level never replaces a higher one
        if same or len(p["implants"]) < IMPLANT_SLOTS:
            out.append(iid)
    return out


def _sub_legal(doc: Doc, seat: int, sub: Doc) -> list[Action]:
    p = doc["players"][seat]
    legal: list[Action] = [DONE]
    if sub["kind"] == "shop":
        for part in sorted(set(p["hand"]) | {v for v in p["car"].values() if v}):
            legal.append({"type": "sell", "part": part})
        if not sub["bought"]:
            for i, part in enumerate(doc["rows"]["parts"]):
                if part is not None and SHOP_PRICES[i] <= p["chips"]:
                    legal.append({"type": "buy_part", "slot": i})
        for part in sorted(set(p["hand"])):
            if p["car"][PARTS[part]["colour"]] is None:
                legal.append({"type": "install", "part": part})
    elif sub["kind"] == "bet":
        legal = [{"type": "keep_bets"}] + [{"type": "discard_bet", "bet": b} for b in sorted(set(p["bets"]))]
    elif sub["kind"] == "implants":
        legal += [{"type": "install_implant", "implant": i} for i in _installable_implants(p)]
    return legal


def day_default(doc: Doc) -> Action:
    sub = doc["sub"]
    if sub is None:
        return PASS
    return {"type": "keep_bets"} if sub["kind"] == "bet" else DONE


def day_act(doc: Doc, seat: int, action: Action, rng: Randomness, events: list[EngineEvent]) -> None:
    p = doc["players"][seat]
    kind = action["type"]
    ended = True
    if kind == "pass":
        events.append(EngineEvent("passed", {"seat": seat, "day": doc["day"]}))
    elif kind == "sponsor":
        if action["slot"] == "deck":
            sid = draw(doc, "sponsors", rng)
        else:
            sid = doc["rows"]["sponsors"][action["slot"]]
            doc["rows"]["sponsors"][action["slot"]] = draw(doc, "sponsors", rng)
        p["sponsors"].append(sid)
        events.append(EngineEvent("sponsored", {"seat": seat, "sponsor": sid}))
    elif kind == "upgrade":
        slot = action["slot"]
        uid = doc["rows"]["upgrades"][slot]
        p["chips"] -= UPGRADES[uid]["price"]
        upgrade_kind = UPGRADES[uid]["kind"]
        if "replace" in action:
            _discard_upgrade(doc, p, upgrade_kind, action["replace"])
        if upgrade_kind == "special":
            p["specials"].append({"id": uid, "up": True})
        else:
            p[upgrade_kind] = {"id": uid, "up": True}
        row = doc["rows"]["upgrades"]
        doc["rows"]["upgrades"] = [draw(doc, "upgrades", rng), *row[:slot], *row[slot + 1:]]
        events.append(EngineEvent("upgrade_bought", {"seat": seat, "upgrade": uid,
                                                     "replaced": action.get("replace")}))
    elif kind == "repair":
        p["chips"] -= REPAIR_COST * action["points"]
        p["ap"] += action["points"]
        events.append(EngineEvent("repaired", {"seat": seat, "points": action["points"]}))
    elif kind == "draw_bet":
        bet = draw(doc, "bets", rng)
        p["bets"].append(bet)
        events.append(EngineEvent("fan_bet_drawn", {"seat": seat}))
        events.append(EngineEvent("fan_bet_dealt", {"seat": seat, "bet": bet}, frozenset({seat})))
        doc["sub"] = {"kind": "bet"}
        ended = False
    elif kind in ("shop", "implants"):
        doc["sub"] = {"kind": "shop", "bought": False} if kind == "shop" else {"kind": "implants"}
        events.append(EngineEvent("action_chosen", {"seat": seat, "action": kind}))
        ended = False
    else:
        ended = _sub_act(doc, seat, p, action, rng, events)
    if ended:
        doc["sub"] = None
        doc["turn"] += 1


def _discard_upgrade(doc: Doc, p: Doc, kind: str, uid: str) -> None:
    if kind == "special":
        index = next(i for i, s in enumerate(p["specials"]) if s["id"] == uid)
        p["specials"].pop(index)
    else:
        p[kind] = None
    doc["discards"]["upgrades"].append(uid)


def _sub_act(doc: Doc, seat: int, p: Doc, action: Action, rng: Randomness,
             events: list[EngineEvent]) -> bool:
    kind = action["type"]
    if kind in ("done", "keep_bets"):
        return True
    if kind == "discard_bet":
        p["bets"].remove(action["bet"])
        doc["discards"]["bets"].append(action["bet"])
        events.append(EngineEvent("fan_bet_discarded", {"seat": seat}))
        return True
    if kind == "sell":
        part = action["part"]
        colour = PARTS[part]["colour"]
        if part in p["hand"]:
            p["hand"].remove(part)
        else:
            p["car"][colour] = None
        if not part.startswith("starter-"):
            doc["discards"]["parts"].append(part)  # starter parts leave the game instead
        events.append(EngineEvent("part_sold", {"seat": seat, "part": part}))
        gain_chips(doc, seat, SELL_PRICE)
    elif kind == "buy_part":
        slot = action["slot"]
        part = doc["rows"]["parts"][slot]
        p["chips"] -= SHOP_PRICES[slot]
        p["hand"].append(part)
        doc["sub"]["bought"] = True
        row = doc["rows"]["parts"]
        doc["rows"]["parts"] = [draw(doc, "parts", rng), *row[:slot], *row[slot + 1:]]
        events.append(EngineEvent("part_bought", {"seat": seat, "part": part, "price": SHOP_PRICES[slot]}))
    elif kind == "install":
        part = action["part"]
        p["hand"].remove(part)
        p["car"][PARTS[part]["colour"]] = part
        events.append(EngineEvent("part_installed", {"seat": seat, "part": part}))
    elif kind == "install_implant":
        iid = action["implant"]
        imp = IMPLANTS[iid]
        for old in [i for i in p["implants"] if IMPLANTS[i]["family"] == imp["family"]]:
            p["implants"].remove(old)
            doc["piles"][str(IMPLANTS[old]["level"])].append(old)  # back to its pile
        p["implant_hand"].remove(iid)
        p["implants"].append(iid)
        p["ap"] = min(p["ap"], max_ap(p))
        events.append(EngineEvent("implant_installed", {"seat": seat, "implant": iid}))
    return False


# -- Wealthy -----------------------------------------------------------------------------------
def wealthy_legal(doc: Doc, entry: Doc) -> list[Action]:
    p = doc["players"][entry["seat"]]
    legal: list[Action] = [{"type": "wealthy", "choice": "stay"}]
    for pair in combinations_with_replacement(COMPANIES, 2):
        if all(p["reputation"][c] + pair.count(c) <= MAX_REPUTATION for c in pair):
            legal.append({"type": "wealthy", "choice": "reputation", "companies": list(pair)})
    return legal


def wealthy_act(doc: Doc, seat: int, action: Action, events: list[EngineEvent]) -> None:
    """Stay at 60 and lose the rest, or lose 60 for 2 reputation and gain the leftover."""
    entry = next(w for w in doc["wealthy"] if w["seat"] == seat)
    doc["wealthy"].remove(entry)
    p = doc["players"][seat]
    if action["choice"] == "stay":
        p["chips"] = MAX_CHIPS
        events.append(EngineEvent("wealthy", {"seat": seat, "choice": "stay", "chips": MAX_CHIPS}))
        return
    for company in action["companies"]:
        raise_reputation(p, company, 1)
    p["chips"] = 0
    events.append(EngineEvent("wealthy", {"seat": seat, "choice": "reputation",
                                          "companies": action["companies"]}))
    gain_chips(doc, seat, entry["total"] - MAX_CHIPS)


def action_phase_seats(doc: Doc) -> list[int]:
    return active_seats(doc)
