"""Turn clocks: per-decision and Fischer time, timeouts and their policies, storage."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.clocks import ClockConfig, Clocks

T0 = 1_700_000_000_000


def grace_only(clocks: Clocks, now_ms: int, grace_ms: int) -> tuple[Clocks, tuple[tuple[int, int], ...]]:
    """``Clocks.resume`` without a known end of service (the grace alone): the clocks and
    ``(seat, ms added)`` of each seat given time."""
    taken = clocks.resume(now_ms, grace_ms)
    return taken.clocks, taken.added


FISCHER = ClockConfig(kind="fischer", bank_ms=60_000, increment_ms=5_000)
PER_DECISION = ClockConfig(kind="per_decision", per_decision_ms=30_000)


def test_fischer_increments_add_up_exactly_over_a_sequence_of_answers() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks
    now = T0
    used_by_seat_0 = [4_000, 12_500, 1, 30_000]
    for used in used_by_seat_0:
        now += used
        clocks = clocks.after_step(now, {1}, answered_seat=0, timed_out=False).clocks
        now += 2_000
        clocks = clocks.after_step(now, {0}, answered_seat=1, timed_out=False).clocks
    expected_0 = 60_000 - sum(used_by_seat_0) + 5_000 * len(used_by_seat_0)
    expected_1 = 60_000 - 2_000 * 4 + 5_000 * 4
    assert clocks.seat(0).running
    assert clocks.seat(0).bank_ms == expected_0
    assert clocks.seat(0).deadline_ms == now + expected_0
    assert clocks.remaining_ms(0, now + 1_000) == expected_0 - 1_000
    assert not clocks.seat(1).running
    assert clocks.seat(1).bank_ms == expected_1
    assert clocks.remaining_ms(1, now + 1_000) == expected_1


def test_fischer_bank_runs_only_while_the_seat_owes_a_decision() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks
    assert clocks.seat(1).deadline_ms is None
    later = clocks.after_step(T0 + 10_000, {0}, answered_seat=None, timed_out=False).clocks
    assert later.seat(0).deadline_ms == T0 + 60_000
    assert later.seat(1).bank_ms == 60_000
    assert later.view(T0 + 50_000)[1]["remaining_ms"] == 60_000


def test_fischer_withdrawn_decision_charges_time_used_without_increment() -> None:
    clocks = Clocks.create(FISCHER, 3).start({0, 1}, T0).clocks
    step = clocks.after_step(T0 + 7_000, {2}, answered_seat=0, timed_out=False)
    assert step.clocks.seat(0).bank_ms == 60_000 - 7_000 + 5_000
    assert step.clocks.seat(1).bank_ms == 60_000 - 7_000
    assert not step.clocks.seat(1).running
    assert step.stopped == (0, 1)
    assert step.started == (2,)


def test_fischer_answer_outside_an_owed_decision_earns_no_increment() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks
    step = clocks.after_step(T0 + 3_000, {0}, answered_seat=1, timed_out=False)
    assert step.clocks.seat(1).bank_ms == 60_000
    assert step.clocks.seat(0).deadline_ms == T0 + 60_000
    assert step.started == () and step.stopped == ()


def test_fischer_timeout_empties_the_bank_then_adds_the_increment() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks
    deadline = T0 + 60_000
    assert clocks.expired(deadline - 1) == ()
    assert clocks.expired(deadline) == (0,)
    step = clocks.after_step(deadline + 40, {0}, answered_seat=0, timed_out=True)
    assert step.clocks.seat(0).bank_ms == 5_000
    assert step.clocks.seat(0).deadline_ms == deadline + 40 + 5_000
    assert step.clocks.seat(0).timeouts == 1


def test_per_decision_each_decision_gets_the_full_time() -> None:
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    assert clocks.next_deadline() == (T0 + 30_000, 0)
    clocks = clocks.after_step(T0 + 29_000, {1}, answered_seat=0, timed_out=False).clocks
    assert clocks.next_deadline() == (T0 + 29_000 + 30_000, 1)
    assert not clocks.seat(0).running
    clocks = clocks.after_step(T0 + 30_000, {0}, answered_seat=1, timed_out=False).clocks
    assert clocks.seat(0).deadline_ms == T0 + 60_000


def test_seat_still_owed_keeps_its_deadline_and_the_answering_seat_restarts() -> None:
    clocks = Clocks.create(PER_DECISION, 2).start({0, 1}, T0).clocks
    step = clocks.after_step(T0 + 10_000, {0, 1}, answered_seat=0, timed_out=False)
    assert step.clocks.seat(1).deadline_ms == T0 + 30_000
    assert step.clocks.seat(0).deadline_ms == T0 + 40_000
    assert step.started == (0,) and step.stopped == (0,)
    assert step.clocks.expired(T0 + 30_000) == (1,)
    assert step.clocks.next_deadline() == (T0 + 30_000, 1)


def test_a_seat_owed_nothing_has_no_running_clock() -> None:
    clocks = Clocks.create(PER_DECISION, 3).start({1}, T0).clocks
    view = {v["seat"]: v for v in clocks.view(T0 + 5_000)}
    assert view[1] == {
        "seat": 1,
        "remaining_ms": 25_000,
        "running": True,
        "deadline_unix_ms": T0 + 30_000,
        "timeouts": 0,
        "bot": False,
    }
    for idle in (0, 2):
        assert view[idle]["running"] is False
        assert view[idle]["deadline_unix_ms"] == 0
    assert clocks.expired(T0 + 10**9) == (1,)
    rules_pb2.SeatClock(**view[1])  # the view's keys are the proto's fields


def test_no_clock_never_runs_or_expires() -> None:
    clocks = Clocks.create(ClockConfig(), 2).start({0, 1}, T0).clocks
    assert clocks.next_deadline() is None
    assert clocks.expired(T0 + 10**9) == ()
    assert clocks.view(T0) == []


def test_timeouts_in_a_row_count_and_an_answer_in_time_resets_them() -> None:
    config = ClockConfig(kind="per_decision", per_decision_ms=1_000, max_timeouts=3)
    clocks = Clocks.create(config, 2).start({0}, T0).clocks
    now = T0
    for expected in (1, 2):
        now += 1_000
        clocks = clocks.after_step(now, {0}, answered_seat=0, timed_out=True).clocks
        assert clocks.seat(0).timeouts == expected
    clocks = clocks.after_step(now + 10, {0}, answered_seat=0, timed_out=False).clocks
    assert clocks.seat(0).timeouts == 0
    for _ in range(5):
        now = clocks.seat(0).deadline_ms or 0
        step = clocks.after_step(now, {0}, answered_seat=0, timed_out=True)
        clocks = step.clocks
        assert step.now_bot == () and step.forfeit_due == ()
    assert clocks.seat(0).timeouts == 5 and not clocks.seat(0).bot


def test_bot_policy_hands_the_seat_to_a_bot_with_no_deadline() -> None:
    config = ClockConfig(kind="per_decision", per_decision_ms=1_000, max_timeouts=2, policy="bot")
    clocks = Clocks.create(config, 2).start({0}, T0).clocks
    first = clocks.after_step(T0 + 1_000, {0}, answered_seat=0, timed_out=True)
    assert first.now_bot == () and first.clocks.seat(0).running
    second = first.clocks.after_step(T0 + 2_000, {0, 1}, answered_seat=0, timed_out=True)
    assert second.now_bot == (0,)
    assert second.clocks.seat(0).bot
    assert not second.clocks.seat(0).running
    assert second.clocks.next_deadline() == (T0 + 3_000, 1)
    # The bot answers for seat 0 from now on: it is never started again.
    later = second.clocks.after_step(T0 + 2_500, {0, 1}, answered_seat=0, timed_out=False)
    assert not later.clocks.seat(0).running and later.clocks.seat(0).bot
    assert later.started == ()
    assert later.clocks.view(T0 + 2_500)[0]["bot"] is True
    assert later.clocks.bots == (0,)


def test_forfeit_policy_reports_the_seat_when_max_timeouts_is_reached() -> None:
    config = ClockConfig(kind="fischer", bank_ms=2_000, max_timeouts=2, policy="forfeit")
    clocks = Clocks.create(config, 2).start({1}, T0).clocks
    first = clocks.after_step(T0 + 2_000, {1}, answered_seat=1, timed_out=True)
    assert first.forfeit_due == ()
    assert first.clocks.expired(T0 + 2_000) == (1,)  # empty bank, no increment
    second = first.clocks.after_step(T0 + 2_000, {1}, answered_seat=1, timed_out=True)
    assert second.forfeit_due == (1,)
    assert not second.clocks.seat(1).bot
    # what is stored tells it too (the host resigns the seat from it when the forfeit's own
    # commit failed), until the seat answers in time; other policies never name a seat
    assert first.clocks.at_forfeit == () and second.clocks.at_forfeit == (1,)
    assert Clocks.from_json(second.clocks.to_json()).at_forfeit == (1,)
    answered = second.clocks.after_step(T0 + 2_100, {1}, answered_seat=1, timed_out=False)
    assert answered.clocks.at_forfeit == ()
    bot = ClockConfig(kind="fischer", bank_ms=2_000, max_timeouts=1, policy="bot")
    botted = Clocks.create(bot, 2).start({1}, T0).clocks.after_step(T0 + 2_000, {1}, 1, True)
    assert botted.clocks.bots == (1,) and botted.clocks.at_forfeit == ()


def test_clocks_survive_a_json_round_trip_with_their_deadlines() -> None:
    config = ClockConfig(kind="fischer", bank_ms=9_000, increment_ms=250, max_timeouts=4,
                         policy="bot")
    clocks = Clocks.create(config, 3).start({0, 2}, T0).clocks
    clocks = clocks.after_step(T0 + 500, {2, 1}, answered_seat=0, timed_out=True).clocks
    stored = json.loads(json.dumps(clocks.to_json()))
    restored = Clocks.from_json(stored)
    assert restored == clocks
    assert restored.next_deadline() == clocks.next_deadline() == (T0 + 9_000, 2)
    assert ClockConfig.from_json(json.loads(json.dumps(config.to_json()))) == config


def test_config_from_proto() -> None:
    msg = rules_pb2.ClockConfig(
        kind=rules_pb2.CLOCK_KIND_FISCHER, bank_ms=300_000, increment_ms=2_000,
        max_timeouts=3, policy=rules_pb2.TIMEOUT_POLICY_FORFEIT,
    )
    config = ClockConfig.from_proto(msg)
    assert config == ClockConfig("fischer", 0, 300_000, 2_000, 3, "forfeit")
    assert config.to_proto() == msg
    assert ClockConfig.from_proto(rules_pb2.ClockConfig()) == ClockConfig()
    assert ClockConfig.from_proto(None) == ClockConfig()


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION, "per_decision_ms": -5}, "must not be negative"),
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION}, "per_decision_ms must be more than 0"),
        ({"kind": rules_pb2.CLOCK_KIND_FISCHER, "increment_ms": 1_000}, "bank_ms must be more than 0"),
        ({"kind": rules_pb2.CLOCK_KIND_FISCHER, "bank_ms": 60_000, "increment_ms": -1},
         "increment_ms must not be negative"),
        ({"kind": rules_pb2.CLOCK_KIND_FISCHER, "bank_ms": 86_400_001}, "more than 24 hours"),
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION, "per_decision_ms": 10**12}, "more than 24 hours"),
        ({"kind": rules_pb2.CLOCK_KIND_FISCHER, "bank_ms": 1_000, "per_decision_ms": 5},
         "per_decision_ms belongs to per_decision"),
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION, "per_decision_ms": 5, "bank_ms": 5},
         "belong to fischer"),
        ({"per_decision_ms": 1_000}, "clock.kind is required"),
        ({"kind": rules_pb2.CLOCK_KIND_NONE, "bank_ms": 1_000}, "takes no times"),
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION, "per_decision_ms": 5,
          "policy": rules_pb2.TIMEOUT_POLICY_BOT}, "needs max_timeouts of at least 1"),
        ({"kind": rules_pb2.CLOCK_KIND_PER_DECISION, "per_decision_ms": 5, "max_timeouts": -1},
         "max_timeouts must be between"),
        ({"kind": 17}, "not a known clock kind"),
    ],
)
def test_bad_configs_are_refused_with_a_reason(fields: dict[str, int], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        ClockConfig.from_proto(rules_pb2.ClockConfig(**fields))


def test_bad_stored_documents_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="unknown keys: speed"):
        ClockConfig.from_json({"kind": "none", "speed": 3})
    with pytest.raises(ValueError, match="clock.kind must be one of"):
        ClockConfig.from_json({"kind": "hourglass"})
    with pytest.raises(ValueError, match="seats 0, 1, ... in order"):
        Clocks.from_json({"config": PER_DECISION.to_json(), "seats": [{"seat": 1}]})
    with pytest.raises(ValueError, match="go together"):
        Clocks.from_json({"config": PER_DECISION.to_json(),
                          "seats": [{"seat": 0, "deadline_ms": T0}]})


def test_unknown_seats_and_seatless_timeouts_are_refused() -> None:
    clocks = Clocks.create(PER_DECISION, 2)
    with pytest.raises(ValueError, match="seat 2 has no clock"):
        clocks.start({2}, T0)
    with pytest.raises(ValueError, match="needs the seat"):
        clocks.after_step(T0, {0}, answered_seat=None, timed_out=True)


def test_an_expiry_applies_only_to_the_deadline_it_was_armed_for() -> None:
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    deadline = T0 + 30_000
    assert not clocks.is_due(0, deadline, deadline - 1)
    assert clocks.is_due(0, deadline, deadline)
    assert not clocks.is_due(1, deadline, deadline)
    answered = clocks.after_step(T0 + 1_000, {0}, answered_seat=0, timed_out=False).clocks
    assert not answered.is_due(0, deadline, deadline)
    timed_out = clocks.after_step(deadline, {0}, answered_seat=0, timed_out=True).clocks
    assert not timed_out.is_due(0, deadline, deadline + 5)


@settings(max_examples=60, deadline=None)
@given(
    answers=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 3_000), st.sets(st.integers(0, 2))),
        max_size=30,
    )
)
def test_fischer_banks_are_the_start_minus_time_used_plus_increments(
    answers: list[tuple[int, int, set[int]]],
) -> None:
    """Whoever answers and whoever is owed, a bank never gains or loses time otherwise."""
    config = ClockConfig(kind="fischer", bank_ms=10**7, increment_ms=1_234)
    clocks = Clocks.create(config, 3).start({0, 1, 2}, T0).clocks
    used, increments = [0, 0, 0], [0, 0, 0]
    now = T0
    for seat, wait, owed in answers:
        now += wait
        for s in range(3):
            if clocks.seat(s).running:
                used[s] += wait
        if clocks.seat(seat).running:
            increments[seat] += 1
        clocks = clocks.after_step(now, owed, answered_seat=seat, timed_out=False).clocks
        assert {s for s in range(3) if clocks.seat(s).running} == owed
    for s in range(3):
        assert clocks.remaining_ms(s, now) == 10**7 - used[s] + 1_234 * increments[s]


def test_resumed_gives_a_clock_that_ran_out_while_down_the_grace_from_now() -> None:
    clocks = Clocks.create(PER_DECISION, 3).start({0, 1}, T0).clocks  # both 30 s from T0
    later = clocks.after_step(T0 + 20_000, {0, 1, 2}, answered_seat=None, timed_out=False).clocks
    now = T0 + 45_000  # the service was down: 0 and 1 ran out, 2 has 5 s left
    resumed, added = grace_only(later, now, 10_000)
    assert added == ((0, 25_000), (1, 25_000), (2, 5_000))
    for seat in (0, 1, 2):
        assert resumed.remaining_ms(seat, now) == 10_000
        assert resumed.seat(seat).deadline_ms - resumed.seat(seat).started_ms == 30_000
    assert resumed.expired(now + 9_999) == ()
    assert resumed.expired(now + 10_000) == (0, 1, 2)
    # a clock with the grace or more left, an idle one, grace 0 and no clock: unchanged
    assert grace_only(later, T0 + 20_000, 10_000) == (later, ())
    assert grace_only(later, now, 0) == (later, ())
    idle = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    assert grace_only(idle, T0 + 60_000, 10_000)[0].seat(1) == idle.seat(1)
    none = Clocks.create(ClockConfig(), 2).start({0}, T0).clocks
    assert grace_only(none, T0 + 60_000, 10_000) == (none, ())


def test_resumed_never_gives_more_than_a_whole_decision() -> None:
    short = ClockConfig(kind="per_decision", per_decision_ms=3_000)
    clocks = Clocks.create(short, 2).start({0}, T0).clocks
    resumed, added = grace_only(clocks, T0 + 60_000, 30_000)
    assert added == ((0, 60_000),)
    assert resumed.remaining_ms(0, T0 + 60_000) == 3_000


def test_resumed_fischer_charges_none_of_the_time_it_adds() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks  # 60 s bank, 5 s increment
    now = T0 + 70_000  # ran out while down
    resumed, added = grace_only(clocks, now, 15_000)
    assert added == ((0, 25_000),)
    # seat 0 answers 4 s after the service came back: charged 45 s + 4 s of its 60 s bank...
    after = resumed.after_step(now + 4_000, {1}, answered_seat=0, timed_out=False).clocks
    assert after.seat(0).bank_ms == 60_000 - (60_000 - 15_000) - 4_000 + 5_000
    # ...where without the grace the clock had run out and the bank was empty
    bare = clocks.after_step(now + 4_000, {1}, answered_seat=0, timed_out=False).clocks
    assert bare.seat(0).bank_ms == 5_000


# -- the pause at a take-up (Clocks.resume) ---------------------------------------------


def test_resume_pauses_a_running_clock_for_the_downtime() -> None:
    """Served until 10 s into a 30 s decision, taken up again 5 minutes later: the seat has
    the 20 s it had when the service stopped, not the grace."""
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    until, now = T0 + 10_000, T0 + 310_000
    taken = clocks.resume(now, 5_000, until)
    assert taken.paused_ms == 300_000 and taken.paused == ((0, 300_000),)
    assert taken.added == () and taken.basis == "heartbeat"
    assert taken.clocks.remaining_ms(0, now) == 20_000
    seat = taken.clocks.seat(0)
    assert (seat.started_ms, seat.deadline_ms) == (T0 + 300_000, T0 + 330_000)
    assert taken.clocks.seat(1) == clocks.seat(1), "an idle clock is not touched"
    assert taken.clocks.expired(now + 19_999) == () and taken.clocks.expired(now + 20_000) == (0,)


def test_resume_charges_a_fischer_seat_none_of_the_downtime() -> None:
    clocks = Clocks.create(FISCHER, 2).start({0}, T0).clocks  # 60 s bank, 5 s increment
    until, now = T0 + 15_000, T0 + 600_000
    taken = clocks.resume(now, 10_000, until)
    assert taken.clocks.remaining_ms(0, now) == 45_000
    after = taken.clocks.after_step(now + 4_000, {1}, answered_seat=0, timed_out=False).clocks
    # charged the 15 s before the outage and the 4 s after it, none of the 585 s between
    assert after.seat(0).bank_ms == 60_000 - 15_000 - 4_000 + 5_000


def test_resume_gives_the_grace_on_top_of_the_pause() -> None:
    """A seat that had 3 s left when the service stopped comes back with the grace (10 s);
    one that had more than the grace keeps what it had."""
    clocks = Clocks.create(PER_DECISION, 3).start({0}, T0).clocks
    clocks = clocks.after_step(T0 + 15_000, {0, 1}, answered_seat=None, timed_out=False).clocks
    until, now = T0 + 27_000, T0 + 100_000  # seat 0: 3 s left at the stop; seat 1: 18 s
    taken = clocks.resume(now, 10_000, until)
    assert taken.paused == ((0, 73_000), (1, 73_000))
    assert taken.added == ((0, 7_000),)
    assert taken.clocks.remaining_ms(0, now) == 10_000
    assert taken.clocks.remaining_ms(1, now) == 18_000
    # the grace is still capped at a whole decision
    short = ClockConfig(kind="per_decision", per_decision_ms=2_000)
    one = Clocks.create(short, 1).start({0}, T0).clocks
    assert one.resume(T0 + 9_000, 30_000, T0 + 1_900).clocks.remaining_ms(0, T0 + 9_000) == 2_000


def test_resume_with_no_downtime_pauses_nothing() -> None:
    """Taken up at the very end of service, or before it (a crashed process may have served
    until up to two beats after its last one): no pause, the grace as before."""
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    for until in (T0 + 25_000, T0 + 40_000):
        taken = clocks.resume(T0 + 25_000, 10_000, until)
        assert taken.paused_ms == 0 and taken.paused == ()
        assert (taken.clocks, taken.added) == grace_only(clocks, T0 + 25_000, 10_000)
    assert clocks.resume(T0 + 5_000, 10_000, T0 + 5_000).clocks is clocks


def test_resume_without_a_known_end_of_service_is_the_grace_alone() -> None:
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    now = T0 + 300_000
    taken = clocks.resume(now, 10_000, None)
    assert taken.paused_ms == 0 and taken.basis == "end of service unknown"
    assert (taken.clocks, taken.added) == grace_only(clocks, now, 10_000)
    assert taken.clocks.remaining_ms(0, now) == 10_000
    # no grace either: nothing changes, the expiry applies at once
    assert clocks.resume(now, 0, None).clocks is clocks


def test_resume_credits_nothing_when_a_clock_started_after_the_last_beat() -> None:
    """A clock that started after the beat was started by a process the beat is not from:
    the downtime is not known, and no seat of the match is paused."""
    clocks = Clocks.create(PER_DECISION, 2).start({0}, T0).clocks
    clocks = clocks.after_step(T0 + 20_000, {0, 1}, answered_seat=None, timed_out=False).clocks
    now = T0 + 120_000
    taken = clocks.resume(now, 10_000, T0 + 15_000)  # seat 1's clock started at T0 + 20 s
    assert taken.paused_ms == 0 and taken.paused == ()
    assert taken.basis == "a clock started after the last heartbeat"
    assert (taken.clocks, taken.added) == grace_only(clocks, now, 10_000)


def test_resume_never_brings_back_a_deadline_that_passed_while_served() -> None:
    """A deadline that passed before the service stopped (its expiry was not stored) is not
    revived by the pause: the seat has nothing left at the stop, so it gets the grace only."""
    clocks = Clocks.create(PER_DECISION, 1).start({0}, T0).clocks  # deadline T0 + 30 s
    now = T0 + 200_000
    taken = clocks.resume(now, 5_000, T0 + 45_000)
    assert taken.paused_ms == 155_000
    assert taken.clocks.remaining_ms(0, now) == 5_000
    assert clocks.resume(now, 0, T0 + 45_000).clocks.expired(now) == (0,)


def test_resume_leaves_bot_seats_idle_seats_and_matches_without_a_clock_alone() -> None:
    bot = ClockConfig(kind="per_decision", per_decision_ms=1_000, max_timeouts=1, policy="bot")
    clocks = Clocks.create(bot, 2).start({0}, T0).clocks
    clocks = clocks.after_step(T0 + 1_000, {0, 1}, answered_seat=0, timed_out=True).clocks
    assert clocks.seat(0).bot and not clocks.seat(0).running
    taken = clocks.resume(T0 + 60_000, 500, T0 + 1_200)
    assert [s for s, _ in taken.paused] == [1] and taken.clocks.seat(0) == clocks.seat(0)
    none = Clocks.create(ClockConfig(), 2).start({0}, T0).clocks
    assert none.resume(T0 + 60_000, 10_000, T0 + 1_000).clocks is none
    idle = Clocks.create(FISCHER, 2)
    assert idle.resume(T0 + 60_000, 10_000, T0).clocks is idle


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["per_decision", "fischer"]),
    used=st.integers(0, 90_000),
    down=st.integers(0, 10**7),
    grace=st.integers(0, 40_000),
    known=st.booleans(),
)
def test_resume_credits_no_more_than_the_downtime_and_the_grace(
        kind: str, used: int, down: int, grace: int, known: bool) -> None:
    """Served until ``used`` ms into the decision and taken up ``down`` ms later, with that
    end of service known or not: a seat has exactly what it had at the stop, or the grace
    (capped at a decision) when that is more; never less than with the grace alone."""
    config = PER_DECISION if kind == "per_decision" else FISCHER
    whole = 30_000 if kind == "per_decision" else 60_000
    clocks = Clocks.create(config, 1).start({0}, T0).clocks
    until = T0 + used
    now = until + down
    taken = clocks.resume(now, grace, until if known else None)
    left_at_stop = whole - used
    floor = min(grace, whole)
    remaining = taken.clocks.remaining_ms(0, now)
    alone = grace_only(clocks, now, grace)[0].remaining_ms(0, now)
    assert remaining >= alone
    if known:
        assert taken.paused_ms == down
        assert remaining == max(left_at_stop, floor, 0)
    else:
        assert remaining == max(whole - used - down, floor, 0)
    seat = taken.clocks.seat(0)
    assert seat.deadline_ms is not None and seat.started_ms is not None
    assert seat.deadline_ms - seat.started_ms == whole  # started and deadline move together
