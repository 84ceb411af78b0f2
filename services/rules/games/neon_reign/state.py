"""The immutable match state: two sides (the second is the Computer in Solo mode) and the match."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from services.rules.games.frozen import event  # noqa: F401 - the engine's events are made by it

from .cards import STARTING_HEALTH
from .rulesets import CURRENT, Ruleset

PICK, TURN, DEFEND, SHIELDS, OVER = "pick", "turn", "defend", "shields", "over"


@dataclass(frozen=True)
class Side:
    """One player's Hero card, tokens and cards. ``deck[0]`` is the top of the deck."""

    hero: str
    health: int = STARTING_HEALTH
    stars: int = 0
    shields: int = 0
    deck: tuple[str, ...] = ()
    hand: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    bench: tuple[str, ...] = ()
    """2v2 Hero Match: the seat's heroes still waiting to come in."""
    fallen: tuple[str, ...] = ()
    """2v2 Hero Match: the seat's heroes already KO'd."""
    computer: bool = False


@dataclass(frozen=True)
class Defense:
    """What the defender answered with, already sorted into the resolution steps."""

    cards: tuple[str, ...] = ()
    """Real cards played (they go to the discard pile after the turn)."""
    targets: tuple[str, ...] = ()
    """The Attacker's cards removed by Throws (Joysticks) and Blocks (Buttons)."""
    throws: int = 0
    blocks: int = 0
    combo_breakers: int = 0
    early_buttons: tuple[str, ...] = ()
    """Buttons played with a Combo Breaker: their damage is dealt in Step 1."""
    joysticks: tuple[str, ...] = ()
    late_buttons: tuple[str, ...] = ()
    """Buttons a Hero Ability lets the defender play beyond the Combo Breakers: Step 3."""
    early_damage: int = 0
    """The Computer's Defend-section damage (printed with its Combo Breaker): Step 1."""
    gains: tuple[tuple[str, int], ...] = ()
    """The Computer's Defend-section stars, shields and heal: Step 2."""


@dataclass(frozen=True)
class ShieldAsk:
    """Damage about to be dealt to a side holding Shields: how many will it spend?"""

    side: int
    amount: int
    most: int
    """The most Shields that can prevent something: min(Shields held, damage)."""
    source: str


@dataclass(frozen=True)
class Resolving:
    """An Attack whose resolution waits for a Shield decision.

    Resolution is pure and uses no chance, so it is run again from ``before`` with the
    answers given so far; ``emitted`` events of it were already handed out.
    """

    before: tuple[Side, Side]
    defense: Defense
    shields: tuple[int, ...] = ()
    emitted: int = 0
    ask: ShieldAsk | None = None


@dataclass(frozen=True)
class GameResult:
    """One KO (a game of Best of Three, a hero falling in a Hero Match, or the single game)."""

    game: int
    knocked_out: tuple[int, ...]
    reason: str
    health: tuple[int, int]
    heroes: tuple[str, str]


@dataclass(frozen=True)
class State:
    mode: str
    difficulty: str
    decks: tuple[str, str]
    sides: tuple[Side, Side]
    phase: str
    active: int
    """The Attacker: whose turn it is."""
    in_play: tuple[str, ...] = ()
    """The Attacker's played cards while the defender answers (public)."""
    turn: int = 1
    game: int = 1
    starter: int = 0
    mirror: bool = False
    """Solo Training: the human just recovered, so the Computer recovers (passes) too."""
    picks: tuple[str, str] = ("", "")
    """2v2 Hero Match: the hidden starting-hero picks, until both are in."""
    tokens: tuple[int, int] = (0, 0)
    results: tuple[GameResult, ...] = ()
    winner: int | None = None
    reason: str = ""
    rules: Ruleset = CURRENT
    resolving: Resolving | None = None
    """Set while a Shield decision interrupts the resolution (phase ``shields``)."""

    @property
    def solo(self) -> bool:
        return self.sides[1].computer


