"""One test per rule or ruling, quoting the sentence of the rulebook it holds to."""

from __future__ import annotations

from typing import Any

import pytest

from services.rules.games.contract import ConfigError, MatchConfig
from services.rules.games.neon_knights import days, race
from services.rules.games.neon_knights.state import MAX_FANS, freeze, thaw

from .support import ENGINE, ScriptedRandomness, decision_of, edit, new_game, play_defaults, racing


def _current(state: Any) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


@pytest.mark.parametrize(("seats", "ap"), [(2, 8), (3, 10), (4, 12), (5, 14), (6, 16)])
def test_player_setup(seats: int, ap: int) -> None:
    """30 chips, reputation 3 on Shield, Gun and Lightning, 5 fans, Max AP by players, the
    four starter parts, 1 Victory point; the last player on spot 1 of the grid."""
    doc = new_game(seats).doc
    for p in doc["players"]:
        assert (p["chips"], p["fans"], p["vp"], p["ap"], p["base_max_ap"]) == (30, 5, 1, ap, ap)
        assert p["reputation"] == {"shield": 3, "gun": 3, "lightning": 3}
        assert p["car"] == {"red": "starter-red", "orange": "starter-orange",
                            "yellow": "starter-yellow", "green": "starter-green"}
    assert doc["grid"][0] == doc["order"][-1] and doc["grid"][-1] == doc["order"][0]
    assert doc["phase"] == "draft" and all(len(k) == 30 // seats for k in doc["draft"]["packets"])


def test_draft_pick_one_pass_left() -> None:
    """Each player will choose 1 and place it face down, then pass the rest to the left."""
    state = new_game(3)
    packets = state.doc["draft"]["packets"]
    picks = {d.seat: d.legal[0] for d in ENGINE.pending(state)}
    assert all(d.hidden for d in ENGINE.pending(state))
    for seat, action in picks.items():
        state = ENGINE.apply(state, seat, action, ScriptedRandomness()).state
    doc = state.doc
    for seat in range(3):
        assert doc["players"][seat]["implant_hand"] == [picks[seat]["implant"]]
        rest = [i for i in packets[seat] if i != picks[seat]["implant"]]
        assert sorted(doc["draft"]["packets"][(seat + 1) % 3]) == sorted(rest)


def test_campaign_deals_two_level_one_implants_and_no_draft() -> None:
    doc = new_game(4, mode="campaign").doc
    assert doc["phase"] == "track" and doc["draft"] is None
    for p in doc["players"]:
        assert len(p["implant_hand"]) == 2 and all(i.endswith("-1") for i in p["implant_hand"])


def test_track_builder_fewest_vp_ties_to_last_in_order() -> None:
    doc = new_game(4, mode="campaign").doc
    assert doc["builder"] == doc["order"][-1]
    assert decision_of(new_game(4, mode="campaign")).seat == doc["order"][-1]


def test_epic_campaign_stage_card_fixes_the_tiles() -> None:
    doc = new_game(3, mode="epic-campaign").doc
    from services.rules.games.neon_knights.content import STAGES
    assert STAGES[doc["stage"]]["stage"] == 1 and doc["track"] == STAGES[doc["stage"]]["tiles"]
    assert [STAGES[s]["stage"] for s in doc["stage_deck"]] == [1] * 3 + [2] * 4 + [3] * 4 + [4] * 4


def test_fan_bet_dealt_hidden() -> None:
    state = new_game(2, mode="campaign")
    for p in state.doc["players"]:
        assert len(p["bets"]) == 1
    other = ENGINE.view(state, 0)["players"][1]
    assert other["bets"] == 1 and other["implant_hand"] == 2


def test_buying_without_chips_is_refused_and_changes_nothing() -> None:
    state = play_defaults(new_game(2, mode="campaign"), lambda d: d["phase"] == "actions")
    seat = decision_of(state).seat
    state = edit(state, lambda d: d["players"][seat].update(chips=0))
    for action in ({"type": "upgrade", "slot": 0}, {"type": "repair", "points": 1}):
        assert ENGINE.validate(state, seat, action) is not None
    state = ENGINE.apply(state, seat, {"type": "shop"}, ScriptedRandomness()).state
    assert ENGINE.validate(state, seat, {"type": "buy_part", "slot": 4}) == \
        "you cannot afford that, or it is not on offer"


def test_installing_in_a_slot_of_the_wrong_colour_or_a_full_slot_is_refused() -> None:
    state = play_defaults(new_game(2, mode="campaign"), lambda d: d["phase"] == "actions")
    seat = decision_of(state).seat
    state = edit(state, lambda d: d["players"][seat].update(hand=["y03"]))
    state = ENGINE.apply(state, seat, {"type": "shop"}, ScriptedRandomness()).state
    assert ENGINE.validate(state, seat, {"type": "install", "part": "y03"}) is not None  # yellow slot taken
    state = ENGINE.apply(state, seat, {"type": "sell", "part": "starter-yellow"}, ScriptedRandomness()).state
    assert state.doc["players"][seat]["chips"] == 35  # parts sell for 5 chips
    assert "starter-yellow" not in state.doc["discards"]["parts"]  # starters leave the game
    assert ENGINE.validate(state, seat, {"type": "install", "part": "y03"}) is None


def test_upgrade_slots_one_weapon_replace_the_old() -> None:
    state = play_defaults(new_game(2, mode="campaign"), lambda d: d["phase"] == "actions")
    seat = decision_of(state).seat

    def arm(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(chips=60, weapon={"id": "u-w01", "up": True})
        doc["rows"]["upgrades"][0] = "u-w03"

    state = edit(state, arm)
    assert ENGINE.validate(state, seat, {"type": "upgrade", "slot": 0}) is not None
    state = ENGINE.apply(state, seat, {"type": "upgrade", "slot": 0, "replace": "u-w01"}, ScriptedRandomness()).state
    p = state.doc["players"][seat]
    assert p["weapon"] == {"id": "u-w03", "up": True} and "u-w01" in state.doc["discards"]["upgrades"]


def test_moving_sideways_or_cutting_a_corner_is_refused() -> None:
    state = racing(2, round_=1)
    seat = _current(state)

    def corner(doc: dict[str, Any]) -> None:
        doc["track"] = ["t13", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]  # Hairpin Left first
        doc["players"][seat].update(row=0, lane=1, speed=6)
        doc["racing"].update(step="move", moves=6)

    state = edit(state, corner)
    assert ENGINE.validate(state, seat, {"type": "step", "dir": -1}) == "you cannot cut the corner"
    assert ENGINE.validate(state, seat, {"type": "step", "dir": 1}) is None
    assert ENGINE.validate(state, seat, {"type": "step", "dir": 2}) is not None
    assert {a["dir"] for a in decision_of(state).legal} == {0, 1}


def test_no_damage_icons_gain_a_fan_per_die_and_fans_beyond_max_become_vp() -> None:
    state = racing(2, round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t07", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]
        doc["players"][seat].update(row=-1, lane=1, speed=10, fans=MAX_FANS - 1, vp=1)
        doc["racing"].update(step="move", moves=10)

    state = edit(state, place)
    rng = ScriptedRandomness(["blank", "blank"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["fans"], p["vp"], p["speed"], p["stats"]["stunts"]) == (MAX_FANS, 2, 10, 2)


def test_crash_ends_the_turn_speed_two_armour_one() -> None:
    state = racing(2, round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t07", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]
        doc["players"][seat].update(row=-1, lane=1, speed=10, ap=2)
        doc["racing"].update(step="move", moves=10)

    state = edit(state, place)
    rng = ScriptedRandomness(["hit-2", "hit-1"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["ap"], p["speed"], p["row"]) == (1, 2, 0)
    assert _current(state) != seat  # the turn ended


def test_remove_a_die_with_a_part_ability() -> None:
    state = racing(2, round_=1)
    seat = _current(state)

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = ["t07", "t01", "t02", "t03", "t05", "t06", "t09", "t12"]
        doc["players"][seat].update(row=-1, lane=1, speed=10, ap=8)
        doc["players"][seat]["car"]["red"] = "r05"  # remove a die
        doc["racing"].update(step="move", moves=10)

    state = edit(state, place)
    rng = ScriptedRandomness(["hit-2", "hit-1"])
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    action = {"type": "remove_die", "part": "r05", "part_to": "discard", "die": 0}
    assert ENGINE.validate(state, seat, action) is None
    state = ENGINE.apply(state, seat, action, rng).state
    state = ENGINE.apply(state, seat, {"type": "accept"}, rng).state
    p = state.doc["players"][seat]
    assert (p["ap"], p["speed"], p["car"]["red"]) == (7, 9, None)
    assert "r05" in state.doc["discards"]["parts"]


def test_order_by_speed_ties_by_zone_power_then_previous_order() -> None:
    state = racing(3, round_=1)
    doc = thaw(state)
    a, b, c = doc["racing"]["order"]
    doc["players"][a].update(speed=7)
    doc["players"][b].update(speed=7)
    doc["players"][b]["car"]["yellow"] = "y10"  # power 5 in the yellow zone
    doc["players"][c].update(speed=9)
    doc["racing"]["index"] = 3
    race.end_round(doc, [])
    assert doc["racing"]["order"] == [c, b, a]


def test_no_weapons_in_the_first_round() -> None:
    state = racing(2, round_=1)
    seat = _current(state)
    state = edit(state, lambda d: d["players"][seat].update(weapon={"id": "u-w12", "up": True}))
    assert race.fire_options(state.doc, seat) == []


def test_weapon_fire_turns_face_down_raises_gun_reputation_and_damages() -> None:
    state = racing(2)
    seat = _current(state)
    other = [s for s in range(2) if s != seat][0]

    def arm(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(weapon={"id": "u-w12", "up": True}, row=5, lane=1)
        doc["players"][other].update(row=6, lane=1, ap=5, shield=None)
        doc["racing"]["step"] = "before"

    state = edit(state, arm)
    fire = {"type": "fire", "upgrade": "u-w12", "targets": [other]}
    assert ENGINE.validate(state, seat, fire) is None
    gun = state.doc["players"][seat]["reputation"]["gun"]
    state = ENGINE.apply(state, seat, fire, ScriptedRandomness()).state
    me, them = state.doc["players"][seat], state.doc["players"][other]
    assert me["weapon"]["up"] is False and me["reputation"]["gun"] == gun + 1
    assert them["ap"] == 3  # Storm Battery: 2 damage
    assert ENGINE.validate(state, seat, fire) == "that upgrade is not face up and ready, or a target is out of range"


def test_slam_blank_gains_a_fan_damage_hurts() -> None:
    state = racing(2)
    doc = thaw(state)
    a, b = doc["racing"]["order"]
    doc["players"][a].update(row=5, lane=1, fans=5, ap=5)
    doc["players"][b].update(row=5, lane=1, fans=5, ap=5)
    race.slams(doc, ScriptedRandomness(["blank", "hit-2"]), [])
    assert (doc["players"][a]["fans"], doc["players"][b]["ap"]) == (6, 3)


def test_a_slam_die_can_be_removed_with_a_part_ability() -> None:
    """Part abilities: "Remove a die ... You can do these at ANY time" (here: on a slam)."""
    from services.rules.games.neon_knights.engine import advance
    state = racing(2)
    doc = thaw(state)
    a, b = doc["racing"]["order"]
    doc["players"][a].update(row=5, lane=1, ap=5)
    doc["players"][a]["car"]["red"] = "r05"
    doc["players"][b].update(row=5, lane=1, ap=5)
    doc["racing"]["index"] = 2
    rng = ScriptedRandomness(["hit-2", "hit-1"])
    advance(doc, rng, [])
    state = freeze(doc)
    decision = decision_of(state)
    assert (decision.seat, decision.kind) == (a, "slam_roll")
    action = {"type": "remove_die", "part": "r05", "part_to": "hand", "die": 0}
    assert action in [dict(x) for x in decision.legal]
    state = ENGINE.apply(state, a, action, rng).state  # the removed die neither hurts nor cheers
    pa, pb = state.doc["players"][a], state.doc["players"][b]
    assert (pa["ap"], pb["ap"], pa["hand"]) == (5, 4, ["r05"])
    assert state.doc["racing"]["round"] == 3


def test_activation_space_reactivates_unless_a_car_stopped_there() -> None:
    state = racing(2)
    doc = thaw(state)
    a, b = doc["racing"]["order"]
    doc["track"] = ["t01", "t02", "t03", "t05", "t06", "t07", "t09", "t12"]  # t01 row 2 lane 1: W
    doc["players"][a].update(row=2, lane=1, weapon={"id": "u-w01", "up": False})
    doc["players"][b].update(row=9, lane=0)
    race.land(doc, a, [])
    assert doc["players"][a]["weapon"]["up"] is True
    doc["players"][a]["weapon"]["up"] = False
    doc["players"][b].update(row=2, lane=1)
    race.land(doc, a, [])
    assert doc["players"][a]["weapon"]["up"] is False


def test_pay_day_discards_sponsors_and_pays_at_once() -> None:
    state = play_defaults(new_game(2, mode="campaign"), lambda d: d["phase"] == "actions")
    doc = thaw(state)
    doc["players"][0].update(chips=10, sponsors=["s-shield-1"])
    rep = doc["players"][0]["reputation"]["shield"]
    days.pay_day(doc, [])
    p = doc["players"][0]
    assert (p["chips"], p["sponsors"], p["reputation"]["shield"]) == (20, [], rep + 1)
    assert "s-shield-1" in doc["discards"]["sponsors"]


def test_campaign_carries_on() -> None:
    from .test_fuzz import play
    _, outcome = play("campaign", 2, 5, leaks=False)
    carried = outcome.carry
    state = ENGINE.setup(MatchConfig("campaign", 2, {}, carried=carried), ScriptedRandomness())
    doc = state.doc
    assert doc["match"] == 2 and [p["vp"] for p in doc["players"]] == [p["vp"] for p in carried["players"]]
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("normal", 2, {}, carried=carried), ScriptedRandomness())
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("campaign", 3, {}, carried=carried), ScriptedRandomness())


def test_acquire_level_two_needs_level_one_installed() -> None:
    from services.rules.games.neon_knights import after
    state = new_game(2, mode="campaign")
    doc = thaw(state)
    doc["acquire"] = {"index": 0}
    doc["players"][0]["implants"] = ["i-accel-1"]
    legal = {a.get("implant") for a in after.acquire_legal(doc, 0)}
    assert "i-accel-2" in legal and "i-max_ap-2" not in legal and "i-accel-3" not in legal


def test_bad_options_are_config_errors() -> None:
    for options in ({"speed": 3}, {"hidden_speeds": "yes"}, {"races": 0}):
        with pytest.raises(ConfigError):
            ENGINE.setup(MatchConfig("normal", 2, options), ScriptedRandomness())
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("normal", 7, {}), ScriptedRandomness())


def test_campaign_ends_when_a_driver_reaches_the_target() -> None:
    """Campaign: "You can play until a player reaches a certain amount of victory points"."""
    from .support import new_game as fresh
    assert fresh(2, mode="campaign", target_vp=12).doc["target_vp"] == 12
    with pytest.raises(ConfigError):
        fresh(2, mode="normal", target_vp=12)
    rng = ScriptedRandomness()
    state = ENGINE.setup(MatchConfig("campaign", 2, {"target_vp": 5}), rng)
    state = play_defaults(state, lambda d: d["phase"] == "over", rng=rng, limit=20000)
    outcome = ENGINE.outcome(state)
    assert outcome is not None and "target of 5 VP" in outcome.reason
    assert state.doc["race"] == 1 and outcome.carry["complete"] is True
    with pytest.raises(ConfigError, match="over"):
        ENGINE.setup(MatchConfig("campaign", 2, {}, carried=outcome.carry), rng)


def test_epic_campaign_plays_all_sixteen_stage_cards_over_four_matches() -> None:
    """"Play all 16 Stage Cards, starting with stage 1": one stage (4 races) a match."""
    from services.rules.games.neon_knights.content import STAGES
    rng = ScriptedRandomness()
    carried = None
    played: list[str] = []
    for match in range(1, 5):
        state = ENGINE.setup(MatchConfig("epic-campaign", 2, {}, carried=carried), rng)
        while state.doc["phase"] != "over":
            if state.doc["stage"] and (not played or played[-1] != state.doc["stage"]):
                played.append(state.doc["stage"])
            decision = ENGINE.pending(state)[0]
            state = ENGINE.apply(state, decision.seat, decision.default, rng).state
        outcome = ENGINE.outcome(state)
        assert outcome is not None and state.doc["match"] == match
        carried = outcome.carry
    assert [STAGES[s]["stage"] for s in played] == [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4
    assert outcome.reason == "all 16 stage cards have been played" and carried["complete"]
    with pytest.raises(ConfigError):
        ENGINE.setup(MatchConfig("epic-campaign", 2, {}, carried=carried), rng)


def test_fan_bet_choice_is_a_hidden_decision() -> None:
    """Fan Bets are "hidden from other players": keeping or discarding one is a hidden answer."""
    state = play_defaults(new_game(2, mode="campaign"), lambda d: d["phase"] == "actions")
    seat = decision_of(state).seat
    state = ENGINE.apply(state, seat, {"type": "draw_bet"}, ScriptedRandomness()).state
    decision = decision_of(state)
    assert (decision.kind, decision.hidden, decision.seat) == ("fan_bet", True, seat)
    assert {a["type"] for a in decision.legal} == {"keep_bets", "discard_bet"}
    assert not decision_of(play_defaults(new_game(2, mode="campaign"),
                                         lambda d: d["phase"] == "actions")).hidden


def test_resigning_track_builder_hands_the_track_to_the_next() -> None:
    state = new_game(3, mode="campaign")
    builder = state.doc["builder"]
    state = ENGINE.apply(state, builder, {"type": "resign"}, ScriptedRandomness()).state
    assert state.doc["players"][builder]["out"] and state.doc["builder"] != builder
    assert decision_of(state).seat == state.doc["builder"]


def test_resigning_in_the_draft_keeps_it_going() -> None:
    state = new_game(2)
    state = ENGINE.apply(state, 1, {"type": "resign"}, ScriptedRandomness()).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.placements == (1, 2)
    assert outcome.reason == "all other drivers resigned"
    state = new_game(3)
    state = ENGINE.apply(state, 2, {"type": "resign"}, ScriptedRandomness()).state
    for d in ENGINE.pending(state):
        state = ENGINE.apply(state, d.seat, d.default, ScriptedRandomness()).state
    # the round resolved: seat 2's pick is made for it (its first card), already for the next round
    assert [len(p["implant_hand"]) for p in state.doc["players"]] == [1, 1, 1]
    picks = state.doc["draft"]["picks"]
    assert picks[:2] == [None, None] and picks[2] is not None
