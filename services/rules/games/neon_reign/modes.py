"""2-Player Game Modes and Solo Mode: options, set-up, and what a KO means for the match."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.rules.games.contract import (
    ConfigError,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Randomness,
)
from services.rules.games.frozen import replace

from .cards import HAND_SIZE, STARTING_HEALTH
from .content import COMPUTER_DECK, COMPUTER_HEROES, DECKS, HEROES, pack_decks
from .rulesets import CURRENT, Ruleset
from .state import OVER, PICK, TURN, GameResult, Side, State, event

SINGLE, BEST_OF_THREE, HERO_MATCH, SOLO = "single", "best-of-three", "hero-match", "solo"
DIFFICULTIES = ("training", "normal", "hard")
TOKENS_TO_WIN = 2

MODES = {
    SINGLE: ModeInfo(SINGLE, 2, 2, "Single Game: one game of Neon Reign"),
    BEST_OF_THREE: ModeInfo(BEST_OF_THREE, 2, 2,
                            "Best of Three: first to 2 Arcade tokens; a double KO gives both one"),
    HERO_MATCH: ModeInfo(HERO_MATCH, 2, 2,
                         "2v2 Hero Match: two heroes each, secret starting pick, beat both"),
    SOLO: ModeInfo(SOLO, 1, 1, "Solo: one player against the Computer deck (training|normal|hard)",
                   ai_participants=("computer",)),
}

COMMON_KEYS = {"decks", "heroes"}
MODE_KEYS = {
    SINGLE: COMMON_KEYS | {"first_player"},
    BEST_OF_THREE: COMMON_KEYS | {"first_player"},
    HERO_MATCH: COMMON_KEYS | {"first_player"},
    SOLO: COMMON_KEYS | {"difficulty", "computer_hero"},
}
DEFAULT_DECKS = ("neon-pulse", "chrome-fury")


@dataclass(frozen=True)
class Options:
    mode: str
    decks: tuple[str, ...]
    heroes: tuple[tuple[str, ...], ...] | None
    """Per seat: one hero (two in a Hero Match); ``None`` draws them at random."""
    first_player: int | str
    difficulty: str
    computer_hero: str | None


def _fail(message: str) -> ConfigError:
    return ConfigError(message)


def _decks(options: Mapping[str, Any], seats: int) -> tuple[str, ...]:
    decks = options.get("decks", list(DEFAULT_DECKS[:seats]))
    if not isinstance(decks, list) or len(decks) != seats:
        raise _fail(f"decks must list one Action deck per seat ({seats})")
    for deck in decks:
        if deck not in DECKS:
            raise _fail(f"unknown Action deck {deck!r}; decks: {', '.join(DECKS)}")
    if len(set(decks)) != len(decks):
        raise _fail("each player chooses a different Action deck")
    return tuple(decks)


def _heroes(options: Mapping[str, Any], mode: str,
            seats: int) -> tuple[tuple[str, ...], ...] | None:
    if "heroes" not in options:
        return None
    raw = options["heroes"]
    per_seat = 2 if mode == HERO_MATCH else 1
    if not isinstance(raw, list) or len(raw) != seats:
        raise _fail(f"heroes must list the heroes of each of the {seats} seat(s)")
    picked: list[tuple[str, ...]] = []
    for entry in raw:
        group = tuple(entry) if isinstance(entry, list) else (entry,)
        if len(group) != per_seat:
            raise _fail("in a Hero Match each seat takes 2 heroes" if per_seat == 2
                        else "each seat takes 1 hero")
        for name in group:
            if name not in HEROES:
                raise _fail(f"unknown hero {name!r}; heroes: {', '.join(HEROES)}")
        picked.append(group)
    flat = [h for group in picked for h in group]
    if len(set(flat)) != len(flat):
        raise _fail("each Hero card can only be taken once")
    return tuple(picked)


def parse_options(config: MatchConfig) -> Options:
    mode, options = config.mode, dict(config.options)
    if mode not in MODES:
        raise _fail(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
    info = MODES[mode]
    if not info.min_seats <= config.seats <= info.max_seats:
        raise _fail(f"{mode} is played by {info.min_seats} seat(s)")
    unknown = sorted(set(options) - MODE_KEYS[mode])
    if unknown:
        raise _fail(f"option {unknown[0]!r} does not apply to {mode}")
    first = options.get("first_player", 0)
    if first not in (0, 1, "random") or isinstance(first, bool):
        raise _fail("first_player must be 0, 1 or \"random\"")
    difficulty = options.get("difficulty", "normal")
    if difficulty not in DIFFICULTIES:
        raise _fail(f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    computer_hero = options.get("computer_hero")
    if computer_hero is not None and computer_hero not in COMPUTER_HEROES:
        raise _fail(f"unknown Computer hero {computer_hero!r}")
    return Options(mode, _decks(options, config.seats), _heroes(options, mode, config.seats),
                   first, difficulty if mode == SOLO else "", computer_hero)


def _draw_heroes(options: Options, seats: int, rng: Randomness) -> tuple[tuple[str, ...], ...]:
    if options.heroes is not None:
        return options.heroes
    per_seat = 2 if options.mode == HERO_MATCH else 1
    pool = rng.shuffle(sorted(HEROES))
    return tuple(tuple(pool[s * per_seat:(s + 1) * per_seat]) for s in range(seats))


def deal(side: Side, deck: tuple[str, ...], rng: Randomness) -> tuple[Side, EngineEvent | None]:
    """Shuffle the deck and, for a player, draw the starting hand of 7."""
    shuffled = rng.shuffle(deck)
    if side.computer:
        return replace(side, deck=shuffled, hand=(), discard=()), None
    return replace(side, deck=shuffled[HAND_SIZE:], hand=shuffled[:HAND_SIZE], discard=()), None


def setup(config: MatchConfig, rng: Randomness, rules: Ruleset = CURRENT) -> State:
    """The starting state (what replays fold MatchStarted with): :func:`start`'s state."""
    return start(config, rng, rules)[0]


