"""Engine 0.4.0: a Fan Bet completed during the race is turned face up at once.

After a Race 1: "When you complete a betting card, place it face-up in front of you, but
obtain the reward after the race." Crossing the Finish Line: "The player who comes in last
cannot redeem Fan Bet cards for this race." Clean Up 5: "Shuffle all the discarded &
completed Fan Bet cards into the deck."

A goal that counts something that never goes down during a race (stunts, slams, weapons used,
the top speed reached) is completed the moment it is met: the card is turned face up in that
step, public from then on; its reward still comes after the race. A goal read at the end of
the race (fans, final speed, armour, no crash, a finishing place) is only decided then.
0.3.0 games (and older) keep checking every bet after the race only.
"""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import after, present
from services.rules.games.neon_knights.content import FAN_BETS
from services.rules.games.neon_knights.state import State, freeze, thaw
from services.rules.games.neon_knights.track import finish_row, rows_of

from .support import ENGINE, ScriptedRandomness, decision_of, edit

V3 = ENGINE.for_version("0.3.0")
TRACK = ["t01", "t02", "t03", "t05", "t06", "t07", "t09", "t12"]
"""Row 5 (Boulevard's second row) holds a yellow danger line across all three lanes."""


def _racing(engine: Any = ENGINE, seats: int = 3) -> State:
    """A real race at the first turn of round 2, played with defaults by ``engine``."""
    rng = SeededRandomness("defaults")
    state = engine.setup(MatchConfig("normal", seats, {}), SeededRandomness("bets"))
    for _ in range(5000):
        doc = state.doc
        if doc["phase"] == "race" and doc["racing"]["round"] == 2 and doc["racing"]["index"] == 0 \
                and doc["racing"]["step"] in ("adjust", "start", "move"):
            return state
        decision = engine.pending(state)[0]
        state = engine.apply(state, decision.seat, decision.default, rng).state
    raise AssertionError("position not reached")


def _current(state: State) -> int:
    r = state.doc["racing"]
    return int(r["order"][r["index"]])


def _before_a_stunt(engine: Any = ENGINE) -> tuple[State, int, list[int]]:
    """Round 2: the current car (speed 8, green) has one stunt die behind it and is one row
    before a yellow line; it holds Daredevil (2+ stunt dice) and Crowd Favourite (end with 7+
    fans). The other cars are far behind at speed 2."""
    state = _racing(engine)
    seat = _current(state)
    others = [s for s in range(3) if s != seat]

    def place(doc: dict[str, Any]) -> None:
        doc["track"] = TRACK
        p = doc["players"][seat]
        p.update(row=4, lane=1, speed=8, fans=5, bets=["b03", "b06"])
        p["stats"]["stunts"] = 1
        for other in others:
            doc["players"][other].update(row=0, lane=other % 3, speed=2, bets=[])
        doc["racing"].update(step="move", moves=2)

    return edit(state, place), seat, others


def _to_the_end_of_the_race(engine: Any, state: State, rng: Any) -> tuple[State, list[Any], State]:
    """Defaults until the race is scored: the state after, the events, the state before the
    last action (the race's last move, then the scoring)."""
    events: list[Any] = []
    before = state
    while state.doc["phase"] == "race":
        decision = engine.pending(state)[0]
        transition = engine.apply(state, decision.seat, decision.default, rng)
        events += transition.events
        before, state = state, transition.state
    return state, events, before


def test_a_stunt_goal_met_mid_race_is_turned_face_up_at_once_and_paid_after_the_race() -> None:
    """ "When you complete a betting card, place it face-up in front of you, but obtain the
    reward after the race." """
    state, seat, others = _before_a_stunt()
    rng = ScriptedRandomness(["blank"] * 200)
    state = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng).state  # onto the line
    assert decision_of(state).kind == "damage_roll"
    assert state.doc["players"][seat]["bets_up"] == []  # one stunt die so far: not yet met
    vp, chips = state.doc["players"][seat]["vp"], state.doc["players"][seat]["chips"]
    transition = ENGINE.apply(state, seat, {"type": "accept"}, rng)  # a blank: the 2nd stunt die
    state = transition.state
    me = state.doc["players"][seat]
    assert me["stats"]["stunts"] == 2
    assert me["bets_up"] == ["b06"] and me["bets"] == ["b03"]  # Crowd Favourite stays hidden
    assert (me["vp"], me["chips"]) == (vp, chips)  # no reward yet
    face_up = [e for e in transition.events if e.kind == "fan_bet_face_up"]
    assert [(e.data, e.visible_to) for e in face_up] == [({"seat": seat, "bet": "b06"}, None)]
    for viewer in (*others, None):
        view = ENGINE.view(state, viewer)
        assert view["players"][seat]["bets_up"] == ["b06"] and view["players"][seat]["bets"] == 1
        assert "b03" not in str(view)
        line = present.describe_event({"kind": "fan_bet_face_up", "data": dict(face_up[0].data)}, viewer)
        assert "Daredevil" in line and "face up" in line
    assert "Daredevil" in _rendered(ENGINE.view(state, others[0]), others[0])
    assert "Crowd Favourite" not in _rendered(ENGINE.view(state, others[0]), others[0])

    state, events, before = _to_the_end_of_the_race(ENGINE, state, rng)
    assert [e.data for e in events if e.kind == "fan_bet_face_up"] == []  # turned once
    result = next(e for e in events if e.kind == "race_result")
    mine = next(r for r in result.data["results"] if r["seat"] == seat)
    assert mine["place"] == 1
    won = [e.data["bet"] for e in events if e.kind == "fan_bet_won" and e.data["seat"] == seat]
    assert "b06" in won
    me = state.doc["players"][seat]
    assert me["bets_up"] == [] and "b06" not in me["bets_won"]  # won, then shuffled in at Clean Up
    # the car crossed first, so nothing else changed its VP in the race's last action
    assert me["vp"] == before.doc["players"][seat]["vp"] + mine["vp"] + sum(FAN_BETS[b]["reward_vp"] for b in won)
    assert me["chips"] == min(60, chips + sum(FAN_BETS[b]["reward_chips"] for b in won))