def encode_side(side: Side) -> dict[str, Any]:
    return {"hero": side.hero, "health": side.health, "stars": side.stars, "shields": side.shields,
            "deck": list(side.deck), "hand": list(side.hand), "discard": list(side.discard),
            "bench": list(side.bench), "fallen": list(side.fallen), "computer": side.computer}


def encode_state(state: State) -> dict[str, Any]:
    """The whole state as canonical JSON (field order fixed, tuples as lists).

    States of the 1.1.0 ruleset encode exactly as engine 1.1.0 did (their hashes are in
    published exports); later rulesets add the ruleset and any paused resolution.
    """
    encoded = {
        "mode": state.mode, "difficulty": state.difficulty, "decks": list(state.decks),
        "sides": [encode_side(side) for side in state.sides], "phase": state.phase,
        "active": state.active, "in_play": list(state.in_play), "turn": state.turn,
        "game": state.game, "starter": state.starter,
        "mirror": state.mirror, "picks": list(state.picks), "tokens": list(state.tokens),
        "results": to_json(state.results), "winner": state.winner, "reason": state.reason,
    }
    if not state.rules.legacy:
        encoded["rules"] = _rules_json(state.rules)
        encoded["resolving"] = to_json(state.resolving)
    return encoded


def to_json(value: Any) -> Any:
    """Canonical JSON for frozen dataclasses and tuples (no floats, no sets)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return [to_json(v) for v in value]
    if kind is Ruleset:
        return value.to_json()  # each version writes the flags it has
    names = _FIELD_NAMES.get(kind)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in sorted(value.items())}
    if isinstance(value, float):
        raise TypeError("floats are not allowed in Neon Reign states")
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""The field names of each dataclass met, in order (``fields()`` on every call was most of
an encoding's cost)."""
_RULES_JSON: dict[Ruleset, dict[str, Any]] = {}


def _rules_json(rules: Ruleset) -> dict[str, Any]:
    """A ruleset's encoding (the same for every state of a match: computed once)."""
    try:
        return dict(_RULES_JSON[rules])
    except KeyError:
        _RULES_JSON[rules] = to_json(rules)
        return dict(_RULES_JSON[rules])


_NEW = object.__new__
_SET = object.__setattr__


def _plain(cls: type, names: tuple[str, ...]) -> bool:
    """``cls`` is a frozen dataclass whose instances hold exactly the fields ``names``, in
    this order, set by its generated ``__init__`` (so an instance made by setting its dict
    is the object that ``__init__`` makes)."""
    return (tuple(f.name for f in fields(cls)) == names and all(f.init for f in fields(cls))
            and not hasattr(cls, "__post_init__") and "__slots__" not in vars(cls))


def resolving(before: tuple[Side, Side], defense: Defense) -> Resolving:
    """``Resolving(before, defense)`` (a new resolution: no Shield answer yet)."""
    new = _NEW(Resolving)
    _SET(new, "__dict__", {"before": before, "defense": defense, "shields": (), "emitted": 0,
                           "ask": None})
    return new


def defense(cards: tuple[str, ...], targets: tuple[str, ...], throws: int, blocks: int,
            combo_breakers: int, early_buttons: tuple[str, ...], joysticks: tuple[str, ...],
            late_buttons: tuple[str, ...]) -> Defense:
    """``Defense(...)`` of a player's cards (no Computer Defend-section effects)."""
    new = _NEW(Defense)
    _SET(new, "__dict__", {"cards": cards, "targets": targets, "throws": throws,
                           "blocks": blocks, "combo_breakers": combo_breakers,
                           "early_buttons": early_buttons, "joysticks": joysticks,
                           "late_buttons": late_buttons, "early_damage": 0, "gains": ()})
    return new


if not (_plain(Resolving, ("before", "defense", "shields", "emitted", "ask"))
        and _plain(Defense, ("cards", "targets", "throws", "blocks", "combo_breakers",
                             "early_buttons", "joysticks", "late_buttons", "early_damage",
                             "gains"))):
    raise AssertionError("resolving() and defense() make Resolving and Defense by their dict")