def start(config: MatchConfig, rng: Randomness,
          rules: Ruleset = CURRENT) -> tuple[State, tuple[EngineEvent, ...]]:
    """The starting state and the events of set-up (the rules host records them in
    MatchStarted). The draws, in this order, are those of every engine version: heroes (if
    random), the Computer hero (if random), the first player (if random), then one shuffle
    per deck in seat order; the events are read off the state they made."""
    options = parse_options(config)
    heroes = _draw_heroes(options, config.seats, rng)
    if options.mode == SOLO:
        cpu = options.computer_hero or sorted(COMPUTER_HEROES)[rng.randbelow(len(COMPUTER_HEROES))]
        sides = (Side(heroes[0][0]), Side(cpu, computer=True))
        decks = (options.decks[0], "computer")
    else:
        picking = options.mode == HERO_MATCH
        sides = tuple(Side("" if picking else group[0], bench=group if picking else ())
                      for group in heroes)  # type: ignore[assignment]
        decks = (options.decks[0], options.decks[1])
    starter = rng.randbelow(2) if options.first_player == "random" else int(options.first_player)
    dealt = tuple(deal(side, deck_cards(deck, rules), rng)[0]
                  for side, deck in zip(sides, decks))
    state = State(mode=options.mode, difficulty=options.difficulty, decks=decks,
                  sides=(dealt[0], dealt[1]),
                  phase=PICK if options.mode == HERO_MATCH else TURN,
                  active=starter, starter=starter, rules=rules)
    return state, _setup_events(state, options)


def _setup_events(state: State, options: Options) -> tuple[EngineEvent, ...]:
    """What set-up shows: each side's hero(es) (public, as in every view), the game started
    with its first player, then per seat its starting hand (to that seat only) and how many
    cards it drew (public). Later games of a Best of Three deal with ``game_started`` and
    the private ``drew`` events alone (``_best_of_three``)."""
    events: list[EngineEvent] = []
    for seat, side in enumerate(state.sides):
        chosen = (options.computer_hero is not None if side.computer
                  else options.heroes is not None)
        data: dict[str, Any] = {"side": seat,
                                # a Hero Match's two heroes in the order the views show them
                                "heroes": sorted(side.bench) if side.bench else [side.hero],
                                "source": "chosen" if chosen else "dealt at random"}
        if side.computer:
            data["computer"] = True
        events.append(event("heroes_dealt", data))
    events.append(event("game_started", {"game": state.game, "first_player": state.starter}))
    for seat, side in enumerate(state.sides):
        if side.computer:  # the Computer's deck is shuffled, never drawn into a hand
            continue
        events.append(event("drew", {"side": seat, "cards": list(side.hand),
                                     "source": "starting hand"}, frozenset({seat})))
        events.append(event("drew_count", {"side": seat, "count": len(side.hand),
                                           "source": "starting hand"}))
    return tuple(events)


def deck_cards(deck: str, rules: Ruleset) -> tuple[str, ...]:
    return COMPUTER_DECK if deck == "computer" else pack_decks(rules.content)[deck]


def fresh(side: Side, hero: str) -> Side:
    return replace(side, hero=hero, health=STARTING_HEALTH, stars=0, shields=0)


