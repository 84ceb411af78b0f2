"""The tournament service through the gateway with curl: JSON bodies, the same tokens and
status codes as over gRPC (reads for anyone, organiser and player calls with their bearer
token), ListTournaments without player ids, and WatchTournament as a Connect stream."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.tournament_commands import format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
from services.genproto.neon.tournament.v1 import tournament_pb2_grpc as tpb_grpc
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

pytestmark = pytest.mark.timeout(120)
TOURNAMENT = "/neon.tournament.v1.TournamentService"


@dataclasses.dataclass
class Served:
    backend: Backend
    url: str

    def token(self, role: str, player: str) -> str:
        return self.backend.issuer.issue(role, "*", player=player, ttl=600)


@pytest.fixture
async def served(tmp_path: Path, nats_url: str) -> AsyncIterator[Served]:
    if not shutil.which("curl"):
        if os.environ.get("CI"):
            pytest.fail("needs curl (apt-get install curl)")
        pytest.skip("needs curl")
    settings = make_settings(tmp_path, nats_url)
    async with backend_and_gateway(settings, games=["neon-reign"], tournament=True) as (
        backend,
        gateway,
    ):
        yield Served(backend, gateway.url)


async def curl(
    url: str, body: Any = None, token: str = "", *, stream: bool = False
) -> tuple[int, Any]:
    """``curl -X POST`` with a JSON body (a Connect envelope for a stream): the HTTP status
    and the decoded answer (a list of stream messages for a stream)."""
    data = json.dumps(body or {}).encode()
    args = ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "20", url]
    if stream:
        data = struct.pack(">BI", 0, len(data)) + data
        args += ["-H", "Content-Type: application/connect+json"]
    else:
        args += ["-H", "Content-Type: application/json"]
    if token:
        args += ["-H", f"Authorization: Bearer {token}"]
    args += ["--data-binary", "@-"]
    proc = await asyncio.create_subprocess_exec(
        *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate(data)
    payload, _, code = out.rpartition(b"\n")
    if not stream or int(code) != 200:
        return int(code), json.loads(payload)
    frames, rest = [], payload
    while rest:
        flags, length = struct.unpack_from(">BI", rest)
        frames.append((flags, json.loads(rest[5 : 5 + length])))
        rest = rest[5 + length :]
    return int(code), frames


async def test_tournament_calls_over_http_json_with_and_without_tokens(served: Served) -> None:
    call = served.url + TOURNAMENT
    org = served.token("organiser", "org")
    alice, bob = served.token("player", "alice"), served.token("player", "bob")
    spec = {
        "tournamentId": "web_1",
        "name": "Friday night",
        "game": "neon-reign",
        "mode": "single",
        "formatJson": format_json("swiss", 1),
    }

    # organiser calls: no token 401, a player's token 403, the organiser's 200
    status, err = await curl(call + "/CreateTournament", spec)
    assert (status, err["code"]) == (401, "unauthenticated"), err
    status, err = await curl(call + "/CreateTournament", spec, alice)
    assert (status, err["code"]) == (403, "permission_denied"), err
    status, created = await curl(call + "/CreateTournament", spec, org)
    assert status == 200 and created["tournament"]["status"] == "TOURNAMENT_STATUS_CREATED"
    status, err = await curl(call + "/CreateTournament", {**spec, "formatJson": "{"}, org)
    assert (status, err["code"]) == (400, "invalid_argument") and "format_json" in err["message"]
    status, _ = await curl(call + "/OpenRegistration", {"tournamentId": "web_1"}, org)
    assert status == 200

    # player calls: a player registers itself with its own token, never someone else
    status, err = await curl(call + "/Register", {"tournamentId": "web_1"})
    assert (status, err["code"]) == (401, "unauthenticated")
    status, err = await curl(
        call + "/Register", {"tournamentId": "web_1", "playerId": "bob"}, alice
    )
    assert (status, err["code"]) == (403, "permission_denied")
    for token in (alice, bob):
        status, registered = await curl(call + "/Register", {"tournamentId": "web_1"}, token)
        assert status == 200, registered
    assert [p["playerId"] for p in registered["tournament"]["players"]] == ["alice", "bob"]
    status, _ = await curl(call + "/StartTournament", {"tournamentId": "web_1"}, org)
    assert status == 200
    status, paired = await curl(call + "/NextRound", {"tournamentId": "web_1"}, org)
    assert status == 200 and sorted(paired["round"]["tables"][0]["seats"]) == ["alice", "bob"]
    status, err = await curl(call + "/MyNextMatch", {"tournamentId": "web_1"})
    assert (status, err["code"]) == (401, "unauthenticated")
    status, mine = await curl(call + "/MyNextMatch", {"tournamentId": "web_1"}, alice)
    assert (
        status == 200 and mine["assignment"]["matchId"] == paired["round"]["tables"][0]["matchId"]
    )
    assert mine["assignment"]["seatToken"], "the player's own seat token, to its own call only"
    # the rules service's internal address: the service sends it, the gateway blanks it (web
    # clients reach rules through the gateway's /games/<game>/...)
    internal = served.backend.endpoints()["rules-neon-reign"]
    async with grpc.aio.insecure_channel(served.backend.endpoints()["tournament"]) as channel:
        direct = await tpb_grpc.TournamentServiceStub(channel).MyNextMatch(
            tpb.MyNextMatchRequest(tournament_id="web_1"),
            metadata=[("authorization", f"Bearer {alice}")],
        )
    assert direct.assignment.rules_address == internal
    assert mine["assignment"]["rulesAddress"] == "", mine
    assert paired["round"]["tables"][0]["rulesAddress"] == ""

    # reads: anyone, no token; the list and the public reads carry no seat token
    status, got = await curl(call + "/GetTournament", {"tournamentId": "web_1"})
    assert status == 200 and got["tournament"]["roundsPaired"] == 1
    status, rnd = await curl(call + "/GetRound", {"tournamentId": "web_1", "round": 1})
    assert status == 200 and rnd["round"]["tables"] == paired["round"]["tables"]
    status, table = await curl(call + "/GetStandings", {"tournamentId": "web_1"})
    assert status == 200 and {r["playerId"] for r in table["rows"]} == {"alice", "bob"}
    assert [t["name"] for t in table["rows"][0]["tiebreaks"]] == [
        "buchholz",
        "median-buchholz",
        "sonneborn-berger",
        "wins",
    ]
    status, listed = await curl(call + "/ListTournaments", {})
    assert status == 200
    assert listed["tournaments"] == [
        {
            "tournamentId": "web_1",
            "name": "Friday night",
            "game": "neon-reign",
            "mode": "single",
            "format": "swiss",
            "status": "TOURNAMENT_STATUS_RUNNING",
            "players": 2,
            "roundsPaired": 1,
        }
    ]
    status, err = await curl(call + "/GetRound", {"tournamentId": "nope", "round": 1})
    assert (status, err["code"]) == (404, "not_found")
    status, err = await curl(call + "/ListTournaments", {"limit": -1})
    assert (status, err["code"]) == (400, "invalid_argument") and "limit" in err["message"]
    public = json.dumps([got, rnd, table, listed])
    assert mine["assignment"]["seatToken"] not in public
    assert internal not in json.dumps([public, paired, mine])

    # the stream: after the end, WatchTournament sends the tournament once and closes
    status, _ = await curl(
        call + "/ForceEnd", {"tournamentId": "web_1", "reason": "venue closed"}, org
    )
    assert status == 200
    status, frames = await curl(call + "/WatchTournament", {"tournamentId": "web_1"}, stream=True)
    assert status == 200
    assert [flags for flags, _ in frames] == [0, 2]
    (_, last), (_, end) = frames
    assert last["tournament"]["status"] == "TOURNAMENT_STATUS_FORCE_ENDED"
    assert last["round"]["number"] == 1 and "error" not in end
    status, frames = await curl(call + "/WatchTournament", {"tournamentId": "nope"}, stream=True)
    assert status == 200 and frames[-1][1]["error"]["code"] == "not_found"
    # a player's own stream takes the player's token
    status, frames = await curl(call + "/WatchMyMatches", {"tournamentId": "web_1"}, stream=True)
    assert status == 200 and frames[-1][1]["error"]["code"] == "unauthenticated"
    status, frames = await curl(
        call + "/WatchMyMatches", {"tournamentId": "web_1"}, alice, stream=True
    )
    assert status == 200 and "error" not in frames[-1][1]
    assert frames[0][1]["status"] == "TOURNAMENT_STATUS_FORCE_ENDED"
    assert internal not in json.dumps(frames)


def test_the_gateway_serves_every_tournament_call_from_the_protos() -> None:
    from services.gateway.methods import public_methods
    from services.genproto.neon.tournament.v1 import tournament_pb2

    methods = public_methods()
    names = tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"].methods_by_name
    for name, m in names.items():
        served = methods[f"{TOURNAMENT}/{name}"]
        assert served.service == "tournament" and served.server_streaming == m.server_streaming
    assert methods[f"{TOURNAMENT}/WatchTournament"].server_streaming


async def test_list_tournaments_newest_first_and_limited(served: Served) -> None:
    call = served.url + TOURNAMENT
    org = served.token("organiser", "org")
    for n in range(3):
        spec = {
            "tournamentId": f"list_{n}",
            "name": f"event {n}",
            "game": "neon-reign",
            "formatJson": format_json("single-elimination", 0),
        }
        status, _ = await curl(call + "/CreateTournament", spec, org)
        assert status == 200
    status, listed = await curl(call + "/ListTournaments", {"limit": 2})
    assert status == 200
    assert [t["tournamentId"] for t in listed["tournaments"]] == ["list_2", "list_1"]
    assert listed["tournaments"][0]["format"] == "single-elimination"
    assert listed["tournaments"][0]["players"] == 0
    status, listed = await curl(call + "/ListTournaments", {})
    assert [t["tournamentId"] for t in listed["tournaments"]] == ["list_2", "list_1", "list_0"]
