"""The open-stream counting alone: who a caller is, per-caller, per-peer, per-client (of a
trusted gateway) and total limits, slots given back, and the settings that set them."""

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
    networks,
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


GATEWAYS = networks(("10.0.0.0/8", "fd00::/8"))


def test_a_trusted_gateway_names_its_client_and_no_one_else_does() -> None:
    assert caller_of(None, "ipv4:10.1.2.3:5000", "198.51.100.1", GATEWAYS) == \
        Caller("client", ("peer", "10.1.2.3", "198.51.100.1"))
    # another client of that gateway, the same client of another gateway: other callers
    assert caller_of(None, "ipv4:10.1.2.3:5001", "198.51.100.2", GATEWAYS).key == \
        ("peer", "10.1.2.3", "198.51.100.2")
    assert caller_of(None, "ipv4:10.9.9.9:5000", "198.51.100.1", GATEWAYS).key == \
        ("peer", "10.9.9.9", "198.51.100.1")
    assert caller_of(None, "ipv6:[fd00::5]:5000", "2001:db8::/64", GATEWAYS) == \
        Caller("client", ("peer", "fd00::5", "2001:db8::/64"))
    # a dual-stack socket's IPv4-mapped peer is its IPv4 address, in its network
    assert caller_of(None, "ipv6:[::ffff:10.1.2.3]:5000", "198.51.100.1", GATEWAYS).kind == \
        "client"
    anonymous = Caller("anonymous", ("peer", "192.0.2.1"))
    # from a peer not trusted, the name is ignored: the host counts, whatever it says
    assert caller_of(None, "ipv4:192.0.2.1:5000", "198.51.100.1", GATEWAYS) == anonymous
    assert caller_of(None, "ipv4:192.0.2.1:5000", "198.51.100.9", GATEWAYS) == anonymous
    # trusting nobody (the default): ignored from every peer
    assert caller_of(None, "ipv4:10.1.2.3:5000", "198.51.100.1") == \
        Caller("anonymous", ("peer", "10.1.2.3"))
    # a trusted gateway naming no client, or one that is not taken: the gateway's host
    for name in (None, "", "a b", "x" * 129, "caf\u00e9", "tab\there"):
        assert caller_of(None, "ipv4:10.1.2.3:5000", name, GATEWAYS) == \
            Caller("anonymous", ("peer", "10.1.2.3")), name
    assert caller_of(None, "ipv4:10.1.2.3:5000", "x" * 128, GATEWAYS).kind == "client"
    # a peer that is not an IP address is never a trusted gateway
    everyone = networks(("0.0.0.0/0", "::/0"))
    assert caller_of(None, "unix:/tmp/neon.sock", "198.51.100.1", everyone).kind == "anonymous"
    assert caller_of(None, None, "198.51.100.1", everyone).kind == "anonymous"
    # a token is counted as before, named client or not
    seat = Claims(role="seat", match="m1", seat=1, player="ann")
    assert caller_of(seat, "ipv4:10.1.2.3:1", "198.51.100.1", GATEWAYS) == \
        Caller("token", ("seat", "m1", "1"))
    organiser = Claims(role="organiser", match="*", player="o")
    assert caller_of(organiser, "ipv4:10.1.2.3:1", "198.51.100.1", GATEWAYS).kind == "trusted"


def test_a_gateways_clients_have_their_own_limit_not_the_gateway_hosts() -> None:
    limiter = StreamLimiter(StreamLimits(per_caller=9, anonymous_per_peer=1, total=6,
                                         anonymous_per_client=2,
                                         trusted_gateways=("10.0.0.0/8",)))
    first = limiter.caller(None, "ipv4:10.1.2.3:1", "198.51.100.1")
    second = limiter.caller(None, "ipv4:10.1.2.3:2", "198.51.100.2")
    keys = [limiter.acquire(first), limiter.acquire(first), limiter.acquire(second)]
    with pytest.raises(Refused) as refused:
        limiter.acquire(first)
    assert refused.value.limit == "anonymous_per_client" and "(2)" in refused.value.reason
    assert "client address" in refused.value.reason
    # the gateway's host, naming no client, still has its own 1 (its clients' 3 are not its)
    host = limiter.caller(None, "ipv4:10.1.2.3:3")
    keys.append(limiter.acquire(host))
    with pytest.raises(Refused) as refused:
        limiter.acquire(host)
    assert refused.value.limit == "anonymous_per_peer"
    # and every one of them counts toward the total (6)
    keys.append(limiter.acquire(second))
    keys.append(limiter.acquire(limiter.caller(None, "ipv4:10.1.2.3:4", "198.51.100.3")))
    with pytest.raises(Refused) as refused:
        limiter.acquire(limiter.caller(None, "ipv4:10.1.2.3:5", "198.51.100.4"))
    assert refused.value.limit == "total"
    for key in keys:
        limiter.release(key)
    assert limiter.counter.total == 0 and limiter.counter.open == {}


def test_the_trusted_gateways_and_the_client_limit_come_from_the_environment() -> None:
    unset = load({})
    assert unset.trusted_gateways is None and unset.max_anonymous_streams_per_client == 64
    assert unset.stream_limits().trusted_gateways == ()
    assert unset.stream_limits().anonymous_per_client == 64
    assert load({"NEON_TRUSTED_GATEWAYS": ""}).trusted_gateways == ()
    settings = load({"NEON_TRUSTED_GATEWAYS": " 10.0.0.0/8, fd00::/8,192.0.2.7 ",
                     "NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT": "5"})
    assert settings.stream_limits() == StreamLimits(
        64, 1024, 20_000, 5, ("10.0.0.0/8", "fd00::/8", "192.0.2.7"))
    with pytest.raises(ValueError, match="NEON_TRUSTED_GATEWAYS 'gateway'"):
        load({"NEON_TRUSTED_GATEWAYS": "10.0.0.0/8, gateway"})
    with pytest.raises(ValueError, match="NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT"):
        load({"NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT": "-1"})
    with pytest.raises(ValueError):
        StreamLimits(trusted_gateways=("not a network",))
