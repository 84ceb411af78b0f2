"""Compose the backend in one process: every service on its own gRPC port.

``neon up`` and ``neon play --embedded`` use this, and so do the integration tests.
Each service is still its own server with its own store; they only share the process.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.dice import main as dice_main
from services.platform import bus
from services.platform.keys import Keys, load_keys
from services.platform.logs import get_logger
from services.platform.natsrv import EmbeddedNats, free_port, port_open
from services.platform.running import RunningService
from services.platform.settings import Settings
from services.platform.stream_limits import LOOPBACK_GATEWAYS
from services.platform.tokens import TokenIssuer
from services.rules import main as rules_main
from services.rules.games import available

log = get_logger("backend")
ORGANISER_TTL = 30 * 24 * 3600


@dataclass
class Backend:
    settings: Settings
    keys: Keys
    services: dict[str, RunningService] = field(default_factory=dict)
    nats: EmbeddedNats | None = None
    nats_client: Any = None
    metrics: Any = None
    """The ``/metrics`` endpoint (a metrics.MetricsServer) when settings.metrics_port is set."""
    scratch: Path | None = None
    """A temporary folder holding its stores, removed when it stops (:func:`start_scratch_backend`)."""

    @property
    def issuer(self) -> TokenIssuer:
        return TokenIssuer(self.keys.token_secret)

    def organiser_token(self) -> str:
        return self.issuer.issue("organiser", "*", player="organiser", ttl=ORGANISER_TTL)

    def bot_driver_token(self) -> str:
        """A service token: the only kind that may seat ``bot-`` players."""
        return self.issuer.issue("service", "*", player="bot-driver", ttl=ORGANISER_TTL)

    def address(self, service: str) -> str:
        return self.services[service].address

    def endpoints(self) -> dict[str, str]:
        out = {name: svc.address for name, svc in self.services.items()}
        out["nats"] = self.settings.nats_url
        return out

    @property
    def metrics_url(self) -> str:
        return self.metrics.url if self.metrics is not None else ""

    async def stop(self, grace: float = 5.0) -> None:
        for name in reversed(list(self.services)):
            await self.services.pop(name).stop(grace)
        if self.metrics is not None:
            await self.metrics.stop()
            self.metrics = None
        if self.nats_client is not None:
            await self.nats_client.drain()
            self.nats_client = None
        if self.nats is not None:
            self.nats.stop()
            self.nats = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def _with_address(settings: Settings, service: str, address: str) -> Settings:
    return dataclasses.replace(settings, addresses={**settings.addresses, service: address})


async def start_backend(
    settings: Settings,
    games: list[str] | None = None,
    *,
    embedded_nats: bool | None = None,
    engines: dict[str, Any] | None = None,
    scoring: bool = False,
    matchmaking: bool = False,
    matchmaking_config: Any = None,
    tournament: bool = False,
    tournament_options: Any = None,
) -> Backend:
    """Start NATS (bundled unless NATS_URL is set, or as ``embedded_nats`` says), dice, rules.

    The services trust a gateway on loopback (``LOOPBACK_GATEWAYS``) unless
    NEON_TRUSTED_GATEWAYS says otherwise (``settings.trusted_gateways``).

    ``engines`` maps extra game ids to engine objects (tests use a toy engine).
    ``scoring`` starts the scoring service (results and ratings from the match events).
    ``matchmaking`` starts the matchmaking service last, pointed at every service started
    before it (``matchmaking_config``: a matchmaking ``Config``, default from the environment).
    ``tournament`` starts the tournament service last (``tournament_options``: its
    director's ``Options``).
    """
    if settings.trusted_gateways is None:
        settings = dataclasses.replace(settings, trusted_gateways=LOOPBACK_GATEWAYS)
    keys = load_keys(settings)
    backend = Backend(settings, keys)
    try:
        if embedded_nats or (embedded_nats is None and not settings.nats_configured):
            backend.nats = EmbeddedNats(Path(settings.var_dir) / "nats",
                                        port=bundled_nats_port(settings)).start()
            settings = dataclasses.replace(settings, nats_url=backend.nats.url)
            backend.settings = settings
        backend.nats_client = await bus.connect(settings.nats_url, "neon-backend")
        if settings.metrics_port:  # every service of the process reports into one registry
            from services.platform import metrics

            backend.metrics = await metrics.serve(settings.metrics_bind_host,
                                                  settings.metrics_port, settings.host)
        dice = await dice_main.start(settings, keys)
        backend.services["dice"] = dice
        settings = _with_address(settings, "dice", dice.address)
        for game in games if games is not None else available():
            service = await rules_main.start(game, settings, keys, backend.nats_client)
            backend.services[service.name] = service
        for game, engine in (engines or {}).items():
            service = await rules_main.start(game, settings, keys, backend.nats_client, engine)
            backend.services[service.name] = service
        if scoring:  # before matchmaking, which reads its ratings
            from services.scoring import main as scoring_main

            service = await scoring_main.start(settings, keys, backend.nats_client,
                                               games=list(engines or {}))
            backend.services[service.name] = service
            settings = _with_address(settings, service.name, service.address)
        if matchmaking:
            from services.matchmaking import main as mm_main

            for name, svc in backend.services.items():
                settings = _with_address(settings, name, svc.address)
            service = await mm_main.start(settings, keys, backend.nats_client,
                                          config=matchmaking_config)
            backend.services[service.name] = service
        if tournament:
            from services.tournament import main as tournament_main

            for name, svc in backend.services.items():
                settings = _with_address(settings, name, svc.address)
            service = await tournament_main.start(settings, keys, backend.nats_client,
                                                  options=tournament_options)
            backend.services[service.name] = service
        backend.settings = settings
    except BaseException:
        await backend.stop(0)
        raise
    log.info("backend up", endpoints=backend.endpoints(), metrics=backend.metrics_url)
    return backend


async def start_scratch_backend(settings: Settings, prefix: str, **kwargs: Any) -> Backend:
    """:func:`start_backend` on free ports, its stores in a new temporary folder (named
    ``prefix``...) that :meth:`Backend.stop` removes, as does a start that fails: a command's
    throwaway backend (``neon queue``, ``simulate`` and ``tournament simulate`` with
    ``--embedded``), which left a folder in /tmp on every run."""
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    ports = {name: 0 for name in settings.ports}
    if kwargs.get("tournament"):
        ports["tournament"] = 0
    try:
        backend = await start_backend(
            dataclasses.replace(settings, ports=ports, var_dir=scratch), **kwargs)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    backend.scratch = scratch
    return backend


def bundled_nats_port(settings: Settings) -> int:
    """The port of ``nats_url`` when it is free, else any free port: a bundled server never
    joins, nor fails on, a NATS that another run left on the default port."""
    host, port = _nats_host_port(settings.nats_url)
    return free_port() if port_open(host, port) else port


def _nats_host_port(url: str) -> tuple[str, int]:
    rest = url.split("://", 1)[-1].split(",")[0]
    rest = rest.rsplit("@", 1)[-1]
    host, _, port = rest.partition(":")
    return host or "127.0.0.1", int(port or 4222)
