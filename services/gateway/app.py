"""The gateway's HTTP application: Connect calls forwarded to the services over gRPC, the
viewer's static files, and replays of finished matches.

Routes:
  POST /games/<game>/neon.rules.v1.RulesService/<Method>   a game's rules service
  POST /neon.<area>.v1.<Service>/<Method>                  matchmaking, scoring, tournament,
                                                           public dice
  GET  the same paths, for the read-only calls             Connect GET (``methods.READ_ONLY``)
  GET  /api/games                                          the games behind this gateway
  POST /api/replay                                         an uploaded export, verified
  POST /api/games/<game>/matches/<id>/replay               a finished match, from its service
  GET  /  and /static/...                                  the viewer
  GET  /healthz
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import json
import logging
import uuid
from pathlib import Path
from typing import Any

import grpc
from aiohttp import http_exceptions, web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.log import server_logger
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server
from google.protobuf.message import DecodeError
from structlog.contextvars import bound_contextvars

from services.gateway import connect
from services.gateway.config import GatewayConfig, client_address
from services.gateway.connect import ConnectError
from services.gateway.methods import Method, public_methods
from services.gateway.ratelimit import TokenBuckets, retry_after
from services.gateway.replay_cache import Answer, ReplayCache
from services.gateway.replays import MAX_EXPORT_BYTES, replay_report
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.export_chunks import (
    ENVELOPE_BYTES,
    BrokenExport,
    ExportTooLarge,
    check_answer,
    check_closing,
    read_export_chunks,
    refused_size,
)
from services.platform.grpc_kit import RECONNECT_OPTIONS, REQUEST_ID
from services.platform.logs import get_logger
from services.platform.stream_limits import (
    CLIENT_METADATA,
    CLIENT_VALUE,
    Refused,
    StreamCounter,
)

STATIC = Path(__file__).parent / "static"
JSON = "application/json"
PROTO = "application/proto"
STREAM_JSON = "application/connect+json"
STREAM_PROTO = "application/connect+proto"
log = get_logger("gateway")
CONFIG = web.AppKey("config", GatewayConfig)
CLIENT = web.RequestKey("client", tuple)
"""The request's client (``Gateway._client``), kept on the request once worked out."""
DISCONNECT_POLL = 0.5
"""Seconds between checks that a stream's HTTP client is still connected (aiohttp does not
cancel a handler whose client went away: a quiet stream would hold its slot and its upstream
call until the next message)."""


STALLED_WRITE = 60.0
"""Seconds a stream's message may wait for its HTTP client to take it; then the stream ends
(its upstream call cancelled, its connection closed). A client that never read, its
connection open, held its slot, its upstream call and the messages buffered for it (gRPC's
window: megabytes) for as long as it liked."""


ANSWER_BYTES = 4 * 1024 * 1024
"""The largest answer message the gateway takes from an upstream (gRPC's default): the
exports pass it for a long match or tournament, and are served in parts by their
``...Chunks`` server streams."""


class Upstreams:
    """One gRPC channel per upstream address, opened on first use, reconnecting as the
    services' own channels do (``RECONNECT_OPTIONS``: within a second of an upstream coming
    back; with gRPC's default backoff, growing to two minutes, every web client was answered
    ``unavailable`` that long after a rules service restarted)."""

    def __init__(self, addresses: dict[str, str]) -> None:
        self.addresses = addresses
        self._channels: dict[str, grpc.aio.Channel] = {}

    def games(self) -> list[str]:
        return sorted(
            name.removeprefix("rules-") for name in self.addresses if name.startswith("rules-")
        )

    def channel(self, service: str) -> grpc.aio.Channel:
        if service not in self.addresses:
            what = (
                f"game {service.removeprefix('rules-')!r}"
                if service.startswith("rules-")
                else service
            )
            raise ConnectError(
                "not_found",
                f"this gateway does not reach {what}; it serves "
                f"games {', '.join(self.games()) or 'none'}",
            )
        if service not in self._channels:
            self._channels[service] = grpc.aio.insecure_channel(self.addresses[service], options=[
                ("grpc.max_receive_message_length", ANSWER_BYTES), *RECONNECT_OPTIONS])
        return self._channels[service]

    def export_channel(self, service: str) -> grpc.aio.Channel:
        """A channel of its own to ``service`` for ExportMatch answers (rules services of an
        earlier release only; opened on first use), whose receive limit takes an export of
        up to ``MAX_EXPORT_BYTES``, as the chunks do, and the answer's other fields (gRPC's
        default, 4 MiB, refused a smaller export than the stream takes, in its own words)."""
        self.channel(service)  # an upstream this gateway reaches, or not_found
        key = f"{service} exports"
        if key not in self._channels:
            self._channels[key] = grpc.aio.insecure_channel(self.addresses[service], options=[
                ("grpc.max_receive_message_length", MAX_EXPORT_BYTES + ENVELOPE_BYTES),
                *RECONNECT_OPTIONS])
        return self._channels[key]

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()


def _codec(request: web.Request, streaming: bool) -> str:
    """ "json" or "proto" from the content type; anything else is refused with 415."""
    ctype = request.content_type.lower()
    wanted = (
        {STREAM_JSON: "json", STREAM_PROTO: "proto"}
        if streaming
        else {JSON: "json", PROTO: "proto"}
    )
    if ctype not in wanted:
        # an answer like every other error (JSON, CORS headers), not an exception past the
        # middleware; the client's content type is not echoed (JSON of it is the body's job)
        accepted = ", ".join(wanted)
        raise ConnectError(
            "invalid_argument",
            f"content-type must be one of {accepted}" + ("" if ctype else ", and none was sent"),
            status=415, headers=(("Accept-Post", accepted),),
        )
    return wanted[ctype]


