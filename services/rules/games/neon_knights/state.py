"""The state of a Neon Knights match: one immutable canonical JSON document.

``State`` holds the canonical JSON text of the whole table (hidden parts included), so it is
immutable, hashes the same on every machine and encodes byte for byte as it is. Rules work
on a thawed working copy (``thaw``) and freeze the result (``freeze``); nothing mutates a
``State``. The layout of the document is described in RULES.md ("State").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .content import COMPANIES, IMPLANTS, PARTS, speed_colour

Doc = dict[str, Any]
MAX_CHIPS = 60
START_CHIPS = 30
START_REPUTATION = 3
MAX_REPUTATION = 10
START_FANS = 5
MAX_FANS = 10
START_VP = 1
MIN_SPEED, MAX_SPEED = 2, 10
REPAIR_COST = 5
MAX_AP_BY_PLAYERS = {2: 8, 3: 10, 4: 12, 5: 14, 6: 16}
DAYS = 6
PAY_DAY = 6
RACES = 3
AUDIT_RULESET = "0.3.0"
"""Games set up by engine 0.3.0 or later carry ``ruleset``: the rulebook audit's fixes apply."""
FACE_UP_RULESET = "0.4.0"
"""Games set up by engine 0.4.0 or later carry this ``ruleset``: a Fan Bet met during the race
is turned face up at once (``bets_face_up``); each player has ``bets_up``."""
RESHUFFLE_RULESET = "0.5.0"
"""Games set up by engine 0.5.0 or later carry this ``ruleset``: a continuing Epic Campaign
match shuffles the stage cards it carries again with its own draws (``setup.reshuffle_stages``),
so no earlier match's revealed seed tells their order, and a continuing campaign match's part
and upgrade decks leave out the cards its drivers carry (``setup.carried_cards``), so no card is
dealt twice. Nothing else changes."""
SECRET_DEFAULTS_RULESET = "0.6.0"
"""Games set up by engine 0.6.0 or later carry this ``ruleset`` and ``defaults``: the default of
a hidden draft pick or hidden starting speed is drawn when it is asked (``defaults.py``), so a
timeout, which is public, does not name the hidden answer. Nothing else changes."""
WEALTHY_FIRST_RULESET = "0.7.0"
"""Games set up by engine 0.7.0 or later carry this ``ruleset``: a seat owing a Wealthy choice
spends no chips (the repair part ability) until it has chosen (``wealthy_first``)."""


@dataclass(frozen=True)
class State:
    text: str
    """Canonical JSON (sorted keys, no spaces) of the whole document."""

    @cached_property
    def doc(self) -> Doc:
        """A parsed copy for reading; never mutate it (use ``thaw``)."""
        return json.loads(self.text)  # type: ignore[no-any-return]


def audited(doc: Doc) -> bool:
    """True in games of engine 0.3.0 on (RULES.md, "Version history"); older exports replay
    without the audit's fixes."""
    return "ruleset" in doc


def bets_face_up(doc: Doc) -> bool:
    """True in games of engine 0.4.0 on: a Fan Bet completed during a race is turned face up
    in that step ("place it face-up in front of you, but obtain the reward after the race");
    older games check every bet after the race only."""
    ruleset = doc.get("ruleset")
    return ruleset is not None and _version(ruleset) >= _version(FACE_UP_RULESET)


