"""Game and Player Setup, the implant draft (Normal) and the Campaign's dealt implants."""

from __future__ import annotations

from typing import Any

from services.rules.games.contract import ConfigError, EngineEvent, MatchConfig, Randomness

from .content import (
    DECK_PARTS,
    FAN_BETS,
    IMPLANTS,
    PARTS,
    SPONSOR_ROW,
    SPONSORS,
    STAGES,
    UPGRADE_ROW,
    UPGRADES,
)
from .state import (
    AUDIT_RULESET,
    FACE_UP_RULESET,
    MAX_AP_BY_PLAYERS,
    RACES,
    RESHUFFLE_RULESET,
    SECRET_DEFAULTS_RULESET,
    WEALTHY_FIRST_RULESET,
    Doc,
    new_player,
)

MODES = ("normal", "campaign", "epic-campaign")
PARTS_ROW = 5
EPIC_RACES = 4
"""An Epic Campaign match plays one stage: its four stage cards, one race each (RULES.md)."""
CARRIED_PLAYER_KEYS = ("chips", "vp", "reputation", "ap", "car", "hand", "weapon", "shield",
                       "specials", "implants", "implant_hand")


def fill_rows(doc: Doc, rng: Randomness) -> None:
    from .state import draw
    for deck, size in (("sponsors", SPONSOR_ROW), ("parts", PARTS_ROW), ("upgrades", UPGRADE_ROW)):
        row = doc["rows"][deck]
        for i in range(size):
            if i >= len(row):
                row.append(None)
            if row[i] is None:
                row[i] = draw(doc, deck, rng)


OPTIONS = ("hidden_speeds", "races", "random_order", "target_vp")
HOUSE_RULES = ("weapons_during_movement",)
"""Options of the rulebook's house rules (engine 0.2.0 on); a 0.1.0 engine refuses them."""


def setup(config: MatchConfig, rng: Randomness, house_rules: bool = True, audit: bool = True,
          bets_face_up: bool = True, reshuffle_carried: bool = True,
          decks_without_carried: bool = True, secret_defaults: bool = True,
          wealthy_first: bool = True) -> Doc:
    if config.mode not in MODES:
        raise ConfigError(f"unknown mode {config.mode!r}; modes: {', '.join(MODES)}")
    if not 2 <= config.seats <= 6:
        raise ConfigError("Neon Knights: 2086 is played by 2 to 6 players")
    options = dict(config.options)
    unknown = sorted(set(options) - {*OPTIONS, *(HOUSE_RULES if house_rules else ())})
    if unknown:
        raise ConfigError(f"unknown option(s): {', '.join(unknown)}")
    hidden = options.get("hidden_speeds", False)
    if not isinstance(hidden, bool):
        raise ConfigError("hidden_speeds must be true or false")
    races = options.get("races", EPIC_RACES if config.mode == "epic-campaign" else RACES)
    if not isinstance(races, int) or isinstance(races, bool) or not 1 <= races <= 16:
        raise ConfigError("races must be a whole number from 1 to 16")
    if config.mode == "epic-campaign" and races != EPIC_RACES:
        raise ConfigError("an Epic Campaign match plays one stage of 4 races")
    random_order = options.get("random_order", False)
    if not isinstance(random_order, bool):
        raise ConfigError("random_order must be true or false")
    target = options.get("target_vp")
    if target is not None and (config.mode == "normal" or not isinstance(target, int)
                               or isinstance(target, bool) or not 2 <= target <= 1000):
        raise ConfigError("target_vp is a whole number from 2 to 1000, for campaign modes only")
    during = options.get("weapons_during_movement", False)
    if not isinstance(during, bool):
        raise ConfigError("weapons_during_movement must be true or false")
    if config.carried is not None and config.mode == "normal":
        raise ConfigError("only a Campaign or Epic Campaign match continues an earlier one")

    seats = config.seats
    ap = MAX_AP_BY_PLAYERS[seats]
    # Engine 0.5.0 on: the cards the drivers carry are theirs, not in the decks (carried_cards).
    kept_parts, kept_upgrades = (carried_cards(config.carried)
                                 if decks_without_carried and config.carried is not None else (set(), set()))
    doc: Doc = {
        "mode": config.mode, "seats": seats, "races": races, "race": 1, "phase": "prep",
        "hidden_speeds": hidden, "day": 1, "turn": 0, "paid": False, "sub": None,
        "players": [new_player(s, ap) for s in range(seats)],
        "order": list(range(seats)), "grid": [], "wealthy": [], "track": None, "builder": None,
        "stage": None, "draft": None, "racing": None, "speeds": None, "standings": None,
        "decks": {"sponsors": list(rng.shuffle(sorted(SPONSORS))),
                  "parts": list(rng.shuffle([c for c in DECK_PARTS if c not in kept_parts])),
                  "upgrades": list(rng.shuffle(sorted(set(UPGRADES) - kept_upgrades))),
                  "bets": list(rng.shuffle(sorted(FAN_BETS)))},
        "discards": {"sponsors": [], "parts": [], "upgrades": [], "bets": []},
        "rows": {"sponsors": [], "parts": [], "upgrades": []},
        "piles": {"1": [], "2": [], "3": []}, "stage_deck": [], "match": 1, "acquire": None,
        "target_vp": target, "ended_by": None,
    }
    if during:  # only when set, so a game without house rules is the same text as in 0.1.0
        doc["house"] = {"weapons_during_movement": True}
    if audit:  # engine 0.3.0 on: the rulebook audit's fixes (state.audited); absent before
        doc["ruleset"] = AUDIT_RULESET
    if audit and bets_face_up:  # engine 0.4.0 on: Fan Bets turned face up when met mid-race
        doc["ruleset"] = FACE_UP_RULESET
        for p in doc["players"]:
            p["bets_up"] = []
    if audit and bets_face_up and reshuffle_carried:  # engine 0.5.0 on: carried stages reshuffled
        doc["ruleset"] = RESHUFFLE_RULESET
    if audit and bets_face_up and reshuffle_carried and secret_defaults:
        # engine 0.6.0 on: hidden decisions' defaults drawn when asked (defaults.py)
        doc["ruleset"] = SECRET_DEFAULTS_RULESET
        doc["defaults"] = [None] * seats
    if audit and bets_face_up and reshuffle_carried and secret_defaults and wealthy_first:
        # engine 0.7.0 on: a Wealthy choice is settled before the seat spends chips
        doc["ruleset"] = WEALTHY_FIRST_RULESET
    if random_order:
        doc["order"] = list(rng.shuffle(list(range(seats))))
    # The last player takes spot 1 of the grid, the second to last spot 2, and so on.
    doc["grid"] = list(reversed(doc["order"]))
    fill_rows(doc, rng)
    if config.mode == "normal":
        _deal_draft(doc, rng)
    elif config.carried is None:
        _deal_campaign(doc, rng)
    else:
        _continue(doc, config.carried, seats)
    if config.mode == "epic-campaign" and not doc["stage_deck"]:
        for stage in (1, 2, 3, 4):
            doc["stage_deck"] += list(rng.shuffle(sorted(s for s, v in STAGES.items() if v["stage"] == stage)))
    elif config.mode == "epic-campaign" and reshuffle_carried:
        doc["stage_deck"] = reshuffle_stages(doc["stage_deck"], rng)
    return doc