PROTOCOL_VERSION = "1"


def _check_protocol_version(request: web.Request) -> None:
    """A POST's ``Connect-Protocol-Version`` is 1 or absent (as a GET's ``connect`` query is
    v1 or absent): another is a protocol this gateway does not speak, ``invalid_argument``
    as connect-go answers it."""
    values = [v for v in request.headers.getall("Connect-Protocol-Version", []) if v]
    if values and values != [PROTOCOL_VERSION]:
        if len(values) > 1:
            sent = f" (sent {len(values)} times)"
        elif len(values[0]) <= 16 and _carried(values[0]):
            sent = f", not {values[0]!r}"
        else:
            sent = ""
        raise ConnectError("invalid_argument",
                           f"connect-protocol-version must be {PROTOCOL_VERSION}{sent}")


def _check_stream_coding(request: web.Request) -> None:
    """A stream's messages are not compressed here: ``Connect-Content-Encoding`` is identity
    or absent (a compressed envelope is refused by ``connect.single_envelope``)."""
    value = request.headers.get("Connect-Content-Encoding")
    if value is not None and value.strip().lower() not in ("", "identity"):
        raise ConnectError(
            "unimplemented",
            "compressed stream messages are not supported: "
            "send them with Connect-Content-Encoding identity",
            headers=(("Connect-Accept-Encoding", "identity"),),
        )


IPV6_CLIENT_PREFIX = 64
"""An IPv6 client is counted by its /64: one host or home network holds a whole /64 (privacy
addresses change by themselves), so counted by address each call could come from a new one,
with a full bucket and no stream open."""


def counted_as(address: str) -> str:
    """The key a client ``address`` is counted by (calls, streams, replays, uploads): an IPv4
    address itself (an IPv4-mapped IPv6 one as IPv4), an IPv6 address its /64, anything else
    (not an address) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_CLIENT_PREFIX), strict=False))
    return str(ip)


def _timeout(request: web.Request, default: float | None) -> float | None:
    raw = request.headers.get("connect-timeout-ms")
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10 or int(raw) == 0:
        raise ConnectError("invalid_argument", "connect-timeout-ms must be a positive integer "
                           "of at most 10 digits (milliseconds)")
    return int(raw) / 1000


def _carried(value: str) -> bool:
    """Whether gRPC metadata can carry ``value`` (printable ASCII)."""
    return value.isascii() and value.isprintable()


def client_metadata(client: str) -> str:
    """The :data:`CLIENT_METADATA` value naming a client counted as ``client`` (``counted_as``):
    the key itself, or, for one that the services would not take (``CLIENT_VALUE``: a
    forwarded hop that is not an address, too long or not printable ASCII), a digest of it,
    so that it is still one client there."""
    if CLIENT_VALUE.match(client):
        return client
    return "sha256:" + hashlib.sha256(client.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def _passed_metadata(request: web.Request, request_id: str,
                     client: str) -> list[tuple[str, str]]:
    """The caller's ``authorization`` as gRPC metadata, which carries printable ASCII only
    (another is a malformed token: unauthenticated, as the services answer one),
    ``request_id``: the caller's ``x-request-id`` when the services keep it (``call``),
    else the gateway's own, so that the gateway and the service log the same one, and
    ``client``, the address the gateway counts the caller by, as :data:`CLIENT_METADATA`:
    a service that trusts this gateway (NEON_TRUSTED_GATEWAYS) counts a tokenless stream
    against that client rather than against the gateway's host. It is always the gateway's
    own: nothing else of the HTTP request (an ``X-Neon-Client`` header) is passed on."""
    metadata = []
    values = request.headers.getall("authorization", [])
    if len(values) > 1:
        # HTTP has one Authorization header; with more, a proxy or a log before the gateway
        # may have taken another caller than the one passed on (the first)
        raise ConnectError(
            "unauthenticated", f"send one authorization header, not {len(values)}")
    value = values[0] if values else None
    if value is not None:
        if not _carried(value):
            raise ConnectError(
                "unauthenticated", "authorization must be 'Bearer <token>' in printable ASCII"
            )
        metadata.append(("authorization", value))
    metadata.append(("x-request-id", request_id))
    metadata.append((CLIENT_METADATA, client_metadata(client)))
    return metadata


def _error_response(err: ConnectError) -> web.Response:
    return web.json_response(err.body(), status=err.http_status, headers=dict(err.headers))


def _stream_refused(err: ConnectError, codec: str) -> web.Response:
    """A server stream refused before it started, as Connect has it: HTTP 200, the stream's
    content type and only the end-of-stream message with the error (a Connect client reads
    no body from another status: the code and the reason would be lost); the error's own
    headers (``Retry-After``) too."""
    return web.Response(body=connect.end_of_stream(err), headers=dict(err.headers),
                        content_type=STREAM_JSON if codec == "json" else STREAM_PROTO)


async def read_body(request: web.Request, limit: int, timeout: float) -> bytes:
    """The request's body, at most ``limit`` bytes, arrived within ``timeout`` seconds: a
    larger one is ``resource_exhausted`` as soon as it says so (Content-Length) or passes the
    limit (chunked, or decompressed), never buffered whole; a body still arriving after
    ``timeout`` (slowloris) is ``deadline_exceeded``, HTTP 408. Either way the rest of the
    body is not read: the connection closes after the answer (``_close_unread``).

    A body in a ``Content-Encoding`` of ``connect.CODINGS`` (gzip, deflate) is decompressed
    here, to at most ``limit`` bytes too (aiohttp's own decompression is off: it answered a
    coding it cannot read, br, with a text/plain 400 and a logged traceback); any other
    coding is ``unimplemented`` before the body is read."""
    coding = connect.content_coding(request.headers.get("Content-Encoding"))
    length = request.content_length
    if length is not None and length > limit:
        raise ConnectError("resource_exhausted",
                           f"the request body of {length} bytes exceeds the limit of {limit} bytes")
    chunks, size = [], 0
    try:
        async with asyncio.timeout(timeout):
            while chunk := await request.content.readany():
                size += len(chunk)
                if size > limit:
                    raise ConnectError("resource_exhausted",
                                       f"the request body exceeds the limit of {limit} bytes")
                chunks.append(chunk)
    except TimeoutError:
        raise ConnectError("deadline_exceeded", f"the request body did not arrive within "
                           f"{timeout:g} s", status=408) from None
    except ConnectionResetError:
        # the client went away before its body arrived (a closed tab): an answer nobody
        # hears, not an error with a traceback in the log (aiohttp's, which any client
        # could fill)
        raise ConnectError("canceled", "the client went away before its request body "
                           "arrived", status=499) from None
    return connect.decompress(b"".join(chunks), coding, limit)


def _upstream(service: str) -> str:
    """An upstream in words: "the rules service of toy", "the scoring service"."""
    return (f"the rules service of {service.removeprefix('rules-')}"
            if service.startswith("rules-") else f"the {service} service")


def upstream_error(err: grpc.aio.AioRpcError, service: str, request_id: str = "",
                   in_parts: str = "") -> ConnectError:
    """The Connect error for an upstream's status; gRPC's own reason about the connection or
    a crash (the upstream's address, an exception's words) is logged here, not sent on. An
    answer past ``ANSWER_BYTES`` (gRPC's "Received message larger than max (N vs. M)") is
    said in words, naming ``in_parts``, the server stream that sends it in parts, if any:
    resource_exhausted is HTTP 429, which clients take for "try again later"."""
    size = (refused_size(err.details() or "")
            if err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED else None)
    if size is not None:
        log.warning("upstream answer too large", service=service, size=size)
        instead = f"; {in_parts}, a server stream, sends it in parts" if in_parts else ""
        return ConnectError(
            "resource_exhausted",
            f"{_upstream(service)} answered {size:,} bytes, more than this gateway passes on "
            f"in one answer ({ANSWER_BYTES:,}): asking again gets the same{instead}")
    answer = ConnectError.from_grpc(err, _upstream(service), request_id)
    if answer.message != (err.details() or ""):
        log.warning("upstream failed", service=service, code=answer.code, reason=err.details())
    return answer


def _unreadable(err: DecodeError, service: str, request_id: str) -> ConnectError:
    """An upstream's answer that is not the message it should be (a service of another
    release): ``internal`` naming the service; protobuf's words are logged, not sent on."""
    log.warning("upstream answer unreadable", service=service, reason=str(err))
    return ConnectError("internal", f"{_upstream(service)} sent an answer this gateway "
                        f"cannot read (request id {request_id})")


