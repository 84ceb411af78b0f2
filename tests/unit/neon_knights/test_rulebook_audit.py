"""The rulebook audit of engine 0.3.0: rules found missing, differing from the text or
untested, each tested from the rulebook's sentence (quoted) on a real position."""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import race
from services.rules.games.neon_knights.state import State

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults

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


# -- Game Setup, Player Setup ------------------------------------------------------------------
def test_setup_fills_every_row_and_puts_the_calendar_on_day_one() -> None:
    """ "Shuffle each deck separately ... Reveal cards from each of those decks to fill the row
    beside them (Sponsors, Parts, Upgrades). Place the calendar marker on Day 1.\""""
    doc = new_game(3).doc
    assert {k: len(v) for k, v in doc["rows"].items()} == {"sponsors": 3, "parts": 5, "upgrades": 4}
    assert all(None not in row for row in doc["rows"].values()) and doc["day"] == 1


def test_a_random_player_order_and_the_grid_from_it() -> None:
    """ "The order can be also be chosen randomly." "The last player will place his car on the
    number 1 spot of the starting grid. The second to last player on the number 2\""""
    orders = {tuple(new_game(4, seed=f"r{i}", random_order=True).doc["order"]) for i in range(8)}
    assert len(orders) > 1
    doc = new_game(4, seed="r1", random_order=True).doc
    assert doc["grid"] == list(reversed(doc["order"]))


# -- the Action phase, Pay Day, Race Day -------------------------------------------------------
def test_six_days_one_action_each_in_player_order_pay_day_then_race_day() -> None:
    """ "Drivers will take 6 days ... In turn order, each player will choose 1 action ... Once
    each player has taken 1 of those actions, move the calendar marker down to the next day";
    Pay Day: sponsors paid, "Then, each player takes an action on this day, still in player
    order"; Race Day: "You do NOT take any actions on this day.\""""
    state = play_defaults(new_game(3, mode="campaign"), lambda d: d["phase"] == "actions")
    order = state.doc["order"]
    turns: list[tuple[int, int]] = []
    paid_before_day_6_action = None
    rng = SeededRandomness("days")
    while state.doc["phase"] == "actions":
        decision = decision_of(state)
        if decision.kind == "day_action":
            turns.append((state.doc["day"], decision.seat))
            if state.doc["day"] == 6 and paid_before_day_6_action is None:
                paid_before_day_6_action = state.doc["paid"]
        state = ENGINE.apply(state, decision.seat, decision.default, rng).state
    assert turns == [(day, seat) for day in range(1, 7) for seat in order]
    assert paid_before_day_6_action is True
    assert state.doc["phase"] == "speeds"  # Race Day: straight to the starting speeds


def _day(seats: int = 2) -> tuple[State, int]:
    state = play_defaults(new_game(seats, mode="campaign"), lambda d: d["phase"] == "actions")
    return state, int(state.doc["order"][state.doc["turn"]])


def test_visit_the_shop_buys_one_part_into_the_hand_and_slides_the_row_right() -> None:
    """ "You can also buy a part from the face up cards in the shop. The price of each card is
    printed on the board, below each part. The purchased part will go into your hand ...
    Afterwards, slide the parts in the shop to the right and flip a new part from the deck
    into the empty space.\""""
    state, seat = _day()
    state = edit(state, lambda d: d["players"][seat].update(chips=30))
    row = list(state.doc["rows"]["parts"])
    top = state.doc["decks"]["parts"][0]
    state = ENGINE.apply(state, seat, {"type": "shop"}, ScriptedRandomness()).state
    state = ENGINE.apply(state, seat, {"type": "buy_part", "slot": 2}, ScriptedRandomness()).state
    p = state.doc["players"][seat]
    assert p["hand"] == [row[2]] and p["chips"] == 30 - 8  # prices 12, 10, 8, 6, 5
    assert state.doc["rows"]["parts"] == [top, row[0], row[1], row[3], row[4]]
    assert not [a for a in legal_of(state) if a["type"] == "buy_part"]  # one part per visit


