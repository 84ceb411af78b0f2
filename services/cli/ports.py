"""The ports ``neon up`` and ``neon serve`` listen on: ``NEON_PORT_OFFSET`` moves them all,
and a port already taken is found before a server binds it.

``NEON_PORT_OFFSET=N`` (``neon up --port-offset N``) adds N to every default port: the gRPC
services' (50051...), the gateway's (8080), ``neon up``'s metrics (9464) and its bundled
nats-server's (4222). A ``NEON_<SERVICE>_PORT`` set as well still wins for its service. Every
command reads it, so one exported variable lets the client commands find the moved backend.

A busy port is found with a bind of our own, before gRPC's: gRPC's C core prints its own
"Failed to add port" line on stderr when its bind fails, beside ours.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Mapping

from services.platform.settings import DEFAULT_METRICS_PORT, DEFAULT_PORTS, env_key

OFFSET = "NEON_PORT_OFFSET"
GATEWAY_PORT = 8080
"""The gateway's default port (services.gateway.config.DEFAULT_PORT, not imported: the
client commands do not load the gateway)."""
NATS_PORT = 4222
MAX_OFFSET = 65535 - max(DEFAULT_PORTS.values())


def port_offset(environ: Mapping[str, str]) -> int:
    """``NEON_PORT_OFFSET`` as a number (0 when unset); ValueError, saying what to use, for
    anything but a whole number that keeps every port at most 65535."""
    raw = (environ.get(OFFSET) or "").strip()
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_OFFSET:
        raise ValueError(f"{OFFSET} {raw!r}: use a whole number from 0 to {MAX_OFFSET} "
                         "(added to every default port)")
    return int(raw)


def default_ports(offset: int = 0) -> dict[str, int]:
    """Each service's default port moved by ``offset``, by its NEON_<SERVICE>_PORT name."""
    return {f"NEON_{env_key(name)}_PORT": port + offset
            for name, port in {**DEFAULT_PORTS, "gateway": GATEWAY_PORT}.items()}


def with_port_offset(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` in which NEON_PORT_OFFSET is spelled out: each default port's
    NEON_<SERVICE>_PORT that is not set is set to the default plus the offset."""
    offset = port_offset(environ)
    out = dict(environ)
    if offset:
        for key, port in default_ports(offset).items():
            if not (out.get(key) or "").strip():
                out[key] = str(port)
    return out


def metrics_default(offset: int) -> int:
    return DEFAULT_METRICS_PORT + offset


def nats_default(offset: int) -> int:
    return NATS_PORT + offset


def busy(host: str, port: int) -> bool:
    """Whether another socket holds ``host:port`` (a bind of ours fails with "address in
    use"). Port 0 (any free one) is never busy; a host that is not this machine's is left to
    the server to report."""
    if not port:
        return False
    try:
        found = socket.getaddrinfo(host.strip("[]") or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError:
        return False
    for family, kind, proto, _, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
            try:
                probe.bind(address)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    return True
    return False


def busy_ports(host: str, ports: Mapping[str, int]) -> dict[str, int]:
    """The services of ``ports`` (name: port) whose port on ``host`` is taken."""
    return {name: port for name, port in ports.items() if busy(host, port)}


def busy_message(host: str, taken: Mapping[str, int], offset: int = 0,
                 command: str = "neon up") -> str:
    """One line naming a busy port (and how many others are) and how to move them."""
    (name, port), *others = taken.items()
    more = f", nor {len(others)} other service{'s' * (len(others) > 1)} on theirs" if others else ""
    where = f"port busy: {name} cannot listen on {host}:{port}{more} (another `neon up`?)"
    one = f"NEON_{env_key(name)}_PORT" if not others else "NEON_<SERVICE>_PORT one by one"
    if command != "neon up":  # one service: its own variable
        return f"{where}; set {one} to move it"
    step = offset + 100
    return (f"{where}; move every port with NEON_PORT_OFFSET={step} (or `neon up --port-offset "
            f"{step}`), or set {one}")
