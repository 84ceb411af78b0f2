"""The gateway's settings (environment variables), beside the platform's Settings."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

from services.platform.settings import limit_from_env, switch
from services.platform.stream_limits import address_in, networks, parse_networks

DEFAULT_PORT = 8080


@dataclass(frozen=True)
class GatewayConfig:
    port: int = DEFAULT_PORT
    """NEON_GATEWAY_PORT (0: any free port)."""
    cors_origins: tuple[str, ...] = ()
    """NEON_GATEWAY_CORS_ORIGINS: comma-separated origins allowed to call from a browser, or
    ``*``; empty (the default) sends no CORS headers, so only same-origin pages may call."""
    unary_timeout: float = 30.0
    """Seconds a unary call may take when the client sends no ``connect-timeout-ms``."""
    max_message_bytes: int = 4 * 1024 * 1024
    replay_from_service: bool = True
    """NEON_GATEWAY_REPLAYS=0 turns off replays of finished matches fetched from the rules
    services with the gateway's own service token (uploaded exports still work)."""
    max_streams_per_client: int = 64
    """NEON_GATEWAY_MAX_STREAMS_PER_CLIENT: server streams (WatchMatch, WatchTicket, ...) one
    HTTP client address may hold open through the gateway (0: no limit). The gateway names
    that address to the services (``x-neon-client``); a service that trusts the gateway
    (NEON_TRUSTED_GATEWAYS) counts a tokenless stream against it too
    (NEON_MAX_ANONYMOUS_STREAMS_PER_CLIENT), else against the gateway's host, all of its
    clients together (NEON_MAX_ANONYMOUS_STREAMS_PER_PEER)."""
    max_calls_per_client: int = 64
    """NEON_GATEWAY_MAX_CALLS_PER_CLIENT: unary calls one HTTP client address (as for
    streams: ``trusted_proxies``) may have waiting for their answers at once, each counted
    from before its body is read (0: no limit); past it ``resource_exhausted`` (429). A
    client opening connection after connection held a handler and an upstream call each,
    as many as it liked (the rate limit, off by default, bounds only how fast they come)."""
    replay_cache_bytes: int = 64 * 1024 * 1024
    """NEON_GATEWAY_REPLAY_CACHE_BYTES: bytes of replay answers (``POST
    /api/games/<game>/matches/<id>/replay``) the gateway keeps in memory, least recently used
    first out (0: none kept). Only the answer of a sealed match whose export verified is kept:
    its export can no longer change, so neither can the answer; another request for it is
    answered from memory without asking the rules service."""
    max_replays_per_client: int = 4
    """NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT: replays from the services one HTTP client address
    (as for streams: ``trusted_proxies``) may wait for at once (0: no limit); past it
    ``resource_exhausted``. An answer kept in memory is sent at once and not counted."""
    trusted_proxies: tuple[str, ...] = ()
    """NEON_GATEWAY_TRUSTED_PROXIES: comma-separated addresses or networks (CIDR) of reverse
    proxies in front of the gateway (an Ingress controller). Only for a connection from one of
    them is ``X-Forwarded-For`` read, to find the client's address (the last hop that is not a
    trusted proxy); empty (the default): the connection's address, the header is ignored."""

    body_timeout: float = 60.0
    """NEON_GATEWAY_BODY_TIMEOUT: seconds a request's body may take to arrive, from the end
    of its headers; past it the request is answered 408 (``deadline_exceeded``) and its
    connection closed. A client trickling a body (slowloris) held a connection and a handler
    for as long as it liked."""
    idle_timeout: float = 75.0
    """NEON_GATEWAY_IDLE_TIMEOUT: seconds a connection may wait for its next request's headers
    to be complete (a new connection's first request included); then it is closed. aiohttp's
    own default is 3630 s, so a client trickling headers held a connection for an hour."""

    calls_per_second: int = 0
    """NEON_GATEWAY_CALLS_PER_SECOND: calls (unary, GET, stream opens, replays and uploads)
    one client address (found as for streams: ``trusted_proxies``) may make each second on
    average, a token bucket refilled at this rate; past it ``resource_exhausted`` (HTTP 429,
    a stream's end for a stream) with ``Retry-After``. 0 (the default): no limit. Behind a
    reverse proxy that is not in ``trusted_proxies`` every web user is the proxy's address
    and shares one bucket: set the proxies first."""
    call_burst: int = 0
    """NEON_GATEWAY_CALL_BURST: calls one client address may make at once before the rate
    applies (the bucket's size); 0 (the default): twice ``calls_per_second``."""
    get_max_age: int = 0
    """NEON_GATEWAY_GET_MAX_AGE: seconds a shared cache (a CDN, a proxy) may keep the answer
    of a Connect GET made without a token (``Cache-Control: public, max-age=N``); 0 (the
    default): ``no-cache``. An answer to a call with a token is ``private, no-store``, an
    error ``no-store``, whatever this says."""
    reject_unknown_fields: bool = False
    """NEON_GATEWAY_REJECT_UNKNOWN_FIELDS=1: a JSON request naming a field (or an enum value)
    this build does not know is ``invalid_argument``. By default such a field is ignored, as
    in binary protobuf and as Connect servers do: a client built from newer protos still
    talks to an older deployment (every new request field defaults to the old behaviour)."""

    @property
    def burst(self) -> int:
        """The token bucket's size."""
        return self.call_burst or 2 * self.calls_per_second

    def allows(self, origin: str) -> bool:
        return bool(origin) and ("*" in self.cors_origins or origin in self.cors_origins)