def test_an_upgrade_bought_slides_the_black_market_right() -> None:
    """ "Afterwards, slide the upgrades in the shop to the right and flip a new upgrade from the
    deck into the empty space"; the card is placed "face up".\""""
    state, seat = _day()
    state = edit(state, lambda d: d["players"][seat].update(chips=60, weapon=None, shield=None, specials=[]))
    row = list(state.doc["rows"]["upgrades"])
    top = state.doc["decks"]["upgrades"][0]
    state = ENGINE.apply(state, seat, {"type": "upgrade", "slot": 3}, ScriptedRandomness()).state
    assert state.doc["rows"]["upgrades"] == [top, *row[:3]]
    p = state.doc["players"][seat]
    assert [c for c in (p["weapon"], p["shield"], *p["specials"]) if c] == [{"id": row[3], "up": True}]


def test_draw_a_fan_bet_then_discard_one() -> None:
    """ "Draw a Fan Bet (Draw a fan bet card from the deck / Discard)\""""
    state, seat = _day()
    before = list(state.doc["players"][seat]["bets"])
    drawn = state.doc["decks"]["bets"][0]
    state = ENGINE.apply(state, seat, {"type": "draw_bet"}, ScriptedRandomness()).state
    assert state.doc["players"][seat]["bets"] == [*before, drawn]
    state = ENGINE.apply(state, seat, {"type": "discard_bet", "bet": before[0]}, ScriptedRandomness()).state
    assert state.doc["players"][seat]["bets"] == [drawn]
    assert before[0] in state.doc["discards"]["bets"] and state.doc["turn"] == 1


def test_installing_a_level_two_implant_returns_the_level_one_to_its_pile() -> None:
    """Campaign: "When you install a level 2 or 3 implant, remove the lower level you have
    installed and place it back the deck to make it available to other players.\""""
    state, seat = _day()
    state = edit(state, lambda d: (d["players"][seat].update(implants=["i-accel-1"], implant_hand=["i-accel-2"]),
                                   d["piles"]["2"].remove("i-accel-2")))
    state = ENGINE.apply(state, seat, {"type": "implants"}, ScriptedRandomness()).state
    state = ENGINE.apply(state, seat, {"type": "install_implant", "implant": "i-accel-2"}, ScriptedRandomness()).state
    assert state.doc["players"][seat]["implants"] == ["i-accel-2"]
    assert "i-accel-1" in state.doc["piles"]["1"]


# -- Race Day ----------------------------------------------------------------------------------
def test_starting_speeds_are_chosen_in_grid_order_from_two_to_ten() -> None:
    """ "Each player, in Starting Grid order, will now choose the starting speed ... Any speed
    from 2 to 10 can be selected.\""""
    state = play_defaults(new_game(3), lambda d: d["phase"] == "speeds")
    grid = state.doc["grid"]
    seen = []
    for speed in (2, 10, 7):
        decision = decision_of(state)
        assert [a["speed"] for a in decision.legal] == list(range(2, 11)) and not decision.hidden
        seen.append(decision.seat)
        state = ENGINE.apply(state, decision.seat, {"type": "start_speed", "speed": speed}, ScriptedRandomness()).state
    assert seen == grid
    assert [state.doc["players"][s]["speed"] for s in grid] == [2, 10, 7]


def test_the_first_round_moves_in_grid_order_the_starting_speed_without_adjusting() -> None:
    """ "The player on the number 1 spot of the starting grid will move on the track a number
    of spaces equal to his current speed, then the player on the 2 spot and so on.\""""
    state = play_defaults(new_game(3), lambda d: d["phase"] == "race")
    r = state.doc["racing"]
    assert r["round"] == 1 and r["order"] == state.doc["grid"]
    seat = _current(state)
    decision = decision_of(state)
    assert decision.kind == "move" and state.doc["racing"]["moves"] == state.doc["players"][seat]["speed"]


