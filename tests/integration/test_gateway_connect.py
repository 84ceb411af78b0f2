"""The gateway against the real services: Connect unary calls and server streams, the same
tokens and status codes as gRPC, clear errors for bad input, CORS off by default."""

from __future__ import annotations

import json
import struct
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from services.cli.backend import Backend
from services.gateway import main as gateway_main
from services.gateway.config import GatewayConfig
from services.genproto.neon.rules.v1 import rules_pb2
from tests.support.gateway import gateway_for

RULES = "/games/neon-reign/neon.rules.v1.RulesService"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
async def gateway(backend: Backend) -> AsyncIterator[tuple[Backend, str]]:
    async with gateway_for(backend) as running:
        yield backend, running.url


async def post(
    url: str,
    body: Any = None,
    token: str = "",
    raw: bytes | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    sent = {"Content-Type": content_type, **(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else json.dumps(body or {}).encode()
    async with aiohttp.ClientSession() as http, http.post(url, data=data, headers=sent) as r:
        payload = await r.read()
        try:
            decoded: Any = json.loads(payload)
        except ValueError:
            decoded = payload
        return r.status, decoded, dict(r.headers)


async def create(url: str, backend: Backend) -> dict[str, Any]:
    status, created, _ = await post(
        url + RULES + "/CreateMatch",
        {"mode": "single", "seats": 2, "devSeed": "7"},
        backend.organiser_token(),
    )
    assert status == 200, created
    return created


async def test_unary_json_calls_reach_the_rules_service_with_the_callers_token(
    gateway: Any,
) -> None:
    backend, url = gateway
    status, info, headers = await post(url + RULES + "/GetGameInfo")
    assert status == 200 and info["gameId"] == "neon-reign"
    assert headers["Content-Type"].startswith("application/json")
    created = await create(url, backend)
    assert created["status"] == "MATCH_STATUS_RUNNING" and len(created["seatTokens"]) == 2
    assert created["seatTokens"][0]["seat"] == 0, "defaults are printed (seat 0)"
    match = created["matchId"]
    status, view, _ = await post(url + RULES + "/GetView", {"matchId": match})
    assert status == 200 and view["viewer"] == -1, "no token: the spectator view"
    seat = view["pending"][0]["seat"]
    token = created["seatTokens"][seat]["token"]
    status, seat_view, _ = await post(url + RULES + "/GetView", {"match_id": match}, token)
    assert status == 200 and seat_view["viewer"] == seat, "proto field names work too"
    status, legal, _ = await post(url + RULES + "/ListLegalActions", {"matchId": match}, token)
    assert status == 200 and legal["decisions"][0]["legalJson"]
    assert all(d["legalText"] == [] for d in legal["decisions"]), "no words unless asked"
    status, worded, _ = await post(
        url + RULES + "/ListLegalActions", {"matchId": match, "withText": True}, token
    )
    assert status == 200 and worded["version"] == legal["version"]
    for plain, said in zip(legal["decisions"], worded["decisions"], strict=True):
        assert said["legalJson"] == plain["legalJson"]
        assert len(said["legalText"]) == len(said["legalJson"]) and all(said["legalText"])
    status, err, _ = await post(
        url + RULES + "/ListLegalActions", {"matchId": match, "withText": "yes"}, token
    )
    assert (status, err["code"]) == (400, "invalid_argument") and "withText" in err["message"]
    action = next(d for d in legal["decisions"] if not d["standing"])["legalJson"][0]
    submit = {"matchId": match, "commandId": "c1", "actionJson": action}
    status, err, _ = await post(url + RULES + "/SubmitAction", {**submit, "withText": "yes"}, token)
    assert (status, err["code"]) == (400, "invalid_argument") and "withText" in err["message"]
    status, answer, _ = await post(url + RULES + "/SubmitAction", {**submit, "withText": True},
                                   token)
    assert status == 200 and int(answer["version"]) == int(view["version"]) + 1
    status, worded, _ = await post(
        url + RULES + "/ListLegalActions", {"matchId": match, "withText": True}, token
    )
    assert worded["version"] == answer["version"] and any(d["legalJson"] for d in worded["decisions"])
    assert answer["decisions"] == worded["decisions"], "SubmitAction's words, as listed"
    status, again, _ = await post(url + RULES + "/SubmitAction", submit, token)
    assert status == 200 and again["replayed"] is True and again["version"] == answer["version"]
    assert [d["legalJson"] for d in again["decisions"]] == \
        [d["legalJson"] for d in answer["decisions"]]
    assert all(d["legalText"] == [] for d in again["decisions"]), "no words unless asked"
    status, listed, _ = await post(url + RULES + "/ListMatches", {})
    assert status == 200 and match in [m["matchId"] for m in listed["matches"]]
    summary = next(m for m in listed["matches"] if m["matchId"] == match)
    assert set(summary) == {"matchId", "gameId", "mode", "seats", "status", "version",
                            "abandoned"}
    assert summary["abandoned"] is False
    # AbandonMatch: organiser-only over HTTP as over gRPC, a reason required
    abandon = url + RULES + "/AbandonMatch"
    status, err, _ = await post(abandon, {"matchId": match, "reason": "broken table"})
    assert (status, err["code"]) == (401, "unauthenticated")
    status, err, _ = await post(abandon, {"matchId": match, "reason": "broken table"}, token)
    assert (status, err["code"]) == (403, "permission_denied")
    status, err, _ = await post(abandon, {"matchId": match}, backend.organiser_token())
    assert (status, err["code"]) == (400, "invalid_argument") and "reason" in err["message"]
    status, ended, _ = await post(abandon, {"matchId": match, "reason": "broken table"},
                                  backend.organiser_token())
    assert status == 200 and ended["status"] == "MATCH_STATUS_ENDED"
    assert json.loads(ended["outcomeJson"])["reason"] == "broken table"
    status, listed, _ = await post(url + RULES + "/ListMatches", {})
    assert next(m for m in listed["matches"] if m["matchId"] == match)["abandoned"] is True


async def test_spectators_read_with_connect_get_and_a_seat_view_is_never_cacheable(
    gateway: Any,
) -> None:
    """Connect GET for the read-only calls (GetView, ListMatches, ...): the same answer as
    the POST; with a seat's token the seat's own view, marked private and no-store so no
    shared cache keeps a hand; a call with side effects is 405."""
    backend, url = gateway
    created = await create(url, backend)
    match = created["matchId"]
    query = {"connect": "v1", "encoding": "json", "message": json.dumps({"matchId": match})}
    _, posted, _ = await post(url + RULES + "/GetView", {"matchId": match})
    async with aiohttp.ClientSession() as http:
        async with http.get(url + RULES + "/GetView", params=query) as r:
            assert r.status == 200, await r.text()
            assert await r.json() == posted and posted["viewer"] == -1
            assert r.headers["Cache-Control"] == "no-cache"
        seat = posted["pending"][0]["seat"]
        token = created["seatTokens"][seat]["token"]
        async with http.get(
            url + RULES + "/GetView", params=query, headers={"Authorization": f"Bearer {token}"}
        ) as r:
            assert r.status == 200 and (await r.json())["viewer"] == seat
            assert r.headers["Cache-Control"] == "private, no-store"
        async with http.get(
            url + RULES + "/ListMatches", params={"encoding": "json", "message": "{}"}
        ) as r:
            assert match in [m["matchId"] for m in (await r.json())["matches"]]
        async with http.get(
            url + RULES + "/SubmitAction",
            params=query,
            headers={"Authorization": f"Bearer {token}"},
        ) as r:
            assert r.status == 405 and (await r.json())["code"] == "unimplemented"
        async with http.get(
            url + RULES + "/GetView", params={**query, "message": json.dumps({"matchId": "nope"})}
        ) as r:
            assert r.status == 404 and r.headers["Cache-Control"] == "no-store"


async def test_binary_protobuf_calls_work_too(gateway: Any) -> None:
    _, url = gateway
    status, body, headers = await post(
        url + RULES + "/GetGameInfo", raw=b"", content_type="application/proto"
    )
    assert status == 200 and headers["Content-Type"].startswith("application/proto")
    assert rules_pb2.GetGameInfoResponse.FromString(body).game_id == "neon-reign"


async def test_errors_carry_the_grpc_status_as_a_connect_code_and_the_reason(gateway: Any) -> None:
    backend, url = gateway
    created = await create(url, backend)
    match = created["matchId"]
    other = (await create(url, backend))["seatTokens"][0]["token"]
    submit = url + RULES + "/SubmitAction"
    body = {"matchId": match, "commandId": "x", "actionJson": "{}"}
    status, err, _ = await post(submit, body)
    assert (status, err["code"]) == (401, "unauthenticated") and "seat token" in err["message"]
    status, err, _ = await post(submit, body, other)
    assert (status, err["code"]) == (403, "permission_denied") and "another match" in err["message"]
    status, err, _ = await post(submit, body, "not-a-token")
    assert (status, err["code"]) == (401, "unauthenticated")
    token = created["seatTokens"][0]["token"]
    status, err, _ = await post(submit, {**body, "actionJson": '{"type": "no-such-action"}'}, token)
    assert status == 400 and err["code"] in ("invalid_argument", "failed_precondition"), err
    assert err["message"]
    status, err, _ = await post(url + RULES + "/GetView", {"matchId": "no-such-match"})
    assert (status, err["code"]) == (404, "not_found")


@pytest.mark.parametrize(
    ("path", "raw", "ctype", "status", "code"),
    [
        (RULES + "/GetView", b'{"matchId": ', "application/json", 400, "invalid_argument"),
        # unknown fields are ignored (test_gateway_protocol_edges), not a list for the message
        (RULES + "/GetView", b'["matchId"]', "application/json", 400, "invalid_argument"),
        (RULES + "/GetView", b'{"matchId": 5}', "application/json", 400, "invalid_argument"),
        (RULES + "/GetView", b"\xff\xfe\x00garbage", "application/json", 400, "invalid_argument"),
        (RULES + "/GetView", b"\xff\xff\xff\xff", "application/proto", 400, "invalid_argument"),
        (RULES + "/GetView", b"{}", "text/plain", 415, "invalid_argument"),
        (RULES + "/NoSuchMethod", b"{}", "application/json", 501, "unimplemented"),
        (RULES + "/Play", b"{}", "application/json", 501, "unimplemented"),
        (
            "/games/no-such-game/neon.rules.v1.RulesService/GetView",
            b"{}",
            "application/json",
            404,
            "not_found",
        ),
        ("/neon.rules.v1.RulesService/GetView", b"{}", "application/json", 404, "not_found"),
        ("/neon.dice.v1.DiceService/Draw", b"{}", "application/json", 501, "unimplemented"),
        # not a service of the API at all: no such path (README: "404 for an unknown path")
        ("/no.such.v1.Service/GetView", b"{}", "application/json", 404, "not_found"),
        ("/static/no-such-file.js", b"{}", "application/json", 404, "not_found"),
        (
            "/games/neon-reign/no.such.v1.Service/GetView",
            b"{}",
            "application/json",
            404,
            "not_found",
        ),
        (RULES + "/WatchMatch", b"{}", "application/connect+json", 400, "invalid_argument"),
        (
            RULES + "/WatchMatch",
            b"\x00\x00\x00\x00\x09{}",
            "application/connect+json",
            400,
            "invalid_argument",
        ),
    ],
)
async def test_bad_requests_get_a_clear_error_and_the_gateway_goes_on(
    gateway: Any, path: str, raw: bytes, ctype: str, status: int, code: str
) -> None:
    _, url = gateway
    got, err, headers = await post(url + path, raw=raw, content_type=ctype)
    if ctype == "application/connect+json":  # a stream: HTTP 200, the error in its end
        assert got == 200 and headers["Content-Type"] == ctype, err
        flags, end = envelopes(err)[-1]
        got, err = (status if flags == 2 else 200), end["error"]
    assert (got, err["code"]) == (status, code), err
    assert err["message"]
    got, info, _ = await post(url + RULES + "/GetGameInfo")
    assert got == 200 and info["gameId"] == "neon-reign"


async def test_an_unknown_method_is_named_and_only_play_is_said_to_be_grpc_only(
    gateway: Any,
) -> None:
    """A method the gateway does not serve is unimplemented, naming it; the remark that Play
    is a gRPC-only stream comes only for Play, not for a mistyped method, and a path that
    names no service of the API is not_found, saying what was asked."""
    _, url = gateway
    got, err, _ = await post(url + RULES + "/GetVeiw")
    assert (got, err["code"]) == (501, "unimplemented"), err
    assert err["message"] == "no method neon.rules.v1.RulesService/GetVeiw here", err
    got, err, _ = await post(url + RULES + "/Play")
    assert (got, err["code"]) == (501, "unimplemented"), err
    assert "Play, a bidirectional stream, is gRPC only" in err["message"], err
    got, err, _ = await post(url + "/neon.rules.v1.RulesServce/GetView")
    assert (got, err["code"]) == (404, "not_found"), err
    assert err["message"] == "nothing at POST /neon.rules.v1.RulesServce/GetView", err


@pytest.mark.parametrize("stream", [False, True])
async def test_headers_grpc_cannot_carry_get_a_clear_answer_not_a_500(
    gateway: Any, stream: bool
) -> None:
    """gRPC metadata carries printable ASCII only: an authorization header with another
    character is a malformed token (unauthenticated, as the services answer one), and such an
    x-request-id is replaced by the gateway's own; neither is a 500 or an "internal" end."""
    _, url = gateway
    path, raw, ctype = (
        (RULES + "/WatchMatch", envelope({"matchId": "nope"}), "application/connect+json")
        if stream
        else (RULES + "/GetView", b'{"matchId": "nope"}', "application/json")
    )
    got, err, _ = await post(
        url + path, raw=raw, content_type=ctype, headers={"Authorization": "Bearer t\u00f6ken"}
    )
    if stream:  # a Connect stream: HTTP 200, the error in its end
        assert got == 200, err
        got, err = 401, envelopes(err)[-1][1]["error"]
    assert (got, err["code"]) == (401, "unauthenticated"), err
    assert "authorization" in err["message"]
    got, body, _ = await post(
        url + path, raw=raw, content_type=ctype, headers={"x-request-id": "r\u00e9quest"}
    )
    assert got == (200 if stream else 404), body
    end = envelopes(body)[-1][1] if stream else body
    assert (end["error"] if stream else end)["code"] == "not_found", body


def envelopes(body: bytes) -> list[tuple[int, Any]]:
    out, at = [], 0
    while at < len(body):
        flags, length = struct.unpack_from(">BI", body, at)
        out.append((flags, json.loads(body[at + 5 : at + 5 + length])))
        at += 5 + length
    return out


def envelope(message: Any) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack(">BI", 0, len(data)) + data


async def test_watch_match_is_a_connect_server_stream_ending_with_its_status(gateway: Any) -> None:
    backend, url = gateway
    created = await create(url, backend)
    match = created["matchId"]
    status, body, headers = await post(
        url + RULES + "/WatchMatch",
        raw=envelope({"matchId": match, "fromVersion": 0}),
        content_type="application/connect+json",
        headers={"connect-timeout-ms": "1500"},
    )
    assert status == 200 and headers["Content-Type"] == "application/connect+json"
    frames = envelopes(body)
    events = [m["event"] for flags, m in frames if flags == 0]
    assert [int(e["version"]) for e in events][:2] == [1, 2]
    assert events[0]["type"] == "MatchCreated"
    flags, end = frames[-1]
    assert flags == 2 and end["error"]["code"] == "deadline_exceeded", "the match runs on"
    status, body, _ = await post(
        url + RULES + "/WatchMatch",
        raw=envelope({"matchId": "nope"}),
        content_type="application/connect+json",
    )
    assert status == 200
    flags, end = envelopes(body)[-1]
    assert flags == 2 and end["error"]["code"] == "not_found"


async def test_an_unreachable_service_is_unavailable(backend: Backend) -> None:
    async with gateway_for(backend, addresses={"rules-neon-reign": "127.0.0.1:1"}) as running:
        status, err, _ = await post(
            running.url + RULES + "/GetGameInfo", headers={"connect-timeout-ms": "2000"}
        )
        assert (status, err["code"]) == (503, "unavailable")


async def test_cors_is_off_by_default_and_allows_only_the_configured_origins(
    backend: Backend,
) -> None:
    addresses = {k: v for k, v in backend.endpoints().items() if k != "nats"}
    preflight = {
        "Origin": "http://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    for origins, allowed in (
        ((), False),
        (("http://app.example",), True),
        (("http://other",), False),
    ):
        running = await gateway_main.start(
            backend.settings,
            backend.keys,
            GatewayConfig(port=0, cors_origins=origins),
            addresses=addresses,
        )
        try:
            async with aiohttp.ClientSession() as http:
                async with http.options(
                    running.url + RULES + "/GetGameInfo", headers=preflight
                ) as r:
                    assert (r.status == 204) is allowed
                    assert ("Access-Control-Allow-Origin" in r.headers) is allowed
                async with http.post(
                    running.url + RULES + "/GetGameInfo",
                    data=b"{}",
                    headers={**JSON, "Origin": "http://app.example"},
                ) as r:
                    assert r.status == 200
                    assert r.headers.get("Access-Control-Allow-Origin") == (
                        "http://app.example" if allowed else None
                    )
        finally:
            await running.stop()


async def test_viewer_files_are_served(gateway: Any) -> None:
    _, url = gateway
    async with aiohttp.ClientSession() as http:
        for path, kind in (
            ("/", "text/html"),
            ("/static/viewer.js", "javascript"),
            ("/static/style.css", "text/css"),
            ("/static/favicon.svg", "svg"),
        ):
            async with http.get(url + path) as r:
                assert r.status == 200 and kind in r.headers["Content-Type"], path
        async with http.get(url + "/static/../app.py") as r:
            assert r.status in (403, 404)
        async with http.get(url + "/api/games") as r:
            assert (await r.json())["games"] == ["neon-reign", "toy"]


async def test_a_client_gone_mid_stream_ends_its_stream_quietly(
    gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A browser that leaves a page drops its stream at once: the gateway's next write then
    finds the connection closed (before its disconnect poll noticed). That ends the stream
    and its upstream call without an "Error handling request" traceback in the server log."""
    import asyncio
    import socket
    from urllib.parse import urlsplit

    from services.gateway import app as gateway_app

    backend, url = gateway
    created = await create(url, backend)
    match = created["matchId"]
    status, view, _ = await post(url + RULES + "/GetView", {"matchId": match})
    seat = view["pending"][0]["seat"]
    token = created["seatTokens"][seat]["token"]
    status, legal, _ = await post(url + RULES + "/ListLegalActions", {"matchId": match}, token)
    action = legal["decisions"][0]["legalJson"][0]
    host = urlsplit(url)
    body = envelope({"matchId": match, "fromVersion": 0})
    reader, writer = await asyncio.open_connection(host.hostname, host.port)
    writer.write(
        f"POST {RULES}/WatchMatch HTTP/1.1\r\nHost: {host.netloc}\r\n"
        f"Content-Type: application/connect+json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    await reader.read(1)  # the first event is on its way: the stream is open
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
    caplog.set_level("ERROR", logger="aiohttp.server")
    writer.transport.abort()
    await asyncio.sleep(0.05)  # the gateway's loop sees the connection go
    assert gateway_app.DISCONNECT_POLL >= 0.5, "the write below comes before the poll"
    status, answer, _ = await post(
        url + RULES + "/SubmitAction",
        {"matchId": match, "commandId": "gone-1", "actionJson": action},
        token,
    )
    assert status == 200, answer
    await asyncio.sleep(0.3)
    errors = [r for r in caplog.records if r.name == "aiohttp.server" and r.levelname == "ERROR"]
    assert errors == [], [r.getMessage() for r in errors]


async def test_a_client_checks_a_config_over_http_get_or_post(gateway: Any) -> None:
    """CheckMatchConfig through the gateway: no token, a Connect GET (a read: it makes
    nothing) or a POST; a config the engine's set-up refuses is invalid_argument with the
    rules service's reason."""
    backend, url = gateway
    fine = {"mode": "single", "seats": 2,
            "optionsJson": json.dumps({"decks": ["neon-pulse", "chrome-fury"]})}
    async with aiohttp.ClientSession() as http, http.get(url + RULES + "/CheckMatchConfig",
                        params={"connect": "v1", "encoding": "json",
                                "message": json.dumps(fine)}) as r:
        assert r.status == 200, await r.text()
        assert (await r.json())["gameId"] == "neon-reign"
    status, refused, _ = await post(url + RULES + "/CheckMatchConfig",
                                    {**fine, "optionsJson": '{"decks": ["neon-pulse"]}'})
    assert status == 400 and refused["code"] == "invalid_argument", refused
    assert "one Action deck per seat" in refused["message"], refused