UPLOAD_REPLAYS = 2
"""Uploaded exports verified and stepped through at once by one gateway process; another
upload meanwhile is answered resource_exhausted (429) at once, not queued."""

SERVICE_REPLAYS = 4
"""Replays from the services (an export asked, verified and stepped through) one gateway
process computes at once, whoever asks; more wait their turn (``ReplayCache``), each client
still at most ``config.max_replays_per_client`` at once."""

UPLOADS_PER_CLIENT = 1
"""Of those, the uploads of one client (by address, as ``Gateway._admit`` counts it): one
client sending uploads back to back does not hold every slot."""

UPLOADS_RECEIVING = 4
"""Uploads one gateway process takes at once in all, from their first byte to their answer
(each body up to ``MAX_EXPORT_BYTES``, buffered whole): another is answered
resource_exhausted (429) before its body is read. Per client alone, clients from many
addresses (an IPv6 /48 holds 65,536 /64s) each had one buffered at once."""


class Gateway:
    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        service_token: Any = None,
        public_key: str | None = None,
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.methods = public_methods()
        self.services = {path.split("/")[1] for path in self.methods}
        self.service_token = service_token
        """() -> a service token, for exporting finished matches (None: no replays from the
        services)."""
        self.public_key = public_key
        self.streams = StreamCounter()
        """Open server streams by client address (config.max_streams_per_client each)."""
        self.uploading = StreamCounter(
            UPLOADS_RECEIVING, "{limit} uploads are being received or replayed now: try "
            "again shortly")
        """Uploads by client address, from their first byte to their answer (at most
        UPLOADS_PER_CLIENT each, UPLOADS_RECEIVING in all)."""
        self.uploads = StreamCounter(
            UPLOAD_REPLAYS, "{limit} uploaded exports are being replayed now: try again shortly")
        """Uploaded exports being verified and stepped through now (UPLOAD_REPLAYS in all:
        each holds a worker thread and up to seconds of CPU); a slow upload holds none."""
        self.replays = ReplayCache(config.replay_cache_bytes, SERVICE_REPLAYS)
        """Replay answers of sealed matches, and the replays in progress, shared."""
        self.calls = StreamCounter()
        """Unary calls in progress by client address (config.max_calls_per_client each)."""
        self.replays_running = StreamCounter()
        """Replays from the services in progress by client address
        (config.max_replays_per_client each)."""
        self.buckets = (
            TokenBuckets(config.calls_per_second, config.burst) if config.calls_per_second else None
        )
        """Calls by client address (config.calls_per_second each; None: no limit)."""

    def _client(self, request: web.Request) -> tuple[str, str]:
        """The request's client, by address (found as ``client_address`` finds it, trusted
        proxies' X-Forwarded-For included; an IPv6 one by its /64, ``counted_as``): worked
        out once a request (its rate, its stream or upload count and x-neon-client ask)."""
        found: tuple[str, str] | None = request.get(CLIENT)
        if found is None:
            found = request[CLIENT] = ("client", counted_as(client_address(
                request.remote, request.headers.getall("X-Forwarded-For", []),
                self.config.trusted_proxies)))
        return found

    def _rate_refusal(self, request: web.Request) -> ConnectError | None:
        """Take one of the client's calls (``config.calls_per_second``): None when it had
        one, else the resource_exhausted answer, with Retry-After."""
        if self.buckets is None:
            return None
        wait = self.buckets.take(self._client(request))
        if not wait:
            return None
        after = retry_after(wait)
        return ConnectError(
            "resource_exhausted",
            f"too many calls from this address ({self.config.calls_per_second} a second, "
            f"{self.config.burst} at once); try again in {after} s",
            headers=(("Retry-After", after),),
        )

    def _admit(self, request: web.Request, counter: StreamCounter, limit: int,
               reason: str) -> tuple[str, str]:
        """Count one more of ``counter``'s calls for the request's client address
        (``_client``), or refuse it with resource_exhausted and ``reason`` past ``limit``;
        the key to release."""
        client = self._client(request)
        try:
            counter.acquire(client, limit, reason)
        except Refused as refused:
            raise ConnectError("resource_exhausted", refused.reason) from None
        return client

    # -- Connect ----------------------------------------------------------------------------

    async def _method(self, request: web.Request) -> tuple[Method, str]:
        game = request.match_info.get("game")
        path = f"/{request.match_info['service']}/{request.match_info['method']}"
        method = self.methods.get(path)
        if method is None and (request.method == "GET"
                               or request.match_info["service"] not in self.services):
            # as for any other GET not served; not a service of this API at all (a mistyped
            # package, a file, a page's API with another method): no such path, or 405
            raise await self._not_served(request)
        if method is None:
            grpc_only = (" (Play, a bidirectional stream, is gRPC only)"
                         if request.match_info["method"] == "Play" else "")
            raise ConnectError("unimplemented", f"no method {path[1:]} here{grpc_only}")
        if method.service == "rules":
            if not game:
                raise ConnectError(
                    "not_found",
                    "rules calls name their game: POST "
                    f"/games/<game>{path} (games: {', '.join(self.upstreams.games())})",
                )
            return method, f"rules-{game}"
        if game:
            raise ConnectError("not_found", f"{path[1:]} is not a game's call; POST {path}")
        return method, method.service

    async def call(self, request: web.Request) -> web.StreamResponse:
        given = request.headers.get("x-request-id", "")
        # as the services keep one (printable ASCII, 1-128): else they log another id than
        # the one the gateway logs and names in its reasons
        request_id = given if REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        with bound_contextvars(request_id=request_id, path=request.path):
            stream_codec = ""  # once the call is a server stream in a stream's content type
            get = request.method == "GET"
            try:
                refused = self._rate_refusal(request)
                method, service = await self._method(request)
                if get:
                    codec, body = self._get_message(request, method)
                else:
                    codec = _codec(request, method.server_streaming)
                    if method.server_streaming:
                        stream_codec = codec
                        _check_stream_coding(request)
                    _check_protocol_version(request)
                if refused is not None:
                    raise refused
                # the headers are judged before the body is read: a request they refuse is
                # answered at once, not after its body arrived (or timed out)
                metadata = _passed_metadata(request, request_id, self._client(request)[1])
                timeout = _timeout(request, None if method.server_streaming
                                   else self.config.unary_timeout)
                # a unary call counts from before its body is read to its answer
                # (config.max_calls_per_client); a stream counts in self.streams
                unary = None if method.server_streaming else self._admit(
                    request, self.calls, self.config.max_calls_per_client,
                    "too many calls from this address waiting for their answers ({limit}); "
                    "wait for one first")
                try:
                    if not get:
                        body = await read_body(
                            request,
                            self.config.max_message_bytes
                            + (connect.HEADER.size if method.server_streaming else 0),
                            self.config.body_timeout,
                        )
                    channel = self.upstreams.channel(service)
                    if method.server_streaming:
                        raw = connect.single_envelope(body, self.config.max_message_bytes)
                        raw = self._decode(method, raw, codec)
                        client = self._admit(
                            request, self.streams, self.config.max_streams_per_client,
                            "too many open streams from this address ({limit}); close one first",
                        )
                        try:
                            return await self._stream(request, method, channel, raw, codec, metadata,
                                                      service, request_id, timeout)
                        finally:
                            self.streams.release(client)
                    raw = self._decode(method, body, codec)
                    answer = await self._unary(
                        request, method, channel, raw, codec, metadata, service, request_id,
                        timeout,
                    )
                finally:
                    if unary is not None:
                        self.calls.release(unary)
            except ConnectError as err:
                log.info("call refused", code=err.code, reason=err.message)
                if stream_codec:
                    return _stream_refused(err, stream_codec)
                answer = _error_response(err)
            if get:
                self._cache_headers(request, answer)
            return answer

    def _decode(self, method: Method, body: bytes, codec: str) -> bytes:
        if codec == "json":
            return method.decode_json(body, not self.config.reject_unknown_fields)
        return method.check_binary(body)

    def _get_message(self, request: web.Request, method: Method) -> tuple[str, bytes]:
        """A Connect GET's codec and message; a call that is not ``read_only`` is 405."""
        if not method.read_only:
            raise ConnectError(
                "unimplemented",
                f"{method.full_name} is not a read-only unary call: POST it",
                status=405,
                headers=(("Allow", "POST"),),
            )
        return connect.get_message(request.query, self.config.max_message_bytes)

    def _cache_headers(self, request: web.Request, answer: web.StreamResponse) -> None:
        """A GET answer's caching: only a success without a token may be kept by a shared
        cache (``config.get_max_age``); one with a token (a seat's view) never is."""
        if "authorization" in request.headers:
            answer.headers["Cache-Control"] = "private, no-store"
        elif answer.status != 200:
            answer.headers["Cache-Control"] = "no-store"
        else:
            max_age = self.config.get_max_age
            answer.headers["Cache-Control"] = (
                f"public, max-age={max_age}" if max_age else "no-cache"
            )
            add_vary(answer.headers, "Authorization")

    async def _unary(
        self,
        request: web.Request,
        method: Method,
        channel: grpc.aio.Channel,
        raw: bytes,
        codec: str,
        metadata: list[tuple[str, str]],
        service: str,
        request_id: str,
        timeout: float | None,
    ) -> web.Response:
        call = channel.unary_unary(method.path)(
            raw, metadata=metadata, timeout=timeout
        )
        watcher = asyncio.create_task(_cancel_when_gone(request, call))
        try:
            answer = await call
        except grpc.aio.AioRpcError as err:
            streamed = self.methods.get(method.path + "Chunks")
            in_parts = (streamed.full_name.rsplit("/", 1)[1]
                        if streamed is not None and streamed.server_streaming else "")
            return _error_response(upstream_error(err, service, request_id, in_parts))
        except asyncio.CancelledError:
            if _being_cancelled():
                call.cancel()
                raise
            # the watcher cancelled the call: its client went away, nobody hears an answer
            log.info("call cancelled", reason="the client disconnected")
            return web.Response(status=499)
        finally:
            watcher.cancel()
        try:
            if codec == "json":
                return web.Response(body=method.encode_json(answer), content_type=JSON)
            return web.Response(body=method.encode_binary(answer), content_type=PROTO)
        except DecodeError as err:
            return _error_response(_unreadable(err, service, request_id))

    async def _stream(
        self,
        request: web.Request,
        method: Method,
        channel: grpc.aio.Channel,
        raw: bytes,
        codec: str,
        metadata: list[tuple[str, str]],
        service: str,
        request_id: str,
        timeout: float | None,
    ) -> web.StreamResponse:
        call = channel.unary_stream(method.path)(
            raw, metadata=metadata, timeout=timeout
        )
        response = web.StreamResponse(
            headers={
                "Content-Type": STREAM_JSON if codec == "json" else STREAM_PROTO,
                **cors_headers(self.config, request.headers.get("Origin", "")),
            }
        )
        await response.prepare(request)
        error: ConnectError | None = None
        watcher = asyncio.create_task(_cancel_when_gone(request, call))
        try:
            async for item in call:
                message = connect.envelope(
                    method.encode_json(item) if codec == "json" else method.encode_binary(item))
                try:
                    async with asyncio.timeout(STALLED_WRITE):
                        await response.write(message)
                except TimeoutError:
                    log.info("stream ended", reason=f"its client took nothing for "
                             f"{STALLED_WRITE:g} s")
                    call.cancel()
                    if request.transport is not None:
                        request.transport.abort()  # nothing more can be written to it
                    return response
        except grpc.aio.AioRpcError as err:
            error = upstream_error(err, service, request_id)
        except DecodeError as err:
            error = _unreadable(err, service, request_id)
        except ConnectionError:
            # the client went away and a write found out before the watcher's poll (reset,
            # or "Connection lost" for a write that waited on a client that stopped reading):
            # the stream is over for nobody to hear (no traceback in the log for a closed tab)
            call.cancel()
            return response
        except asyncio.CancelledError:
            call.cancel()
            if watcher.done() and not _being_cancelled():
                return response  # the client went away and the watcher ended the call
            raise
        finally:
            call.cancel()
            watcher.cancel()
        with contextlib.suppress(ConnectionError):
            await response.write(connect.end_of_stream(error))
            await response.write_eof()
        return response

    # -- the viewer's API -------------------------------------------------------------------

    async def games(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "games": self.upstreams.games(),
                "replays_from_service": self.service_token is not None,
            }
        )

    async def replay_upload(self, request: web.Request) -> web.Response:
        try:
            refused = self._rate_refusal(request)
            if refused is not None:
                raise refused
            # counted from its first byte: a client's uploads are not buffered (up to 32 MiB
            # each) side by side before the count would see them
            client = self._admit(request, self.uploading, UPLOADS_PER_CLIENT,
                                 "an upload from this address is being replayed now: send the "
                                 "next when it has been answered")
        except ConnectError as err:
            return _error_response(err)
        try:
            data = await read_body(request, MAX_EXPORT_BYTES, self.config.body_timeout)
            if not data:
                raise ConnectError("invalid_argument", "send the export file as the request body")
            try:
                self.uploads.acquire(None, 0, "")
            except Refused as refused:
                raise ConnectError("resource_exhausted", refused.reason) from None
            try:
                report = await asyncio.to_thread(replay_report, data, self.public_key)
            finally:
                self.uploads.release(None)
        except ConnectError as err:
            return _error_response(err)
        finally:
            self.uploading.release(client)
        return web.json_response(report)

    async def replay_match(self, request: web.Request) -> web.Response:
        game, match_id = request.match_info["game"], request.match_info["match_id"]
        try:
            refused = self._rate_refusal(request)
            if refused is not None:
                raise refused
            if self.service_token is None:
                raise ConnectError(
                    "unimplemented",
                    "this gateway does not fetch exports; upload the export file instead",
                )
            kept = self.replays.kept((game, match_id))
            if kept is not None:  # costs nothing: not counted against the client
                return _json_answer(kept)
            client = self._admit(
                request, self.replays_running, self.config.max_replays_per_client,
                "too many replays at once from this address ({limit}); wait for one to end",
            )
            try:
                body = await self.replays.answer(
                    (game, match_id), lambda: self._replay_from_service(game, match_id)
                )
            finally:
                self.replays_running.release(client)
        except ConnectError as err:
            return _error_response(err)
        except grpc.aio.AioRpcError as err:
            return _error_response(upstream_error(err, f"rules-{game}"))
        return _json_answer(body)

    async def _replay_from_service(self, game: str, match_id: str) -> Answer:
        """The replay answer of a match that has ended, from its export (the service token's);
        final (to be kept) when the match is sealed and its export verified."""
        assert self.service_token is not None
        channel = self.upstreams.channel(f"rules-{game}")
        view = await channel.unary_unary(
            "/neon.rules.v1.RulesService/GetView",
            request_serializer=rules_pb2.GetViewRequest.SerializeToString,
            response_deserializer=rules_pb2.GetViewResponse.FromString,
        )(rules_pb2.GetViewRequest(match_id=match_id), timeout=self.config.unary_timeout)
        if view.status != rules_pb2.MATCH_STATUS_ENDED:
            raise ConnectError(
                "failed_precondition",
                "the match is not over: watch it live; its replay opens when it has ended",
            )
        data = await self._export_of(channel, game, match_id)
        return await asyncio.to_thread(_replay_answer, data, self.public_key)

    async def _export_of(self, channel: grpc.aio.Channel, game: str, match_id: str) -> bytes:
        """A match's export, streamed in chunks (ExportMatchChunks: a long match's export
        passes gRPC's 4 MiB message limit, which a single ExportMatch answer would hit), at
        most ``MAX_EXPORT_BYTES`` (more: ``resource_exhausted``, the rest not read); from a
        rules service that does not serve the chunks yet, ExportMatch. A stream whose chunks
        do not make up what it announced, or whose export's closing checkpoint names another
        final hash or event count than announced, and an ExportMatch answer whose export's
        checkpoint names another than the answer does, are ``unavailable`` with the reason
        (and, raised, never kept as the match's replay)."""
        assert self.service_token is not None
        metadata = [("authorization", f"Bearer {self.service_token()}")]
        call = channel.unary_stream(
            "/neon.rules.v1.RulesService/ExportMatchChunks",
            request_serializer=rules_pb2.ExportMatchChunksRequest.SerializeToString,
            response_deserializer=rules_pb2.ExportMatchChunksResponse.FromString,
        )(rules_pb2.ExportMatchChunksRequest(match_id=match_id), metadata=metadata,
          timeout=self.config.unary_timeout)
        parts: list[bytes] = []
        try:
            head = await read_export_chunks(call, parts.append, MAX_EXPORT_BYTES)
            data = b"".join(parts)
            check_closing(data, head)
        except ExportTooLarge as err:
            raise _too_large(err.total) from None
        except BrokenExport as err:
            raise _arrived_broken(err) from None
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            return await self._export_whole(game, match_id, metadata)
        return data

    async def _export_whole(self, game: str, match_id: str,
                            metadata: list[tuple[str, str]]) -> bytes:
        """ExportMatch (a rules service of an earlier release), within the stream's limit:
        gRPC refuses an answer past ``MAX_EXPORT_BYTES + ENVELOPE_BYTES`` (unread), and an
        export past ``MAX_EXPORT_BYTES`` that fits is refused here, both
        ``resource_exhausted`` as a stream announcing as much is; an answer whose export does
        not close with the hash and count it names is ``unavailable``."""
        try:
            exported = await self.upstreams.export_channel(f"rules-{game}").unary_unary(
                "/neon.rules.v1.RulesService/ExportMatch",
                request_serializer=rules_pb2.ExportMatchRequest.SerializeToString,
                response_deserializer=rules_pb2.ExportMatchResponse.FromString,
            )(rules_pb2.ExportMatchRequest(match_id=match_id), metadata=metadata,
              timeout=self.config.unary_timeout)
        except grpc.aio.AioRpcError as err:
            size = refused_size(err.details() or "")
            if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or size is None:
                raise
            raise _too_large(size, "in an ExportMatch answer of ") from None
        try:
            return check_answer(exported, MAX_EXPORT_BYTES)[0]
        except ExportTooLarge as err:
            raise _too_large(err.total) from None
        except BrokenExport as broken:
            raise _arrived_broken(broken) from None

    # -- the rest ---------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def static_file(self, request: web.Request) -> web.StreamResponse:
        """One of the viewer's files (``static/``, no folders), or not_found in JSON like
        every other refusal (aiohttp's own static files answered a missing file with an empty
        ``application/octet-stream`` 404 and ``/static/`` with a text 403)."""
        path = STATIC / request.match_info["name"]
        try:
            served = path.resolve().parent == STATIC.resolve() and path.is_file()
        except (OSError, ValueError):  # a name no file can have (a NUL, too long)
            served = False
        if not served:
            return await self.not_found(request)
        return web.FileResponse(path)

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def not_found(self, request: web.Request) -> web.Response:
        """No route for the request's method and path: 405 with ``Allow`` when the path is
        served with other methods (a page's API, a Connect call), else 404."""
        return _error_response(await self._not_served(request))

    async def _not_served(self, request: web.Request) -> ConnectError:
        allowed = await self._allowed(request)
        if allowed:
            allow = ", ".join(sorted(allowed))
            return ConnectError(
                "unimplemented", f"{request.method} is not served at {request.path}: use {allow}",
                status=405, headers=(("Allow", allow),))
        return ConnectError("not_found", f"nothing at {request.method} {request.path}")

    async def _allowed(self, request: web.Request) -> set[str]:
        """The methods the request's path is served with (none: the path is not there). A
        Connect path counts only for a method of this API: POST, and GET for a read-only
        call."""
        allowed: set[str] = set()
        for resource in request.app.router.resources():
            canonical = resource.canonical
            if canonical in ("/{tail:.*}", "/static/{name}"):
                continue  # the viewer's files: not there by another method either
            if "{service}" in canonical:
                under_game = canonical.startswith("/games/")
                if (request.path.count("/") != canonical.count("/")
                        or under_game != request.path.startswith("/games/")
                        or "//" in request.path):  # an empty game (or service) matches no route
                    continue
                method = self.methods.get("/" + "/".join(request.path.rsplit("/", 2)[1:]))
                if method is None or (method.service == "rules") != under_game:
                    continue
                allowed |= {"POST", "GET"} if method.read_only else {"POST"}
                continue
            match, methods = await resource.resolve(request)
            if match is None:
                allowed |= methods
        return allowed


