"""The rulebook's worked examples, each set up on a real position and played."""

from __future__ import annotations

from typing import Any

from services.rules.games.neon_knights import after
from services.rules.games.neon_knights.state import freeze, thaw
from services.rules.games.neon_knights.track import finish_row, rows_of

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults, racing


def _current(state: Any) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


def test_acceleration_one_plus_one_plus_one_is_three() -> None:
    """"If you choose to accelerate, you can move your speed token to the right, up to a number
    of spaces equal to 1 plus the bonuses from your yellow and green parts. (Example: 1+1+1=3.)"""
    state = racing(4)
    seat = _current(state)

    def fit(doc: dict[str, Any]) -> None:
        p = doc["players"][seat]
        p["car"]["yellow"], p["car"]["green"], p["speed"] = "y03", "g03", 5  # bonus 1 each

    state = edit(state, fit)
    decision = decision_of(state)
    assert decision.kind == "adjust_speed" and decision.seat == seat
    speeds = sorted(a["to"] for a in decision.legal if "part" not in a)
    assert speeds == [4, 5, 6, 7, 8]  # decelerate 1 (starter brakes and tires), accelerate 1+1+1
    assert ENGINE.validate(state, seat, {"type": "speed", "to": 9}) is not None
    after_state = ENGINE.apply(state, seat, {"type": "speed", "to": 8}, ScriptedRandomness()).state
    assert after_state.doc["players"][seat]["speed"] == 8


