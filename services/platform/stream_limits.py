"""Limits on open streams: how many server-streaming and bidirectional calls one caller, and
one process in all, may hold open at once (the kernel interceptor, grpc_kit.py; the gateway
counts its own HTTP clients with :class:`StreamCounter` too).

A stream holds server resources for as long as its client keeps it open (a WatchMatch wakes on
every action of its match and reads records), so without a limit one client, buggy or hostile,
could open thousands and starve the service.

Who the caller is (:func:`caller_of`):

- a seat token: its match and seat; a player token: its player id;
- an organiser or service token: trusted (the bot driver, the tournament service and rules
  replicas forwarding calls hold many streams legitimately), no per-caller limit;
- no token: the peer's host (``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``), with its own, larger
  limit, since a gateway or a NAT carries many people;
- no token, from a peer trusted as a gateway (``trusted_gateways``, NEON_TRUSTED_GATEWAYS)
  that names its client in :data:`CLIENT_METADATA`: that gateway's host and that client, with
  the per-client limit. The gateway counts its HTTP clients by address and says which one
  a call is for; counted by the gateway's host alone, a few clients holding their share at
  the gateway used up the host's allowance and every other spectator was refused. From any
  other peer the metadata is ignored (anyone can write it): the peer's host counts.

Every stream, trusted or not, counts toward the process's total. A limit of 0 is no limit.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # tokens imports grpc: settings, and so the CLI, import this module
    from services.platform.tokens import Claims

TRUSTED_ROLES = ("organiser", "service")
"""Roles not limited per caller (they count toward the total)."""

DEFAULT_PER_CALLER = 64
DEFAULT_ANONYMOUS_PER_PEER = 1024
DEFAULT_ANONYMOUS_PER_CLIENT = 64
"""As the gateway's own NEON_GATEWAY_MAX_STREAMS_PER_CLIENT."""
DEFAULT_TOTAL = 20_000
DEFAULT_CALLS_PER_SECOND = 200
"""NEON_MAX_CALLS_PER_SECOND's default (call_limits.py): per seat or player token, and per
client of a trusted gateway, with bursts of twice that. A person makes a few calls a second;
the repo's busiest client, ``neon play`` with bots only (playing.play_table: a GetView per
step on one seat), measured 220-270 calls a second on its busiest seat for a few seconds
(Neon, Neon Knights 2086; 2 cores), 500 in two seconds: the burst takes that, and a faster
client is slowed to the rate (playing.py waits the ``retry-after-ms``), not failed
(docs/ACCESS.md "Call rate limits")."""
DEFAULT_ANONYMOUS_CALLS_PER_SECOND = 1000
"""NEON_MAX_ANONYMOUS_CALLS_PER_SECOND's default: per host calling without a token."""

CLIENT_METADATA = "x-neon-client"
"""The gRPC metadata a gateway names its HTTP client in (the address it counts the client
by), taken only from a peer in ``StreamLimits.trusted_gateways``."""
CLIENT_VALUE = re.compile(r"^[\x21-\x7e]{1,128}\Z")
"""A client name that is taken: 1-128 printable ASCII characters, no spaces (another, even
from a trusted gateway, is ignored: the gateway's host counts)."""

LOOPBACK_GATEWAYS = ("127.0.0.0/8", "::1")
"""The gateways the services of ``neon up`` (one process, cli/backend.py, or one per service,
cli/processes.py) trust when NEON_TRUSTED_GATEWAYS is not set: its gateway runs beside them and
calls them over loopback, so its spectators are counted per client address there, as the
gateway counts them."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(raw: str, name: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (CIDR) of the setting ``name``, checked; an
    item that is neither is a ValueError naming the setting."""
    out = []
    for item in (i.strip() for i in raw.split(",")):
        if not item:
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{name} {item!r}: not an address or network (10.0.0.0/8, "
                             "192.168.1.7, fd00::/8)") from None
        out.append(item)
    return tuple(out)


def networks(items: Iterable[str]) -> tuple[Network, ...]:
    """The networks of ``items`` (addresses or CIDR), parsed once per distinct setting: the
    gateway reads its trusted proxies' at every request."""
    return _networks(tuple(items))


@functools.lru_cache(maxsize=64)
def _networks(items: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(n, strict=False) for n in items)