def _too_large(size: int, what: str = "") -> ConnectError:
    """A match's export past what a replay takes (a stream's announced, an ExportMatch
    answer's): ``resource_exhausted`` with the size and the limit."""
    return ConnectError(
        "resource_exhausted",
        f"the match's export is {what}{size:,} bytes, more than a replay takes here "
        f"({MAX_EXPORT_BYTES:,}); check it with neon export and neon verify")


def _arrived_broken(err: BrokenExport) -> ConnectError:
    """A match's export that arrived broken (a stream's or an ExportMatch answer's):
    ``unavailable`` with the reason."""
    return ConnectError("unavailable", f"the match's export arrived broken ({err}); "
                                       "try again shortly")


def _json_answer(body: bytes) -> web.Response:
    """A JSON answer of ``body``, as ``web.json_response`` sends one."""
    return web.Response(body=body, content_type=JSON, charset="utf-8")


def _replay_answer(data: bytes, public_key: str | None) -> Answer:
    """The answer for a match's export (the bytes ``web.json_response`` would send), final
    when the export verified and was stepped through to its seal: a sealed match's export
    never changes. An ended match whose seal waits fails verification ("not sealed") for now,
    an answer that will change. Anyone may ask for it and did not send the export: its
    reasons are the public ones (``replays.public_reason``), never a hidden value they quote."""
    report = replay_report(data, public_key, fetched=True)
    frames = report["frames"]
    final = (report["verification"]["ok"] and not report["stopped"] and bool(frames)
             and frames[-1]["type"] == "MatchSealed")
    return Answer(json.dumps(report).encode(), final)


