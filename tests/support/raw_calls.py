"""Walking every method of every service over real gRPC, with raw request bytes: what the
tests that try each method with garbage bodies or each kind of token send. One backend
serves every service (the toy engine's rules)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc

from services.cli.backend import Backend, start_backend
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from services.platform.grpc_kit import call_metadata
from tests.support import toy

SERVICES = [(rules_pb2, "rules-toy"), (dice_pb2, "dice"), (matchmaking_pb2, "matchmaking"),
            (scoring_pb2, "scoring"), (tournament_pb2, "tournament")]
"""Each generated module with the backend's name of the service that serves it."""


async def every_service(tmp_path: Path, nats_url: str) -> Backend:
    """A backend of every service on ports of its own (rules for the toy engine), on the
    real NATS."""
    from tests.integration.conftest import make_settings

    settings = make_settings(tmp_path, nats_url)
    settings = dataclasses.replace(
        settings, ports={**settings.ports, "tournament": 0, "matchmaking": 0, "scoring": 0})
    return await start_backend(settings, games=[], embedded_nats=False,
                               engines={"toy": toy.ENGINE}, scoring=True, matchmaking=True,
                               tournament=True)


async def every_method(backend: Backend, order: Callable[[Any], Any] | None = None
                       ) -> AsyncIterator[tuple[grpc.aio.Channel, Any, str]]:
    """(channel, method descriptor, path) of every method of every service of ``backend``,
    service by service (``order``: a sort key for one service's methods)."""
    for module, name in SERVICES:
        for service in module.DESCRIPTOR.services_by_name.values():
            async with grpc.aio.insecure_channel(backend.services[name].address) as channel:
                methods = sorted(service.methods, key=order) if order else service.methods
                for method in methods:
                    yield channel, method, f"/{service.full_name}/{method.name}"


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
