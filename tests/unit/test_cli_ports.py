"""NEON_PORT_OFFSET (`neon up --port-offset N`): one setting moves every default port, a
NEON_<SERVICE>_PORT set still wins, and every command finds the moved services; a busy port
is found by a bind of our own before a server binds it."""

from __future__ import annotations

import socket

import pytest

from services.cli.main import _settings
from services.cli.ports import (
    MAX_OFFSET,
    busy,
    busy_message,
    busy_ports,
    port_offset,
    with_port_offset,
)
from services.gateway.config import DEFAULT_PORT as GATEWAY_DEFAULT
from services.gateway.config import load_config
from services.platform.settings import DEFAULT_PORTS, load


def test_the_offset_moves_every_default_port_and_a_set_port_wins() -> None:
    env = with_port_offset({"NEON_PORT_OFFSET": "100", "NEON_DICE_PORT": "41000"})
    settings = load(env)
    for name, port in DEFAULT_PORTS.items():
        expected = 41000 if name == "dice" else port + 100
        assert settings.ports[name] == expected, name
        assert settings.address(name) == f"127.0.0.1:{expected}"
    assert load_config(env).port == GATEWAY_DEFAULT + 100
    assert with_port_offset({"NEON_GATEWAY_PORT": "9000", "NEON_PORT_OFFSET": "5"})[
        "NEON_GATEWAY_PORT"] == "9000"
    assert with_port_offset({}) == {} and load(with_port_offset({})).ports == DEFAULT_PORTS


def test_every_command_reads_the_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client command in a shell with NEON_PORT_OFFSET exported finds the moved backend,
    and the process's environment is left as it was."""
    monkeypatch.setenv("NEON_PORT_OFFSET", "200")
    monkeypatch.delenv("NEON_RULES_NEON_PORT", raising=False)
    monkeypatch.delenv("NEON_RULES_NEON_ADDR", raising=False)
    settings = _settings(configure_logs=False)
    assert settings.address("rules-neon") == f"127.0.0.1:{DEFAULT_PORTS['rules-neon'] + 200}"
    import os

    assert "NEON_RULES_NEON_PORT" not in os.environ


@pytest.mark.parametrize("raw", ["-1", "abc", "1.5", str(MAX_OFFSET + 1), "１"])
def test_a_bad_offset_says_what_to_use(raw: str) -> None:
    with pytest.raises(ValueError, match=f"NEON_PORT_OFFSET '{raw}': use a whole number from 0 "
                                         f"to {MAX_OFFSET}"):
        port_offset({"NEON_PORT_OFFSET": raw})
    assert port_offset({"NEON_PORT_OFFSET": " "}) == 0
    assert max(DEFAULT_PORTS.values()) + MAX_OFFSET == 65535


def test_busy_finds_a_listening_port_and_only_that() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        assert busy("127.0.0.1", port)
        assert busy_ports("127.0.0.1", {"dice": port, "scoring": 0}) == {"dice": port}
    assert not busy("127.0.0.1", port)  # released
    assert not busy("127.0.0.1", 0)  # any free port
    assert not busy("203.0.113.9", 50051)  # not this machine's address: the server says


def test_the_busy_line_names_the_port_and_how_to_move_them() -> None:
    one = busy_message("127.0.0.1", {"dice": 50051})
    assert one == ("port busy: dice cannot listen on 127.0.0.1:50051 (another `neon up`?); "
                   "move every port with NEON_PORT_OFFSET=100 (or `neon up --port-offset "
                   "100`), or set NEON_DICE_PORT")
    many = busy_message("127.0.0.1", {"dice": 50151, "gateway": 8180, "scoring": 50153}, 100)
    assert many == ("port busy: dice cannot listen on 127.0.0.1:50151, nor 2 other services "
                    "on theirs (another `neon up`?); move every port with NEON_PORT_OFFSET="
                    "200 (or `neon up --port-offset 200`), or set NEON_<SERVICE>_PORT one by "
                    "one")
    assert busy_message("127.0.0.1", {"gateway": 8080}, command="neon serve") == (
        "port busy: gateway cannot listen on 127.0.0.1:8080 (another `neon up`?); set "
        "NEON_GATEWAY_PORT to move it")


def test_every_command_finds_the_moved_bundled_nats_unless_nats_url_is_set() -> None:
    """`neon up --port-offset 100` bundles its NATS at 4322: `neon serve` (and every other
    command) reads the same offset and joins it there, not a NATS on 4222; a NATS_URL wins."""
    moved = _settings(configure_logs=False, environ={"NEON_PORT_OFFSET": "100"})
    assert moved.nats_url == "nats://127.0.0.1:4322" and not moved.nats_configured
    plain = _settings(configure_logs=False, environ={})
    assert plain.nats_url.endswith(":4222")
    given = _settings(configure_logs=False, environ={"NEON_PORT_OFFSET": "100",
                                                    "NATS_URL": "nats://10.0.0.5:4222"})
    assert given.nats_url == "nats://10.0.0.5:4222"
