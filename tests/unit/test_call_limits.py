"""The call rate limits alone (call_limits.py), on an injected clock: token buckets per caller,
refilled at the rate up to the burst, their words, a bounded table, and the settings."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.call_limits import (
    BURST_SECONDS,
    RETRY_AFTER_METADATA,
    CallBuckets,
    CallLimiter,
    PlayAnswers,
)
from services.platform.settings import load
from services.platform.stream_limits import UNLIMITED, Caller, StreamLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


SEAT = Caller("token", ("seat", "m1", "0"))
OTHER_SEAT = Caller("token", ("seat", "m1", "1"))
PLAYER = Caller("token", ("player", "ann"))
HOST = Caller("anonymous", ("peer", "10.0.0.1"))
CLIENT = Caller("client", ("peer", "127.0.0.1", "10.1.1.1"))
ORGANISER = Caller("trusted", ("organiser", "org"))


def test_a_bucket_takes_its_burst_at_once_then_its_rate() -> None:
    clock = Clock()
    buckets = CallBuckets(10, 20, clock)
    assert all(buckets.take("k") == 0.0 for _ in range(20))
    wait = buckets.take("k")
    assert wait == pytest.approx(0.1)  # one token comes every 1/10 s
    assert buckets.take("k") == pytest.approx(0.1)  # a refused take took nothing
    clock.now += 0.05
    assert buckets.take("k") == pytest.approx(0.05)
    clock.now += 0.05
    assert buckets.take("k") == 0.0
    assert buckets.take("k") > 0
    clock.now += 1.0  # ten more, not more than that
    assert [buckets.take("k") for _ in range(11)].count(0.0) == 10


def test_a_bucket_never_holds_more_than_its_burst() -> None:
    clock = Clock()
    buckets = CallBuckets(10, 20, clock)
    buckets.take("k")
    clock.now += 3600
    assert [buckets.take("k") for _ in range(21)].count(0.0) == 20


def test_keys_have_buckets_of_their_own() -> None:
    clock = Clock()
    buckets = CallBuckets(1, 2, clock)
    assert buckets.take("a") == buckets.take("a") == 0.0
    assert buckets.take("a") > 0
    assert buckets.take("b") == 0.0


def test_idle_buckets_are_dropped_once_full_again() -> None:
    clock = Clock()
    buckets = CallBuckets(10, 20, clock)
    for key in range(50):
        buckets.take(key)
    assert len(buckets) == 50
    clock.now += 1.0  # not yet full: kept
    buckets.take("new")
    assert len(buckets) == 51
    clock.now += 1.0  # the first 50 are full again (2 s since): dropped
    buckets.take("newer")
    assert len(buckets) == 2


def test_a_flood_of_distinct_callers_does_not_grow_the_table() -> None:
    clock = Clock()
    buckets = CallBuckets(10, 20, clock, max_keys=100)
    for _ in range(19):
        buckets.take("flooder")
    for host in range(10_000):  # all within the same instant: none idle
        buckets.take(f"10.0.{host // 256}.{host % 256}")
        assert len(buckets) <= 100
    assert len(buckets) == 100
    # the least recently used went first: a caller dropped so starts again with a full bucket
    assert buckets.take("flooder") == 0.0


def test_the_limiter_counts_tokens_clients_and_hosts_at_their_rates() -> None:
    clock = Clock()
    limiter = CallLimiter(3, 5, clock)
    for caller, rate in ((SEAT, 3), (PLAYER, 3), (CLIENT, 3), (HOST, 5)):
        burst = rate * BURST_SECONDS
        assert [limiter.take(caller) for _ in range(burst)] == [None] * burst, caller
        assert limiter.take(caller) is not None, caller
    assert limiter.take(OTHER_SEAT) is None  # another seat of the same match is not affected
    assert not limiter.limits(ORGANISER)
    assert all(limiter.take(ORGANISER) is None for _ in range(1000))


def test_a_refusal_names_the_limit_and_when_to_retry_never_the_caller() -> None:
    clock = Clock()
    limiter = CallLimiter(100, 1000, clock)
    for _ in range(200):
        limiter.take(SEAT)
    refused = limiter.take(SEAT)
    assert refused is not None
    assert refused.reason == ("too many calls from this seat: at most 100 a second "
                              "(burst 200); try again in 10 ms")
    assert refused.trailers == ((RETRY_AFTER_METADATA, "10"),)
    assert refused.limit == "calls_per_second"
    for _ in range(200):
        limiter.take(PLAYER)
    player = limiter.take(PLAYER)
    assert player is not None and "from this player:" in player.reason
    assert "ann" not in player.reason
    for _ in range(2000):
        limiter.take(HOST)
    host = limiter.take(HOST)
    assert host is not None
    assert host.reason == ("too many calls from this address without a token: at most 1000 a "
                           "second (burst 2000); try again in 1 ms")
    assert host.limit == "anonymous_calls_per_second"
    assert "10.0.0.1" not in host.reason


def test_a_rate_of_zero_is_no_limit() -> None:
    limiter = CallLimiter(0, 4, Clock())
    assert not limiter.limits(SEAT) and not limiter.limits(CLIENT)
    assert all(limiter.take(SEAT) is None for _ in range(10_000))
    assert limiter.limits(HOST)
    assert not CallLimiter(0, 0).enabled
    with pytest.raises(ValueError):
        CallLimiter(-1, 0)


def test_settings_set_the_call_rates() -> None:
    assert load({}).stream_limits() == StreamLimits()
    assert StreamLimits().calls_per_second == 200
    assert StreamLimits().anonymous_calls_per_second == 1000
    limits = load({"NEON_MAX_CALLS_PER_SECOND": "7",
                   "NEON_MAX_ANONYMOUS_CALLS_PER_SECOND": "0"}).stream_limits()
    assert (limits.calls_per_second, limits.anonymous_calls_per_second) == (7, 0)
    with pytest.raises(ValueError, match="NEON_MAX_CALLS_PER_SECOND '1.5'"):
        load({"NEON_MAX_CALLS_PER_SECOND": "1.5"})
    with pytest.raises(ValueError, match="call rate calls_per_second must be 0"):
        StreamLimits(calls_per_second=-1)
    assert UNLIMITED.calls_per_second == UNLIMITED.anonymous_calls_per_second == 0


def test_play_answers_a_refused_action_with_its_command_id() -> None:
    from services.genproto.neon.rules.v1 import rules_pb2

    action = rules_pb2.PlayRequest(action=rules_pb2.PlayAction(command_id="c7", action_json="{}"))
    answer = PlayAnswers.answer(action, "too many calls")
    assert answer.result.command_id == "c7"
    assert answer.result.code == "RESOURCE_EXHAUSTED"
    assert answer.result.message == "too many calls"
    assert PlayAnswers.is_answer(answer)
    opening = rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id="m"))
    assert PlayAnswers.answer(opening, "too many calls") is None
    assert not PlayAnswers.is_answer(rules_pb2.PlayResponse(update=rules_pb2.SeatUpdate()))


def test_the_repos_players_take_a_refusal_over_the_rate_as_a_wait() -> None:
    import grpc

    from services.platform.playing import retry_after, transient

    def error(code: grpc.StatusCode, details: str, trailers: tuple[tuple[str, str], ...] = ()) -> Any:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailers),
                                    details)

    refused = CallLimiter(100, 1000, Clock())
    for _ in range(200):
        refused.take(SEAT)
    throttled = refused.take(SEAT)
    assert throttled is not None
    over = error(grpc.StatusCode.RESOURCE_EXHAUSTED, throttled.reason, throttled.trailers)
    assert transient(over)
    assert retry_after(over) == pytest.approx(0.01)
    too_big = error(grpc.StatusCode.RESOURCE_EXHAUSTED, "message larger than max")
    assert not transient(too_big) and retry_after(too_big) == 0
    assert retry_after(error(grpc.StatusCode.RESOURCE_EXHAUSTED, throttled.reason,
                             (("retry-after-ms", "999999"),))) == 10.0
    assert retry_after(error(grpc.StatusCode.RESOURCE_EXHAUSTED, throttled.reason,
                             (("retry-after-ms", "soon"),))) == 0
    assert retry_after(error(grpc.StatusCode.UNAVAILABLE, "down")) == 0
