"""The gateway's Connect edges, over real HTTP to the gateway and a real gRPC upstream (a
matchmaking service whose GetTicket echoes the ticket id and fills ``rules_address``):

- internal addresses never reach web clients: ``rules_address`` is sent blank, in JSON and
  binary answers, unary and streamed, POST and GET (the tournament's, from the real service:
  tests/integration/test_gateway_tournament.py);
- request bodies in gzip or deflate are read, any other Content-Encoding is a Connect
  ``unimplemented`` naming the ones served, never aiohttp's text/plain 400 and traceback;
- Connect GET requests for the read-only calls, with their cache headers;
- unknown JSON fields ignored by default, refused when configured;
- the per-client call rate (token bucket): 429 ``resource_exhausted`` with Retry-After.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import logging
import struct
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import grpc
import pytest

from services.gateway.config import GatewayConfig, load_config
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm
from tests.support.fake_grpc import serving
from tests.support.gateway import bare_gateway

SERVICE = "neon.matchmaking.v1.MatchmakingService"
INTERNAL = "10.0.3.7:50061"


def ticket() -> mm.Ticket:
    return mm.Ticket(
        ticket_id="t1",
        game="neon-reign",
        status=mm.TICKET_STATUS_MATCHED,
        assignment=mm.Assignment(
            match_id="m1",
            game="neon-reign",
            mode="single",
            rules_address=INTERNAL,
            seats=[mm.Assignment.Seat(seat=0, player="alice")],
        ),
    )


@contextlib.asynccontextmanager
async def matchmaking() -> AsyncIterator[str]:
    """A real gRPC matchmaking upstream whose GetTicket and WatchTicket fill
    ``rules_address`` with an internal address, as the service does."""

    async def get(request: mm.GetTicketRequest, context: Any) -> mm.GetTicketResponse:
        answer = mm.GetTicketResponse(ticket=ticket())
        answer.ticket.ticket_id = request.ticket_id
        return answer

    async def watch(request: mm.WatchTicketRequest, context: Any) -> AsyncIterator[Any]:
        for _ in range(2):
            yield mm.WatchTicketResponse(ticket=ticket())

    async with serving(SERVICE, {
        "GetTicket": grpc.unary_unary_rpc_method_handler(
            get, mm.GetTicketRequest.FromString, mm.GetTicketResponse.SerializeToString
        ),
        "WatchTicket": grpc.unary_stream_rpc_method_handler(
            watch, mm.WatchTicketRequest.FromString, mm.WatchTicketResponse.SerializeToString
        ),
    }) as address:
        yield address


@contextlib.asynccontextmanager
async def served(config: GatewayConfig | None = None) -> AsyncIterator[tuple[str, Any]]:
    """The gateway (``config``) in front of the fake matchmaking: its matchmaking URL prefix
    and an HTTP session."""
    async with (
        matchmaking() as upstream,
        bare_gateway(config or GatewayConfig(port=0), {"matchmaking": upstream}) as url,
        aiohttp.ClientSession() as http,
    ):
        yield f"{url}/{SERVICE}", http


def frames(body: bytes) -> list[tuple[int, bytes]]:
    out, at = [], 0
    while at < len(body):
        flags, length = struct.unpack_from(">BI", body, at)
        out.append((flags, body[at + 5 : at + 5 + length]))
        at += 5 + length
    return out


def envelope(data: bytes) -> bytes:
    return struct.pack(">BI", 0, len(data)) + data


async def test_rules_address_is_blank_in_every_answer_form() -> None:
    async with (
        matchmaking() as upstream,
        bare_gateway(GatewayConfig(port=0), {"matchmaking": upstream}) as url,
        aiohttp.ClientSession() as http,
    ):
        path = f"{url}/{SERVICE}"
        # the upstream does send it: the gateway is what blanks it
        async with grpc.aio.insecure_channel(upstream) as channel:
            direct = await channel.unary_unary(
                f"/{SERVICE}/GetTicket",
                mm.GetTicketRequest.SerializeToString,
                mm.GetTicketResponse.FromString,
            )(mm.GetTicketRequest(ticket_id="t1"))
        assert direct.ticket.assignment.rules_address == INTERNAL

        async with http.post(f"{path}/GetTicket", json={"ticketId": "t1"}) as r:
            text = await r.text()
            assert r.status == 200, text
        got = json.loads(text)["ticket"]["assignment"]
        assert got["rulesAddress"] == "" and got["matchId"] == "m1", got
        assert [s["player"] for s in got["seats"]] == ["alice"], "the rest passes unchanged"

        async with http.post(
            f"{path}/GetTicket",
            data=mm.GetTicketRequest(ticket_id="t1").SerializeToString(),
            headers={"Content-Type": "application/proto"},
        ) as r:
            answer = mm.GetTicketResponse.FromString(await r.read())
        assert answer.ticket.assignment.rules_address == ""
        assert answer.ticket.assignment.match_id == "m1"

        message = base64.urlsafe_b64encode(b'{"ticketId":"t1"}').decode().rstrip("=")
        async with http.get(
            f"{path}/GetTicket?connect=v1&encoding=json&base64=1&message={message}"
        ) as r:
            text = await r.text()
            assert r.status == 200, text
        assert json.loads(text)["ticket"]["assignment"]["rulesAddress"] == ""

        for ctype, body in (
            ("application/connect+json", envelope(b'{"ticketId":"t1"}')),
            (
                "application/connect+proto",
                envelope(mm.WatchTicketRequest(ticket_id="t1").SerializeToString()),
            ),
        ):
            async with http.post(
                f"{path}/WatchTicket", data=body, headers={"Content-Type": ctype}
            ) as r:
                raw = await r.read()
            got_frames = frames(raw)
            assert [f for f, _ in got_frames] == [0, 0, 2], raw
            for _, data in got_frames[:2]:
                if ctype.endswith("json"):
                    item = json.loads(data)["ticket"]["assignment"]
                    assert item["rulesAddress"] == "" and item["matchId"] == "m1"
                else:
                    item = mm.WatchTicketResponse.FromString(data).ticket.assignment
                    assert item.rules_address == "" and item.match_id == "m1"
            assert INTERNAL.encode() not in raw


# -- Content-Encoding ---------------------------------------------------------------------

JSON = {"Content-Type": "application/json"}


async def test_gzip_and_deflate_bodies_are_read() -> None:
    async with served() as (path, http):
        for coding, data in (
            ("gzip", gzip.compress(b'{"ticketId": "gz"}')),
            ("deflate", zlib.compress(b'{"ticketId": "df"}')),
            ("identity", b'{"ticketId": "id"}'),
        ):
            async with http.post(
                f"{path}/GetTicket", data=data, headers={**JSON, "Content-Encoding": coding}
            ) as r:
                got = await r.json()
                assert r.status == 200, got
            assert got["ticket"]["ticketId"] == {"gzip": "gz", "deflate": "df"}.get(coding, "id")


async def test_a_content_encoding_not_served_is_a_connect_unimplemented_without_traceback(
    caplog: Any,
) -> None:
    """br (aiohttp cannot read it without Brotli) was a text/plain 400 "Can not decode
    content-encoding" with aiohttp's traceback in the log; an unknown coding ("compress") was
    taken as identity. Each is now unimplemented, naming the codings served, for calls and
    uploads alike."""
    caplog.set_level(logging.DEBUG)
    async with served() as (path, http):
        base = path.rsplit("/", 1)[0]
        for coding in ("br", "zstd", "compress", "x-custom", "gzip, br"):
            for url, ctype in (
                (f"{path}/GetTicket", "application/json"),
                (f"{base}/api/replay", "application/octet-stream"),
            ):
                async with http.post(
                    url,
                    data=b"\x8b\x00garbage{}",
                    headers={"Content-Type": ctype, "Content-Encoding": coding},
                ) as r:
                    assert r.content_type == "application/json", (coding, await r.text())
                    err = await r.json()
                assert (r.status, err["code"]) == (501, "unimplemented"), (coding, err)
                assert "gzip" in err["message"] and "identity" in err["message"], err
                assert "gzip" in r.headers["Accept-Encoding"]
    logged = [
        rec
        for rec in caplog.records
        if rec.exc_info or "Traceback" in rec.getMessage() or rec.name.startswith("aiohttp")
    ]
    assert not logged, [rec.getMessage() for rec in logged]


async def test_bad_or_oversized_compressed_bodies_get_a_clear_error() -> None:
    async with served(GatewayConfig(port=0, max_message_bytes=1 << 20)) as (path, http):
        async with http.post(
            f"{path}/GetTicket",
            data=b"not gzip at all",
            headers={**JSON, "Content-Encoding": "gzip"},
        ) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument") and "gzip" in err["message"]
        truncated = gzip.compress(b'{"ticketId": "t"}')[:-6]
        async with http.post(
            f"{path}/GetTicket", data=truncated, headers={**JSON, "Content-Encoding": "gzip"}
        ) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument"), err
        bomb = gzip.compress(b" " * (20 << 20))  # 20 MiB of spaces in about 20 KB
        assert len(bomb) < 100_000
        async with http.post(
            f"{path}/GetTicket", data=bomb, headers={**JSON, "Content-Encoding": "gzip"}
        ) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (429, "resource_exhausted"), err
        assert str(1 << 20) in err["message"], err
        # a stream's messages are never compressed here: Connect-Content-Encoding says so
        async with http.post(
            f"{path}/WatchTicket",
            data=envelope(b'{"ticketId":"t1"}'),
            headers={
                "Content-Type": "application/connect+json",
                "Connect-Content-Encoding": "gzip",
            },
        ) as r:
            raw = await r.read()
            assert r.status == 200
        ((flags, end),) = frames(raw)
        assert flags == 2 and json.loads(end)["error"]["code"] == "unimplemented", end
        # and the gateway goes on
        async with http.post(f"{path}/GetTicket", json={"ticketId": "ok"}) as r:
            assert r.status == 200 and (await r.json())["ticket"]["ticketId"] == "ok"


# -- unknown JSON fields -------------------------------------------------------------------


async def test_unknown_json_fields_are_ignored_unless_configured_otherwise() -> None:
    """proto3 JSON leaves it to the server; Connect servers (connect-go) and protobuf's binary
    form ignore them, so a client built from newer protos works with an older deployment."""
    body = {"ticketId": "t9", "fieldFromTheFuture": {"x": 1}}
    async with served() as (path, http), http.post(f"{path}/GetTicket", json=body) as r:
        got = await r.json()
        assert r.status == 200 and got["ticket"]["ticketId"] == "t9", got
    strict = load_config({"NEON_GATEWAY_REJECT_UNKNOWN_FIELDS": "1"})
    assert strict.reject_unknown_fields and not load_config({}).reject_unknown_fields
    async with served(GatewayConfig(port=0, reject_unknown_fields=True)) as (path, http):
        async with http.post(f"{path}/GetTicket", json=body) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument"), err
        assert "fieldFromTheFuture" in err["message"]
        async with http.post(
            f"{path}/WatchTicket",
            data=envelope(json.dumps(body).encode()),
            headers={"Content-Type": "application/connect+json"},
        ) as r:
            ((flags, end),) = frames(await r.read())
        assert json.loads(end)["error"]["code"] == "invalid_argument"


@pytest.mark.parametrize("config", [GatewayConfig(port=0),
                                    GatewayConfig(port=0, reject_unknown_fields=True)])
async def test_a_field_sent_under_both_its_names_is_refused_in_every_form(
    config: GatewayConfig,
) -> None:
    """``{"ticketId": "mine", "ticket_id": "theirs"}``: proto3 JSON takes either spelling of
    a field, and protobuf's Python parser took the last of the two silently, so what a proxy,
    a WAF or a log line read ("mine") was not what the service was asked ("theirs", echoed
    back by the upstream). Refused as ``invalid_argument`` naming both keys, as protojson
    (connect-go) refuses it; a POST, a Connect GET and a stream's message alike, and the
    upstream is never called."""
    both = b'{"ticketId": "mine", "ticket_id": "theirs"}'
    async with served(config) as (path, http):
        async with http.post(f"{path}/GetTicket", data=both,
                             headers={"Content-Type": "application/json"}) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument"), err
        assert "'ticketId'" in err["message"] and "'ticket_id'" in err["message"], err
        async with http.get(f"{path}/GetTicket",
                            params={"encoding": "json", "message": both.decode()}) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument"), err
        async with http.post(f"{path}/WatchTicket", data=envelope(both),
                             headers={"Content-Type": "application/connect+json"}) as r:
            ((flags, end),) = frames(await r.read())
        assert r.status == 200 and flags == 2
        assert json.loads(end)["error"]["code"] == "invalid_argument", end
        # one spelling, either one, is served as before
        for one in ({"ticketId": "mine"}, {"ticket_id": "mine"}):
            async with http.post(f"{path}/GetTicket", json=one) as r:
                got = await r.json()
            assert r.status == 200 and got["ticket"]["ticketId"] == "mine", got


@pytest.mark.parametrize("ranked_by", [True, 1.5, "2", " 1 ", "ranked_by_ordinal", [1]])
async def test_an_enum_value_that_is_neither_a_name_nor_a_number_is_refused(
    ranked_by: Any,
) -> None:
    """proto3 JSON takes an enum's name or its number. protobuf's Python parser took whatever
    ``int()`` takes (``true`` as 1, ``1.5`` as 1, ``"2"`` as 2), so a careless client's
    ``"rankedBy": true`` asked for a ranking it never named. Refused as protojson (connect-go)
    refuses it, naming the enum's values; the upstream is never called."""
    asked: list[bytes] = []

    async def leaderboard(request: bytes, context: Any) -> bytes:
        asked.append(request)
        return b""

    async with (
        serving("neon.scoring.v1.ScoringService",
                {"GetLeaderboard": grpc.unary_unary_rpc_method_handler(leaderboard)}) as up,
        bare_gateway(GatewayConfig(port=0), {"scoring": up}) as url,
        aiohttp.ClientSession() as http,
    ):
        path = f"{url}/neon.scoring.v1.ScoringService/GetLeaderboard"
        async with http.post(path, json={"game": "g", "rankedBy": ranked_by}) as r:
            err = await r.json()
        assert (r.status, err["code"]) == (400, "invalid_argument"), err
        assert "RANKED_BY_BEST_SCORE" in err["message"], err
        assert asked == []
        for good in ("RANKED_BY_BEST_SCORE", 2, 2.0):  # a name, a number
            async with http.post(path, json={"game": "g", "ranked_by": good}) as r:
                assert r.status == 200, await r.text()
        assert len(asked) == 3


