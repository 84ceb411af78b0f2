"""Crossing the finish line, After a Race, the Campaign's implants and the Clean Up phase."""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import EngineEvent, Randomness

from .content import FAN_BETS, IMPLANTS
from .setup import fill_rows
from .state import START_FANS, Doc, bets_face_up, gain_chips, implant_total

Action = dict[str, Any]


def standings(doc: Doc) -> list[int]:
    """Finishers in finishing order, then the cars still on the track by their distance to
    the finish line, ties by current speed, then by the last round's order."""
    r = doc["racing"]
    rest = [s for s in r["order"] if s not in r["finished"] and not doc["players"][s]["out"]]
    rest.sort(key=lambda s: (-doc["players"][s]["row"], -doc["players"][s]["speed"]))
    return [*r["finished"], *rest]


def bet_met(doc: Doc, seat: int, bet: str, place: int, finished: bool) -> bool:
    card = FAN_BETS[bet]
    p = doc["players"][seat]
    goal, n = card["goal"], card["amount"]
    checks = {
        "finish_top": finished and place <= n,
        "finish_first": finished and place == 1,
        "fans_at_least": p["fans"] >= n,
        "final_speed_at_least": p["speed"] >= n,
        "final_speed_at_most": finished and p["speed"] <= n,
        "no_crash": p["stats"]["crashes"] == 0,
        "stunts_at_least": p["stats"]["stunts"] >= n,
        "slams_at_least": p["stats"]["slams"] >= n,
        "weapon_used": p["stats"]["weapons"] >= n,
        "reach_speed": p["stats"]["top_speed"] >= n,
        "armor_at_least": p["ap"] >= n,
    }
    return bool(checks[goal])


FACE_UP_GOALS = ("stunts_at_least", "slams_at_least", "weapon_used", "reach_speed")
"""Goals counted on race stats that never go down during a race (stunt dice, slams, weapons
used, the top speed reached): once met they stay met, so from engine 0.4.0 the card is turned
face up in the step that meets it. Every other goal (fans, final speed, armour, no crash, a
finishing place) is read at the end of the race, where ``score_race`` checks it."""


def turn_bets_face_up(doc: Doc, events: list[EngineEvent]) -> None:
    """ "When you complete a betting card, place it face-up in front of you, but obtain the
    reward after the race" (engine 0.4.0 on): a driver still in the game whose Fan Bet's goal
    can no longer become unmet moves it from the hidden ``bets`` to the public ``bets_up``,
    with a public event. Called during the race after every step; the reward stays in
    ``score_race``."""
    if not bets_face_up(doc):
        return
    for p in doc["players"]:
        if p["out"]:
            continue
        for bet in sorted(set(p["bets"])):
            if FAN_BETS[bet]["goal"] in FACE_UP_GOALS and bet_met(doc, p["seat"], bet, 0, False):
                p["bets"].remove(bet)
                p["bets_up"].append(bet)
                events.append(EngineEvent("fan_bet_face_up", {"seat": p["seat"], "bet": bet}))


def score_race(doc: Doc, events: list[EngineEvent]) -> None:
    """Grid VP (the number of players for the winner, one less for each place after) plus 1
    VP per fan; the next grid from the finishing order; Fan Bets (not for the last)."""
    order = standings(doc)
    n = len(order)
    finished = set(doc["racing"]["finished"])
    results = []
    for place, seat in enumerate(order, start=1):
        p = doc["players"][seat]
        gained = (n - place + 1) + p["fans"] + implant_total(p, "finish_vp")
        p["vp"] += gained
        results.append({"seat": seat, "place": place, "vp": gained, "fans": p["fans"],
                        "finished": seat in finished})
    events.append(EngineEvent("race_result", {"race": doc["race"], "results": results}))
    out = [s for s in doc["grid"] if doc["players"][s]["out"]]
    doc["grid"] = [*reversed(order), *out]
    for place, seat in enumerate(order, start=1):
        p = doc["players"][seat]
        if place == n and n > 1:
            continue  # the player who comes in last cannot redeem Fan Bet cards (face up or not)
        face_up = p.get("bets_up", [])  # engine 0.4.0 on: completed during the race
        for bet in sorted({*p["bets"], *face_up}):
            if bet in face_up or bet_met(doc, seat, bet, place, seat in finished):
                (face_up if bet in face_up else p["bets"]).remove(bet)
                p["bets_won"].append(bet)
                card = FAN_BETS[bet]
                p["vp"] += card["reward_vp"]
                events.append(EngineEvent("fan_bet_won", {"seat": seat, "bet": bet}))
                chips = card["reward_chips"] + implant_total(p, "bet_chips")
                if chips:
                    gain_chips(doc, seat, chips)
    doc["standings"] = order
    # player order by VP, fewest first; ties: the farthest back on the grid goes first
    spot = {s: i for i, s in enumerate(doc["grid"])}
    doc["order"] = sorted(doc["order"], key=lambda s: (doc["players"][s]["vp"], -spot[s]))
    events.append(EngineEvent("player_order", {"order": doc["order"]}))
    if doc["mode"] != "normal":
        doc["acquire"] = {"index": 0}
    doc["phase"] = "after_race"