async def _cancel_when_gone(request: web.Request, call: Any) -> None:
    """Cancel the upstream ``call`` once the HTTP client has disconnected."""
    while not call.done():
        await asyncio.sleep(DISCONNECT_POLL)
        transport = request.transport
        if transport is None or transport.is_closing():
            call.cancel()
            return


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


@web.middleware
async def cors(request: web.Request, handler: Any) -> web.StreamResponse:
    config = request.app[CONFIG]
    origin = request.headers.get("Origin", "")
    allowed = config.allows(origin)
    if request.method == "OPTIONS" and origin:  # a preflight (without an Origin: 405)
        if not allowed:
            return _error_response(
                ConnectError("permission_denied", "CORS is not allowed for this origin"))
        response: web.StreamResponse = web.Response(status=204)
    else:
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            # a request target no route can match, the catch-all included (``OPTIONS *``,
            # a CONNECT's authority): not found in JSON, as every other path
            response = _error_response(ConnectError(
                "not_found", f"nothing at {request.method} {request.path[:200]}"))
    if not response.prepared:  # a stream set its own before it started
        for key, value in cors_headers(config, origin).items():
            if key == "Vary":
                add_vary(response.headers, value)
            else:
                response.headers[key] = value
    return response


def add_vary(headers: Any, name: str) -> None:
    """Add ``name`` to the ``Vary`` of ``headers`` (kept with the names already there)."""
    names = [v.strip() for v in headers.get("Vary", "").split(",") if v.strip()]
    if name.lower() not in (v.lower() for v in names):
        headers["Vary"] = ", ".join([*names, name])