def test_top_speed_and_a_weapon_used_turn_their_bets_face_up_in_the_step() -> None:
    """Redline (reach speed 10) on the speed adjustment; Trigger Happy (use a weapon) when
    the weapon fires."""
    state = _racing()
    seat = _current(state)

    def arm(doc: dict[str, Any]) -> None:
        doc["track"] = TRACK
        p = doc["players"][seat]
        p.update(speed=9, bets=["b08", "b09"], weapon={"id": "u-w03", "up": True}, row=6, lane=1)
        p["stats"].update(top_speed=9, weapons=0)
        p["car"]["yellow"] = "starter-yellow"
        for other in range(3):
            if other != seat:
                doc["players"][other].update(row=6, lane=0, shield=None)
        doc["racing"].update(step="adjust")

    state = edit(state, arm)
    rng = ScriptedRandomness()
    transition = ENGINE.apply(state, seat, {"type": "speed", "to": 10}, rng)
    assert [e.data for e in transition.events if e.kind == "fan_bet_face_up"] == [{"seat": seat, "bet": "b09"}]
    state = transition.state
    while decision_of(state).kind != "fire_before":
        state = ENGINE.apply(state, seat, decision_of(state).default, rng).state
    target = next(s for s in range(3) if s != seat)
    transition = ENGINE.apply(state, seat, {"type": "fire", "upgrade": "u-w03", "targets": [target]}, rng)
    assert [e.data for e in transition.events if e.kind == "fan_bet_face_up"] == [{"seat": seat, "bet": "b08"}]
    assert transition.state.doc["players"][seat]["bets_up"] == ["b09", "b08"]
    assert transition.state.doc["players"][seat]["bets"] == []


def test_goals_read_at_the_end_of_the_race_are_not_turned_face_up_mid_race() -> None:
    """ "end with 7+ fans", "end at speed 9+", "do not crash", "finish first": true mid-race
    (even the finish) and still hidden until the race is over, when they are paid as before."""
    state, seat, others = _before_a_stunt()
    end = finish_row(rows_of(TRACK))

    def near_the_line(doc: dict[str, Any]) -> None:
        doc["players"][seat].update(row=end - 1, speed=9, fans=9, ap=8, bets=["b02", "b03", "b04", "b05", "b10"])
        doc["players"][seat]["stats"].update(stunts=0, crashes=0)

    state = edit(state, near_the_line)
    rng = ScriptedRandomness(["blank"] * 200)
    transition = ENGINE.apply(state, seat, {"type": "step", "dir": 0}, rng)
    state = transition.state
    assert state.doc["racing"]["finished"] == [seat]  # first across the line
    assert not [e for e in transition.events if e.kind == "fan_bet_face_up"]
    assert state.doc["players"][seat]["bets_up"] == []
    for viewer in (*others, None):
        assert ENGINE.view(state, viewer)["players"][seat]["bets"] == 5
    state, events, _ = _to_the_end_of_the_race(ENGINE, state, rng)
    assert not [e for e in events if e.kind == "fan_bet_face_up"]
    won = {e.data["bet"] for e in events if e.kind == "fan_bet_won" and e.data["seat"] == seat}
    assert won == {"b02", "b03", "b04", "b05", "b10"}  # all met at the end, paid as before


def test_every_goal_is_either_turned_face_up_when_met_or_read_at_the_end() -> None:
    goals = {b["goal"] for b in FAN_BETS.values()}
    assert set(after.FACE_UP_GOALS) == {"stunts_at_least", "slams_at_least", "weapon_used", "reach_speed"}
    assert set(after.FACE_UP_GOALS) < goals


