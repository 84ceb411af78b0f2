"""The Connect protocol's wire pieces, as pure functions: error codes, HTTP statuses,
server-stream envelopes and the end-of-stream message.

Spec: connectrpc.com/docs/protocol. Unary calls are a plain HTTP POST with a JSON (or binary
protobuf) body; a server stream answers with envelopes of ``flags (1 byte), length (4 bytes,
big-endian), message``, closed by an end-of-stream envelope (flag 0x02) that holds the status.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

import grpc

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

    @property
    def http_status(self) -> int:
        return HTTP_STATUS.get(self.code, 500)

    def body(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    @classmethod
    def from_grpc(cls, err: grpc.aio.AioRpcError) -> ConnectError:
        return cls(code_name(err.code()), err.details() or "")


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
    if flags & FLAG_COMPRESSED:
        raise ConnectError("unimplemented", "compressed envelopes are not supported")
    if flags != 0:
        raise ConnectError("invalid_argument", f"unexpected envelope flags {flags:#x}")
    if length > limit:
        raise ConnectError("resource_exhausted", f"message of {length} bytes exceeds {limit}")
    if len(body) != HEADER.size + length:
        raise ConnectError(
            "invalid_argument",
            f"envelope says {length} bytes, the body holds {len(body) - HEADER.size}",
        )
    return body[HEADER.size :]
