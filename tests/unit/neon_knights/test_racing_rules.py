"""Racing, Action-phase and After-a-Race rules of issue 12 not covered elsewhere, each on a
real position, with the rulebook's sentence it holds to; refused actions change nothing."""

from __future__ import annotations

from typing import Any

from services.rules.games.neon_knights import after, race
from services.rules.games.neon_knights.state import State, freeze, thaw

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults, racing


def _current(state: State) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


def _other(state: State, seat: int) -> int:
    return next(s for s in range(state.doc["seats"]) if s != seat)


def refused(state: State, seat: int, action: dict[str, Any]) -> str:
    """The reason an action is refused; the state is exactly what it was."""
    before = state.text
    reason = ENGINE.validate(state, seat, action)
    assert reason, f"{action} was accepted"
    assert state.text == before
    return reason


def legal_of(state: State, seat: int | None = None) -> list[dict[str, Any]]:
    return [dict(a) for a in decision_of(state, seat).legal]


# -- adjusting speed -----------------------------------------------------------------------------
def test_accelerating_past_the_allowed_bonus_is_refused_with_a_reason() -> None:
    """ "accelerate ... up to a number of spaces equal to 1 plus the bonuses from your yellow and
    green parts": starter parts have bonus 0, so +1 at most."""
    state = racing(2)
    seat = _current(state)
    state = edit(state, lambda d: d["players"][seat].update(speed=5))
    assert decision_of(state).kind == "adjust_speed"
    assert ENGINE.validate(state, seat, {"type": "speed", "to": 6}) is None
    reason = refused(state, seat, {"type": "speed", "to": 7})
    assert reason == "that speed is beyond what your parts allow this turn"


def test_decelerating_uses_the_red_and_orange_bonuses() -> None:
    """ "decelerate ... up to 1 plus the bonuses from your red and orange parts. (Example:
    -1-1-1=-3.)\""""
    state = racing(2)
    seat = _current(state)

    def fit(doc: dict[str, Any]) -> None:
        p = doc["players"][seat]
        p["car"]["red"], p["car"]["orange"], p["speed"] = "r04", "o04", 8  # bonus 1 each

    state = edit(state, fit)
    speeds = sorted({a["to"] for a in legal_of(state) if "part" not in a})
    assert speeds == [5, 6, 7, 8, 9]  # -3 .. +1 (starter yellow and green)
    refused(state, seat, {"type": "speed", "to": 4})


def test_a_plus_two_part_stretches_the_adjustment_and_leaves_the_car() -> None:
    """Part abilities: "+2 ... help you accelerate or slow down"; the part is discarded or
    returned to the hand ("Discard or Return to your hand parts that are attached")."""
    state = racing(2)
    seat = _current(state)

    def fit(doc: dict[str, Any]) -> None:
        doc["players"][seat]["car"]["green"] = "g06"  # +2 ability, bonus 1
        doc["players"][seat]["speed"] = 4

    state = edit(state, fit)
    plain = {a["to"] for a in legal_of(state) if "part" not in a}
    assert max(plain) == 6  # 1 + green bonus 1
    boosted = {"type": "speed", "to": 8, "part": "g06", "part_to": "hand"}
    assert boosted in legal_of(state)
    refused(state, seat, {"type": "speed", "to": 9, "part": "g06", "part_to": "hand"})
    state = ENGINE.apply(state, seat, boosted, ScriptedRandomness()).state
    p = state.doc["players"][seat]
    assert (p["speed"], p["car"]["green"], p["hand"]) == (8, None, ["g06"])