@dataclass(frozen=True)
class Aftermath:
    """What a KO leaves: the new state, and whether the match goes on with a next turn."""

    state: State
    continues: bool
    events: tuple[EngineEvent, ...] = ()


def record(state: State, knocked_out: tuple[int, ...], reason: str) -> State:
    result = GameResult(state.game, knocked_out, reason,
                        (state.sides[0].health, state.sides[1].health),
                        (state.sides[0].hero, state.sides[1].hero))
    return replace(state, results=state.results + (result,), in_play=())


def finish(state: State, winners: tuple[int, ...], reason: str) -> State:
    winner = winners[0] if len(winners) == 1 else None
    return replace(state, phase=OVER, winner=winner, reason=reason)


def after_ko(state: State, knocked_out: tuple[int, ...], reason: str,
             rng: Randomness, out_of_cards: bool = False) -> Aftermath:
    """Apply a KO (or double KO) to the match according to the mode.

    ``out_of_cards``: the double KO of players who ran out of cards. In a Hero Match it
    ends the match (engine 1.2.0): the cards belong to the player, not to the hero, so a
    spare hero has nothing to fight with either.
    """
    state = record(state, knocked_out, reason)
    survivors = tuple(s for s in (0, 1) if s not in knocked_out)
    ko_event = event("ko", {"knocked_out": list(knocked_out), "reason": reason,
                                  "game": state.game})
    ends = out_of_cards and state.mode == HERO_MATCH and state.rules.out_of_cards_ends_hero_match
    if state.mode in (SINGLE, SOLO) or ends:
        return Aftermath(finish(state, survivors or (0, 1), reason), False, (ko_event,))
    if state.mode == BEST_OF_THREE:
        return _best_of_three(state, knocked_out, survivors, reason, rng, ko_event)
    return _hero_match(state, knocked_out, reason, ko_event)


def _best_of_three(state: State, knocked_out: tuple[int, ...], survivors: tuple[int, ...],
                   reason: str, rng: Randomness, ko_event: EngineEvent) -> Aftermath:
    awarded = survivors or (0, 1)
    tokens = tuple(t + (1 if s in awarded else 0) for s, t in enumerate(state.tokens))
    state = replace(state, tokens=(tokens[0], tokens[1]))
    events = [ko_event, event("arcade_tokens", {"awarded": list(awarded),
                                                      "tokens": list(tokens)})]
    champions = tuple(s for s in (0, 1) if tokens[s] >= TOKENS_TO_WIN)
    if champions:
        why = ("both players reached 2 Arcade tokens at once: a drawn match"
               if len(champions) == 2 else f"seat {champions[0]} won 2 games")
        return Aftermath(finish(state, champions, why), False, tuple(events))
    starter = knocked_out[0] if len(knocked_out) == 1 else 1 - state.starter
    sides = []
    for side, deck in zip(state.sides, state.decks):
        dealt, _ = deal(fresh(side, side.hero), deck_cards(deck, state.rules), rng)
        sides.append(dealt)
    state = replace(state, sides=(sides[0], sides[1]), game=state.game + 1, starter=starter,
                    active=starter, phase=TURN, turn=1)
    events.append(event("game_started", {"game": state.game, "first_player": starter}))
    for seat in (0, 1):
        events.append(event("drew", {"side": seat, "cards": list(sides[seat].hand),
                                           "source": "starting hand"}, frozenset({seat})))
        events.append(event("drew_count", {"side": seat, "count": len(sides[seat].hand),
                                           "source": "starting hand"}))
    return Aftermath(state, False, tuple(events))


def _hero_match(state: State, knocked_out: tuple[int, ...], reason: str,
                ko_event: EngineEvent) -> Aftermath:
    events = [ko_event]
    sides = list(state.sides)
    for s in knocked_out:
        side = replace(sides[s], fallen=sides[s].fallen + (sides[s].hero,))
        if side.bench:
            side = replace(fresh(side, side.bench[0]), bench=side.bench[1:])
            events.append(event("hero_enters", {"side": s, "hero": side.hero}))
        sides[s] = side
    state = replace(state, sides=(sides[0], sides[1]))
    beaten = tuple(s for s in knocked_out if not state.sides[s].bench
                   and state.sides[s].hero in state.sides[s].fallen)
    if beaten:
        standing = tuple(s for s in (0, 1) if s not in beaten)
        why = ("both seats lost their last hero at once: a drawn match" if not standing
               else f"seat {standing[0]} beat both of the opponent's heroes")
        return Aftermath(finish(state, standing or (0, 1), why), False, tuple(events))
    return Aftermath(state, True, tuple(events))