def address_in(address: str, nets: Sequence[Network]) -> bool:
    """Whether ``address`` (an IP address; anything else is in none) is in one of ``nets``;
    an IPv4 address written IPv4-mapped (``::ffff:10.0.0.5``: a dual-stack socket's peer) is
    that IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return any(ip in n or (mapped is not None and mapped in n) for n in nets)


@dataclass(frozen=True)
class StreamLimits:
    per_caller: int = DEFAULT_PER_CALLER
    """NEON_MAX_STREAMS_PER_CALLER: open streams of one seat or player token."""
    anonymous_per_peer: int = DEFAULT_ANONYMOUS_PER_PEER
    """NEON_MAX_ANONYMOUS_STREAMS_PER_PEER: open streams without a token from one host."""
    total: int = DEFAULT_TOTAL
    """NEON_MAX_STREAMS: open streams of the whole process."""
    anonymous_per_client: int = DEFAULT_ANONYMOUS_PER_CLIENT
    """NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT: open streams without a token of one client of
    one trusted gateway (as the gateway names it)."""
    trusted_gateways: tuple[str, ...] = ()
    """NEON_TRUSTED_GATEWAYS: addresses or networks whose peers' :data:`CLIENT_METADATA` is
    taken (empty: nobody's)."""
    calls_per_second: int = DEFAULT_CALLS_PER_SECOND
    """NEON_MAX_CALLS_PER_SECOND: calls a second of one seat or player token, or of one client
    of a trusted gateway (call_limits.py), with bursts of twice that."""
    anonymous_calls_per_second: int = DEFAULT_ANONYMOUS_CALLS_PER_SECOND
    """NEON_MAX_ANONYMOUS_CALLS_PER_SECOND: calls a second without a token from one host."""

    def __post_init__(self) -> None:
        for name in ("per_caller", "anonymous_per_peer", "total", "anonymous_per_client",
                     "calls_per_second", "anonymous_calls_per_second"):
            if getattr(self, name) < 0:
                kind = "call rate" if name.endswith("calls_per_second") else "stream limit"
                raise ValueError(f"{kind} {name} must be 0 (no limit) or more")
        networks(self.trusted_gateways)  # a ValueError now, not at the first stream


UNLIMITED = StreamLimits(0, 0, 0, 0, calls_per_second=0, anonymous_calls_per_second=0)


@dataclass(frozen=True)
class Caller:
    """Whom a stream is counted against: ``key`` never leaves the process (it is not logged:
    it may hold a player id), ``kind`` says which limit applies."""

    kind: str
    """"token" (seat or player), "anonymous" (by peer host), "client" (a trusted gateway's
    client, by the gateway's host and the client the gateway named) or "trusted"."""
    key: tuple[str, ...]


def peer_host(peer: str | None) -> str:
    """The host of a gRPC peer string, without the port: ``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``,
    ``ipv6:[::1]:5678`` (or percent-encoded, as some gRPC versions write it) -> ``::1``;
    ``unix:...`` and anything else unknown stays whole."""
    text = urllib.parse.unquote(peer or "")
    kind, _, rest = text.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        if rest.startswith("["):
            return rest[1:].partition("]")[0]
        return rest.rpartition(":")[0] or rest
    return text or "unknown"


def caller_of(claims: Claims | None, peer: str | None, client: str | None = None,
              gateways: Sequence[Network] = ()) -> Caller:
    """Whom a stream of ``peer`` is counted against; ``client``: the call's
    :data:`CLIENT_METADATA`, taken only without a token, from a peer in ``gateways``, and
    only when :data:`CLIENT_VALUE` takes it."""
    if claims is None:
        host = peer_host(peer)
        if (client is not None and gateways and CLIENT_VALUE.match(client)
                and (peer or "").startswith(("ipv4:", "ipv6:")) and address_in(host, gateways)):
            return Caller("client", ("peer", host, client))
        return Caller("anonymous", ("peer", host))
    if claims.role in TRUSTED_ROLES:
        return Caller("trusted", (claims.role, claims.player))
    if claims.role == "seat":
        return Caller("token", ("seat", claims.match, str(claims.seat)))
    return Caller("token", (claims.role, claims.player))


class Refused(Exception):
    """A stream over a limit: ``reason`` is for the client, ``limit`` names the limit hit."""

    def __init__(self, reason: str, limit: str) -> None:
        super().__init__(reason)
        self.reason, self.limit = reason, limit


class StreamCounter:
    """Open streams by key, with one limit per key and one in all (0: none). Not thread-safe:
    one event loop uses it. ``acquire`` and ``release`` are paired by the caller."""

    def __init__(self, total: int = 0, total_reason: str = "this server has too many open "
                 "streams ({limit}); try again later") -> None:
        self.total_limit = total
        self.total_reason = total_reason
        """Why a call past ``total`` is refused (``{limit}`` filled in)."""
        self.open: dict[tuple[str, ...], int] = {}
        self.total = 0

    def acquire(self, key: tuple[str, ...] | None, limit: int, reason: str,
                name: str = "per_key") -> None:
        """Count one more stream for ``key`` (None: only toward the total), or raise
        :class:`Refused` with ``reason`` (``{limit}`` filled in) when ``key`` is at ``limit``."""
        if self.total_limit and self.total >= self.total_limit:
            raise Refused(self.total_reason.format(limit=self.total_limit), "total")
        if key is not None and limit and self.open.get(key, 0) >= limit:
            raise Refused(reason.format(limit=limit), name)
        self.total += 1
        if key is not None:
            self.open[key] = self.open.get(key, 0) + 1

    def release(self, key: tuple[str, ...] | None) -> None:
        self.total = max(0, self.total - 1)
        if key is None:
            return
        left = self.open.get(key, 0) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)


class StreamLimiter:
    """The kernel interceptor's counter: :class:`StreamLimits` applied to :class:`Caller`."""

    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self.counter = StreamCounter(limits.total)
        self.gateways = networks(limits.trusted_gateways)

    def caller(self, claims: Claims | None, peer: str | None,
               client: str | None = None) -> Caller:
        """:func:`caller_of`, with this limiter's trusted gateways."""
        return caller_of(claims, peer, client, self.gateways)

    def acquire(self, caller: Caller) -> tuple[str, ...] | None:
        """Count the stream (the key to release it with), or raise :class:`Refused`."""
        if caller.kind == "trusted":
            self.counter.acquire(None, 0, "")
            return None
        if caller.kind == "anonymous":
            self.counter.acquire(
                caller.key, self.limits.anonymous_per_peer,
                "too many open streams without a token from this address ({limit}); "
                "close one first, or call with a token",
                "anonymous_per_peer",
            )
        elif caller.kind == "client":
            self.counter.acquire(
                caller.key, self.limits.anonymous_per_client,
                "too many open streams without a token from this client address ({limit}); "
                "close one first, or call with a token",
                "anonymous_per_client",
            )
        else:
            self.counter.acquire(
                caller.key, self.limits.per_caller,
                "too many open streams for this caller ({limit}); close one first",
                "per_caller",
            )
        return caller.key

    def release(self, key: tuple[str, ...] | None) -> None:
        self.counter.release(key)
