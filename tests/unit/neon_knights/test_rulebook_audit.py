"""The rulebook audit of engine 0.3.0: rules found missing, differing from the text or
untested, each tested from the rulebook's sentence (quoted) on a real position."""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import race
from services.rules.games.neon_knights.state import State

from .support import ENGINE, ScriptedRandomness, edit, play_defaults

OLD = ENGINE.for_version("0.2.0")


def _current(state: State) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


def _racing(engine: Any = ENGINE, seats: int = 2, round_: int = 2, seed: str = "t") -> State:
    """A race in progress at the first turn of round ``round_``, played by ``engine``."""
    rng = SeededRandomness("defaults")
    state = engine.setup(MatchConfig("normal", seats, {}), SeededRandomness(seed))
    for _ in range(5000):
        doc = state.doc
        if doc["phase"] == "race" and doc["racing"]["round"] == round_ and doc["racing"]["index"] == 0 \
                and doc["racing"]["step"] in ("adjust", "start", "move"):
            return state
        decision = engine.pending(state)[0]
        state = engine.apply(state, decision.seat, decision.default, rng).state
    raise AssertionError("position not reached")


def legal_of(state: State, engine: Any = ENGINE) -> list[dict[str, Any]]:
    return [dict(a) for a in engine.pending(state)[0].legal]


# -- Activation Spaces: "ready to be used again at the next turn" -------------------------------
def _landing_on_a_weapon_space(engine: Any) -> tuple[State, int, int]:
    """Round 2: the current car has fired its Rail Gun and has one movement point left, one
    row before a weapon activation space (Neon Strip, row 2, middle lane); another car is in
    range."""
    state = _racing(engine)
    seat = _current(state)
    other = 1 - seat

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t01", "t02", "t03", "t05", "t06", "t07", "t09", "t12"]
        doc["players"][seat].update(row=1, lane=1, speed=2, weapon={"id": "u-w03", "up": False})
        doc["players"][other].update(row=3, lane=0, shield=None, ap=6)
        doc["racing"].update(step="move", moves=1)

    return edit(state, place), seat, other


def test_a_card_reactivated_on_landing_is_ready_at_the_next_turn_not_this_one() -> None:
    """Activation Spaces: "When you land on an activation space, you can re-activate the
    corresponding item on your car. This means turning the upgrade, weapon, or shield face up
    and ready to be used again at the next turn." (0.3.0: before, the card could be fired
    again in the same turn's after-movement window.)"""
    state, seat, other = _landing_on_a_weapon_space(ENGINE)
    rng = ScriptedRandomness()
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    assert state.doc["players"][seat]["weapon"] == {"id": "u-w03", "up": True}  # face up at once
    fire = {"type": "fire", "upgrade": "u-w03", "targets": [other]}
    assert fire not in legal_of(state)  # the turn goes on to the next car, or offers no fire
    assert ENGINE.validate(state, seat, fire) is not None
    # at its next turn the card is ready again
    state = play_defaults(state, lambda d: _current_doc(d) != seat, rng=rng)
    state = play_defaults(state, lambda d: _current_doc(d) == seat, rng=rng)
    assert "fresh" not in state.doc["racing"]

    def near(doc: dict[str, Any]) -> None:
        doc["players"][other].update(row=doc["players"][seat]["row"] + 1)
        doc["racing"]["step"] = "before"

    assert fire["targets"] and any(
        a["type"] == "fire" and a["upgrade"] == "u-w03" for a in race.fire_options(edit(state, near).doc, seat))


def test_in_engine_0_2_0_the_reactivated_card_could_fire_at_once() -> None:
    """Exports of 0.2.0 replay as they were played."""
    state, seat, other = _landing_on_a_weapon_space(OLD)
    state = OLD.apply(state, seat, {"type": "step", "dir": 0}, ScriptedRandomness()).state
    assert OLD.pending(state)[0].kind == "fire_after"
    assert {"type": "fire", "upgrade": "u-w03", "targets": [other]} in legal_of(state, OLD)


def _current_doc(doc: dict[str, Any]) -> int | None:
    r = doc["racing"]
    if not r or r["index"] >= len(r["order"]):
        return None
    return int(r["order"][r["index"]])