def carried_cards(carried: Any) -> tuple[set[str], set[str]]:
    """The parts and the upgrades the drivers of a continuing campaign match carry, which its
    part and upgrade decks leave out (engine 0.5.0 on; RULES.md, "Cards a driver carries are not
    in the new match's decks").

    The rulebook's Game Setup shuffles each deck and fills its row ("Shuffle each deck
    separately ... Reveal cards from each of those decks to fill the row"), and a campaign
    keeps each driver's cards ("Keep track of all info and cards for each player for the next
    time game"): a part on the car or in the hand, a weapon, a shield or a special, face up or
    down, is that driver's and in no deck, so it is never dealt a second time. Nothing else is
    carried as a card that a deck holds: sponsors and Fan Bets are not carried, the implants
    carry their piles, and the stage deck is carried as it is. A card carried twice (possible
    in a campaign begun before 0.5.0) is left out once and stays with both drivers; an unknown
    or malformed carried card is refused, as the stage cards are (``reshuffle_stages``)."""
    parts: list[Any] = []
    upgrades: list[Any] = []
    try:
        for data in carried["players"]:
            parts += [card for card in data["car"].values() if card is not None]
            parts += list(data["hand"])
            upgrades += [card["id"] for card in (data["weapon"], data["shield"], *data["specials"])
                         if card is not None]
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as err:
        raise ConfigError(f"the carried campaign state is malformed ({type(err).__name__})") from err
    unknown = [card for card in parts if not isinstance(card, str) or card not in PARTS]
    unknown += [card for card in upgrades if not isinstance(card, str) or card not in UPGRADES]
    if unknown:
        raise ConfigError(f"the carried campaign state is malformed (card {unknown[0]!r})")
    return set(parts), set(upgrades)


def reshuffle_stages(deck: list[str], rng: Randomness) -> list[str]:
    """The stage cards a continuing Epic Campaign match carries, shuffled again with this
    match's draws (engine 0.5.0 on; RULES.md, "Hidden information between campaign matches").

    The deck keeps the rulebook's structure ("shuffle Stage 4, 3, 2, and 1 track cards
    separately. Make a deck with the Stage 1 cards on top"): each stage's remaining cards are
    shuffled separately and the lowest stage left goes on top. Each stage's cards are sorted
    before their shuffle, so the new order comes from this match's draws alone, never from the
    carried order, which the earlier matches' revealed seeds tell."""
    unknown = [card for card in deck if not isinstance(card, str) or card not in STAGES]
    if unknown:
        raise ConfigError(f"the carried campaign state is malformed (stage card {unknown[0]!r})")
    out: list[str] = []
    for stage in sorted({STAGES[card]["stage"] for card in deck}):
        out += rng.shuffle(sorted(card for card in deck if STAGES[card]["stage"] == stage))
    return out