async def test_a_stream_message_sent_without_its_envelope_is_told_so() -> None:
    """A careless client posts the stream's JSON as it would a unary call's, without the
    envelope: its first byte (``{``, 0x7b) read as the flags holds the compressed bit, and
    the answer was ``unimplemented`` "compressed envelopes are not supported", sending the
    client after compression. It is ``invalid_argument`` naming the envelope, in the stream's
    end message (HTTP 200, as every refused stream)."""
    async with served() as (path, http):
        for body in (b'{"ticketId": "t1"}', b'  {"ticketId": "t1"}'):
            async with http.post(f"{path}/WatchTicket", data=body,
                                 headers={"Content-Type": "application/connect+json"}) as r:
                ((flags, end),) = frames(await r.read())
            assert r.status == 200 and flags == 2
            error = json.loads(end)["error"]
            assert error["code"] == "invalid_argument", error
            assert "envelope" in error["message"] and "compress" not in error["message"], error
        # the same message in its envelope is served
        async with http.post(f"{path}/WatchTicket", data=envelope(b'{"ticketId": "t1"}'),
                             headers={"Content-Type": "application/connect+json"}) as r:
            got = frames(await r.read())
        assert [f for f, _ in got] == [0, 0, 2] and "error" not in json.loads(got[-1][1])


