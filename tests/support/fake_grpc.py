"""A fake gRPC upstream for integration tests: the given method handlers of one service,
served over a real socket on 127.0.0.1 (a free port), for as long as the context lasts."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc


@contextlib.asynccontextmanager
async def serving(service: str, handlers: Mapping[str, Any]) -> AsyncIterator[str]:
    """Serve ``handlers`` (method name -> ``grpc.*_rpc_method_handler``) as ``service``
    (e.g. "neon.rules.v1.RulesService"); its address, "127.0.0.1:PORT". A method left out
    is UNIMPLEMENTED, as a service of an earlier release answers it."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(service, dict(handlers))])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)
