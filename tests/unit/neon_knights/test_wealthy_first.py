"""Engine 0.7.0 (RULES.md, "Rulings of engine 0.7.0"): a Wealthy choice is settled before the
seat spends any chips.

"If you gain more chips than the board allows, you have a choice to make: 1. Stay at 60 chips
and lose all additional chips. or 2. Lose 60 chips to distribute 2 reputation points on your
reputation tracker, and then only gain the leftover chip." The choice is made at the gain: the
tracker stands at 60 until it is made. Up to 0.6.0 the seat owing it could still use the repair
part ability ("You can do these at ANY time"), a standing option, and pay for it from those 60
chips; "stay" then set the tracker back to 60 (and "reputation" to the leftover), so the armour
was repaired for nothing. From 0.7.0 the seat owing a Wealthy choice is offered no chip-spending
ability until it has chosen; other seats keep theirs, and the ability comes back after the choice.
"""

from __future__ import annotations

from typing import Any

from services.rules.games.neon_knights.state import State

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults

V0_6 = ENGINE.for_version("0.6.0")
REPAIR = {"type": "ability_repair", "part": "r02", "part_to": "hand", "points": 5}


def _pay_day_owing_wealthy(engine: Any = ENGINE) -> tuple[State, int, int]:
    """The rulebook's Wealthy example at Pay Day (50 chips, two sponsors paying 15 + 15), the
    rich seat with 3 of 8 armour and a wrench part (Drum Brakes, repair) on its car; the other
    seat also with a wrench part and damage."""
    state = play_defaults(engine.setup(_config(), _rng()), lambda d: d["phase"] == "actions"
                          and d["day"] == 5 and d["turn"] == len(d["order"]) - 1)
    rich = state.doc["order"][0]
    other = 1 - rich

    def sponsor(doc: dict[str, Any]) -> None:
        for p in doc["players"]:
            p["sponsors"] = []
            p["car"]["red"] = "r02"
            p["ap"], p["chips"] = 3, 20
        doc["players"][rich].update(chips=50, sponsors=["s-gun-3", "s-gun-4"])

    state = edit(state, sponsor)
    last = decision_of(state).seat
    state = engine.apply(state, last, {"type": "pass"}, ScriptedRandomness()).state
    assert [(d.seat, d.kind) for d in engine.pending(state)] == [(rich, "wealthy")]
    assert state.doc["wealthy"] == [{"seat": rich, "total": 80}]
    assert state.doc["players"][rich]["chips"] == 60
    return state, rich, other


def _config() -> Any:
    from services.rules.games.contract import MatchConfig
    return MatchConfig("normal", 2, {})


def _rng() -> Any:
    from services.platform.draws import SeededRandomness
    return SeededRandomness("wealthy-first")


def _standing(engine: Any, state: State, seat: int) -> list[dict[str, Any]]:
    return [dict(a) for d in engine.standing(state) if d.seat == seat for a in d.legal]


def test_a_seat_owing_a_wealthy_choice_cannot_spend_the_chips_first() -> None:
    state, rich, other = _pay_day_owing_wealthy()
    assert not any(a["type"] == "ability_repair" for a in _standing(ENGINE, state, rich))
    reason = ENGINE.validate(state, rich, REPAIR)
    assert reason is not None and "Wealthy" in reason
    # the other seat is not held up: its own ability stays open
    assert {**REPAIR, "points": 4} in _standing(ENGINE, state, other)
    assert ENGINE.validate(state, other, {**REPAIR, "points": 4}) is None


def test_stay_keeps_sixty_chips_and_the_armour_is_paid_for_after_the_choice() -> None:
    state, rich, _ = _pay_day_owing_wealthy()
    state = ENGINE.apply(state, rich, {"type": "wealthy", "choice": "stay"}, ScriptedRandomness()).state
    p = state.doc["players"][rich]
    assert (p["chips"], p["ap"]) == (60, 3)
    assert ENGINE.validate(state, rich, REPAIR) is None  # the ability is back
    state = ENGINE.apply(state, rich, REPAIR, ScriptedRandomness()).state
    p = state.doc["players"][rich]
    assert (p["chips"], p["ap"]) == (35, 8)  # 5 points at 5 chips each, paid


def test_the_reputation_choice_gains_only_the_leftover() -> None:
    """The example's option 2: "go down to 0 chips, add 2 points to any reputation tracker, and
    then add the leftover 20 chips"."""
    state, rich, _ = _pay_day_owing_wealthy()
    gun = state.doc["players"][rich]["reputation"]["gun"]
    state = ENGINE.apply(state, rich, {"type": "wealthy", "choice": "reputation",
                                       "companies": ["gun", "gun"]}, ScriptedRandomness()).state
    p = state.doc["players"][rich]
    assert (p["chips"], p["reputation"]["gun"], p["ap"]) == (20, gun + 2, 3)


def test_engine_0_6_0_still_let_the_chips_be_spent_and_refunded_them() -> None:
    """The defect as 0.6.0 plays it (kept for its exports): 25 chips of repair, then "stay"
    puts the tracker back at 60."""
    state, rich, _ = _pay_day_owing_wealthy(V0_6)
    assert state.doc["ruleset"] == "0.6.0"
    assert V0_6.validate(state, rich, REPAIR) is None
    state = V0_6.apply(state, rich, REPAIR, ScriptedRandomness()).state
    assert state.doc["players"][rich]["chips"] == 35
    state = V0_6.apply(state, rich, {"type": "wealthy", "choice": "stay"}, ScriptedRandomness()).state
    p = state.doc["players"][rich]
    assert (p["chips"], p["ap"]) == (60, 8)


def test_a_new_game_carries_ruleset_0_7_0() -> None:
    assert ENGINE.engine_version == "0.7.0"
    assert new_game(2).doc["ruleset"] == "0.7.0"
    assert V0_6.setup(_config(), _rng()).doc["ruleset"] == "0.6.0"