# -- Connect GET ---------------------------------------------------------------------------


async def test_read_only_calls_answer_connect_get_requests() -> None:
    async with served() as (path, http):
        # JSON, percent-encoded, parameters in any order, unknown ones allowed
        async with http.get(
            f"{path}/GetTicket",
            params={
                "message": '{"ticketId":"g1"}',
                "encoding": "json",
                "connect": "v1",
                "utm_source": "x",
            },
        ) as r:
            got = await r.json()
            assert r.status == 200 and r.content_type == "application/json", got
            assert got["ticket"]["ticketId"] == "g1"
            assert r.headers["Cache-Control"] == "no-cache"
            assert "Authorization" in r.headers["Vary"]
        # binary protobuf, URL-safe base64 without padding, gzip-compressed
        raw = gzip.compress(
            mm.GetTicketRequest(
                ticket_id="g2\xff?".encode("latin-1").decode("latin-1")
            ).SerializeToString()
        )
        message = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        async with http.get(
            f"{path}/GetTicket?connect=v1&base64=1&compression=gzip"
            f"&encoding=proto&message={message}"
        ) as r:
            assert r.status == 200 and r.content_type == "application/proto", await r.text()
            answer = mm.GetTicketResponse.FromString(await r.read())
        assert answer.ticket.ticket_id == "g2\xff?"
        # a token: the answer may be that caller's own; never kept by a shared cache
        async with http.get(
            f"{path}/GetTicket",
            params={"encoding": "json", "message": '{"ticketId":"g3"}'},
            headers={"Authorization": "Bearer whatever"},
        ) as r:
            assert r.status == 200
            assert r.headers["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("encoding=json&message=%7B%22ticketId%22%3A5%7D", 400, "invalid_argument"),
        ("message=%7B%7D", 415, "invalid_argument"),
        ("encoding=xml&message=%7B%7D", 415, "invalid_argument"),
        ("encoding=json&base64=1&message=%21%21", 400, "invalid_argument"),
        ("encoding=json&base64=1&message=e30+", 400, "invalid_argument"),
        ("encoding=json&compression=br&message=x", 501, "unimplemented"),
        ("encoding=json&compression=gzip&base64=1&message=bm90Z3ppcA", 400, "invalid_argument"),
        ("connect=v2&encoding=json&message=%7B%7D", 400, "invalid_argument"),
    ],
)
async def test_a_bad_get_request_gets_a_connect_error(query: str, status: int, code: str) -> None:
    async with served() as (path, http), http.get(f"{path}/GetTicket?{query}") as r:
        err = await r.json()
        assert (r.status, err["code"]) == (status, code), err
        assert err["message"] and r.headers["Cache-Control"] == "no-store"


