"""The gateway in front of a test backend: started on a free port, stopped afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from services.cli.backend import Backend, start_backend
from services.gateway import main as gateway_main
from services.gateway.app import Gateway, Upstreams, build_app, runner
from services.gateway.config import GatewayConfig
from services.platform.settings import Settings


def upstreams(backend: Backend) -> dict[str, str]:
    """Every service of ``backend`` the gateway may call (all but NATS)."""
    return {k: v for k, v in backend.endpoints().items() if k != "nats"}


@contextlib.asynccontextmanager
async def gateway_for(
    backend: Backend,
    config: GatewayConfig | None = None,
    addresses: dict[str, str] | None = None,
) -> AsyncIterator[gateway_main.RunningGateway]:
    """A gateway in front of ``backend`` (or of ``addresses``), on a free port by default."""
    running = await gateway_main.start(
        backend.settings,
        backend.keys,
        config or GatewayConfig(port=0),
        addresses=upstreams(backend) if addresses is None else addresses,
    )
    try:
        yield running
    finally:
        await running.stop()


@contextlib.asynccontextmanager
async def backend_and_gateway(
    settings: Settings, **backend_options: Any
) -> AsyncIterator[tuple[Backend, gateway_main.RunningGateway]]:
    """A backend on the test NATS (``start_backend`` options passed on), the gateway in front."""
    backend = await start_backend(settings, embedded_nats=False, **backend_options)
    try:
        async with gateway_for(backend) as gateway:
            yield backend, gateway
    finally:
        await backend.stop(1)


@contextlib.asynccontextmanager
async def bare_gateway(config: GatewayConfig, addresses: dict[str, str]) -> AsyncIterator[str]:
    """The gateway's app alone (no tokens, no backend) in front of ``addresses``, on a free
    port of 127.0.0.1: its URL."""
    app_runner = runner(build_app(Gateway(config, Upstreams(addresses))), config)
    await app_runner.setup()
    site = web.TCPSite(app_runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await app_runner.cleanup()
