"""One call of any gRPC method by its descriptor, with raw request bytes: what a test that
walks every method of every service sends (garbage bodies, each kind of token)."""

from __future__ import annotations

from typing import Any

import grpc

from services.platform.grpc_kit import call_metadata


async def raw_call(channel: grpc.aio.Channel, method: Any, path: str, payload: bytes,
                   token: str | None, timeout: float = 5) -> tuple[str, str]:
    """(status code name, details) of calling ``path`` (``method``: its descriptor, for its
    kind) with ``payload``; a stream is read to its first message and cancelled. ``OK``, ""
    when it answered."""
    metadata = call_metadata(token)
    try:
        if method.client_streaming and method.server_streaming:
            call = channel.stream_stream(path)(iter([payload]), metadata=metadata, timeout=timeout)
            async for _ in call:
                break
            call.cancel()
        elif method.server_streaming:
            stream = channel.unary_stream(path)(payload, metadata=metadata, timeout=timeout)
            async for _ in stream:
                break
            stream.cancel()
        else:
            await channel.unary_unary(path)(payload, metadata=metadata, timeout=timeout)
    except grpc.aio.AioRpcError as err:
        return err.code().name, err.details() or ""
    return "OK", ""