async def test_get_is_refused_for_calls_with_side_effects_and_streams() -> None:
    async with served() as (path, http):
        for name in ("CancelTicket", "WatchTicket", "AcceptMatch"):
            async with http.get(f"{path}/{name}?encoding=json&message=%7B%7D") as r:
                err = await r.json()
                assert (r.status, err["code"]) == (405, "unimplemented"), err
                assert "POST" in err["message"] and r.headers["Allow"] == "POST"
        base = path.rsplit("/", 1)[0]
        async with http.get(f"{base}/nothing.here/Method") as r:
            assert r.status == 404 and (await r.json())["code"] == "not_found"


async def test_get_answers_may_be_cached_for_the_configured_time() -> None:
    """Kept by a shared cache for get_max_age, per origin (CORS) and per token."""
    assert load_config({"NEON_GATEWAY_GET_MAX_AGE": "5"}).get_max_age == 5
    config = GatewayConfig(port=0, get_max_age=5, cors_origins=("http://app.example",))
    async with (
        served(config) as (path, http),
        http.get(
            f"{path}/GetTicket?encoding=json&message=%7B%7D",
            headers={"Origin": "http://app.example"},
        ) as r,
    ):
        assert r.status == 200
        assert r.headers["Cache-Control"] == "public, max-age=5"
        assert r.headers["Access-Control-Allow-Origin"] == "http://app.example"
        vary = {v.strip() for v in r.headers["Vary"].split(",")}
        assert vary == {"Origin", "Authorization"}, r.headers["Vary"]