def test_free_repair_only_at_speed_two_or_three_up_to_two_points() -> None:
    """ "Before you move your car pawn, if your speed is 2 or 3, you may also repair your car,
    up to 2 Armor point for free.\""""
    state = racing(2)
    seat = _current(state)
    state = edit(state, lambda d: d["players"][seat].update(speed=3, ap=3))
    state = ENGINE.apply(state, seat, {"type": "speed", "to": 3}, ScriptedRandomness()).state
    decision = decision_of(state)
    assert decision.kind == "free_repair"
    assert [a["points"] for a in legal_of(state)] == [0, 1, 2]
    chips = state.doc["players"][seat]["chips"]
    state = ENGINE.apply(
        state, seat, {"type": "free_repair", "points": 2}, ScriptedRandomness()
    ).state
    assert (state.doc["players"][seat]["ap"], state.doc["players"][seat]["chips"]) == (5, chips)

    fast = racing(2)
    seat = _current(fast)
    fast = edit(fast, lambda d: d["players"][seat].update(speed=4, ap=3))
    fast = ENGINE.apply(fast, seat, {"type": "speed", "to": 4}, ScriptedRandomness()).state
    assert decision_of(fast).kind != "free_repair"
    refused(fast, seat, {"type": "free_repair", "points": 1})


