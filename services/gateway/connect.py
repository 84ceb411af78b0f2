"""The Connect protocol's wire pieces, as pure functions: error codes, HTTP statuses,
server-stream envelopes and the end-of-stream message.

Spec: connectrpc.com/docs/protocol. Unary calls are a plain HTTP POST with a JSON (or binary
protobuf) body; a server stream answers with envelopes of ``flags (1 byte), length (4 bytes,
big-endian), message``, closed by an end-of-stream envelope (flag 0x02) that holds the status.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import grpc

from services.platform.call_limits import asked_wait_ms

FLAG_COMPRESSED = 0x01
FLAG_END_STREAM = 0x02
HEADER = struct.Struct(">BI")

HTTP_STATUS = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}
"""Connect code -> HTTP status of a unary error (the Connect spec's table)."""


def code_name(code: grpc.StatusCode) -> str:
    """The Connect name of a gRPC status: INVALID_ARGUMENT -> invalid_argument."""
    return "canceled" if code == grpc.StatusCode.CANCELLED else code.name.lower()


@dataclass(frozen=True)
class ConnectError(Exception):
    code: str
    message: str
    status: int = 0
    """The HTTP status when not the code's (408 for a body that did not arrive, 415)."""
    headers: tuple[tuple[str, str], ...] = ()
    """More headers of the answer (Accept-Post with a 415)."""

    @property
    def http_status(self) -> int:
        return self.status or HTTP_STATUS.get(self.code, 500)

    def body(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    @classmethod
    def from_grpc(cls, err: grpc.aio.AioRpcError, what: str = "the service",
                  request_id: str = "") -> ConnectError:
        """The upstream's status and reason, unless the reason is gRPC's own about the
        connection or a crash (:func:`internal_reason`): then a plain one naming ``what``."""
        code, details = code_name(err.code()), err.details() or ""
        if internal_reason(code, details):
            ref = f" (request id {request_id})" if request_id else ""
            details = (f"{what} does not answer; try again shortly{ref}" if code == "unavailable"
                       else f"{what} failed{ref}")
        after = retry_after(err) if code == "resource_exhausted" else None
        return cls(code, details, headers=(("Retry-After", after),) if after else ())


def retry_after(err: grpc.aio.AioRpcError) -> str | None:
    """A call the upstream refused over its caller's rate (platform/call_limits.py: trailing
    metadata ``retry-after-ms``) as HTTP's Retry-After, whole seconds rounded up; None when
    the refusal carries no such wait."""
    wait_ms = asked_wait_ms(err)
    return None if wait_ms is None else str(max(1, math.ceil(wait_ms / 1000)))


INTERNAL_CODES = {"unavailable", "unknown", "internal", "data_loss", "canceled",
                  "deadline_exceeded", "resource_exhausted"}
"""Codes gRPC itself answers with (a connection that failed, a servicer that raised, ...)."""
INTERNAL_REASON = re.compile(
    r"ipv[46]:|unix:|dns:|\b(?:\d{1,3}\.){3}\d{1,3}\b|\[[0-9a-fA-F:.]*:[0-9a-fA-F:.]*\]"
    r"|failed to connect|DNS resolution|Socket closed|Connection (?:refused|reset)"
    r"|connections to all backends|Broken pipe|Unexpected <class|Exception calling application"
    r"|Exception (?:iterating|serializing|deserializing)|Traceback|File \"", re.IGNORECASE)
"""What gRPC's own reasons hold and a web client must not read: the upstream's address and
port ("failed to connect to all addresses; last error: ... ipv4:10.0.3.7:50061: ..."), a
servicer's exception with its words ("Unexpected <class 'RuntimeError'>: ...")."""


def internal_reason(code: str, details: str) -> bool:
    """Whether ``details`` of a ``code`` answer is gRPC's own about its connection or a crash
    (the services' reasons are their own words and pass unchanged)."""
    return code in INTERNAL_CODES and bool(INTERNAL_REASON.search(details))


def envelope(message: bytes, flags: int = 0) -> bytes:
    return HEADER.pack(flags, len(message)) + message


def end_of_stream(error: ConnectError | None = None) -> bytes:
    body: dict[str, object] = {"metadata": {}}
    if error is not None:
        body["error"] = error.body()
    return envelope(json.dumps(body).encode(), FLAG_END_STREAM)


def single_envelope(body: bytes, limit: int) -> bytes:
    """The one message of a server-stream request; anything else is ``invalid_argument``."""
    if len(body) < HEADER.size:
        raise ConnectError(
            "invalid_argument",
            "a streaming request body must be one Connect envelope (flags, 4-byte length, message)",
        )
    flags, length = HEADER.unpack_from(body)
    if flags & ~FLAG_COMPRESSED:
        # judged first: a message sent without its envelope ('{"matchId": ...}', flags
        # 0x7b) has the compressed bit among others, and was told compression is not
        # supported, or its "length" ('"mat') passed the limit
        raise ConnectError(
            "invalid_argument",
            f"unexpected envelope flags {flags:#x}: a streaming request body is one Connect "
            "envelope (flags 0, a 4-byte big-endian length, then the message); was the "
            "message sent without it?",
        )
    if flags & FLAG_COMPRESSED:
        raise ConnectError("unimplemented", "compressed envelopes are not supported")
    if length > limit:
        raise ConnectError("resource_exhausted", f"message of {length} bytes exceeds {limit}")
    if len(body) != HEADER.size + length:
        raise ConnectError(
            "invalid_argument",
            f"envelope says {length} bytes, the body holds {len(body) - HEADER.size}",
        )
    return body[HEADER.size :]


CODINGS = ("gzip", "deflate", "identity")
"""Content codings the gateway reads: a request body's ``Content-Encoding``, a Connect GET's
``compression``. Answers are never compressed."""
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def content_coding(value: str | None, what: str = "Content-Encoding") -> str:
    """The coding named by ``value`` (none: identity); one the gateway cannot read is
    ``unimplemented``, naming the ones it can (Connect: "servers should return an error with
    code unimplemented and a message listing the supported encodings")."""
    coding = (value or "identity").strip().lower() or "identity"
    if coding not in CODINGS:
        shown = value if value is not None and len(value) <= 40 and _carried(value) else "this"
        raise ConnectError(
            "unimplemented",
            f"{what} {shown!r} is not supported; use one of {', '.join(CODINGS)}",
            headers=(("Accept-Encoding", ", ".join(CODINGS)),),
        )
    return coding


def decompress(data: bytes, coding: str, limit: int) -> bytes:
    """``data`` decoded from ``coding``, at most ``limit`` bytes of it (more is
    ``resource_exhausted``, found without inflating the rest); broken or truncated data is
    ``invalid_argument``. Empty data stays empty (Connect: never decompressed)."""
    if coding == "identity" or not data:
        return data
    inflate = zlib.decompressobj(_WBITS[coding])
    try:
        out = inflate.decompress(data, limit + 1)
    except zlib.error:
        raise ConnectError("invalid_argument", f"the body is not valid {coding} data") from None
    if len(out) > limit:
        raise ConnectError(
            "resource_exhausted",
            f"the request body exceeds the limit of {limit} bytes decompressed",
        )
    if not inflate.eof or inflate.unused_data:
        raise ConnectError("invalid_argument", f"the body is not one complete {coding} stream")
    return out


def _carried(value: str) -> bool:
    return value.isascii() and value.isprintable()


def get_message(query: Mapping[str, str], limit: int) -> tuple[str, bytes]:
    """A Connect GET request's codec ("json" or "proto") and message bytes from its query
    (``connect=v1``, ``encoding``, ``message``, ``base64=1``, ``compression``; others are
    allowed and ignored, as the protocol says). A codec not served is HTTP 415."""
    version = query.get("connect")
    if version is not None and version != "v1":
        raise ConnectError("invalid_argument", "the connect query parameter must be v1")
    codec = query.get("encoding", "")
    if codec not in ("json", "proto"):
        raise ConnectError(
            "invalid_argument",
            "a GET request needs encoding=json or encoding=proto in its query",
            status=415,
        )
    coding = content_coding(query.get("compression"), "compression")
    text = query.get("message", "")
    if query.get("base64") == "1":
        try:
            raw = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError):
            raise ConnectError(
                "invalid_argument", "message is not URL-safe base64 (base64=1)"
            ) from None
    else:
        raw = text.encode("utf-8", "surrogateescape")
    if len(raw) > limit:
        raise ConnectError(
            "resource_exhausted",
            f"the message of {len(raw)} bytes exceeds the limit of {limit} bytes",
        )
    return codec, decompress(raw, coding, limit)
