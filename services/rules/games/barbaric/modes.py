"""Modes and Game Setup (the rulebook's ten set-up steps)."""

from __future__ import annotations

from services.rules.games.contract import (
    ConfigError,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Randomness,
)

from .content import (
    CORE_SPACE,
    EVENTS,
    MONSTER_CARDS,
    MONSTER_DIE,
    NESTS,
    RAGE_TOKENS,
    SURVIVOR_SPACES,
    SURVIVORS,
)
from .state import Monster, Player, Table

MODES = {
    "competitive": ModeInfo(
        "competitive", 2, 6,
        "leave the map with the Atomic Core, gain 2 Victory Tokens (3 with 5-6 players) "
        "or be the last player standing", ai_participants=("monster",)),
    "solo": ModeInfo("solo", 1, 1, "take the Atomic Core and leave the map, against the "
                     "Monster played by the game (Monster Board side B)",
                     ai_participants=("monster",)),
}


def first_player(seats: int, rng: Randomness, events: list[EngineEvent] | None = None) -> int:
    """Every player rolls the Monster Die; the most wins, tied players roll again. Each
    round of rolls is a public ``first_player_rolls`` event, the winner ``first_player``."""
    rolling = list(range(seats))
    while len(rolling) > 1:
        rolls = {s: int(rng.roll(MONSTER_DIE)[0]) for s in rolling}
        top = max(rolls.values())
        if events is not None:
            events.append(EngineEvent("first_player_rolls", {
                "rolls": [{"seat": s, "roll": r} for s, r in rolls.items()]}))
        rolling = [s for s in rolling if rolls[s] == top]
    if events is not None:
        events.append(EngineEvent("first_player", {"seat": rolling[0]}))
    return rolling[0]


def setup(config: MatchConfig, rng: Randomness, events: list[EngineEvent] | None = None) -> Table:
    """The table before the first pick; ``events`` receives the set-up's events (the
    first-player roll-off)."""
    if config.mode not in MODES:
        raise ConfigError(f"unknown mode {config.mode!r}; modes: {', '.join(MODES)}")
    info = MODES[config.mode]
    if not info.min_seats <= config.seats <= info.max_seats:
        raise ConfigError(f"{config.mode} is played by {info.min_seats}"
                          f"{'' if info.min_seats == info.max_seats else f'-{info.max_seats}'}"
                          f" players, not {config.seats}")
    if config.options:
        raise ConfigError("Barbaric takes no options")
    if config.carried is not None:
        raise ConfigError("Barbaric has no campaign: a match cannot continue an earlier one")
    seats = config.seats
    t = Table(mode=config.mode, seats=seats, board="B" if config.mode == "solo" else "A",
              players=[Player(seat=s) for s in range(seats)], monster=Monster(pos=CORE_SPACE),
              core_at=CORE_SPACE, minions=sorted(NESTS), rage=RAGE_TOKENS,
              survivor_tokens=sorted(SURVIVOR_SPACES))
    t.event_deck = list(rng.shuffle(sorted(EVENTS)))
    t.survivor_deck = list(rng.shuffle(sorted(SURVIVORS)))
    t.monster_deck = list(rng.shuffle(sorted(MONSTER_CARDS)))
    first = first_player(seats, rng, events) if seats > 1 else 0
    t.first_player = first
    order = [(first + i) % seats for i in range(seats)]
    t.tracks = {"day": list(order), "night": []}
    t.agenda = ([{"step": "pick_rider", "seat": s} for s in order]
                + [{"step": "pick_gear", "seat": s} for s in reversed(order)]
                + [{"step": "choose_card", "seat": s} for s in order]
                + [{"step": "place", "seat": s} for s in order])
    return t