def test_a_car_moves_exactly_its_speed_one_point_a_space() -> None:
    """ "You now move on the track a number or spaces EQUAL to your current speed (movement
    points)"; "You can only move into the space in front of you or in diagonal for 1 movement
    point": the move decision offers no way to stop early."""
    state = _racing()
    seat = _current(state)
    state = edit(state, lambda d: d["players"][seat].update(speed=5, row=0, lane=1))
    state = edit(state, lambda d: d.update(track=["t01", "t03", "t06", "t09", "t02", "t05", "t07", "t12"]))
    rng = ScriptedRandomness()
    state = ENGINE.apply(state, seat, {"type": "speed", "to": 5}, rng).state  # cruise
    while _current(state) == seat and state.doc["racing"]["step"] in ("before", "move"):
        decision = decision_of(state)
        assert {a["type"] for a in decision.legal} <= {"step", "go"}
        state = ENGINE.apply(state, seat, decision.default, rng).state
    assert state.doc["players"][seat]["row"] == 5 and state.doc["players"][seat]["speed"] == 5


def test_cruising_is_the_default_and_keeps_the_speed() -> None:
    """ "If you cruise, you do not move your speed token and maintain your speed.\""""
    state = _racing()
    seat = _current(state)
    speed = state.doc["players"][seat]["speed"]
    decision = decision_of(state)
    assert decision.kind == "adjust_speed" and dict(decision.default) == {"type": "speed", "to": speed}


def test_red_speed_passes_every_line_and_the_last_point_on_a_line_is_still_checked() -> None:
    """ "If your speed is in the red zone on the player board, you can move freely thought
    these lights"; a car that touches a line "stop[s] their movement to check for damage and
    continue[s] ... unless they have run out of movement points": the check comes first."""
    state = _racing(round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any], speed: int, moves: int) -> None:
        doc["track"] = ["t14", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]  # a red line first
        doc["players"][seat].update(row=-1, lane=1, speed=speed)
        doc["racing"].update(step="move", moves=moves)

    red = edit(state, lambda d: place(d, 3, 3))
    red = ENGINE.apply(red, seat, {"type": "step", "dir": 0}, ScriptedRandomness()).state
    assert red.doc["racing"]["roll"] is None and red.doc["racing"]["moves"] == 2
    last = edit(state, lambda d: place(d, 4, 1))
    last = ENGINE.apply(last, seat, {"type": "step", "dir": 0}, ScriptedRandomness(["hit-1"])).state
    assert last.doc["racing"]["roll"] == {"colour": "red", "dice": [1]}
    last = ENGINE.apply(last, seat, {"type": "accept"}, ScriptedRandomness()).state
    assert last.doc["players"][seat]["speed"] == 3


def test_a_slam_blank_at_maximum_fans_gives_a_victory_point() -> None:
    """Slamming: "If you roll a blank, you gain a fan instead. Again, if you have maximum fans,
    you gain a Victory point instead!\""""
    from services.rules.games.neon_knights.state import MAX_FANS, thaw
    doc = thaw(_racing())
    a, b = doc["racing"]["order"]
    doc["players"][a].update(row=5, lane=1, fans=MAX_FANS, vp=4)
    doc["players"][b].update(row=5, lane=1, fans=3, vp=4)
    race.slams(doc, ScriptedRandomness(["blank", "blank"]), [])
    assert (doc["players"][a]["fans"], doc["players"][a]["vp"]) == (MAX_FANS, 5)
    assert (doc["players"][b]["fans"], doc["players"][b]["vp"]) == (4, 4)


def test_the_others_finish_the_round_in_which_the_first_car_crossed() -> None:
    """ "The other players get to finish the round." "If you do not reach the finish line
    during the last round, wait until the end of the round\""""
    from services.rules.games.neon_knights.track import finish_row, rows_of
    state = _racing(seats=3)
    first, second, third = state.doc["racing"]["order"]
    end = finish_row(rows_of(state.doc["track"]))

    def place(doc: dict[str, Any]) -> None:
        doc["players"][first].update(row=end - 2, lane=1, speed=4)
        doc["players"][second].update(row=end - 3, lane=1, speed=3)
        doc["players"][third].update(row=end - 20, lane=1, speed=2)

    state = edit(state, place)
    rng = ScriptedRandomness(["blank"] * 20)
    moved: list[int] = []
    rounds = set()
    while state.doc["phase"] == "race":
        decision = decision_of(state)
        if decision.kind == "move":
            rounds.add(state.doc["racing"]["round"])
            if decision.seat not in moved:
                moved.append(decision.seat)
        state = ENGINE.apply(state, decision.seat, decision.default, rng).state
    assert moved == [first, second, third] and rounds == {2}  # the round ends the race
    assert state.doc["standings"][:2] == [first, second]


