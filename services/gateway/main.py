"""Start the gateway: an aiohttp server in this process's event loop."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from aiohttp import web

from services.gateway.app import Gateway, Upstreams, build_app, runner
from services.gateway.config import GatewayConfig, load_config
from services.platform import metrics
from services.platform.keys import Keys
from services.platform.logs import get_logger
from services.platform.settings import Settings
from services.platform.tokens import TokenIssuer

NAME = "gateway"
log = get_logger("gateway")


def upstream_addresses(settings: Settings) -> dict[str, str]:
    """Where each public service is, found the way the CLI finds them (NEON_<SERVICE>_ADDR,
    else NEON_HOST and the service's port), for every game this build has."""
    from services.rules.games import available

    names = ["matchmaking", "scoring", "tournament", "dice", *(f"rules-{g}" for g in available())]
    names += [n for n in settings.addresses if n.startswith("rules-") and n not in names]
    return {n: settings.address(n) for n in names if n in settings.addresses or n in settings.ports}


@dataclass
class RunningGateway:
    runner: web.AppRunner
    upstreams: Upstreams
    address: str
    name: str = NAME

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    async def stop(self, grace: float = 5.0) -> None:
        await self.runner.shutdown()
        await self.runner.cleanup()
        await self.upstreams.close()
        log.info("gateway stopped")


async def start(
    settings: Settings,
    keys: Keys,
    config: GatewayConfig | None = None,
    addresses: dict[str, str] | None = None,
) -> RunningGateway:
    config = config or load_config()
    upstreams = Upstreams(addresses if addresses is not None else upstream_addresses(settings))
    issuer = TokenIssuer(keys.token_secret)

    def service_token() -> str:
        return issuer.issue("service", "*", player="gateway", ttl=300)

    gateway = Gateway(
        config,
        upstreams,
        service_token if config.replay_from_service else None,
        # this deployment's key, and its earlier ones across a rotation
        # (NEON_PREVIOUS_PUBLIC_KEYS): an export signed before it is still one of its own
        keys.trusted_keys(),
    )
    app = build_app(gateway)
    if settings.serves_metrics:  # else requests are neither counted nor timed
        app.middlewares.append(metrics.http_middleware(NAME))
    app_runner = runner(app, config)
    await app_runner.setup()
    site = web.TCPSite(app_runner, settings.bind_host, config.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    address = f"{settings.host}:{port}"
    log.info(
        "gateway serving",
        address=address,
        upstreams=upstreams.addresses,
        cors=list(config.cors_origins),
    )
    return RunningGateway(app_runner, upstreams, address)


def with_port(config: GatewayConfig, port: int) -> GatewayConfig:
    return dataclasses.replace(config, port=port)