def wealthy_first(doc: Doc) -> bool:
    """True in games of engine 0.7.0 on: the Wealthy choice is made at the gain ("If you gain
    more chips than the board allows, you have a choice to make"), before the seat can spend
    from the 60 chips the tracker stands at; older games let the repair ability spend them and
    "stay" put the tracker back at 60."""
    ruleset = doc.get("ruleset")
    return ruleset is not None and _version(ruleset) >= _version(WEALTHY_FIRST_RULESET)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def freeze(doc: Doc) -> State:
    return State(json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def thaw(state: State) -> Doc:
    return json.loads(state.text)  # type: ignore[no-any-return]


def new_player(seat: int, max_ap: int) -> Doc:
    return {
        "seat": seat, "chips": START_CHIPS, "vp": START_VP, "fans": START_FANS,
        "reputation": {c: START_REPUTATION for c in COMPANIES},
        "base_max_ap": max_ap, "ap": max_ap,
        "car": {"red": "starter-red", "orange": "starter-orange", "yellow": "starter-yellow",
                "green": "starter-green"},
        "hand": [], "sponsors": [], "weapon": None, "shield": None, "specials": [],
        "implants": [], "implant_hand": [], "bets": [], "bets_won": [],
        "speed": MIN_SPEED, "row": 0, "lane": 0, "out": False, "stats": fresh_stats(),
    }


def fresh_stats() -> Doc:
    return {"crashes": 0, "stunts": 0, "slams": 0, "weapons": 0, "top_speed": 0}


def implant_total(player: Doc, effect: str) -> int:
    return sum(IMPLANTS[i]["amount"] for i in player["implants"] if IMPLANTS[i]["effect"] == effect)


def max_ap(player: Doc) -> int:
    return int(player["base_max_ap"]) + implant_total(player, "max_ap")


def part_bonus(player: Doc, colour: str) -> int:
    part = player["car"].get(colour)
    return int(PARTS[part]["bonus"]) if part else 0


def accel_limit(player: Doc) -> int:
    """1 plus the bonuses of the yellow and green parts (plus Reflexes implants)."""
    return 1 + part_bonus(player, "yellow") + part_bonus(player, "green") + implant_total(player, "accel")


def decel_limit(player: Doc) -> int:
    """1 plus the bonuses of the red and orange parts (plus Anchor implants)."""
    return 1 + part_bonus(player, "red") + part_bonus(player, "orange") + implant_total(player, "decel")


def zone_power(player: Doc) -> int:
    """Power of the part in the colour zone of the current speed (0 for an empty slot)."""
    part = player["car"].get(speed_colour(player["speed"]))
    return int(PARTS[part]["power"]) if part else 0


def active_seats(doc: Doc) -> list[int]:
    return [p["seat"] for p in doc["players"] if not p["out"]]


def gain_fans(doc: Doc, seat: int, n: int) -> None:
    """Fans beyond the maximum become VP."""
    player = doc["players"][seat]
    total = player["fans"] + n
    if total > MAX_FANS:
        player["vp"] += total - MAX_FANS
        total = MAX_FANS
    player["fans"] = total


def lose_fan(doc: Doc, seat: int) -> None:
    player = doc["players"][seat]
    player["fans"] = max(0, player["fans"] - 1)


def gain_chips(doc: Doc, seat: int, amount: int) -> None:
    """Chips over 60 open the Wealthy choice for the seat (queued in ``doc['wealthy']``)."""
    player = doc["players"][seat]
    total = player["chips"] + amount
    if total > MAX_CHIPS:
        pending = [w for w in doc["wealthy"] if w["seat"] == seat]
        if pending:
            pending[0]["total"] += amount
        else:
            player["chips"] = MAX_CHIPS
            doc["wealthy"].append({"seat": seat, "total": total})
    else:
        player["chips"] = total


def raise_reputation(player: Doc, company: str, n: int) -> None:
    player["reputation"][company] = min(MAX_REPUTATION, player["reputation"][company] + n)


def draw(doc: Doc, deck: str, rng: Any) -> str | None:
    """The top card of a deck; an empty deck is first refilled by shuffling its discards."""
    if not doc["decks"][deck] and doc["discards"][deck]:
        doc["decks"][deck] = list(rng.shuffle(doc["discards"][deck]))
        doc["discards"][deck] = []
    if not doc["decks"][deck]:
        return None
    return doc["decks"][deck].pop(0)  # type: ignore[no-any-return]
