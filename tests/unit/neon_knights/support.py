"""Helpers for Neon Knights tests: positions built from real set-ups, scripted dice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights.content import DIE_FACES
from services.rules.games.neon_knights.engine import NeonKnightsEngine
from services.rules.games.neon_knights.state import State, freeze, thaw

T = TypeVar("T")
ENGINE = NeonKnightsEngine()
FACE = {f["face"]: f for f in DIE_FACES}


class ScriptedRandomness(SeededRandomness):
    """Seeded randomness whose die rolls come from a script of face names first."""

    def __init__(self, faces: Sequence[str] = (), seed: str = "scripted") -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        if self.faces and faces == DIE_FACES:
            return tuple(FACE[self.faces.pop(0)] for _ in range(count))  # type: ignore[misc]
        return super().roll(faces, count)


def new_game(seats: int, mode: str = "normal", seed: str = "t", **options: Any) -> State:
    return ENGINE.setup(MatchConfig(mode, seats, options), SeededRandomness(seed))


def play_defaults(state: State, until: Callable[[dict[str, Any]], bool], rng: Any = None,
                  limit: int = 5000) -> State:
    """Answer every owed decision with its default until ``until(doc)`` holds."""
    rng = rng or SeededRandomness("defaults")
    for _ in range(limit):
        if until(state.doc):
            return state
        decision = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, decision.seat, decision.default, rng).state
    raise AssertionError("position not reached")


def edit(state: State, change: Callable[[dict[str, Any]], None]) -> State:
    doc = thaw(state)
    change(doc)
    return freeze(doc)


def racing(seats: int = 4, seed: str = "t", round_: int = 2) -> State:
    """A race in progress at the first turn of round ``round_`` (default: the second)."""
    state = play_defaults(new_game(seats, seed=seed), lambda d: d["phase"] == "race")
    if round_ > 1:
        state = play_defaults(state, lambda d: d["phase"] == "race" and d["racing"]["round"] == round_
                              and d["racing"]["index"] == 0 and d["racing"]["step"] in ("adjust", "start"))
    return state


def decision_of(state: State, seat: int | None = None) -> Any:
    owed = [d for d in ENGINE.pending(state) if seat is None or d.seat == seat]
    assert owed, "no decision owed"
    return owed[0]


def card_places(doc: dict[str, Any]) -> dict[str, list[str]]:
    """Every physical card of the table and the zones it lies in (a card in two zones is two
    copies of one card): decks, discard piles, shop rows, the cars, hands, upgrades, sponsors,
    Fan Bets (hidden, face up, won), implants (installed, hand, piles, draft packets), the stage
    deck and the stage card in play. Starter parts are one per player, not a shared card."""
    places: dict[str, list[str]] = {}

    def put(zone: str, cards: Any) -> None:
        for card in cards:
            if card is not None:
                places.setdefault(card, []).append(zone)

    for deck, cards in doc["decks"].items():
        put(f"deck {deck}", cards)
    for deck, cards in doc["discards"].items():
        put(f"discards {deck}", cards)
    for row, cards in doc["rows"].items():
        put(f"row {row}", cards)
    for p in doc["players"]:
        seat = p["seat"]
        put(f"seat {seat} car", [c for c in p["car"].values() if c and not c.startswith("starter-")])
        put(f"seat {seat} hand", p["hand"])
        put(f"seat {seat} upgrades", [u["id"] for u in (p["weapon"], p["shield"], *p["specials"]) if u])
        put(f"seat {seat} sponsors", p["sponsors"])
        put(f"seat {seat} bets", [*p["bets"], *p.get("bets_up", []), *p["bets_won"]])
        put(f"seat {seat} implants", [*p["implants"], *p["implant_hand"]])
    for level, pile in doc["piles"].items():
        put(f"implant pile {level}", pile)
    if doc["draft"]:
        for seat, packet in enumerate(doc["draft"]["packets"]):
            put(f"draft packet {seat}", packet)
    put("stage deck", doc["stage_deck"])
    put("stage in play", [doc["stage"]])
    return places


def doubled(doc: dict[str, Any]) -> dict[str, list[str]]:
    """The cards found in more than one place at once (none, on a sound table)."""
    return {card: zones for card, zones in card_places(doc).items() if len(zones) > 1}
