"""The gateway reviewed as an attacker and as a Connect client author: what the answers (and
the log) hold when a request is malformed, and which request headers it refuses rather than
guesses at. Real HTTP over sockets (raw ones where a client library would not send it), the
real app, a real gRPC upstream that counts the calls reaching it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import struct
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import aiohttp
import grpc
import pytest
from multidict import CIMultiDict

from services.gateway.config import GatewayConfig
from services.genproto.neon.rules.v1 import rules_pb2
from tests.support.fake_grpc import serving
from tests.support.gateway import bare_gateway
from tests.support.logcapture import captured_logs

LEADERBOARD = "/neon.scoring.v1.ScoringService/GetLeaderboard"
WATCH = "/games/toy/neon.rules.v1.RulesService/WatchMatch"
JSON = {"Content-Type": "application/json"}
STREAM_JSON = {"Content-Type": "application/connect+json"}


@contextlib.asynccontextmanager
async def gateway() -> AsyncIterator[tuple[str, list[Any]]]:
    """A gateway in front of a scoring service (GetLeaderboard) and a toy rules service
    (WatchMatch: one message): its URL and the metadata of every call that reached them."""
    calls: list[Any] = []

    async def leaderboard(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        calls.append(context.invocation_metadata())
        return b""

    async def watch(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        calls.append(context.invocation_metadata())
        yield rules_pb2.WatchMatchResponse().SerializeToString()

    async with serving("neon.scoring.v1.ScoringService", {
        "GetLeaderboard": grpc.unary_unary_rpc_method_handler(leaderboard)}) as scoring, \
            serving("neon.rules.v1.RulesService", {
                "WatchMatch": grpc.unary_stream_rpc_method_handler(watch)}) as rules, \
            bare_gateway(GatewayConfig(port=0), {"scoring": scoring, "rules-toy": rules}) as url:
        yield url, calls


def envelope(message: Any) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack(">BI", 0, len(data)) + data


def end_of(body: bytes) -> dict[str, Any]:
    """The end-of-stream message of a Connect stream's body."""
    at, last = 0, None
    while at < len(body):
        flags, length = struct.unpack_from(">BI", body, at)
        last = (flags, json.loads(body[at + 5: at + 5 + length]))
        at += 5 + length
    assert last is not None and last[0] == 2, body
    return last[1]