def acquire_seat(doc: Doc) -> int | None:
    """The next player in player order still racing who may take an implant (pure)."""
    for seat in doc["order"][doc["acquire"]["index"]:]:
        if not doc["players"][seat]["out"]:
            return int(seat)
    return None


def acquire_legal(doc: Doc, seat: int) -> list[Action]:
    """Level 1 freely; level 2 only with that implant's level 1 installed; level 3 with its 2."""
    p = doc["players"][seat]
    installed = {(IMPLANTS[i]["family"], IMPLANTS[i]["level"]) for i in p["implants"]}
    legal: list[Action] = [{"type": "acquire_pass"}]
    for level in ("1", "2", "3"):
        for iid in sorted(set(doc["piles"][level])):
            imp = IMPLANTS[iid]
            if imp["level"] == 1 or (imp["family"], imp["level"] - 1) in installed:
                legal.append({"type": "acquire", "implant": iid})
    return legal


def acquire_act(doc: Doc, seat: int, action: Action, events: list[EngineEvent]) -> None:
    if action["type"] == "acquire":
        iid = action["implant"]
        doc["piles"][str(IMPLANTS[iid]["level"])].remove(iid)
        doc["players"][seat]["implant_hand"].append(iid)
        events.append(EngineEvent("implant_acquired", {"seat": seat, "level": IMPLANTS[iid]["level"]}))
        events.append(EngineEvent("implant_taken", {"seat": seat, "implant": iid}, frozenset({seat})))
    doc["acquire"]["index"] = doc["order"].index(seat) + 1


def clean_up(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> None:
    for p in doc["players"]:
        for kind in ("weapon", "shield"):
            if p[kind] and not p[kind]["up"]:
                doc["discards"]["upgrades"].append(p[kind]["id"])
                p[kind] = None
        for card in [c for c in p["specials"] if not c["up"]]:
            doc["discards"]["upgrades"].append(card["id"])
            p["specials"].remove(card)
        p["fans"] = START_FANS
        doc["discards"]["bets"] += p["bets_won"]
        p["bets_won"] = []
        if "bets_up" in p:  # engine 0.4.0 on: a face-up bet not redeemed (the last player's,
            # or a resigned driver's) is completed all the same: shuffled into the deck below
            doc["discards"]["bets"] += p["bets_up"]
            p["bets_up"] = []
    for deck, row in doc["rows"].items():
        doc["discards"][deck] += [c for c in row if c is not None]
        doc["rows"][deck] = []
    fill_rows(doc, rng)
    doc["decks"]["bets"] = list(rng.shuffle(doc["decks"]["bets"] + doc["discards"]["bets"]))
    doc["discards"]["bets"] = []
    doc["track"], doc["builder"], doc["racing"], doc["acquire"], doc["stage"] = None, None, None, None, None
    doc["day"] = 1
    events.append(EngineEvent("cleaned_up", {"race": doc["race"]}))
    target = doc.get("target_vp")
    if target is not None and max(p["vp"] for p in doc["players"] if not p["out"]) >= target:
        doc["ended_by"] = "target"
    if doc["race"] >= doc["races"] or doc["ended_by"] == "target":
        doc["phase"] = "over"
        events.append(EngineEvent("game_over", {"vp": [p["vp"] for p in doc["players"]]}))
    else:
        doc["race"] += 1
        doc["phase"] = "prep"
