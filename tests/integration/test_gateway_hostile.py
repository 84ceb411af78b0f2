"""The gateway as a hostile web client or script uses it: no internal address or traceback in
an error, request bodies bounded in size and in time before anything is buffered or counted,
a content type or a timeout header that does not fit answered with a clear Connect error.
Real HTTP over sockets (raw ones where a well-behaved client would not do it), the real app,
real gRPC upstreams."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import struct
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import grpc
import pytest

from services.cli.backend import Backend
from services.gateway.config import GatewayConfig
from services.genproto.neon.rules.v1 import rules_pb2
from tests.support.fake_grpc import serving
from tests.support.gateway import bare_gateway, gateway_for

TOY = "/games/toy/neon.rules.v1.RulesService"
SCORING = "/neon.scoring.v1.ScoringService"
JSON = {"Content-Type": "application/json"}


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


def internal(message: str, address: str) -> bool:
    host, port = address.rsplit(":", 1)
    return any(s in message for s in (address, f"{host}:", f":{port}", "ipv4:", "ipv6:",
                                      "Traceback", "<class", "Exception calling"))


async def test_an_upstream_that_does_not_answer_is_unavailable_without_its_address(
    toy_backend: Backend,
) -> None:
    """gRPC's own reason for a connection that failed names the upstream's address and port
    ("failed to connect to all addresses; last error: ... ipv4:10.0.3.7:50061: Connection
    refused"): the web client gets unavailable and a plain reason, never where the services
    are."""
    dead = "127.0.0.1:1"
    async with gateway_for(toy_backend, addresses={"rules-toy": dead}) as running, \
            aiohttp.ClientSession() as http:
        async with http.post(running.url + TOY + "/GetGameInfo", data=b"{}",
                             headers=JSON) as r:
            err = await r.json()
            assert (r.status, err["code"]) == (503, "unavailable"), err
            assert err["message"] and not internal(err["message"], dead), err
            assert "toy" in err["message"], "says which service does not answer"
        async with http.post(running.url + TOY + "/WatchMatch",
                             data=envelope({"matchId": "m"}),
                             headers={"Content-Type": "application/connect+json"}) as r:
            end = end_of(await r.read())
            assert end["error"]["code"] == "unavailable", end
            assert not internal(end["error"]["message"], dead), end
        async with http.post(running.url + "/api/games/toy/matches/m1/replay") as r:
            err = await r.json()
            assert (r.status, err["code"]) == (503, "unavailable"), err
            assert not internal(err["message"], dead), err


SERVICE, METHOD = "neon.scoring.v1.ScoringService", "GetLeaderboard"


async def test_an_upstream_back_from_an_outage_is_reached_again_within_a_second_or_two() -> None:
    """The gateway's channels reconnect as the services' own do (``RECONNECT_OPTIONS``): with
    gRPC's default backoff (growing to two minutes) a gateway whose upstream was down for a
    while (a rules service restarted, a deploy) kept answering every web client
    ``unavailable`` for seconds to minutes after the service was back."""
    with socket.socket() as probe:  # a free port, for the upstream that comes back on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def leaderboard(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return b""

    async with bare_gateway(GatewayConfig(port=0), {"scoring": f"127.0.0.1:{port}"}) as url, \
            aiohttp.ClientSession() as http:
        async def status() -> int:
            async with http.post(f"{url}{SCORING}/GetLeaderboard", data=b"{}",
                                 headers=JSON) as r:
                return r.status

        down = time.monotonic()
        while time.monotonic() - down < 10:  # long enough for gRPC's default backoff to grow
            assert await status() == 503
            await asyncio.sleep(0.25)
        server = grpc.aio.server()
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            SERVICE, {METHOD: grpc.unary_unary_rpc_method_handler(leaderboard)})])
        assert server.add_insecure_port(f"127.0.0.1:{port}") == port
        await server.start()
        try:
            back = time.monotonic()
            while await status() != 200:
                assert time.monotonic() - back < 3, "the upstream is back: reach it again"
                await asyncio.sleep(0.1)
        finally:
            await server.stop(0)


async def test_an_answer_past_the_gateways_limit_is_said_in_words_with_the_stream_to_use() -> None:
    """A long match's export passes gRPC's 4 MiB answer limit: the web client got
    resource_exhausted (HTTP 429: "try again later") in gRPC's words, "Received message
    larger than max (5243008 vs. 4194304)". It is told the size, the gateway's limit, that
    asking again gets the same, and the server stream that sends the export in parts."""
    big = b"x" * (5 * 1024 * 1024)

    async def export(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return rules_pb2.ExportMatchResponse(export_jsonl=big).SerializeToString()

    handlers = {"ExportMatch": grpc.unary_unary_rpc_method_handler(export)}
    async with serving("neon.rules.v1.RulesService", handlers) as upstream, bare_gateway(
            GatewayConfig(port=0), {"rules-toy": upstream}) as url, \
            aiohttp.ClientSession() as http, \
            http.post(f"{url}{TOY}/ExportMatch", data=b'{"matchId": "m1"}',
                      headers={**JSON, "Authorization": "Bearer t"}) as r:
        err = await r.json()
    assert (r.status, err["code"]) == (429, "resource_exhausted"), err
    assert "larger than max" not in err["message"], err
    size = int(err["message"].split(" answered ", 1)[1].split(" bytes", 1)[0].replace(",", ""))
    assert len(big) < size < len(big) + 64 and "4,194,304" in err["message"], err
    assert "ExportMatchChunks" in err["message"] and "asking again" in err["message"], err


@contextlib.asynccontextmanager
async def crashing_scoring() -> AsyncIterator[str]:
    """A real gRPC server whose GetLeaderboard raises: grpc answers UNKNOWN with the
    exception's class and words as the details."""

    async def leaderboard(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        raise RuntimeError("pool to postgresql://neon@10.0.3.9:5432/neon exhausted")

    async with serving(SERVICE, {METHOD: grpc.unary_unary_rpc_method_handler(leaderboard)}) as address:
        yield address


async def test_an_upstream_crash_is_not_told_to_the_web_client() -> None:
    async with crashing_scoring() as upstream, bare_gateway(
            GatewayConfig(port=0), {"scoring": upstream}) as url, aiohttp.ClientSession() as http, \
            http.post(f"{url}{SCORING}/GetLeaderboard", data=b"{}", headers=JSON) as r:
        err = await r.json()
    assert r.status == 500 and err["code"] == "unknown", err
    assert "10.0.3.9" not in err["message"] and "postgresql" not in err["message"], err
    assert "RuntimeError" not in err["message"] and err["message"], err


@pytest.mark.parametrize("given", ["r" * 129, "r" * 4000, "ok-id"])
async def test_the_request_id_named_to_the_client_is_the_one_the_service_got(given: str) -> None:
    """A reason that names a request id ("... failed (request id X)") is for finding the call
    in the logs: the service keeps a client's x-request-id only up to 128 printable
    characters and logs a new one in place of a longer one, which the gateway still passed
    on, logged and named to the client: an id no service log held."""
    seen: list[str] = []

    async def leaderboard(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        seen.extend(v for k, v in context.invocation_metadata() if k == "x-request-id")
        raise RuntimeError("boom")

    handler = grpc.unary_unary_rpc_method_handler(leaderboard)
    async with serving(SERVICE, {METHOD: handler}) as upstream, bare_gateway(
            GatewayConfig(port=0), {"scoring": upstream}) as url, aiohttp.ClientSession() as http, \
            http.post(f"{url}{SCORING}/GetLeaderboard", data=b"{}",
                      headers={**JSON, "X-Request-Id": given}) as r:
        err = await r.json()
    assert r.status == 500 and len(seen) == 1, (err, seen)
    assert 1 <= len(seen[0]) <= 128 and f"(request id {seen[0]})" in err["message"], err
    if len(given) <= 128:
        assert seen == [given]


async def raw_exchange(url: str, head: bytes, body: bytes = b"",
                       wait: float = 10.0) -> tuple[bytes, float]:
    """Send ``head`` (and ``body``) on a socket of its own; (everything the gateway sent
    until it closed the connection or ``wait`` passed, seconds taken)."""
    where = urlsplit(url)
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    start = time.monotonic()
    writer.write(head + body)
    await writer.drain()
    got = b""
    try:
        async with asyncio.timeout(wait):
            while chunk := await reader.read(65536):
                got += chunk
                if b"\r\n\r\n" in got and _complete(got):
                    break
    except TimeoutError:
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return got, time.monotonic() - start


def _complete(got: bytes) -> bool:
    head, _, body = got.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return False


def request_head(path: str, length: int, ctype: str = "application/json",
                 extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: gw\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def answer_of(got: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = got.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body)


async def test_a_body_past_the_message_limit_is_refused_before_it_is_read() -> None:
    """A Connect call says it sends 40 MB (the limit is 4 MiB): answered at once with the
    Connect error, without waiting for (and buffering) the bytes; not aiohttp's text/plain
    413 after 32 MiB were read."""
    async with bare_gateway(GatewayConfig(port=0), {}) as url:
        got, took = await raw_exchange(url, request_head(f"{SCORING}/GetLeaderboard",
                                                         40_000_000))
        assert got, "no answer while the body was not sent"
        status, err = answer_of(got)
        assert (status, err["code"]) == (429, "resource_exhausted"), err
        assert "4194304" in err["message"] or "4 MiB" in err["message"], err
        # a chunked body (no length said) is cut off at the limit too
        chunk = b"x" * 65536
        chunked = (f"POST {SCORING}/GetLeaderboard HTTP/1.1\r\nHost: gw\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
        body = (f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n") * 80  # 5 MiB, no end
        got, _ = await raw_exchange(url, chunked, body)
        status, err = answer_of(got)
        assert (status, err["code"]) == (429, "resource_exhausted"), err


async def test_an_upload_past_its_size_is_refused_with_a_connect_error() -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url:
        got, _ = await raw_exchange(url, request_head("/api/replay", 40 * 1024 * 1024,
                                                      "application/octet-stream"))
        assert got, "no answer while the body was not sent"
        status, err = answer_of(got)
        assert (status, err["code"]) == (429, "resource_exhausted") and err["message"], err


async def test_a_second_upload_of_one_client_is_refused_before_its_body_is_read() -> None:
    """One upload per client address: counted from its first byte, not once its (up to
    32 MiB) body has been buffered, so a client cannot hold many uploads in memory at once."""
    async with bare_gateway(GatewayConfig(port=0, body_timeout=30.0), {}) as url:
        where = urlsplit(url)
        reader, writer = await asyncio.open_connection(where.hostname, where.port)
        try:
            writer.write(request_head("/api/replay", 1_000_000, "application/octet-stream")
                         + b"{" * 100)  # the rest never comes
            await writer.drain()
            await asyncio.sleep(0.3)
            async with aiohttp.ClientSession() as http, http.post(
                    f"{url}/api/replay", data=b"{}\n") as r:
                err = await r.json()
                assert (r.status, err["code"]) == (429, "resource_exhausted"), err
        finally:
            writer.close()
        # the slow one gone, the next upload is served
        for _ in range(50):
            async with aiohttp.ClientSession() as http, http.post(
                    f"{url}/api/replay", data=b"{}\n") as r:
                if r.status == 200:
                    break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the abandoned upload kept its slot")


async def test_uploads_of_many_clients_are_received_a_few_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An upload is up to 32 MiB, buffered whole before it is replayed. One per client
    address was the only bound: clients from many addresses (an IPv6 /48 holds 65,536 /64s)
    each had one buffered at once, the gateway's memory theirs to fill. Past
    UPLOADS_RECEIVING in all, an upload is refused (429) before its body is read; when one
    ends, the next is served."""
    from services.gateway import app as gateway_app
    from services.gateway.app import UPLOADS_RECEIVING
    from tests.support import gateway as support

    made: list[Any] = []

    class Seen(gateway_app.Gateway):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(support, "Gateway", Seen)
    config = GatewayConfig(port=0, body_timeout=30.0, trusted_proxies=("127.0.0.0/8",))
    octets = "application/octet-stream"
    async with bare_gateway(config, {}) as url:
        where = urlsplit(url)
        writers = []
        try:
            for i in range(UPLOADS_RECEIVING):
                _, writer = await asyncio.open_connection(where.hostname, where.port)
                writer.write(request_head("/api/replay", 1_000_000, octets,
                                          f"X-Forwarded-For: 198.51.100.{i + 1}\r\n")
                             + b"{" * 100)  # the rest never comes
                await writer.drain()
                writers.append(writer)
            for _ in range(200):  # until the gateway has taken them all (a loaded machine)
                if made[0].uploading.total == UPLOADS_RECEIVING:
                    break
                await asyncio.sleep(0.05)
            got, took = await raw_exchange(
                url, request_head("/api/replay", 3, octets, "X-Forwarded-For: 203.0.113.1\r\n"),
                b"{}\n")
            status, err = answer_of(got)
            assert (status, err["code"]) == (429, "resource_exhausted"), err
            assert f"{UPLOADS_RECEIVING} uploads" in err["message"], err
        finally:
            for writer in writers:
                writer.close()
        for _ in range(50):  # the slow ones gone, the next upload is served
            got, _ = await raw_exchange(
                url, request_head("/api/replay", 3, octets, "X-Forwarded-For: 203.0.113.1\r\n"),
                b"{}\n")
            if answer_of(got)[0] == 200:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the abandoned uploads kept their slots")


async def test_malformed_http_is_refused_without_an_error_in_the_log(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that is not valid HTTP (a line past aiohttp's limit, a header without a
    colon, a broken chunk, an unknown version) is the client's doing: answered 400 as before,
    but aiohttp logged each at ERROR with a traceback, a log (and an alert on errors) any
    client could fill for free. A handler that fails is still an error in the log."""
    from services.gateway import app as gateway_app

    async def broken(self: Any, request: Any) -> Any:
        raise RuntimeError("a handler that fails")

    monkeypatch.setattr(gateway_app.Gateway, "healthz", broken)
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    chunked = (f"POST {SCORING}/GetLeaderboard HTTP/1.1\r\nHost: gw\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    bad = [b"GET /" + b"a" * 10000 + b" HTTP/1.1\r\nHost: gw\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost: gw\r\nX: " + b"a" * 10000 + b"\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost gw\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
           chunked + b"zz\r\n{}\r\n0\r\n\r\n"]
    async with bare_gateway(GatewayConfig(port=0), {}) as url:
        for head in bad:
            got, _ = await raw_exchange(url, head)
            assert got.startswith(b"HTTP/1.0 400") or got.startswith(b"HTTP/1.1 400"), got
        loud = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
        assert loud == [], [r.getMessage() for r in loud]
        async with aiohttp.ClientSession() as http, http.get(f"{url}/healthz") as r:
            assert r.status == 500
    failed = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failed) == 1 and failed[0].exc_info, [r.getMessage() for r in failed]


@pytest.mark.parametrize("path", [f"{SCORING}/GetLeaderboard", "/api/replay"])
async def test_a_client_that_hangs_up_mid_body_leaves_no_traceback(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that goes away before its body has arrived (a closed tab, a script) is
    nobody's error: aiohttp logged each one at ERROR with a traceback, a log any client could
    fill. The gateway goes on serving."""
    async with bare_gateway(GatewayConfig(port=0, body_timeout=30.0), {}) as url:
        where = urlsplit(url)
        for _ in range(3):
            _, writer = await asyncio.open_connection(where.hostname, where.port)
            writer.write(request_head(path, 1000) + b"{")
            await writer.drain()
            await asyncio.sleep(0.2)
            writer.close()
        await asyncio.sleep(0.3)
        async with aiohttp.ClientSession() as http, http.get(f"{url}/healthz") as r:
            assert r.status == 200
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


@pytest.mark.parametrize("path", [f"{SCORING}/GetLeaderboard", "/api/replay"])
async def test_a_body_that_trickles_is_cut_off_with_a_clear_status(path: str) -> None:
    """Slowloris: the headers, then a few bytes of the body and nothing more. The gateway
    answers 408 with a Connect error once ``body_timeout`` has passed and closes the
    connection, instead of holding it (and a handler) for as long as the client likes."""
    async with bare_gateway(GatewayConfig(port=0, body_timeout=1.0), {}) as url:
        got, took = await raw_exchange(url, request_head(path, 1000), b"{", wait=10)
        assert got, "the connection was held with no answer"
        status, err = answer_of(got)
        assert (status, err["code"]) == (408, "deadline_exceeded"), err
        assert "1 s" in err["message"] or "1.0 s" in err["message"], err
        assert took < 5, took


async def test_headers_that_never_end_do_not_hold_a_connection_for_an_hour() -> None:
    """aiohttp's own server closes a connection whose request never completes only after
    its keep-alive timeout, 3630 s by default: a client trickling headers held it all that
    time. The gateway closes it after ``idle_timeout``."""
    async with bare_gateway(GatewayConfig(port=0, idle_timeout=1.0), {}) as url:
        where = urlsplit(url)
        reader, writer = await asyncio.open_connection(where.hostname, where.port)
        start = time.monotonic()
        writer.write(b"POST /api/replay HTTP/1.1\r\nHost: gw\r\nX-Slow: ")
        await writer.drain()
        try:
            closed = await asyncio.wait_for(reader.read(), 10)
        finally:
            writer.close()
        assert closed == b"" or closed.startswith(b"HTTP/1.1 4"), closed
        assert time.monotonic() - start < 5


async def test_a_content_type_not_served_gets_415_in_valid_json_with_cors() -> None:
    """The 415 body is JSON whatever the client's content type holds (a quote broke it), and,
    for an allowed origin, carries the CORS headers like any other error (it was raised past
    the CORS middleware: the browser saw a network error, not the reason)."""
    config = GatewayConfig(port=0, cors_origins=("http://app.example",))
    async with bare_gateway(config, {}) as url, aiohttp.ClientSession() as http, http.post(
            f"{url}{SCORING}/GetLeaderboard", data=b"{}",
            headers={"Content-Type": 'text/x"y', "Origin": "http://app.example"}) as r:
        assert r.status == 415
        err = json.loads(await r.read())
        assert err["code"] == "invalid_argument" and "application/json" in err["message"]
        assert r.headers.get("Access-Control-Allow-Origin") == "http://app.example"


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "12345678901", "\u0661\u0662"])
async def test_a_connect_timeout_that_is_not_a_positive_integer_is_refused(value: str) -> None:
    """Connect-Timeout-Ms is a positive integer of at most 10 digits: 0 (which answered
    deadline_exceeded before the call was even tried) is refused like the rest."""
    async with bare_gateway(GatewayConfig(port=0), {"scoring": "127.0.0.1:1"}) as url:
        got, _ = await raw_exchange(url, request_head(
            f"{SCORING}/GetLeaderboard", 2,
            extra=f"Connect-Timeout-Ms: {value}\r\n".encode().decode("latin-1")), b"{}")
        status, err = answer_of(got)
        assert (status, err["code"]) == (400, "invalid_argument"), (value, err)
        assert "connect-timeout-ms" in err["message"]


@pytest.mark.parametrize(("path", "body", "headers", "code"), [
    (TOY + "/WatchMatch", b"\x00\x00\x00\x00\x09{}", {}, "invalid_argument"),
    (TOY + "/WatchMatch", b"\x01\x00\x00\x00\x02{}", {}, "unimplemented"),
    (TOY + "/WatchMatch", envelope({"matchId": 5}), {}, "invalid_argument"),
    (TOY + "/WatchMatch", envelope({"matchId": "m"}), {"Authorization": "Bearer t\u00f6ken"},
     "unauthenticated"),
    ("/games/nope/neon.rules.v1.RulesService/WatchMatch", envelope({"matchId": "m"}), {},
     "not_found"),
    (TOY + "/WatchMatch", envelope({"matchId": "m"}), {"Connect-Timeout-Ms": "0"},
     "invalid_argument"),
])
async def test_a_stream_refused_before_it_starts_is_a_connect_stream_with_the_reason(
        path: str, body: bytes, headers: dict[str, str], code: str) -> None:
    """Connect: "streaming responses always have an HTTP status of 200 OK", the error in the
    end-of-stream message. A Connect client (connect-es, connect-go) reads no body from
    another status: a refused stream was "unavailable: HTTP 429", a bad request "internal:
    HTTP 400", the reason lost. Only a content type that is not a stream's is 415."""
    async with bare_gateway(GatewayConfig(port=0), {"rules-toy": "127.0.0.1:1"}) as url, \
            aiohttp.ClientSession() as http:
        async with http.post(url + path, data=body, headers={
                "Content-Type": "application/connect+json", **headers}) as r:
            raw = await r.read()
            assert r.status == 200, raw
            assert r.headers["Content-Type"] == "application/connect+json"
            end = end_of(raw)
            assert end["error"]["code"] == code and end["error"]["message"], end
        async with http.post(url + TOY + "/WatchMatch", data=envelope({}),
                             headers={"Content-Type": "application/json"}) as r:
            assert r.status == 415 and (await r.json())["code"] == "invalid_argument"


def test_the_body_and_idle_timeouts_come_from_the_environment() -> None:
    from services.gateway.config import load_config

    assert (load_config({}).body_timeout, load_config({}).idle_timeout) == (60.0, 75.0)
    config = load_config({"NEON_GATEWAY_BODY_TIMEOUT": "5", "NEON_GATEWAY_IDLE_TIMEOUT": "2.5"})
    assert (config.body_timeout, config.idle_timeout) == (5.0, 2.5)
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(ValueError, match="NEON_GATEWAY_BODY_TIMEOUT"):
            load_config({"NEON_GATEWAY_BODY_TIMEOUT": bad})


async def test_answers_vary_by_origin_whenever_cors_names_origins() -> None:
    """With a list of origins an answer depends on the Origin (allowed: the CORS headers; not:
    none), so every answer says Vary: Origin, not only the allowed ones: a shared cache kept
    the answer for another origin (no CORS headers) and served it to the allowed one."""
    config = GatewayConfig(port=0, cors_origins=("http://app.example",))
    async with bare_gateway(config, {}) as url, aiohttp.ClientSession() as http:
        for origin in ("http://other.example", None):
            headers = {"Origin": origin} if origin else {}
            async with http.get(f"{url}/api/games", headers=headers) as r:
                assert r.status == 200
                assert "Access-Control-Allow-Origin" not in r.headers
                assert "Origin" in r.headers.get("Vary", ""), (origin, dict(r.headers))