def _deal_draft(doc: Doc, rng: Randomness) -> None:
    """Deal the implants evenly (extra cards leave the game); picks pass to the left."""
    seats = doc["seats"]
    cards = list(rng.shuffle(sorted(IMPLANTS)))
    each = len(cards) // seats
    doc["draft"] = {"packets": [cards[s * each:(s + 1) * each] for s in range(seats)],
                    "picks": [None] * seats}
    doc["phase"] = "draft"


def _deal_campaign(doc: Doc, rng: Randomness) -> None:
    """Shuffle the level 1 implants and deal 2 to each player; the rest form the piles."""
    level1 = list(rng.shuffle(sorted(i for i, v in IMPLANTS.items() if v["level"] == 1)))
    for _ in range(2):
        for seat in range(doc["seats"]):
            if level1:
                doc["players"][seat]["implant_hand"].append(level1.pop(0))
    doc["piles"] = {"1": level1,
                    "2": sorted(i for i, v in IMPLANTS.items() if v["level"] == 2),
                    "3": sorted(i for i, v in IMPLANTS.items() if v["level"] == 3)}


def _continue(doc: Doc, carried: Any, seats: int) -> None:
    try:
        players = carried["players"]
        if len(players) != seats:
            raise ConfigError(f"the carried campaign has {len(players)} players, not {seats}")
        for seat, data in enumerate(players):
            for key in CARRIED_PLAYER_KEYS:
                doc["players"][seat][key] = data[key]
        doc["piles"] = {k: list(carried["piles"][k]) for k in ("1", "2", "3")}
        doc["order"] = [int(s) for s in carried["order"]]
        doc["grid"] = [int(s) for s in carried["grid"]]
        doc["stage_deck"] = list(carried.get("stage_deck", []))
        if carried.get("complete"):
            raise ConfigError("this campaign is over")
        if carried.get("target_vp") is not None:
            doc["target_vp"] = int(carried["target_vp"])
        doc["match"] = int(carried["match"]) + 1
        if doc["mode"] != carried["mode"]:
            raise ConfigError("a campaign continues in the same mode")
        if doc["mode"] == "epic-campaign" and not doc["stage_deck"]:
            raise ConfigError("every stage of this Epic Campaign has been played")
    except (KeyError, TypeError, IndexError, ValueError) as err:
        if isinstance(err, ConfigError):
            raise
        raise ConfigError(f"the carried campaign state is malformed ({type(err).__name__})") from err


def carry(doc: Doc) -> Doc:
    complete = doc["ended_by"] == "target" or (doc["mode"] == "epic-campaign" and not doc["stage_deck"])
    return {"mode": doc["mode"], "match": doc["match"], "order": doc["order"], "grid": doc["grid"],
            "piles": doc["piles"], "stage_deck": doc["stage_deck"], "target_vp": doc["target_vp"],
            "complete": complete,
            "players": [{k: p[k] for k in CARRIED_PLAYER_KEYS} for p in doc["players"]]}


def draft_decisions(doc: Doc) -> list[tuple[int, list[dict[str, Any]]]]:
    packets = doc["draft"]["packets"]
    return [(seat, [{"type": "draft", "implant": i} for i in sorted(set(packets[seat]))])
            for seat in draft_seats(doc)]


def draft_seats(doc: Doc) -> list[int]:
    """The seats still to pick in this round of the draft."""
    picks, players = doc["draft"]["picks"], doc["players"]
    return [seat for seat in range(doc["seats"])
            if picks[seat] is None and not players[seat]["out"]]


def draft_pick(doc: Doc, seat: int, implant: str, events: list[EngineEvent]) -> None:
    doc["draft"]["picks"][seat] = implant
    events.append(EngineEvent("implant_drafted", {"seat": seat, "implant": implant}, frozenset({seat})))
    events.append(EngineEvent("draft_pick_made", {"seat": seat}))


def draft_advance(doc: Doc, events: list[EngineEvent]) -> bool:
    """Resolve a draft round once every player has picked; True when something moved."""
    draft = doc["draft"]
    seats = doc["seats"]
    for seat in range(seats):  # a resigned seat's pick is the first card of its packet
        if draft["picks"][seat] is None and doc["players"][seat]["out"] and draft["packets"][seat]:
            draft["picks"][seat] = sorted(draft["packets"][seat])[0]
    if any(p is None for p in draft["picks"]):
        return False
    for seat in range(seats):
        draft["packets"][seat].remove(draft["picks"][seat])
        doc["players"][seat]["implant_hand"].append(draft["picks"][seat])
    # pass the rest to the player on the left (the next seat)
    draft["packets"] = [draft["packets"][(s - 1) % seats] for s in range(seats)]
    draft["picks"] = [None] * seats
    events.append(EngineEvent("draft_passed", {"left": len(draft["packets"][0])}))
    if not draft["packets"][0]:
        doc["draft"] = None
        doc["phase"] = "prep"
    return True