# -- weapons, shields, specials ----------------------------------------------------------------
def _armed(seats: int = 2, **me: Any) -> tuple[State, int, int]:
    """Round 2, the current car before its move, another car two rows ahead."""
    state = racing(seats)
    seat = _current(state)
    other = _other(state, seat)

    def arm(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(row=5, lane=1, **me)
        doc["players"][other].update(row=7, lane=1, ap=6, speed=6, shield=None)
        doc["racing"]["step"] = "before"

    return edit(state, arm), seat, other


def test_firing_a_face_down_weapon_is_refused_and_changes_nothing() -> None:
    """ "When used, turn the card face down. You might reactivate it later.\""""
    state, seat, other = _armed(weapon={"id": "u-w03", "up": False})
    reason = refused(state, seat, {"type": "fire", "upgrade": "u-w03", "targets": [other]})
    assert reason == "that upgrade is not face up and ready, or a target is out of range"
    assert legal_of(state) == [{"type": "go"}]


def test_a_target_out_of_range_is_refused() -> None:
    """ "Weapons have a stat for number of targets, range, and damage. You choose the targets
    within range": Pulse Pistol has range 1, the other car is 2 rows away."""
    state, seat, other = _armed(weapon={"id": "u-w01", "up": True})
    refused(state, seat, {"type": "fire", "upgrade": "u-w01", "targets": [other]})


def test_weapons_after_the_movement_too() -> None:
    """ "You can use these at the start and/or end of your movement.\""""
    state, seat, other = _armed(weapon={"id": "u-w03", "up": True}, speed=2)
    state = ENGINE.apply(state, seat, {"type": "go"}, ScriptedRandomness()).state
    assert decision_of(state).kind == "move"
    refused(state, seat, {"type": "fire", "upgrade": "u-w03", "targets": [other]})  # not during
    state = play_defaults(
        state, lambda d: d["racing"]["step"] != "move" or _current(freeze(d)) != seat
    )
    state = play_defaults(
        state, lambda d: d["racing"]["step"] == "after" or _current(freeze(d)) != seat
    )
    assert decision_of(state).kind == "fire_after"
    assert {"type": "fire", "upgrade": "u-w03", "targets": [other]} in legal_of(state)


def test_a_reduce_shield_lowers_the_damage_turns_face_down_and_raises_shield() -> None:
    """ "If you have a shield, you can use it to reduce damage ... When you use a shield, turn
    it face down"; "When you use a Weapon, Shield or Upgrade, increase the reputation\""""
    state, seat, other = _armed(weapon={"id": "u-w11", "up": True})  # Plasma Lance: 3 damage
    state = edit(state, lambda d: d["players"][other].update(shield={"id": "u-s03", "up": True}))
    state = ENGINE.apply(
        state, seat, {"type": "fire", "upgrade": "u-w11", "targets": [other]}, ScriptedRandomness()
    ).state
    decision = decision_of(state)
    assert (decision.seat, decision.kind) == (other, "shield")
    rep = state.doc["players"][other]["reputation"]["shield"]
    state = ENGINE.apply(state, other, {"type": "shield", "use": True}, ScriptedRandomness()).state
    them = state.doc["players"][other]
    assert (them["ap"], them["shield"]["up"], them["reputation"]["shield"]) == (5, False, rep + 1)


def test_the_emp_hacker_shifts_every_target_by_three_and_a_firewall_removes_the_hack() -> None:
    """ "You can also hack cars and change their speed using the EMP Hacker" ("increase or lower
    all targets' speed by 3"); a shield may "remove hacks depending on the type of shield".
    Using a special raises Lightning."""
    state, seat, other = _armed(3, specials=[{"id": "u-x01", "up": True}])
    third = next(s for s in range(3) if s not in (seat, other))

    def place(doc: dict[str, Any]) -> None:
        doc["players"][third].update(row=6, lane=0, speed=8, shield={"id": "u-s07", "up": True})

    state = edit(state, place)
    hack = {"type": "fire", "upgrade": "u-x01", "targets": sorted([other, third]), "shift": -3}
    assert hack in legal_of(state)
    lightning = state.doc["players"][seat]["reputation"]["lightning"]
    rng = ScriptedRandomness()
    state = ENGINE.apply(state, seat, hack, rng).state
    assert state.doc["players"][seat]["reputation"]["lightning"] == lightning + 1
    # the car without a firewall is hacked at once; the one with it decides
    assert state.doc["players"][other]["speed"] == 3
    decision = decision_of(state)
    assert (decision.seat, decision.kind) == (third, "shield")
    state = ENGINE.apply(state, third, {"type": "shield", "use": True}, rng).state
    assert state.doc["players"][third]["speed"] == 8
    assert state.doc["players"][seat]["specials"] == [{"id": "u-x01", "up": False}]


def test_no_armour_from_a_weapon_sets_speed_two_and_armour_one() -> None:
    """ "If you take enough damage from weapons or slams to bring your armor below 1, bring your
    speed down to 2 and your armor back to 1.\""""
    state, seat, other = _armed(weapon={"id": "u-w11", "up": True})
    state = edit(state, lambda d: d["players"][other].update(ap=2, speed=9))
    state = ENGINE.apply(
        state, seat, {"type": "fire", "upgrade": "u-w11", "targets": [other]}, ScriptedRandomness()
    ).state
    them = state.doc["players"][other]
    assert (them["ap"], them["speed"]) == (1, 2)


# -- danger checks and spaces ------------------------------------------------------------------
def test_a_reroll_part_rerolls_the_dice_chosen() -> None:
    """Part abilities: "Reroll (hand icon): you can re-roll any of the dice you just rolled.\""""
    state = racing(2, round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t07", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]
        doc["players"][seat].update(row=-1, lane=1, speed=10, ap=8)
        doc["players"][seat]["car"]["red"] = "r03"  # re-roll
        doc["racing"].update(step="move", moves=10)

    state = edit(state, place)
    rng = ScriptedRandomness(["hit-2", "hit-1", "blank"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    assert state.doc["racing"]["roll"]["dice"] == [2, 1]
    reroll = {"type": "reroll", "part": "r03", "part_to": "discard", "dice": [0]}
    assert reroll in legal_of(state)
    state = ENGINE.apply(state, seat, reroll, rng).state
    assert state.doc["racing"]["roll"]["dice"] == [0, 1]
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["ap"], p["speed"], p["car"]["red"]) == (7, 9, None)
    assert "r03" in state.doc["discards"]["parts"]


def test_a_repair_space_sells_armour_at_five_chips_a_point_unless_a_car_stopped_there() -> None:
    """ "When landing on a repair space, you can spend credit to repair your armor (5 chips per
    armor point repaired). If there is a car stopped on an activation space, that activation
    space becomes inactive for the other players.\""""
    state = racing(2)
    seat = _current(state)
    other = _other(state, seat)
    rows = race._rows(state.doc)
    row, lane = next(
        (r, lane) for r, data in enumerate(rows) for lane, c in enumerate(data["cells"]) if c == "R"
    )

    def park(doc: dict[str, Any], blocked: bool) -> None:
        doc["players"][seat].update(row=row, lane=lane, ap=4, chips=12)
        doc["players"][other].update(row=row if blocked else row + 3, lane=lane)
        doc["racing"].update(step="land", moves=0)

    free = edit(state, lambda d: park(d, False))
    assert decision_of(free).kind == "pit_repair"
    assert [a["points"] for a in legal_of(free)] == [0, 1, 2]  # 12 chips: 2 points
    free = ENGINE.apply(free, seat, {"type": "pit_repair", "points": 2}, ScriptedRandomness()).state
    assert (free.doc["players"][seat]["ap"], free.doc["players"][seat]["chips"]) == (6, 2)

    blocked = edit(state, lambda d: park(d, True))
    assert race.pit_options(blocked.doc, seat) == 0
    refused(blocked, seat, {"type": "pit_repair", "points": 1})


def test_repair_with_a_wrench_part_at_any_time() -> None:
    """ "Repair (wrench icon): you can repair your car by spending 5 credits for each Armor Point
    ... You can do these at ANY time": a standing option, also when it is not your turn."""
    state = racing(2)
    seat = _current(state)
    other = _other(state, seat)
    state = edit(
        state,
        lambda d: (
            d["players"][other]["car"].update(red="r02"),
            d["players"][other].update(ap=5, chips=10),
        ),
    )
    standing = next(d for d in ENGINE.standing(state) if d.seat == other)
    action = {"type": "ability_repair", "part": "r02", "part_to": "hand", "points": 2}
    assert action in [dict(a) for a in standing.legal]
    refused(state, other, {**action, "points": 3})  # 10 chips buy 2 points
    state = ENGINE.apply(state, other, action, ScriptedRandomness()).state
    p = state.doc["players"][other]
    assert (p["ap"], p["chips"], p["car"]["red"], p["hand"]) == (7, 0, None, ["r02"])


# -- the Action phase --------------------------------------------------------------------------
def _day(seats: int = 2) -> tuple[State, int]:
    state = play_defaults(new_game(seats, mode="campaign"), lambda d: d["phase"] == "actions")
    return state, int(state.doc["order"][state.doc["turn"]])


def test_get_sponsored_needs_an_empty_slot() -> None:
    """ "You can only take this action if you have an empty slot available.\""""
    state, seat = _day()
    state = edit(state, lambda d: d["players"][seat].update(sponsors=["s-gun-1", "s-gun-2"]))
    assert not [a for a in legal_of(state) if a["type"] == "sponsor"]
    refused(state, seat, {"type": "sponsor", "slot": "deck"})


def test_repair_armor_costs_five_chips_a_point_up_to_max_ap() -> None:
    """ "For every 5 chips you spent, repair 1 Armor"; "You can never go past your Maximum AP\""""
    state, seat = _day()
    state = edit(state, lambda d: d["players"][seat].update(ap=6, chips=30))  # Max AP 8
    assert [a["points"] for a in legal_of(state) if a["type"] == "repair"] == [1, 2]
    refused(state, seat, {"type": "repair", "points": 3})
    state = ENGINE.apply(state, seat, {"type": "repair", "points": 2}, ScriptedRandomness()).state
    assert (state.doc["players"][seat]["ap"], state.doc["players"][seat]["chips"]) == (8, 20)


def test_the_same_implant_is_never_equipped_twice() -> None:
    """ "You can have duplicates in your deck but cannot equip your driver with more than one of
    the same.\""""
    state, seat = _day()
    state = edit(
        state,
        lambda d: d["players"][seat].update(
            implants=["i-accel-1"], implant_hand=["i-accel-1", "i-max_ap-1"]
        ),
    )
    state = ENGINE.apply(state, seat, {"type": "implants"}, ScriptedRandomness()).state
    assert {"type": "install_implant", "implant": "i-max_ap-1"} in legal_of(state)
    refused(state, seat, {"type": "install_implant", "implant": "i-accel-1"})


# -- finishing and after the race --------------------------------------------------------------
def test_cars_that_did_not_finish_stand_by_distance_then_speed() -> None:
    """ "the distance between the finish line and each car still on the track will make up the
    final standings. If there is a tie, their current speed will break the tie.\""""
    state = racing(4)
    doc = thaw(state)
    a, b, c, d = doc["racing"]["order"]
    doc["racing"]["finished"] = [c]
    doc["players"][a].update(row=20, speed=5)
    doc["players"][b].update(row=22, speed=4)
    doc["players"][d].update(row=20, speed=7)
    assert after.standings(doc) == [c, b, d, a]


def test_clean_up_after_a_race() -> None:
    """Clean Up: "All face down cards attached to player boards are discarded", rows refilled,
    "Return the calendar marker back to day 1", "Fan tracker back up to 5", "Remove all track
    tiles"; and "You do NOT repair your car after a race.\""""
    state = racing(2)
    doc = thaw(state)
    a, b = doc["racing"]["order"]
    doc["players"][a].update(
        weapon={"id": "u-w01", "up": False},
        shield={"id": "u-s01", "up": True},
        specials=[{"id": "u-x11", "up": False}],
        fans=9,
        ap=3,
    )
    doc["racing"]["finished"] = [a, b]
    doc["phase"] = "race_over"
    from services.rules.games.neon_knights.engine import advance

    advance(doc, ScriptedRandomness(), [])
    p = doc["players"][a]
    assert (p["weapon"], p["shield"], p["specials"]) == (None, {"id": "u-s01", "up": True}, [])
    assert {"u-w01", "u-x11"} <= set(doc["discards"]["upgrades"])
    assert (p["fans"], p["ap"], doc["day"], doc["race"]) == (5, 3, 1, 2)
    assert all(None not in row for row in doc["rows"].values())
    assert doc["racing"] is None and doc["phase"] in ("track", "actions")


def test_after_the_race_the_grid_follows_the_finish_and_order_follows_vp() -> None:
    """ "Coming in second will place you one space ahead of the player who came in first on the
    starting grid"; "Change the player order track according to the Victory Points. The
    player with the least points will become the first player ... In case of a tie, the
    player farthest back on the starting grid wins the tie.\""""
    state = racing(3)
    doc = thaw(state)
    a, b, c = doc["racing"]["order"]
    doc["racing"]["finished"] = [a, b, c]
    for seat in (a, b, c):
        doc["players"][seat].update(fans=0, bets=[], vp=10)
    after.score_race(doc, [])
    # the winner takes the spot numbered as the players (the back), the last spot 1
    assert doc["grid"] == [c, b, a]
    assert [doc["players"][s]["vp"] for s in (a, b, c)] == [13, 12, 11]
    assert doc["order"] == [c, b, a]

    tied = thaw(state)
    tied["racing"]["finished"] = [a, b, c]
    for seat, vp in ((a, 9), (b, 10), (c, 11)):  # 3, 2 and 1 grid VP: all end on 12
        tied["players"][seat].update(fans=0, bets=[], vp=vp)
    after.score_race(tied, [])
    assert {tied["players"][s]["vp"] for s in (a, b, c)} == {12}
    assert tied["order"] == [a, b, c]  # the farthest back on the new grid (the winner) first


# -- refusals in every phase -----------------------------------------------------------------------
def test_a_step_before_any_track_is_laid_is_refused_in_words() -> None:
    """A client may send any action of the schema at any time: during the implant draft (no
    track yet) a ``step`` is refused with a reason like every other illegal action, not an
    error (``_reason`` read the rows of a track that did not exist)."""
    state = new_game(3)
    assert state.doc["phase"] == "draft" and state.doc["track"] is None
    for seat in range(3):
        assert refused(state, seat, {"type": "step", "dir": 0}) == "you cannot move now"
        assert refused(state, seat, {"type": "step"}) == "you cannot move now"
