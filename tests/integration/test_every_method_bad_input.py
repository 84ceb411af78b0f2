"""Every method of every service, over a real socket, with garbage bytes, an empty request and
a request of unknown ids, under no token, a bad token, a player's and an organiser's: a clear
status every time (never UNKNOWN or INTERNAL, never a hang), garbage bytes are
INVALID_ARGUMENT saying "malformed", and a bad token is UNAUTHENTICATED wherever the request
itself parses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.raw_calls import every_method, every_service, raw_call

pytestmark = pytest.mark.timeout(180)

GARBAGE = b"\xff\xff\xff\x07garbage"
PAYLOADS = {"garbage": GARBAGE, "empty": b"",
            "unknown ids": b"\x0a\x03abc\x10\x05"}  # field 1 "abc", field 2 the varint 5


def _clear(method: Any, what: str, who: str, code: str, details: str) -> bool:
    if code in ("UNKNOWN", "INTERNAL", "DEADLINE_EXCEEDED"):
        return False
    if what == "garbage":
        # a bidi stream (Play, seats only) checks its token, and its role, before it reads a
        # message
        refused = {"bad token": "UNAUTHENTICATED", "no token": "UNAUTHENTICATED",
                   "player": "PERMISSION_DENIED", "organiser": "PERMISSION_DENIED"}
        return (code == "INVALID_ARGUMENT" and "malformed" in details) or (
            method.client_streaming and refused.get(who) == code)
    return who != "bad token" or code == "UNAUTHENTICATED"


async def test_every_method_answers_bad_input_with_a_clear_status(tmp_path: Path,
                                                                  nats_url: str) -> None:
    b = await every_service(tmp_path, nats_url)
    tokens = {"no token": None, "bad token": "not.a.token",
              "player": b.issuer.issue("player", "*", player="p", ttl=600),
              "organiser": b.issuer.issue("organiser", "*", player="o", ttl=600)}
    methods = 0
    wrong: list[str] = []
    try:
        async for channel, method, path in every_method(b):
            methods += 1
            for what, payload in PAYLOADS.items():
                for who, token in tokens.items():
                    code, details = await raw_call(channel, method, path, payload, token)
                    if not _clear(method, what, who, code, details):
                        wrong.append(f"{path} {what} {who}: {code} {details!r}")
    finally:
        await b.stop(1)
    assert wrong == []
    assert methods >= 50  # every service's every method was reached (50 today)