def cors_headers(config: GatewayConfig, origin: str) -> dict[str, str]:
    """The CORS headers for a request from ``origin``; none when CORS is off, and only
    ``Vary: Origin`` for an origin not allowed (the answer depends on the Origin even when it
    carries no CORS headers: a shared cache must not hand it to an allowed one)."""
    if not config.allows(origin):
        return {"Vary": "Origin"} if config.cors_origins else {}
    return {
        "Access-Control-Allow-Origin": "*" if "*" in config.cors_origins else origin,
        "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "authorization, content-type, content-encoding, "
        "connect-protocol-version, connect-timeout-ms, x-request-id",
        # Retry-After of a refused call (the call rate) is not a safelisted response header
        "Access-Control-Expose-Headers": "Retry-After",
        "Access-Control-Max-Age": "600",
        "Vary": "Origin",
    }


PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
               "frame-ancestors 'none'")
"""The pages' Content-Security-Policy: they hold an organiser's token (the desk keeps it in
sessionStorage) and act with it, so only the gateway's own scripts run, and no other site
frames them (a framed desk could be clicked into ending a tournament)."""


SERVER = "neon-gateway"
"""Every answer's Server header."""


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer, streams included (prepared before a middleware would see them). An
    answer to a request with a token (a seat's view, legal actions or events, a refusal) is
    never kept by a cache, POST included: a proxy or CDN set to keep POST answers would hand
    a seat's hand to the next client."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    if "authorization" in request.headers:
        # a stream: "private" (no shared cache keeps it): with "no-store" the browser's
        # DevTools protocol never gave a stream's body (what the browser tests' leak scan
        # reads), and a stream is never a cache's to keep in the first place
        response.headers["Cache-Control"] = "private, no-store" \
            if isinstance(response, web.Response) else "private"
    response.headers["Server"] = SERVER  # not aiohttp's, naming its and Python's versions
    if request.method == "GET":  # the pages and their files
        response.headers["Content-Security-Policy"] = PAGE_POLICY
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"


async def _close_unread(request: web.Request, response: web.StreamResponse) -> None:
    """An answer given before the request's body was read (refused for its size, its time,
    its path or content type) closes the connection: aiohttp would otherwise read on and
    throw away the rest of the body (up to its lingering time) to reuse the connection."""
    if not request.content.is_eof():
        response.force_close()


BAD_HTTP = (
    (http_exceptions.LineTooLong, "the request line or a header is longer than the gateway "
     "takes (8190 bytes)"),
    (http_exceptions.InvalidHeader, "a header is not valid HTTP"),
    (http_exceptions.BadHttpMethod, "the request's method is not an HTTP method"),
    (http_exceptions.BadStatusLine, "the request line is not valid HTTP/1.1"),
    (http_exceptions.InvalidURLError, "the request's URL is not valid"),
    (http_exceptions.PayloadEncodingError, "the request body's framing (its chunks or "
     "Content-Length) is not valid HTTP"),
)
"""What is wrong with a request aiohttp could not parse, in the gateway's words by the kind
of error: aiohttp's own words quote the request's bytes (a header line with its token, the
first 100 bytes of a line too long)."""


def bad_http_reason(exc: BaseException | None) -> str:
    for kind, reason in BAD_HTTP:
        if isinstance(exc, kind):
            return reason
    return "the request is not valid HTTP"


class _ServerLog(logging.LoggerAdapter):
    """aiohttp's server logger, less the client's mistakes: a request that is not valid HTTP
    (a line past the limit, a header without a colon, a broken chunk) is answered 400 by
    ``_RequestHandler`` and logged here at info, one line without a traceback or the
    request's bytes; aiohttp logged each at ERROR with its traceback, which any client could
    repeat for free. Anything else (a handler that failed) is logged as aiohttp logs it."""

    def exception(self, msg: object, *args: object, exc_info: Any = True,
                  **kwargs: Any) -> None:
        if isinstance(exc_info, HttpProcessingError):
            log.info("bad HTTP request refused", status=exc_info.code,
                     kind=type(exc_info).__name__, reason=bad_http_reason(exc_info))
            return
        super().exception(msg, *args, exc_info=exc_info, **kwargs)


class _RequestHandler(RequestHandler):
    """aiohttp's connection handler, answering what it answers itself (a request it cannot
    parse, a handler that raised) as a Connect error in JSON with ``nosniff``, like every
    other answer of the gateway: aiohttp's text/plain answer quoted the request's bytes back
    (an Authorization header's token among them)."""

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)  # logs; raises when already sent
        if status == 500:
            err = ConnectError("internal", "the gateway failed to answer this request")
        elif status == 504:
            err = ConnectError("deadline_exceeded", "the gateway did not answer in time")
        else:
            err = ConnectError("invalid_argument", bad_http_reason(exc), status=status)
        answer = web.json_response(err.body(), status=status,
                                   headers={"X-Content-Type-Options": "nosniff",
                                            "Server": SERVER})
        answer.force_close()
        return answer


