"""Every method of every service, over a real socket, with garbage bytes, an empty request and
a request of unknown ids, under no token, a bad token, a player's and an organiser's: a clear
status every time (never UNKNOWN or INTERNAL, never a hang), garbage bytes are
INVALID_ARGUMENT saying "malformed", and a bad token is UNAUTHENTICATED wherever the request
itself parses."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import start_backend
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.raw_calls import raw_call

pytestmark = pytest.mark.timeout(180)

SERVICES = [(rules_pb2, "rules-toy"), (dice_pb2, "dice"), (tournament_pb2, "tournament"),
            (matchmaking_pb2, "matchmaking"), (scoring_pb2, "scoring")]
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
    settings = make_settings(tmp_path, nats_url)
    settings = dataclasses.replace(
        settings, ports={**settings.ports, "tournament": 0, "matchmaking": 0, "scoring": 0})
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE},
                            scoring=True, matchmaking=True, tournament=True)
    tokens = {"no token": None, "bad token": "not.a.token",
              "player": b.issuer.issue("player", "*", player="p", ttl=600),
              "organiser": b.issuer.issue("organiser", "*", player="o", ttl=600)}
    methods = 0
    wrong: list[str] = []
    try:
        for module, name in SERVICES:
            for service in module.DESCRIPTOR.services_by_name.values():
                async with grpc.aio.insecure_channel(b.services[name].address) as channel:
                    for method in service.methods:
                        methods += 1
                        path = f"/{service.full_name}/{method.name}"
                        for what, payload in PAYLOADS.items():
                            for who, token in tokens.items():
                                code, details = await raw_call(channel, method, path, payload, token)
                                if not _clear(method, what, who, code, details):
                                    wrong.append(f"{path} {what} {who}: {code} {details!r}")
    finally:
        await b.stop(1)
    assert wrong == []
    assert methods >= 50  # every service's every method was reached (50 today)