# -- the per-client call rate ----------------------------------------------------------------


@pytest.fixture
def still(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The gateway's call buckets on a clock that stands still unless the test moves it
    (``still[0] += seconds``): on a loaded machine two calls a second apart would otherwise
    find a token back, and a refusal the test expects would not come."""
    from services.gateway import app as gateway_app

    now = [1000.0]
    real = gateway_app.TokenBuckets
    monkeypatch.setattr(gateway_app, "TokenBuckets",
                        lambda rate, burst: real(rate, burst, clock=lambda: now[0]))
    return now


async def test_the_call_rate_of_each_client_is_limited_with_retry_after(still: list[float]) -> None:
    config = GatewayConfig(port=0, calls_per_second=2, call_burst=3, trusted_proxies=("127.0.0.1",))
    async with served(config) as (path, http):
        base = path.rsplit("/", 1)[0]
        got = []
        for _ in range(3):  # the burst
            async with http.post(f"{path}/GetTicket", json={"ticketId": "r"}) as r:
                got.append(r.status)
        assert got == [200, 200, 200]
        async with http.post(f"{path}/GetTicket", json={"ticketId": "r"}) as r:
            err = await r.json()
            assert (r.status, err["code"]) == (429, "resource_exhausted"), err
            assert r.headers["Retry-After"] == "1" and "2 a second" in err["message"]
        # every kind of call counts, and each is refused in its own form
        async with http.get(f"{path}/GetTicket?encoding=json&message=%7B%7D") as r:
            assert r.status == 429 and r.headers["Retry-After"] == "1"
        async with http.post(
            f"{path}/WatchTicket",
            data=envelope(b'{"ticketId":"t1"}'),
            headers={"Content-Type": "application/connect+json"},
        ) as r:
            raw = await r.read()
            assert r.status == 200 and r.headers["Retry-After"] == "1"
        ((flags, end),) = frames(raw)
        assert json.loads(end)["error"]["code"] == "resource_exhausted"
        for url in (f"{base}/api/replay", f"{base}/api/games/toy/matches/m1/replay"):
            async with http.post(url, data=b"{}") as r:
                assert r.status == 429 and (await r.json())["code"] == "resource_exhausted"
        # another client (behind the trusted proxy) has its own bucket; the pages are free
        async with http.post(
            f"{path}/GetTicket", json={"ticketId": "r"}, headers={"X-Forwarded-For": "203.0.113.9"}
        ) as r:
            assert r.status == 200
        async with http.get(f"{base}/healthz") as r:
            assert r.status == 200
        still[0] += 0.6  # a token back at 2 a second
        async with http.post(f"{path}/GetTicket", json={"ticketId": "r"}) as r:
            assert r.status == 200


async def test_an_untrusted_forwarded_for_does_not_make_another_client(still: list[float]) -> None:
    async with served(GatewayConfig(port=0, calls_per_second=1, call_burst=1)) as (path, http):
        async with http.post(f"{path}/GetTicket", json={}) as r:
            assert r.status == 200
        async with http.post(
            f"{path}/GetTicket", json={}, headers={"X-Forwarded-For": "198.51.100.1"}
        ) as r:
            assert r.status == 429


async def test_there_is_no_call_rate_limit_by_default() -> None:
    assert load_config({}).calls_per_second == 0
    config = load_config({"NEON_GATEWAY_CALLS_PER_SECOND": "10"})
    assert (config.calls_per_second, config.burst) == (10, 20)
    assert (
        load_config({"NEON_GATEWAY_CALLS_PER_SECOND": "10", "NEON_GATEWAY_CALL_BURST": "3"}).burst
        == 3
    )
    with pytest.raises(ValueError, match="NEON_GATEWAY_CALLS_PER_SECOND"):
        load_config({"NEON_GATEWAY_CALLS_PER_SECOND": "fast"})
    async with served() as (path, http):
        for _ in range(60):
            async with http.post(f"{path}/GetTicket", json={}) as r:
                assert r.status == 200


ONE_A_SECOND_BEHIND_A_PROXY = GatewayConfig(port=0, calls_per_second=1, call_burst=1,
                                            trusted_proxies=("127.0.0.1",))


def forwarded_status(http: Any, path: str) -> Any:
    """A GetTicket's HTTP status, sent through the trusted proxy for the client ``hop``."""

    async def status(hop: str) -> int:
        async with http.post(
            f"{path}/GetTicket", json={"ticketId": "r"}, headers={"X-Forwarded-For": hop}
        ) as r:
            return int(r.status)

    return status


async def test_an_ipv6_client_cannot_pass_the_call_rate_by_changing_its_address(still: list[float]) -> None:
    """An IPv6 host holds a whole /64 (2^64 addresses it may send from: SLAAC privacy
    addresses change by themselves): counted per address, each new one had a full bucket, so
    the limit held nobody back. An IPv6 client is counted by its /64; IPv4 by its address."""
    async with served(ONE_A_SECOND_BEHIND_A_PROXY) as (path, http):
        status = forwarded_status(http, path)
        assert await status("2001:db8:1:2::1") == 200
        assert await status("2001:db8:1:2::2") == 429, "the same /64: the same client"
        assert await status("2001:db8:1:2:ffff:ffff:ffff:fffe") == 429
        assert await status("2001:db8:1:3::1") == 200, "another /64: another client"
        assert await status("198.51.100.1") == 200
        assert await status("198.51.100.2") == 200, "IPv4: each address its own client"


async def test_a_forwarded_hop_with_a_port_is_the_client_without_it(still: list[float]) -> None:
    """Some proxies write the client's hop with its source port (Azure's Application Gateway:
    ``X-Forwarded-For: 198.51.100.1:50213``; IPv6 as ``[2001:db8::1]:50213``). Taken as it
    was written, each new connection of one client (a new source port) was a new client with
    a full bucket: no limit at all behind such a proxy."""
    async with served(ONE_A_SECOND_BEHIND_A_PROXY) as (path, http):
        status = forwarded_status(http, path)
        assert await status("198.51.100.1:50213") == 200
        assert await status("198.51.100.1:50214") == 429, "another port: the same client"
        assert await status("198.51.100.1") == 429
        assert await status("[2001:db8:1:2::1]:443") == 200
        assert await status("[2001:db8:1:2::2]:444") == 429, "the same /64: the same client"
        assert await status("[2001:db8:1:2::3]") == 429


async def test_deeply_nested_json_is_invalid_argument_not_a_crash() -> None:
    """JSON nested past the parser's depth (a few KB of ``[``) is ``invalid_argument``, in a
    unary call, a Connect GET and a stream's message alike: the path that skips unknown fields
    let Python's RecursionError out, answered as a bare 500 with a logged traceback."""
    deep = b'{"ticketId":' + b"[" * 5000 + b"]" * 5000 + b"}"
    async with served() as (path, http):
        async with http.post(
            f"{path}/GetTicket", data=deep, headers={"Content-Type": "application/json"}
        ) as r:
            assert r.status == 400, await r.text()
            err = await r.json()
            assert err["code"] == "invalid_argument" and "nested" in err["message"], err
        message = base64.urlsafe_b64encode(b"[" * 3000).decode().rstrip("=")
        async with http.get(f"{path}/GetTicket?encoding=json&base64=1&message={message}") as r:
            assert r.status == 400, await r.text()
            assert (await r.json())["code"] == "invalid_argument"
        async with http.post(
            f"{path}/WatchTicket",
            data=envelope(deep),
            headers={"Content-Type": "application/connect+json"},
        ) as r:
            raw = await r.read()
            assert r.status == 200
        ((flags, end),) = frames(raw)
        assert json.loads(end)["error"]["code"] == "invalid_argument"
        # the gateway still answers
        async with http.post(f"{path}/GetTicket", json={"ticketId": "r"}) as r:
            assert r.status == 200


async def test_a_web_client_of_another_origin_may_compress_and_read_retry_after(still: list[float]) -> None:
    """CORS lets an allowed origin's script use what the gateway serves it: a compressed
    request body (``Content-Encoding`` is not a safelisted request header: its preflight must
    allow it, or the browser never sends the call) and the ``Retry-After`` of a refused call
    (not a safelisted response header: hidden from the script unless exposed)."""
    origin = "http://app.example"
    config = GatewayConfig(port=0, cors_origins=(origin,), calls_per_second=1, call_burst=1)
    async with served(config) as (path, http):
        async with http.options(
            f"{path}/GetTicket",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-encoding,content-type",
            },
        ) as r:
            assert r.status == 204
            allowed = {h.strip() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
            assert {"content-encoding", "content-type"} <= allowed, allowed
        body = gzip.compress(b'{"ticketId":"z"}')
        headers = {"Origin": origin, "Content-Encoding": "gzip", "Content-Type": "application/json"}
        async with http.post(f"{path}/GetTicket", data=body, headers=headers) as r:
            assert r.status == 200 and (await r.json())["ticket"]["ticketId"] == "z"
        async with http.post(f"{path}/GetTicket", data=body, headers=headers) as r:
            assert r.status == 429 and r.headers["Retry-After"] == "1"
            exposed = {
                h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")
            }
            assert "retry-after" in exposed


@pytest.mark.parametrize("body", [b"null", b"1", b"true", b"2.5", b"[]", b'"x"'])
@pytest.mark.parametrize("reject_unknown", [False, True])
async def test_a_json_message_that_is_not_an_object_is_invalid_argument(
    body: bytes, reject_unknown: bool
) -> None:
    """A Connect JSON message is a JSON object. ``null`` or a number, posted, sent as a Connect
    GET's message or as a stream's message, raised a TypeError past the handler (a bare 500,
    a traceback logged), and ``[]`` was taken for an empty request."""
    config = GatewayConfig(port=0, reject_unknown_fields=reject_unknown)
    async with served(config) as (path, http):
        async with http.post(
            f"{path}/GetTicket", data=body, headers={"Content-Type": "application/json"}
        ) as r:
            assert r.status == 400, await r.text()
            err = await r.json()
            assert err["code"] == "invalid_argument" and "object" in err["message"], err
        async with http.get(
            f"{path}/GetTicket", params={"encoding": "json", "message": body.decode()}
        ) as r:
            assert r.status == 400, await r.text()
            assert (await r.json())["code"] == "invalid_argument"
        async with http.post(
            f"{path}/WatchTicket",
            data=envelope(body),
            headers={"Content-Type": "application/connect+json"},
        ) as r:
            raw = await r.read()
            assert r.status == 200
        ((flags, end),) = frames(raw)
        assert flags == 2 and json.loads(end)["error"]["code"] == "invalid_argument"
        # an empty body is still the empty message, as Connect has it
        async with http.post(
            f"{path}/GetTicket", data=b"", headers={"Content-Type": "application/json"}
        ) as r:
            assert r.status == 200, await r.text()
