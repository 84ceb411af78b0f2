"""free_port never hands one process the same port twice.

A supervisor or a benchmark picks every service's port before any service binds; the kernel,
asked for port 0 again and again, gives back a port it gave before (about one call in ten, on
a 2-core CI machine), and then two services were told the same port: the one that bound it
answered health checks and calls meant for the other (CI saw the rules service answer the
dice service's calls with UNIMPLEMENTED)."""

from __future__ import annotations

import socket

from services.platform.natsrv import free_port


def test_many_ports_picked_before_any_is_bound_are_all_different() -> None:
    ports = [free_port() for _ in range(3000)]
    assert len(set(ports)) == len(ports)


def test_a_picked_port_is_free_to_bind() -> None:
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
