"""The open-stream counting alone: who a caller is, per-caller, per-peer and total limits,
slots given back, and the settings that set them."""

from __future__ import annotations

import pytest

from services.platform.settings import load
from services.platform.stream_limits import (
    Caller,
    Refused,
    StreamCounter,
    StreamLimiter,
    StreamLimits,
    caller_of,
    peer_host,
)
from services.platform.tokens import Claims


@pytest.mark.parametrize(("peer", "host"), [
    ("ipv4:1.2.3.4:5678", "1.2.3.4"),
    ("ipv6:[::1]:5678", "::1"),
    ("ipv6:%5B::1%5D:5678", "::1"),
    ("ipv6:[2001:db8::7]:443", "2001:db8::7"),
    ("unix:/tmp/neon.sock", "unix:/tmp/neon.sock"),
    ("", "unknown"),
    (None, "unknown"),
])
def test_the_peer_host_drops_the_port(peer: str | None, host: str) -> None:
    assert peer_host(peer) == host


def test_callers_are_the_token_identity_else_the_peer_host() -> None:
    seat = Claims(role="seat", match="m1", seat=1, player="ann")
    assert caller_of(seat, "ipv4:1.2.3.4:1") == Caller("token", ("seat", "m1", "1"))
    assert caller_of(Claims(role="seat", match="m1", seat=0), "ipv4:1.2.3.4:1").key != \
        caller_of(seat, "ipv4:1.2.3.4:1").key
    assert caller_of(Claims(role="player", match="*", player="ann"), "ipv4:9.9.9.9:2") == \
        Caller("token", ("player", "ann"))
    assert caller_of(None, "ipv4:1.2.3.4:1") == caller_of(None, "ipv4:1.2.3.4:2") == \
        Caller("anonymous", ("peer", "1.2.3.4"))
    for role in ("organiser", "service"):
        assert caller_of(Claims(role=role, match="*", player="x"), "ipv4:1.2.3.4:1").kind == "trusted"


def test_a_caller_is_refused_at_its_limit_others_are_not_and_a_release_frees_a_slot() -> None:
    limiter = StreamLimiter(StreamLimits(per_caller=2, anonymous_per_peer=3, total=0))
    ann, bob = Caller("token", ("player", "ann")), Caller("token", ("player", "bob"))
    keys = [limiter.acquire(ann), limiter.acquire(ann)]
    with pytest.raises(Refused) as refused:
        limiter.acquire(ann)
    assert refused.value.reason == "too many open streams for this caller (2); close one first"
    assert refused.value.limit == "per_caller" and "ann" not in refused.value.reason
    limiter.acquire(bob)
    limiter.release(keys[0])
    limiter.acquire(ann)
    peer = Caller("anonymous", ("peer", "10.0.0.1"))
    for _ in range(3):
        limiter.acquire(peer)
    with pytest.raises(Refused) as refused:
        limiter.acquire(peer)
    assert refused.value.limit == "anonymous_per_peer" and "(3)" in refused.value.reason
    assert "10.0.0.1" not in refused.value.reason
    limiter.acquire(Caller("anonymous", ("peer", "10.0.0.2")))


def test_trusted_callers_have_no_per_caller_limit_but_count_toward_the_total() -> None:
    limiter = StreamLimiter(StreamLimits(per_caller=1, anonymous_per_peer=1, total=4))
    organiser = Caller("trusted", ("organiser", "o"))
    slots = [limiter.acquire(organiser) for _ in range(3)]
    limiter.acquire(Caller("token", ("player", "ann")))
    with pytest.raises(Refused) as refused:
        limiter.acquire(organiser)
    assert refused.value.limit == "total" and "(4)" in refused.value.reason
    with pytest.raises(Refused):
        limiter.acquire(Caller("token", ("player", "bob")))
    limiter.release(slots[0])
    assert limiter.counter.total == 3
    limiter.acquire(Caller("token", ("player", "bob")))


def test_zero_is_no_limit_and_counts_go_back_to_nothing() -> None:
    counter = StreamCounter(total=0)
    for _ in range(10_000):
        counter.acquire(("k",), 0, "never")
    for _ in range(10_000):
        counter.release(("k",))
    assert counter.total == 0 and counter.open == {}


def test_the_limits_come_from_the_environment() -> None:
    assert load({}).stream_limits() == StreamLimits(64, 1024, 20_000)
    assert load({"NEON_MAX_STREAMS_PER_CALLER": "3", "NEON_MAX_ANONYMOUS_STREAMS_PER_PEER": "0",
                 "NEON_MAX_STREAMS": "100"}).stream_limits() == StreamLimits(3, 0, 100)
    with pytest.raises(ValueError, match="NEON_MAX_STREAMS"):
        load({"NEON_MAX_STREAMS": "-1"})
