"""Leak checker: what a viewer receives never holds another seat's hidden cards.

Secrets come from ``engine.encode(state)``: the strings in a game's hidden zones (another
seat's hand, every deck's order, a face-down choice) that appear nowhere in the zones the
viewer may see. Every seat view, the spectator view and ``records.project`` of every record
for every viewer must not contain one of them (as a whole JSON string). Strings that a
record's public events reveal (a card struck face up) count as revealed from then on, and so
do those a public action names that the spectator's view showed just before it (a card taken
from a face-up pile into a hand): the engines decide what their events show; this checker
holds the host's side (views, hidden actions, per-seat events) and every engine's views to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from services.platform.canonical import state_hash
from services.platform.draws import SeededRandomness
from services.rules import records
from services.rules.bots import RandomBot
from services.rules.games import available, load_engine
from services.rules.games.contract import ConfigError, MatchConfig

Zone = tuple[int | None, Any]
"""(the seat that may see it, or None for nobody; the JSON held there)."""


def _neon_reign_zones(encoded: dict[str, Any]) -> list[Zone]:
    """Each side's hand is its own, every deck nobody's; also in the sides a resolution
    paused for a Shield decision starts again from (``resolving.before``)."""
    zones: list[Zone] = []
    before = (encoded.get("resolving") or {}).get("before") or []
    for sides in (encoded["sides"], before):
        for index, side in enumerate(sides):
            zones += [(index, side["hand"]), (None, side["deck"])]
    return zones


def _neon_zones(encoded: dict[str, Any]) -> list[Zone]:
    """A fighter's hand, its face-down choice, the default drawn for that choice (engine 6,
    ``defaults``), the cards tucked under its equipment as supplies (the others see their
    symbols only: "tuck it under one of your equipment cards so that only the supply symbol
    at the bottom of the card is visible") and the loot or upgrade cards of its keep, place or
    upgrade frame (a keep's drawn ``default`` with them) are its own; every deck is nobody's.
    A supply or a card being laid out that was public before (a covered equipment card,
    trophy equipment) is named by the public events that showed it, which a checker of a
    whole game counts as revealed."""
    zones: list[Zone] = []
    for index, fighter in enumerate(encoded["fighters"]):
        zones += [(index, fighter["hand"]), (None, fighter["deck"])]
        if fighter.get("choice") and not fighter.get("row"):
            zones.append((index, fighter["choice"]))
        zones += [(index, equipment["supplies"]) for equipment in fighter.get("equipment", [])
                  if equipment.get("supplies")]
    zones += [(index, entry) for index, entry in encoded.get("defaults", [])]
    zones += [(None, deck) for deck in encoded.get("loot_decks", [])]
    zones.append((None, encoded.get("upgrade_deck", [])))
    # The keep and the laying out are hidden decisions: the loot kept and where each card
    # went are the owner's (what the table sees comes in public events).
    for frame in encoded.get("stack", []):
        if frame.get("kind") in ("keep", "place", "upgrade"):
            zones.append((frame.get("owner"), frame.get("data")))
    return zones


def _neon_knights_zones(encoded: dict[str, Any]) -> list[Zone]:
    """Every deck, the Fan Bet discards and the stage deck are nobody's; a player's hand of
    parts, Fan Bets and implants, its draft packet and pick, and the default drawn for its
    hidden draft pick (engine 0.6.0, ``defaults``: the string itself is the zone; a drawn
    speed is a number, which no string check sees) are its own."""
    zones: list[Zone] = [(None, deck) for deck in encoded["decks"].values()]
    zones += [(None, encoded["discards"]["bets"]), (None, encoded["stage_deck"])]
    for p in encoded["players"]:
        zones += [(p["seat"], p["hand"]), (p["seat"], p["bets"]), (p["seat"], p["implant_hand"])]
    if encoded.get("draft"):
        for seat, packet in enumerate(encoded["draft"]["packets"]):
            zones += [(seat, packet), (seat, [encoded["draft"]["picks"][seat]])]
    zones += [(seat, drawn) for seat, drawn in enumerate(encoded.get("defaults") or [])
              if isinstance(drawn, str)]
    return zones


def _barbaric_zones(encoded: dict[str, Any]) -> list[Zone]:
    """A player's hand is its own; Character decks and the event, monster and survivor decks
    are nobody's; a starting-hand choice's drawn default (engine 0.5.0, in the agenda) is
    the choosing seat's (the string itself is the zone: zones are taken out by identity)."""
    zones: list[Zone] = []
    for index, player in enumerate(encoded["players"]):
        zones += [(index, player["hand"]), (None, player["deck"])]
    zones += [(step["seat"], step["default"]) for step in encoded["agenda"]
              if step["step"] == "choose_card" and "default" in step]
    zones += [(None, encoded["event_deck"]), (None, encoded["monster_deck"]),
              (None, encoded["survivor_deck"])]
    return zones


HIDDEN_ZONES: dict[str, Callable[[dict[str, Any]], list[Zone]]] = {
    "neon-reign": _neon_reign_zones,
    "neon": _neon_zones,
    "neon-knights-2086": _neon_knights_zones,
    "barbaric": _barbaric_zones,
}


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def _without(value: Any, hidden: list[Any]) -> Any:
    """``value`` with the hidden zones (by identity) taken out."""
    if any(value is h for h in hidden):
        return None
    if isinstance(value, dict):
        return {k: _without(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [_without(v, hidden) for v in value]
    return value


def secrets(game: str, encoded: Any, viewer: int | None) -> set[str]:
    """Strings ``viewer`` must not receive in this state."""
    zones = HIDDEN_ZONES[game](encoded)
    mine = [z for owner, z in zones if owner is not None and owner == viewer]
    hidden = [z for owner, z in zones if owner is None or owner != viewer]
    seen = strings(_without(encoded, hidden)) | strings(mine)
    return strings(hidden) - seen


def _neon_reign_own_draws(events: list[dict[str, Any]], viewer: int) -> set[str]:
    """The cards a ``drew`` event tells ``viewer`` it drew itself (its ``side``)."""
    return set().union(*(strings(e["data"].get("cards")) for e in events
                         if e["kind"] == "drew" and e["data"].get("side") == viewer))


OWN_DRAWS: dict[str, Callable[[list[dict[str, Any]], int], set[str]]] = {
    "neon-reign": _neon_reign_own_draws,
}
"""A seat knows the cards it drew, also when the same action then puts them back into a deck
nobody sees: a Neon Reign attack that draws for its joysticks and knocks the defender out
ends a game of a Best of Three, and the next game deals from fresh decks, all in one action
(the draw in a ``drew`` event of its own side, sent to it alone). Only the seat's own draw
counts so: another seat's card in an event sent to it is still a leak."""


def found_in(value: Any, secret: set[str]) -> set[str]:
    return strings(value) & secret


@dataclass
class LeakReport:
    games: int = 0
    actions: int = 0
    checks: int = 0
    leaks: list[str] = field(default_factory=list)

    def add(self, other: LeakReport) -> None:
        self.games += other.games
        self.actions += other.actions
        self.checks += other.checks
        self.leaks += other.leaks


def setups(game: str) -> Iterator[tuple[str, int]]:
    """Every (mode, seat count) of a game's engine."""
    engine = load_engine(game)
    for name, mode in engine.modes().items():
        for seats in range(mode.min_seats, mode.max_seats + 1):
            yield name, seats


def play_one(game: str, mode: str, seats: int, seed: int | str, max_steps: int = 3000,
             engine: Any = None) -> LeakReport:
    """One random-bot game, every channel checked after every action. ``engine``: another
    engine object for the game (one with a planted leak, to show the checker finds it)."""
    engine = engine if engine is not None else load_engine(game)
    report = LeakReport()
    options = dict(engine.match_options(mode, seats)) if hasattr(engine, "match_options") else {}
    rng = SeededRandomness(f"leaks:{game}:{mode}:{seats}:{seed}")
    try:
        state = engine.setup(MatchConfig(mode, seats, options), rng)
    except ConfigError:
        return report
    match_id = f"leak-{seed}"
    bot = RandomBot(f"{game}:{seed}")
    chain: list[dict[str, Any]] = []
    revealed: set[str] = set()
    viewers: list[int | None] = [None, *range(seats)]
    label = f"{game}/{mode}/{seats}/{seed}"
    public_before = strings(engine.view(state, None))  # what the table sees before each step
    for step in range(max_steps):
        if engine.outcome(state) is not None:
            break
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[bot.pick(list(range(len(pending))))]
        action = bot.choose(decision)
        transition = engine.apply(state, decision.seat, action, rng)
        state = transition.state
        after = engine.encode(state)
        body = {
            "type": "ActionAccepted", "seat": decision.seat, "command_id": f"c{step}",
            "action": action, "decision": decision.kind, "hidden": decision.hidden,
            "draws": [], "events": records.engine_events_json(transition.events),
            "state_hash": state_hash(after),
        }
        record = records.seal_record(match_id, len(chain) + 1, records.head(chain), body)
        chain.append(record)
        public = records.project(record, None)
        revealed |= strings(public.get("events", []))
        # a public action that takes a card the table saw (Neon Knights' campaign implant
        # piles) tells nothing new: the card stays known where it went; one that names a card
        # nobody saw (a hidden choice left public) is still caught
        revealed |= strings(public.get("action")) & public_before
        report.actions += 1
        for viewer in viewers:
            secret = secrets(game, after, viewer) - revealed
            if viewer == decision.seat:  # a seat knows what it did (a card it just discarded)
                secret -= strings(action)
            projected = public if viewer is None else records.project(record, viewer)
            if viewer is not None and game in OWN_DRAWS:
                secret -= OWN_DRAWS[game](projected.get("events", []), viewer)
            view = engine.view(state, viewer)
            if viewer is None:  # the next step's table
                public_before = strings(view)
            for channel, value in (("view", view), ("record", projected)):
                report.checks += 1
                leaked = found_in(value, secret)
                if leaked:
                    who = "spectator" if viewer is None else f"seat {viewer}"
                    report.leaks.append(f"{label} step {step} ({decision.kind}): {channel} of {who} holds "
                                        f"{sorted(leaked)[:3]}")
            if decision.hidden and viewer != decision.seat:
                report.checks += 1
                if "action" in projected:
                    report.leaks.append(f"{label} step {step}: hidden action reaches {viewer}")
    report.games = 1
    return report


def run(games_per_game: int, seed: int = 0, games: list[str] | None = None,
        progress: Callable[[LeakReport], None] | None = None) -> LeakReport:
    """``games_per_game`` bot games of each game, spread over its modes and seat counts."""
    total = LeakReport()
    for game in games or [g for g in available() if g in HIDDEN_ZONES]:
        combos = list(setups(game))
        for i in range(games_per_game):
            mode, seats = combos[i % len(combos)]
            total.add(play_one(game, mode, seats, seed + i))
            if progress is not None:
                progress(total)
    return total


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
