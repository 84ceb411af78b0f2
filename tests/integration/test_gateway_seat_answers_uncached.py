"""Whatever the gateway answers to a call made with a token (a seat's view and legal
actions, a refusal) says ``Cache-Control: private, no-store``, POST included, and its
WatchMatch stream ``private`` (no-store kept the browser's DevTools protocol, which the
browser tests' leak scan reads, from giving a stream's body): a cache between the browser and the gateway (a proxy set to keep POST answers, a
CDN rule) must never keep a seat's hand for the next client. Answers without a token are as
before. Over a real gateway in front of a real rules service."""

from __future__ import annotations

import json
import struct
from typing import Any

import aiohttp
import grpc

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from tests.support.gateway import gateway_for

JSON = {"Content-Type": "application/json"}


async def seat_tokens(backend: Backend) -> tuple[str, dict[int, str]]:
    organiser = [("authorization", f"Bearer {backend.organiser_token()}")]
    async with grpc.aio.insecure_channel(backend.address("rules-neon-reign")) as channel:
        created = await rules_pb2_grpc.RulesServiceStub(channel).CreateMatch(
            rules_pb2.CreateMatchRequest(mode="single", seats=2, dev_seed="uncached"),
            metadata=organiser)
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def test_answers_to_a_seats_calls_are_never_kept_by_a_cache(backend: Backend) -> None:
    match_id, tokens = await seat_tokens(backend)
    async with gateway_for(backend) as running, aiohttp.ClientSession() as http:
        rules = f"{running.url}/games/neon-reign/neon.rules.v1.RulesService"
        body = json.dumps({"matchId": match_id})
        seat = {**JSON, "Authorization": f"Bearer {tokens[0]}"}
        answers: dict[str, Any] = {}
        for method in ("GetView", "ListLegalActions"):
            async with http.post(f"{rules}/{method}", data=body, headers=seat) as r:
                answers[method] = (r.status, r.headers.get("Cache-Control"), await r.json())
        status, cache, view = answers["GetView"]
        assert status == 200 and json.loads(view["viewJson"]), view  # the seat's own view
        assert cache == "private, no-store", cache
        assert answers["ListLegalActions"][:2] == (200, "private, no-store")
        # a refused token: still never kept
        forged = {**JSON, "Authorization": "Bearer v1.forged.token"}
        async with http.post(f"{rules}/GetView", data=body, headers=forged) as r:
            assert r.status == 401 and r.headers.get("Cache-Control") == "private, no-store"
        # the seat's stream of events
        message = json.dumps({"matchId": match_id}).encode()
        envelope = struct.pack(">BI", 0, len(message)) + message
        async with http.post(f"{rules}/WatchMatch", data=envelope, headers={
                "Content-Type": "application/connect+json",
                "Authorization": f"Bearer {tokens[0]}"},
                timeout=aiohttp.ClientTimeout(total=5)) as r:
            assert r.status == 200 and r.headers.get("Cache-Control") == "private"
        # the spectator's view, without a token: as before (no header on a POST)
        async with http.post(f"{rules}/GetView", data=body, headers=JSON) as r:
            assert r.status == 200 and r.headers.get("Cache-Control") is None