def test_completed_and_discarded_fan_bets_go_back_into_the_deck_unmet_ones_stay() -> None:
    """After a Race: "gain the reward listed at the bottom & discard them"; Clean Up 5:
    "Shuffle all the discarded & completed Fan Bet cards into the deck.\""""
    from services.rules.games.neon_knights.engine import advance
    from services.rules.games.neon_knights.state import thaw
    doc = thaw(_racing())
    a, b = doc["racing"]["order"]
    doc["racing"]["finished"] = [a, b]
    doc["players"][a].update(bets=["b05", "b09"], speed=5)  # Clean Race met, Redline not
    doc["players"][a]["stats"].update(crashes=0, top_speed=6)
    doc["players"][b].update(bets=[])
    doc["discards"]["bets"] = ["b01"]
    doc["phase"] = "race_over"
    advance(doc, ScriptedRandomness(), [])
    assert doc["players"][a]["bets"][:1] == ["b09"] and doc["players"][a]["bets_won"] == []
    assert {"b05", "b01"} <= set(doc["decks"]["bets"]) | {p["bets"][-1] for p in doc["players"]}
    assert doc["discards"]["bets"] == []


def test_wealthy_a_leftover_over_sixty_opens_the_choice_again() -> None:
    """Ruling on "Lose 60 chips to distribute 2 reputation points ... and then only gain the
    leftover chip": a leftover that itself passes 60 is Wealthy again."""
    from services.rules.games.neon_knights import days
    from services.rules.games.neon_knights.state import gain_chips, thaw
    doc = thaw(new_game(2))
    doc["players"][0]["chips"] = 55
    gain_chips(doc, 0, 80)  # 135
    assert doc["wealthy"] == [{"seat": 0, "total": 135}] and doc["players"][0]["chips"] == 60
    days.wealthy_act(doc, 0, {"type": "wealthy", "choice": "reputation", "companies": ["gun", "gun"]}, [])
    assert doc["wealthy"] == [{"seat": 0, "total": 75}] and doc["players"][0]["reputation"]["gun"] == 5
    days.wealthy_act(doc, 0, {"type": "wealthy", "choice": "reputation", "companies": ["shield", "gun"]}, [])
    assert doc["wealthy"] == [] and doc["players"][0]["chips"] == 15


def test_the_most_victory_points_at_the_end_of_the_final_race_wins() -> None:
    """Winning: "the player with the most victory points at the end of the final race will
    win"; ruling: equal VP share a place."""
    from services.rules.games.neon_knights.state import freeze, thaw
    doc = thaw(new_game(3))
    doc["phase"] = "over"
    for seat, vp in enumerate((12, 19, 12)):
        doc["players"][seat]["vp"] = vp
    outcome = ENGINE.outcome(freeze(doc))
    assert outcome is not None and outcome.placements == (2, 1, 2) and outcome.reason == "the last race (3) has been run"


# -- published exports: each version's replays with that version only --------------------------
def _export(version: str) -> tuple[list[dict[str, Any]], bytes]:
    from pathlib import Path

    from services.platform.draws import state_key
    from services.rules.export import parse_export

    path = (Path(__file__).resolve().parents[2] / "fixtures" / "exports"
            / f"neon-knights-2086-{version}-normal.jsonl")
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    assert records[0]["engine_version"] == version and records[0]["options"] == {}
    return records, state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])


def _as(version: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "engine_version": version} if r["type"] == "MatchCreated" else r for r in records]


