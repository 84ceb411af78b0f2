"""Start the dice service."""

from __future__ import annotations

import asyncio

from services.dice.app import DiceApplication
from services.dice.domain import dev_secret
from services.dice.service import SERVICE_NAME, register
from services.platform import storehealth
from services.platform.grpc_kit import start_server
from services.platform.keys import Keys
from services.platform.running import RunningService
from services.platform.settings import Settings
from services.platform.store import close_when_idle, eventsourcing_env, open_application
from services.platform.tokens import TokenIssuer

NAME = "dice"


async def start(settings: Settings, keys: Keys) -> RunningService:
    app = await asyncio.to_thread(open_application, settings, lambda: DiceApplication(
        env=eventsourcing_env(settings, NAME),
        allow_dev_seeds=not settings.tournament,
        dev_secret=dev_secret(keys.token_secret),
    ))
    address = f"{settings.bind_host}:{settings.ports[NAME]}"
    handle = await start_server(
        address, lambda server: register(server, app), [SERVICE_NAME],
        TokenIssuer(keys.token_secret), settings.stream_limits(),
        metrics=settings.serves_metrics,
    )
    return RunningService(NAME, handle, f"{settings.host}:{handle.port}", closers=[storehealth.watch(settings, handle, NAME), lambda: close_when_idle(app)])