def test_speed_ten_touching_orange_rolls_two_dice_and_loses_three() -> None:
    """"If you are going at a speed of 10 (Green) and touch an Orange line during your move,
    stop and roll 2 dice ... If you take 3 damage, you lower your Armor by 3, lose 3 movement
    points, reduce your speed by 3 and lose 1 fan."""
    state = racing(4, round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t07", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]  # t07 opens on an orange line
        p = doc["players"][seat]
        p["speed"], p["row"], p["lane"], p["ap"], p["fans"] = 10, -1, 1, 12, 5
        doc["racing"].update(step="move", moves=10)

    state = edit(state, place)
    rng = ScriptedRandomness(["hit-1", "hit-2"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    r = state.doc["racing"]
    assert r["step"] == "roll" and len(r["roll"]["dice"]) == 2 and r["roll"]["colour"] == "orange"
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["ap"], p["speed"], p["fans"]) == (9, 7, 4)
    assert state.doc["racing"]["moves"] == 10 - 1 - 3  # one point spent, three lost
    assert decision_of(state).kind == "move"  # movement continues with what is left


def test_wealthy_fifty_chips_plus_thirty_from_two_sponsors() -> None:
    """"If you have 50 chips and gain 30 from 2 sponsor cards combined, you can go up to 60 and
    stay there (losing the extra 20) or go down to 0 chips, add 2 points to any reputation
    tracker, and then add the leftover 20 chips to your chips tracker."""
    state = play_defaults(new_game(2), lambda d: d["phase"] == "actions" and d["day"] == 5
                          and d["turn"] == len(d["order"]) - 1)
    rich = state.doc["order"][0]

    def sponsor(doc: dict[str, Any]) -> None:
        for p in doc["players"]:
            p["sponsors"] = []
        doc["players"][rich]["chips"] = 50
        doc["players"][rich]["sponsors"] = ["s-gun-3", "s-gun-4"]  # 15 + 15 chips

    state = edit(state, sponsor)
    last = decision_of(state).seat
    state = ENGINE.apply(state, last, {"type": "pass"}, ScriptedRandomness()).state
    decision = decision_of(state)
    assert decision.kind == "wealthy" and decision.seat == rich
    assert state.doc["players"][rich]["chips"] == 60
    rep = state.doc["players"][rich]["reputation"]
    stay = ENGINE.apply(state, rich, {"type": "wealthy", "choice": "stay"}, ScriptedRandomness()).state
    assert stay.doc["players"][rich]["chips"] == 60
    spend = ENGINE.apply(state, rich, {"type": "wealthy", "choice": "reputation",
                                       "companies": ["shield", "lightning"]}, ScriptedRandomness()).state
    p = spend.doc["players"][rich]
    assert p["chips"] == 20
    assert p["reputation"] == {**rep, "shield": rep["shield"] + 1, "lightning": rep["lightning"] + 1}


def test_four_player_finish_gives_seven_and_seven() -> None:
    """"In a 4-player game, the player who reaches the finish line first with 3 fans left will
    gain 7 VPs ... The second player to reach the finish line with 4 fans will also get 7."""
    state = racing(4)
    doc = thaw(state)
    first, second, third, fourth = doc["racing"]["order"]
    end = finish_row(rows_of(doc["track"]))
    for seat, fans, row in ((first, 3, end), (second, 4, end), (third, 2, end - 3), (fourth, 1, end - 6)):
        doc["players"][seat].update(fans=fans, row=row, bets=[], vp=1)
    doc["racing"]["finished"] = [first, second]
    after.score_race(doc, [])
    vp = {s: doc["players"][s]["vp"] - 1 for s in (first, second, third, fourth)}
    assert (vp[first], vp[second], vp[third], vp[fourth]) == (7, 7, 2 + 2, 1 + 1)
    # the first places his car on the spot numbered as the players, the second one ahead
    assert doc["grid"] == [fourth, third, second, first]
    assert freeze(doc)  # still a valid state


def test_the_last_cannot_redeem_fan_bets() -> None:
    state = racing(2)
    doc = thaw(state)
    winner, loser = doc["racing"]["order"]
    end = finish_row(rows_of(doc["track"]))
    doc["players"][winner].update(row=end, bets=["b05"])   # Clean Race: no crash
    doc["players"][loser].update(row=end - 5, bets=["b05"])
    doc["racing"]["finished"] = [winner]
    after.score_race(doc, [])
    assert doc["players"][winner]["bets_won"] == ["b05"]
    assert doc["players"][loser]["bets_won"] == [] and doc["players"][loser]["bets"] == ["b05"]


def test_two_ambition_cards_in_the_deck_but_never_two_equipped() -> None:
    """Draft Implants: "You can have duplicates in your deck but cannot equip your driver with
    more than one of the same. For example, you cannot have two Ambition Implants equipped, but
    can have two Ambition cards in your deck." (Normal mode: the draft's deck of implants.)"""
    state = play_defaults(new_game(2), lambda d: d["phase"] == "actions")
    seat = int(state.doc["order"][state.doc["turn"]])
    state = edit(state, lambda d: d["players"][seat].update(
        implants=[], implant_hand=["i-finish_vp-1", "i-finish_vp-2", "i-max_ap-1"]))
    state = ENGINE.apply(state, seat, {"type": "implants"}, ScriptedRandomness()).state
    state = ENGINE.apply(state, seat, {"type": "install_implant", "implant": "i-finish_vp-1"},
                         ScriptedRandomness()).state
    p = state.doc["players"][seat]
    assert p["implants"] == ["i-finish_vp-1"] and "i-finish_vp-2" in p["implant_hand"]  # two in the deck
    state = ENGINE.apply(state, seat, {"type": "install_implant", "implant": "i-finish_vp-2"},
                         ScriptedRandomness()).state
    equipped = state.doc["players"][seat]["implants"]
    assert [i for i in equipped if i.startswith("i-finish_vp-")] == ["i-finish_vp-2"]  # never two
    assert ENGINE.validate(state, seat, {"type": "install_implant", "implant": "i-finish_vp-1"}) is not None


def test_two_cars_at_speed_seven_check_their_yellow_parts_then_keep_their_order() -> None:
    """Adjust Player Order: "two players are going at speed 7, they check the Power rating of
    their yellow part to break the tie, highest number will go first. If there is still a tie,
    the order from the previous turn remains the same for those players." """
    from services.rules.games.neon_knights import race

    state = racing(4, round_=1)
    doc = thaw(state)
    a, b, c, d = doc["racing"]["order"]
    for seat in (a, b, c, d):
        doc["players"][seat].update(speed=7)
        doc["players"][seat]["car"]["yellow"] = "y04"  # power 3
    doc["players"][c]["car"]["yellow"] = "y10"  # power 5: first of the four
    doc["players"][a]["car"]["green"] = "g10"  # a green part does not count at speed 7
    doc["racing"]["index"] = 4
    race.end_round(doc, [])
    assert doc["racing"]["order"] == [c, a, b, d]  # c by its yellow part; a, b, d as before