def test_each_default_mode_export_replays_only_with_its_own_version() -> None:
    """The 0.2.0 fixture (recorded before the audit), the 0.3.0 one (with cards re-activated
    on landing) and the 0.4.0 one (with Fan Bets turned face up mid-race, one of them the
    last player's, not redeemed) each replay with their own engine only: a 0.3.0 game
    carries ``ruleset``, a 0.4.0 game ``ruleset`` "0.4.0" and ``bets_up``; 0.5.0 (``ruleset``
    "0.5.0", whose published export is an Epic Campaign chain) refuses them all too; the 0.6.0
    one (draft picks' defaults drawn) with 0.6.0 only, and the 0.7.0 one (the fidelity audit's
    Wealthy-first ruling) with the current engine only."""
    import pytest

    from services.rules.replay import ReplayError, replay

    engines = {"0.2.0": OLD, "0.3.0": ENGINE.for_version("0.3.0"), "0.4.0": ENGINE.for_version("0.4.0"),
               "0.5.0": ENGINE.for_version("0.5.0"), "0.6.0": ENGINE.for_version("0.6.0"),
               "0.7.0": ENGINE}
    exports = {version: _export(version) for version in engines if version != "0.5.0"}
    assert ENGINE.engine_version == "0.7.0"
    assert any(e["kind"] == "reactivated" for r in exports["0.3.0"][0] for e in r.get("events", []))
    assert not any(e["kind"] == "fan_bet_face_up" for r in exports["0.3.0"][0] for e in r.get("events", []))
    assert sum(e["kind"] == "fan_bet_face_up" for r in exports["0.4.0"][0] for e in r.get("events", [])) >= 2
    for version, (records, key) in exports.items():
        assert replay(engines[version], records, key).outcome is not None
        for other in (v for v in engines if v != version):
            with pytest.raises(ReplayError):  # another version's engine refuses the records
                replay(engines[other], _as(other, records), key)


# -- rulings the audit added ---------------------------------------------------------------------
def test_a_crash_ends_the_turn_with_no_landing_and_no_after_movement_weapons() -> None:
    """Crashing: "you end your turn and bring your speed down to 2": neither the space's
    landing effects nor the after-movement window (a face-up weapon, a car in range) follow."""
    state = _racing()
    seat = _current(state)
    other = 1 - seat

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t13", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]  # red line, lane 0
        doc["players"][seat].update(row=-1, lane=0, speed=8, ap=1, weapon={"id": "u-w03", "up": True})
        doc["players"][other].update(row=1, lane=1, shield=None)
        doc["racing"].update(step="move", moves=8)

    state = edit(state, place)
    rng = ScriptedRandomness(["hit-1", "blank", "blank"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["ap"], p["speed"], p["row"]) == (1, 2, 0) and p["weapon"]["up"] is True
    assert _current(state) != seat


def test_crossing_the_finish_line_ends_the_turn() -> None:
    """Ruling: "The first Player to reach the finish line places his car on the starting grid":
    the car leaves the track at once, with no after-movement weapons."""
    from services.rules.games.neon_knights.track import finish_row, rows_of
    state = _racing()
    seat = _current(state)
    other = 1 - seat
    end = finish_row(rows_of(state.doc["track"]))

    def place(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(row=end - 1, lane=1, speed=2, weapon={"id": "u-w03", "up": True})
        doc["players"][other].update(row=end - 2, lane=1)
        doc["racing"].update(step="move", moves=2)

    state = edit(state, place)
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, ScriptedRandomness()).state
    assert state.doc["racing"]["finished"] == [seat] and _current(state) != seat


def test_a_shield_is_not_raised_against_a_slam() -> None:
    """Ruling: shields answer weapons and hacks ("reduce damage or remove hacks", in the
    section on attacks), not slams or danger lines."""
    from services.rules.games.neon_knights.state import thaw
    doc = thaw(_racing())
    a, b = doc["racing"]["order"]
    doc["players"][a].update(row=5, lane=1, ap=5)
    doc["players"][b].update(row=5, lane=1, ap=5, shield={"id": "u-s05", "up": True})
    race.slams(doc, ScriptedRandomness(["blank", "hit-2"]), [])
    assert doc["players"][b]["ap"] == 3 and doc["players"][b]["shield"]["up"] is True