class _Server(Server):
    def __call__(self) -> RequestHandler:
        return _RequestHandler(self, loop=self._loop, **self._kwargs)


class _Runner(web.AppRunner):
    async def _make_server(self) -> Server:
        server = await super()._make_server()
        # aiohttp has no setting for its connection handler's class. Swapped only where the
        # server is the one _Server.__call__ knows (aiohttp 3.11-3.14): an aiohttp that
        # made it otherwise keeps its own handler (its text/plain 400s) rather than fail
        # every connection
        if type(server) is Server and hasattr(server, "_kwargs") and hasattr(server, "_loop"):
            server.__class__ = _Server
        else:
            log.warning("aiohttp's connection handler kept: malformed HTTP is answered in "
                        "aiohttp's words", server=type(server).__name__)
        return server


def runner(app: web.Application, config: GatewayConfig) -> web.AppRunner:
    """The app's runner: a connection whose request's headers do not arrive within
    ``config.idle_timeout`` is closed (aiohttp's keep-alive timeout, 3630 s by default, is
    its only limit on a request's headers). Request bodies are decompressed by ``read_body``,
    not by aiohttp. Malformed HTTP is not an error in the log (``_ServerLog``) and is
    answered in Connect's JSON (``_RequestHandler``)."""
    return _Runner(app, access_log=None, shutdown_timeout=1.0,
                   keepalive_timeout=config.idle_timeout, auto_decompress=False,
                   logger=_ServerLog(server_logger, {}))


def build_app(gateway: Gateway) -> web.Application:
    app = web.Application(client_max_size=MAX_EXPORT_BYTES + 1024, middlewares=[cors])
    app[CONFIG] = gateway.config
    app.on_response_prepare.append(_security_headers)
    app.on_response_prepare.append(_close_unread)
    app.router.add_get("/", gateway.index)
    app.router.add_get("/healthz", gateway.healthz)
    app.router.add_get("/api/games", gateway.games)
    app.router.add_post("/api/replay", gateway.replay_upload)
    app.router.add_post("/api/games/{game}/matches/{match_id}/replay", gateway.replay_match)
    app.router.add_get("/static/{name}", gateway.static_file)
    app.router.add_post("/games/{game}/{service}/{method}", gateway.call)
    app.router.add_post("/{service}/{method}", gateway.call)
    app.router.add_get("/games/{game}/{service}/{method}", gateway.call, allow_head=False)
    app.router.add_get("/{service}/{method}", gateway.call, allow_head=False)
    app.router.add_route("*", "/{tail:.*}", gateway.not_found)
    return app