def load_config(environ: dict[str, str] | None = None) -> GatewayConfig:
    e = os.environ if environ is None else environ
    origins = tuple(
        o.strip() for o in e.get("NEON_GATEWAY_CORS_ORIGINS", "").split(",") if o.strip()
    )
    return GatewayConfig(
        port=int(e.get("NEON_GATEWAY_PORT") or DEFAULT_PORT),
        cors_origins=origins,
        unary_timeout=float(e.get("NEON_GATEWAY_TIMEOUT") or 30.0),
        replay_from_service=e.get("NEON_GATEWAY_REPLAYS", "1").strip().lower()
        not in ("0", "false", "no", "off"),
        max_streams_per_client=limit_from_env(e, "NEON_GATEWAY_MAX_STREAMS_PER_CLIENT", 64),
        max_calls_per_client=limit_from_env(e, "NEON_GATEWAY_MAX_CALLS_PER_CLIENT", 64),
        replay_cache_bytes=limit_from_env(
            e,
            "NEON_GATEWAY_REPLAY_CACHE_BYTES",
            GatewayConfig.replay_cache_bytes,
            "a whole number of bytes, 0 to keep none",
        ),
        max_replays_per_client=limit_from_env(
            e, "NEON_GATEWAY_MAX_REPLAYS_PER_CLIENT", GatewayConfig.max_replays_per_client
        ),
        trusted_proxies=parse_networks(e.get("NEON_GATEWAY_TRUSTED_PROXIES", ""),
                                       "NEON_GATEWAY_TRUSTED_PROXIES"),
        body_timeout=_seconds(e, "NEON_GATEWAY_BODY_TIMEOUT", GatewayConfig.body_timeout),
        idle_timeout=_seconds(e, "NEON_GATEWAY_IDLE_TIMEOUT", GatewayConfig.idle_timeout),
        calls_per_second=limit_from_env(e, "NEON_GATEWAY_CALLS_PER_SECOND", 0),
        call_burst=limit_from_env(
            e, "NEON_GATEWAY_CALL_BURST", 0, "a whole number of calls, 0 for twice the rate"
        ),
        get_max_age=limit_from_env(
            e, "NEON_GATEWAY_GET_MAX_AGE", 0, "a whole number of seconds, 0 for no-cache"
        ),
        reject_unknown_fields=switch(e, "NEON_GATEWAY_REJECT_UNKNOWN_FIELDS"),
    )


def _seconds(e: dict[str, str] | os._Environ[str], name: str, default: float) -> float:
    raw = (e.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} {raw!r}: a number of seconds above 0")
    return value


def client_address(remote: str | None, forwarded_for: str | list[str] | None,
                   trusted_proxies: tuple[str, ...]) -> str:
    """The address a client's streams are counted by: the connection's, unless it comes from
    a trusted proxy; then the last ``X-Forwarded-For`` hop that is not a trusted proxy.
    ``forwarded_for``: the header's value, or its lines in order (one list, RFC 9110: a
    proxy that adds a line of its own rather than appending to the client's line puts the
    client's hop last)."""
    if isinstance(forwarded_for, list):
        forwarded_for = ",".join(forwarded_for)
    # address_in: an IPv4 address written IPv4-mapped (a dual-stack socket's peer, a hop a
    # dual-stack proxy wrote) is that IPv4 address, in an IPv4 network
    nets = networks(trusted_proxies)
    address = remote or "unknown"
    if not nets or not address_in(address, nets):
        return address
    hops = [_without_port(h.strip()) for h in (forwarded_for or "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not address_in(hop, nets):
            return hop
        address = hop
    return address


def _without_port(hop: str) -> str:
    """A forwarded hop's address without the port some proxies write with it (Azure's
    Application Gateway: ``198.51.100.1:50213``, ``[2001:db8::1]:443``); taken with it, each
    new connection of one client (a new source port) was a new client. Anything else (an
    address, an obfuscated name) as it is."""
    if hop.startswith("["):
        inside, bracket, rest = hop[1:].partition("]")
        if bracket and (not rest or (rest[0] == ":" and rest[1:].isdigit())):
            try:
                return str(ipaddress.IPv6Address(inside))
            except ValueError:
                return hop
        return hop
    host, colon, port = hop.rpartition(":")
    if colon and port.isdigit() and host.count(":") == 0:
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            return hop
    return hop