def test_the_last_players_face_up_bet_is_not_redeemed_and_goes_back_into_the_deck() -> None:
    """ "The player who comes in last cannot redeem Fan Bet cards for this race"; the card is
    completed, so Clean Up 5 shuffles it into the deck ("discarded & completed")."""
    state = _racing(seats=2)
    first, last = state.doc["racing"]["order"]

    def demolition(doc: dict[str, Any]) -> None:
        doc["players"][last].update(bets=["b07", "b05"])  # Demolition: 1+ slam; Clean Race
        doc["players"][last]["stats"].update(slams=1, crashes=0)
        doc["players"][first].update(bets=[])

    state = edit(state, demolition)
    decision = decision_of(state)
    transition = ENGINE.apply(state, decision.seat, decision.default, ScriptedRandomness())
    assert [e.data for e in transition.events if e.kind == "fan_bet_face_up"] == [{"seat": last, "bet": "b07"}]
    doc = thaw(transition.state)
    end = finish_row(rows_of(doc["track"]))
    doc["players"][first].update(row=end)
    doc["players"][last].update(row=end - 5)
    doc["racing"]["finished"] = [first]
    doc["phase"] = "race_over"
    vp, chips = doc["players"][last]["vp"], doc["players"][last]["chips"]
    events: list[Any] = []
    after.score_race(doc, events)
    p = doc["players"][last]
    assert not [e for e in events if e.kind == "fan_bet_won"]
    result = next(e for e in events if e.kind == "race_result")
    assert p["vp"] == vp + next(r["vp"] for r in result.data["results"] if r["seat"] == last)
    assert p["chips"] == chips and p["bets_won"] == []
    assert p["bets_up"] == ["b07"] and p["bets"] == ["b05"]  # face up until Clean Up
    after.clean_up(doc, ScriptedRandomness(), events)
    assert p["bets_up"] == [] and p["bets"] == ["b05"]  # the unmet-at-the-end card stays in hand
    assert "b07" in doc["decks"]["bets"] and doc["discards"]["bets"] == []
    assert ENGINE.view(freeze(doc), first)["players"][last]["bets"] == 1


def test_a_0_3_0_game_never_turns_a_bet_face_up_mid_race() -> None:
    """Exports of 0.3.0 replay as they were played: bets only after the race, no new key."""
    state, seat, _others = _before_a_stunt(V3)
    assert state.doc["ruleset"] == "0.3.0"
    assert all("bets_up" not in p for p in state.doc["players"])
    rng = ScriptedRandomness(["blank"] * 200)
    state = V3.apply(state, seat, {"type": "step", "dir": 0}, rng).state
    transition = V3.apply(state, seat, {"type": "accept"}, rng)
    assert transition.state.doc["players"][seat]["stats"]["stunts"] == 2
    assert transition.state.doc["players"][seat]["bets"] == ["b03", "b06"]
    assert not [e for e in transition.events if e.kind == "fan_bet_face_up"]
    state, events, _ = _to_the_end_of_the_race(V3, transition.state, rng)
    assert not [e for e in events if e.kind == "fan_bet_face_up"]
    assert "b06" in {e.data["bet"] for e in events if e.kind == "fan_bet_won"}
    assert all("bets_up" not in p for p in state.doc["players"])


def test_a_0_4_0_game_carries_its_ruleset() -> None:
    """0.4.0 marks its games with ``ruleset`` "0.4.0"; 0.5.0 and 0.6.0 (which turn bets face
    up too) with their own (0.6.0 also with the defaults it draws for the first draft picks,
    after every other draw of the set-up; 0.7.0 sets up as 0.6.0 does, with its own name)."""
    doc = ENGINE.for_version("0.4.0").setup(MatchConfig("normal", 2, {}), SeededRandomness("x")).doc
    assert doc["ruleset"] == "0.4.0"
    assert all(p["bets_up"] == [] for p in doc["players"])
    five = ENGINE.for_version("0.5.0").setup(MatchConfig("normal", 2, {}),
                                             SeededRandomness("x")).doc
    assert five == {**doc, "ruleset": "0.5.0"}
    six = ENGINE.for_version("0.6.0").setup(MatchConfig("normal", 2, {}), SeededRandomness("x")).doc
    assert six["defaults"] != [None, None]
    assert {k: v for k, v in six.items() if k != "defaults"} == {**doc, "ruleset": "0.6.0"}
    now = ENGINE.setup(MatchConfig("normal", 2, {}), SeededRandomness("x")).doc
    assert ENGINE.engine_version == "0.7.0" and now == {**six, "ruleset": "0.7.0"}
    assert "bets_up" not in str(V3.setup(MatchConfig("normal", 2, {}), SeededRandomness("x")).text)


def _rendered(view: dict[str, Any], viewer: int | None) -> str:
    from rich.console import Console

    console = Console(width=240, record=True)
    console.print(present.render(view, viewer))
    return console.export_text()
