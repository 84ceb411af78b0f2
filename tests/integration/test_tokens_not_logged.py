"""No log line, at any level, holds a token or a piece of one that would let a reader act:
the services and the gateway logging at DEBUG while tokens of every role are used, refused
(expired, bad signature, another match's seat, a role the call does not take) and minted,
over real gRPC and real HTTP."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import aiohttp
import grpc

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform import logs
from services.platform.grpc_kit import call_metadata, channel
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.gateway import backend_and_gateway

RULES = "/games/toy/neon.rules.v1.RulesService"


def _secrets_of(token: str) -> list[str]:
    """The token and the parts of it that are secret (its signature) or would let a reader
    rebuild it (its signed body)."""
    parts = token.split(".")
    return [token, *[p for p in parts[1:] if len(p) >= 16]]


async def _post(url: str, body: Any, token: str | None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with aiohttp.ClientSession() as http, \
            http.post(url, data=json.dumps(body).encode(), headers=headers) as r:
        return r.status, await r.read()


async def test_no_log_line_holds_a_token(tmp_path: Path, nats_url: str) -> None:
    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    used: list[str] = []
    try:
        settings = dataclasses.replace(make_settings(tmp_path, nats_url), log_level="debug")
        async with backend_and_gateway(settings, games=[], engines={"toy": toy.ENGINE},
                                       matchmaking=True) as (backend, gateway):
            issue = backend.issuer.issue
            organiser = backend.organiser_token()
            expired = issue("seat", "lm", seat=0, ttl=-10, game="toy")
            forged = issue("organiser", "*", player="o", ttl=600)[:-4] + "AAAA"
            other_seat = issue("seat", "lm-other", seat=0, ttl=600, game="toy")
            player = issue("player", "*", player="pia", ttl=600)
            used += [organiser, expired, forged, other_seat, player]

            ch = channel(backend.address("rules-toy"))
            rules = rules_pb2_grpc.RulesServiceStub(ch)
            created = await rules.CreateMatch(
                rules_pb2.CreateMatchRequest(match_id="lm", mode="race", seats=2),
                metadata=call_metadata(organiser), timeout=10)
            seats = [s.token for s in created.seat_tokens]
            used += seats
            await rules.StartMatch(rules_pb2.StartMatchRequest(match_id="lm"),
                                   metadata=call_metadata(organiser), timeout=10)
            for token in (seats[0], seats[1], expired, forged, other_seat, player, organiser):
                for call in (rules.ListLegalActions(rules_pb2.ListLegalActionsRequest(
                                 match_id="lm"), metadata=call_metadata(token), timeout=10),
                             rules.SubmitAction(rules_pb2.SubmitActionRequest(
                                 match_id="lm", command_id="c", action_json="{\"bad\": 1}"),
                                 metadata=call_metadata(token), timeout=10)):
                    try:
                        await call
                    except grpc.aio.AioRpcError:
                        pass
            await ch.close()

            mch = channel(backend.address("matchmaking"))
            minted = await mm_grpc.MatchmakingServiceStub(mch).MintPlayerToken(
                mm.MintPlayerTokenRequest(player_id="ann", ttl_seconds=600),
                metadata=call_metadata(organiser), timeout=10)
            used.append(minted.token)
            await mch.close()

            statuses = set()
            for token in (seats[0], expired, forged, other_seat, player, minted.token):
                for method, body in (("GetView", {"matchId": "lm"}),
                                     ("ListLegalActions", {"matchId": "lm"}),
                                     ("SubmitAction", {"matchId": "lm", "commandId": "h",
                                                       "actionJson": "{}"})):
                    status, _ = await _post(gateway.url + RULES + "/" + method, body, token)
                    statuses.add(status)
            assert {200, 401, 403} <= statuses, statuses
    finally:
        logs.configure("info", "json")
    text = lines.getvalue()
    assert '"level": "debug"' in text or '"level": "info"' in text  # the lines were captured
    assert backend.keys.token_secret.decode() not in text
    leaked = [s for token in used for s in _secrets_of(token) if s in text]
    assert leaked == [], [line for line in text.splitlines() if any(s in line for s in leaked)][:3]