async def exchange(url: str, request: bytes) -> bytes:
    """``request`` sent on a socket of its own; everything the gateway sent until it closed."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    await writer.drain()
    got = b""
    try:
        async with asyncio.timeout(10):
            while chunk := await reader.read(65536):
                got += chunk
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return got


def long_value(field: str, size: int) -> dict[str, Any]:
    """A request whose ``field`` holds a value of about ``size`` characters it cannot take."""
    if field == "limit":
        return {"limit": "9" * size}
    if field == "offset":
        return {"offset": "1" + "0" * size}
    return {"rankedBy": "RANKED_BY_" + "X" * size}


@pytest.mark.parametrize("field", ["limit", "rankedBy", "offset"])
async def test_a_long_bad_value_is_named_not_sent_back_or_logged_whole(field: str) -> None:
    """A value the message cannot take is invalid_argument naming its field; protobuf's own
    reason quoted the whole value, which went back in the answer and into an info log line
    (up to the 4 MiB message limit each request: a log any client could fill)."""
    async with gateway() as (url, calls), aiohttp.ClientSession() as http:
        with captured_logs() as lines:
            async with http.post(url + LEADERBOARD,
                                 data=json.dumps(long_value(field, 200_000)),
                                 headers=JSON) as r:
                answers = [(r.status, await r.json())]
            # a Connect GET's message is in its URL: a shorter one (aiohttp takes 8190 bytes)
            quoted = quote(json.dumps(long_value(field, 3000)), safe="")
            async with http.get(f"{url}{LEADERBOARD}?encoding=json&message={quoted}") as r:
                answers.append((r.status, await r.json()))
        logged = lines.getvalue()
    for status, answer in answers:
        assert (status, answer["code"]) == (400, "invalid_argument"), str(answer)[:500]
        assert len(answer["message"]) <= 400, answer["message"][:500]
        assert field in answer["message"], answer
    assert len(logged) < 8000, logged[:2000]
    assert calls == []


async def test_a_request_with_two_authorization_headers_is_refused() -> None:
    """HTTP allows one Authorization header; with two, the gateway passed on the first alone,
    while a proxy or a log before it may have taken the other: which caller is it? Neither
    token is named in the answer, and nothing reaches a service."""
    two = CIMultiDict([("Authorization", "Bearer first-secret"),
                       ("Authorization", "Bearer second-secret"), *JSON.items()])
    async with gateway() as (url, calls), aiohttp.ClientSession() as http:
        async with http.post(url + LEADERBOARD, data=b"{}", headers=two) as r:
            text = await r.text()
            err = json.loads(text)
            assert (r.status, err["code"]) == (401, "unauthenticated"), err
            assert "one authorization" in err["message"].lower(), err
        async with http.post(url + WATCH, data=envelope({"matchId": "m"}),
                             headers=CIMultiDict([*two.items()][:2] + [*STREAM_JSON.items()])) as r:
            stream = await r.read()
            assert end_of(stream)["error"]["code"] == "unauthenticated", stream
        async with http.get(f"{url}{LEADERBOARD}?encoding=json&message=%7B%7D",
                            headers=CIMultiDict([*two.items()][:2])) as r:
            assert r.status == 401
        assert b"secret" not in text.encode() + stream
        assert calls == []
        async with http.post(url + LEADERBOARD, data=b"{}",
                             headers={**JSON, "Authorization": "Bearer one"}) as r:
            assert r.status == 200
        assert [v for k, v in calls[0] if k == "authorization"] == ["Bearer one"]


@pytest.mark.parametrize("version", ["2", "0", "1.0", "v1", "1, 1"])
async def test_a_connect_protocol_version_other_than_1_is_invalid_argument(version: str) -> None:
    """Connect servers (connect-go) refuse a Connect-Protocol-Version they do not speak, as
    the gateway already refused ``connect=v2`` in a GET's query; a POST with any version was
    served as version 1."""
    async with gateway() as (url, calls), aiohttp.ClientSession() as http:
        headers = {"Connect-Protocol-Version": version}
        async with http.post(url + LEADERBOARD, data=b"{}", headers={**JSON, **headers}) as r:
            err = await r.json()
            assert (r.status, err["code"]) == (400, "invalid_argument"), err
            assert "connect-protocol-version" in err["message"].lower(), err
        async with http.post(url + WATCH, data=envelope({"matchId": "m"}),
                             headers={**STREAM_JSON, **headers}) as r:
            end = end_of(await r.read())
            assert end["error"]["code"] == "invalid_argument", end
        assert calls == []
        for fine in ({"Connect-Protocol-Version": "1"}, {}):
            async with http.post(url + LEADERBOARD, data=b"{}", headers={**JSON, **fine}) as r:
                assert r.status == 200, await r.text()
            async with http.post(url + WATCH, data=envelope({"matchId": "m"}),
                                 headers={**STREAM_JSON, **fine}) as r:
                assert "error" not in end_of(await r.read())
        assert len(calls) == 4


BAD_HTTP = [
    # a control character in a header value: aiohttp's answer quoted the whole header line
    (f"POST {LEADERBOARD} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
     "Authorization: Bearer tok-secret\x01x\r\nContent-Length: 2\r\n\r\n{}").encode(),
    # a line past the limit: it quoted its first 100 bytes
    b"GET /" + b"secret" * 2000 + b" HTTP/1.1\r\nHost: gw\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer secret" + b"s" * 9000 + b"\r\n\r\n",
    b"GET /\x01secret HTTP/1.1\r\nHost: gw\r\n\r\n",
    (f"POST {LEADERBOARD} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
     "Transfer-Encoding: chunked\r\n\r\nsecret\r\n{}\r\n0\r\n\r\n").encode(),
]


@pytest.mark.parametrize("request_bytes", BAD_HTTP)
async def test_a_request_that_is_not_valid_http_gets_a_connect_error_that_does_not_quote_it(
    request_bytes: bytes,
) -> None:
    """aiohttp answers a request it cannot parse itself: 400 in text/plain quoting the bad
    bytes (an Authorization header's token among them), without the nosniff every other
    answer has, and the log line quoted them too. Now a Connect error in JSON, with a reason
    of its own words: the request's bytes are neither sent back nor logged."""
    async with gateway() as (url, calls):
        with captured_logs() as lines:
            got = await exchange(url, request_bytes)
        logged = lines.getvalue()
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"400", got[:300]
    assert b"secret" not in got, got[:600]
    assert b"x-content-type-options: nosniff" in head.lower(), head
    err = json.loads(body)
    assert err["code"] == "invalid_argument" and err["message"], err
    assert "secret" not in logged, logged[:600]
    assert calls == []


async def test_a_client_that_stops_reading_then_hangs_up_frees_its_stream_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A stream whose client stops reading holds only what the sockets buffer: the gateway
    waits to write and the upstream waits with it (gRPC's flow control). When that client
    then hangs up, the upstream call is cancelled and the client's stream slot is free; the
    write that was waiting failed with ConnectionError ("Connection lost"), which the
    gateway did not catch: a traceback at ERROR in the log for each such client."""
    sent: list[int] = []
    ended = asyncio.Event()
    megabyte = rules_pb2.WatchMatchResponse(
        event=rules_pb2.MatchEvent(text="a" * 1024 * 1024)).SerializeToString()

    async def flood(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        try:
            while True:
                sent.append(1)
                yield megabyte
        finally:
            ended.set()

    caplog.set_level(logging.INFO, logger="aiohttp")
    message = json.dumps({"matchId": "m"}).encode()
    body = struct.pack(">BI", 0, len(message)) + message
    head = (f"POST {WATCH} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/connect+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    config = GatewayConfig(port=0, max_streams_per_client=1)
    async with serving("neon.rules.v1.RulesService", {
        "WatchMatch": grpc.unary_stream_rpc_method_handler(flood)}) as rules, \
            bare_gateway(config, {"rules-toy": rules}) as url:
        host, port = url.removeprefix("http://").split(":")
        _, writer = await asyncio.open_connection(host, int(port))
        writer.write(head + body)
        await writer.drain()
        before = -1
        while len(sent) != before:  # until the upstream waits for the gateway to write
            before = len(sent)
            await asyncio.sleep(1.0)
        assert len(sent) < 64, "the messages the client did not read were buffered"
        writer.transport.abort()
        async with asyncio.timeout(5):
            await ended.wait()
        await asyncio.sleep(0.2)
        async with aiohttp.ClientSession() as http, http.post(
                url + WATCH, data=body, headers=STREAM_JSON) as r:
            first = await r.content.readexactly(5)
            assert first[0] == 0, "the slot of the stream that ended is free for the next"
    # the gateway's (the fake upstream's gRPC server logs its own cancelled writes)
    errors = [r for r in caplog.records if r.name.startswith("aiohttp")
              and (r.levelno >= logging.ERROR or r.exc_info)]
    assert errors == [], [r.getMessage() for r in errors]


REFUSED_BY_HEADERS = [
    ("connect-timeout-ms: 0\r\n", "invalid_argument"),
    ("connect-timeout-ms: -5\r\n", "invalid_argument"),
    ("Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", "unauthenticated"),
    ("Authorization: Bearer \xe9\r\n", "unauthenticated"),
]
NO_GAME = "/games/nope/neon.rules.v1.RulesService/GetGameInfo"


@pytest.mark.parametrize("path", [LEADERBOARD, WATCH, NO_GAME])
@pytest.mark.parametrize("extra, code", REFUSED_BY_HEADERS)
async def test_a_request_its_headers_refuse_is_answered_before_its_body_arrives(
    path: str, extra: str, code: str
) -> None:
    """A request whose headers are refused (a connect-timeout-ms, its authorization) is
    answered at once: the gateway waited for the whole body
    first (up to the body timeout, holding the connection and a call slot), then refused."""
    streaming = path == WATCH
    ctype = "application/connect+json" if streaming else "application/json"
    head = (f"POST {path} HTTP/1.1\r\nHost: gw\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: 1000\r\n{extra}\r\n").encode("latin-1")
    async with gateway() as (url, calls):
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(head)  # and no body
        await writer.drain()
        try:
            async with asyncio.timeout(5):
                got = await reader.readuntil(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in got.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                got += await reader.readexactly(length)
        finally:
            writer.close()
            with contextlib.suppress(OSError):  # closed on our side before the gateway stops
                await writer.wait_closed()
    body = got.partition(b"\r\n\r\n")[2]
    answer = end_of(body)["error"] if streaming else json.loads(body)
    assert answer["code"] == code, answer
    assert calls == []


async def test_no_answer_names_the_server_software_or_its_version() -> None:
    """aiohttp names itself and Python with their versions in every answer's Server header
    (``Python/3.11 aiohttp/3.14.5``): which known flaws to try, told to anyone. The gateway
    names only itself, in its answers, its streams and the answers aiohttp gives itself."""
    async with gateway() as (url, _):
        async with aiohttp.ClientSession() as http:
            for method, path, body, headers in (
                    ("POST", LEADERBOARD, b"{}", JSON),
                    ("POST", WATCH, envelope({"matchId": "m"}), STREAM_JSON),
                    ("GET", "/healthz", b"", {}), ("GET", "/", b"", {}),
                    ("GET", "/nowhere", b"", {}), ("PUT", LEADERBOARD, b"", {})):
                async with http.request(method, url + path, data=body, headers=headers) as r:
                    await r.read()
                    assert r.headers.get("Server") == "neon-gateway", (path, r.headers)
        got = await exchange(url, b"GET / HTTP/1.1\r\nHost gw\r\n\r\n")
    head = got.partition(b"\r\n\r\n")[0].lower()
    assert b"\r\nserver: neon-gateway" in head and b"aiohttp" not in head, head


async def test_options_without_an_origin_is_not_told_cors_is_refused() -> None:
    """An OPTIONS request with no Origin is not a CORS preflight: it was answered 403 "CORS is
    not allowed for this origin" (which origin?); now as any other method a path is not
    served with, 405 with Allow. A preflight from an origin not allowed is still 403."""
    async with gateway() as (url, _), aiohttp.ClientSession() as http:
        async with http.options(url + LEADERBOARD) as r:
            err = await r.json()
            assert (r.status, err["code"]) == (405, "unimplemented"), err
            assert r.headers["Allow"] == "GET, POST"
        async with http.options(url + LEADERBOARD, headers={
                "Origin": "https://elsewhere.example",
                "Access-Control-Request-Method": "POST"}) as r:
            assert r.status == 403


async def test_an_answer_the_gateway_cannot_read_is_internal_with_a_plain_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An upstream answer that is not the message it should be (a service of another release,
    a proxy's garbage) is ``internal`` naming the service, in the answer or the stream's
    end: protobuf's DecodeError went past the handler, a bare 500 for a unary call and, for
    a stream already started, a stream cut without its end and a traceback in the log."""
    garbage = b"\x0a\xff\xff\xff\x7f"  # field 1, a length past the end

    async def watch(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        yield rules_pb2.WatchMatchResponse().SerializeToString()
        yield garbage

    async def info(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return garbage

    caplog.set_level(logging.INFO, logger="aiohttp")
    async with serving("neon.rules.v1.RulesService", {
        "WatchMatch": grpc.unary_stream_rpc_method_handler(watch),
        "GetGameInfo": grpc.unary_unary_rpc_method_handler(info)}) as rules, \
            bare_gateway(GatewayConfig(port=0), {"rules-toy": rules}) as url, \
            aiohttp.ClientSession() as http:
        # (a binary answer with no field to blank is passed on unread, as it came)
        async with http.post(url + "/games/toy/neon.rules.v1.RulesService/GetGameInfo",
                             data=b"{}", headers=JSON) as r:
            err = await r.json()
            assert (r.status, err["code"]) == (500, "internal"), err
            assert "rules service of toy" in err["message"], err
        async with http.post(url + WATCH, data=envelope({"matchId": "m"}),
                             headers=STREAM_JSON) as r:
            body = await r.read()
        end = end_of(body)
        assert end["error"]["code"] == "internal", end
        assert "rules service of toy" in end["error"]["message"], end
    errors = [r for r in caplog.records if r.name.startswith("aiohttp")
              and (r.levelno >= logging.ERROR or r.exc_info)]
    assert errors == [], [r.getMessage() for r in errors]


async def test_a_stream_whose_client_takes_nothing_for_long_is_ended(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A client that opens a stream, never reads and keeps its connection open held the
    stream's slot, its upstream call and the messages buffered for it (gRPC's window, up to
    megabytes each) for as long as it liked: a write waiting longer than STALLED_WRITE
    seconds ends the stream (its upstream call cancelled, its connection closed, its slot
    free)."""
    from services.gateway import app as gateway_app

    monkeypatch.setattr(gateway_app, "STALLED_WRITE", 1.0)
    caplog.set_level(logging.INFO, logger="aiohttp")
    sent: list[int] = []
    ended = asyncio.Event()
    megabyte = rules_pb2.WatchMatchResponse(
        event=rules_pb2.MatchEvent(text="a" * 1024 * 1024)).SerializeToString()

    async def flood(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        try:
            while True:
                sent.append(1)
                yield megabyte
        finally:
            ended.set()

    message = json.dumps({"matchId": "m"}).encode()
    body = struct.pack(">BI", 0, len(message)) + message
    head = (f"POST {WATCH} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/connect+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    config = GatewayConfig(port=0, max_streams_per_client=1)
    async with serving("neon.rules.v1.RulesService", {
        "WatchMatch": grpc.unary_stream_rpc_method_handler(flood)}) as rules, \
            bare_gateway(config, {"rules-toy": rules}) as url:
        host, port = url.removeprefix("http://").split(":")
        _, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(head + body)
            await writer.drain()
            async with asyncio.timeout(10):  # open, never read, never close
                await ended.wait()
            async with aiohttp.ClientSession() as http, http.post(
                    url + WATCH, data=body, headers=STREAM_JSON) as r:
                first = await r.content.readexactly(5)
                assert first[0] == 0, "the stalled stream's slot is free for the next"
        finally:
            writer.close()
    errors = [r for r in caplog.records if r.name.startswith("aiohttp")
              and (r.levelno >= logging.ERROR or r.exc_info)]
    assert errors == [], [r.getMessage() for r in errors]


async def test_a_token_in_the_query_or_a_cookie_is_neither_used_nor_logged() -> None:
    """The token is read from the Authorization header only: one in a query parameter (which
    proxies and browsers' histories keep) or a cookie (which another site's page could make
    a browser send) is not passed on to the service, and no log line names it."""
    with captured_logs() as lines:
        await _query_and_cookie_tokens(lines)


async def _query_and_cookie_tokens(lines: io.StringIO) -> None:
    async with gateway() as (url, calls), aiohttp.ClientSession() as http:
        query = "encoding=json&message=%7B%7D&authorization=Bearer+q-secret&token=q-secret"
        async with http.get(f"{url}{LEADERBOARD}?{query}",
                            headers={"Cookie": "token=c-secret; authorization=c-secret"}) as r:
            assert r.status == 200, await r.text()
        async with http.post(f"{url}{LEADERBOARD}?access_token=q-secret", data=b"{}",
                             headers={**JSON, "Cookie": "token=c-secret"}) as r:
            assert r.status == 200, await r.text()
        async with http.get(f"{url}/nowhere?access_token=q-secret") as r:
            assert r.status == 404 and "secret" not in await r.text()
        logged = lines.getvalue()
    assert len(calls) == 2
    for metadata in calls:
        assert not [v for k, v in metadata if k == "authorization"], metadata
        assert "secret" not in repr(metadata), metadata
    assert "secret" not in logged


@pytest.mark.parametrize("target", [
    "/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/..%5capp.py",
    "/static/%2e%2e%2fapp.py", "/static/..\\app.py", "/viewer/../../etc/passwd",
    "/static/%2fetc%2fpasswd", "/static/.", "/static/%00", "//etc/passwd",
    "/static/" + "%2e%2e%2f" * 40 + "etc/passwd",
])
async def test_no_path_reaches_a_file_outside_the_viewer(target: str) -> None:
    """Sent as written (no client normalises it): 404 in JSON, never a file of the server."""
    async with gateway() as (url, _):
        got = await exchange(url, f"GET {target} HTTP/1.1\r\nHost: gw\r\n"
                                  "Connection: close\r\n\r\n".encode())
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] in (b"404", b"400"), got[:300]
    assert json.loads(body)["code"] in ("not_found", "invalid_argument"), body[:300]
    assert b"root:" not in body and b"import" not in body


async def test_cors_for_any_origin_never_allows_credentials() -> None:
    """``NEON_GATEWAY_CORS_ORIGINS=*`` answers ``Access-Control-Allow-Origin: *`` and never
    ``Allow-Credentials`` (browsers then send no cookies, and the gateway reads none): a
    token still has to be in the Authorization header the calling page sets."""
    config = GatewayConfig(port=0, cors_origins=("*",))
    async with bare_gateway(config, {}) as url, aiohttp.ClientSession() as http:
        async with http.options(url + LEADERBOARD, headers={
                "Origin": "https://any.example", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type"}) as r:
            assert r.status == 204
            assert r.headers["Access-Control-Allow-Origin"] == "*"
            assert "Access-Control-Allow-Credentials" not in r.headers
        async with http.post(url + LEADERBOARD, data=b"{}", headers={
                **JSON, "Origin": "https://any.example"}) as r:
            assert r.headers["Access-Control-Allow-Origin"] == "*"
            assert "Access-Control-Allow-Credentials" not in r.headers


@pytest.mark.parametrize("line", ["OPTIONS * HTTP/1.1", "CONNECT evil.example:443 HTTP/1.1"])
async def test_a_request_target_that_is_no_path_is_not_found_in_json(line: str) -> None:
    """A request target that is not a path (``OPTIONS *``, a CONNECT's authority) matched no
    route, not even the catch-all: aiohttp answered a text/plain "404: Not Found", the only
    refusal not in Connect's JSON."""
    async with gateway() as (url, calls):
        got = await exchange(url, f"{line}\r\nHost: gw\r\nConnection: close\r\n\r\n".encode())
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"404", got[:300]
    assert b"application/json" in head.lower(), head
    assert json.loads(body)["code"] == "not_found", body
    assert calls == []
