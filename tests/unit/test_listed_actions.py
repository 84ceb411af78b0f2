"""Which decision a submitted action answers, looked up in the seat's listed legal actions
(host.py ``_listed``): equal dicts are confirmed by their JSON key, so true and 1 (or 1 and
1.0) stay different, and the highest-priority decision wins when two list the same action."""

from __future__ import annotations

from services.rules.games.contract import Decision
from services.rules.host import MatchHost
from services.rules.live import LiveMatch


def host_and_match(decisions: list[Decision]) -> tuple[MatchHost, LiveMatch]:
    live = LiveMatch("m", engine=None, created={}, config=None, status="running")  # type: ignore[arg-type]
    live.memo[("decisions", 0)] = decisions  # what the engine owes seat 0 at this version
    return MatchHost.__new__(MatchHost), live


def test_a_listed_action_answers_its_decision() -> None:
    attack = Decision(0, "attack", ({"type": "attack", "target": 2}, {"type": "pass"}))
    host, live = host_and_match([attack])
    assert host._listed(live, 0, {"target": 2, "type": "attack"}) is attack
    assert host._listed(live, 0, {"type": "attack", "target": 3}) is None


def test_true_is_not_1_and_1_is_not_1_point_0() -> None:
    flag = Decision(0, "choose", ({"type": "choose", "all": 1}, {"type": "choose", "n": 1}))
    host, live = host_and_match([flag])
    assert host._listed(live, 0, {"type": "choose", "all": True}) is None
    assert host._listed(live, 0, {"type": "choose", "n": 1.0}) is None
    assert host._listed(live, 0, {"type": "choose", "all": 1}) is flag


def test_an_exact_match_later_in_the_list_is_still_found() -> None:
    both = Decision(0, "choose", ({"type": "choose", "all": 1}, {"type": "choose", "all": True}))
    host, live = host_and_match([both])
    assert host._listed(live, 0, {"type": "choose", "all": True}) is both


def test_the_highest_priority_decision_answers_an_action_listed_twice() -> None:
    pass_ = {"type": "pass"}
    owed = Decision(0, "defend", (pass_, {"type": "block"}), default=pass_)
    standing = Decision(0, "exchange", (pass_,), standing=True, priority=5)
    host, live = host_and_match([owed, standing])
    assert host._listed(live, 0, pass_) is standing
    assert host._listed(live, 0, {"type": "block"}) is owed


def test_an_integral_float_on_the_wire_is_read_as_the_integer() -> None:
    """``n: 1.0`` from a client is the JSON number 1 (RFC 8785 writes both as 1): it is read
    as the integer, so it answers the listed ``n: 1`` and no float reaches the engine; a
    number with a fraction, or beyond 2**53, stays a float."""
    from services.rules.host import parse_json_object

    flag = Decision(0, "choose", ({"type": "choose", "n": 1},))
    host, live = host_and_match([flag])
    action = parse_json_object('{"type": "choose", "n": 1.0}', "action_json")
    assert type(action["n"]) is int and host._listed(live, 0, action) is flag
    mixed = parse_json_object('{"a": 3e0, "b": -0.0, "c": 2.5, "d": [1E2, 1e300]}', "action_json")
    assert mixed == {"a": 3, "b": 0, "c": 2.5, "d": [100, 1e300]}
    assert [type(mixed[k]) for k in "abc"] == [int, int, float]
    assert [type(v) for v in mixed["d"]] == [int, float]
